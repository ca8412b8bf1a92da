import path from 'node:path';
import type { Log } from './http-util.js';
import { childService, type ChildServiceControl } from './child-service.js';

const MAIN = path.join('session-host', 'src', 'main.ts');

export type SessionHostControl = ChildServiceControl;

/**
 * The session host as a child process (`node --import tsx session-host/src/main.ts`), the way ECS
 * runs it: its own process, SIGTERM to stop. Output lines go to the stack log as `[session-host]`.
 */
export function sessionHostProcess(opts: { env: Record<string, string>; port: number; log: Log }): SessionHostControl {
  return childService({
    name: 'session-host',
    main: MAIN,
    log: opts.log,
    port: opts.port,
    // main.ts gives itself 45 s; beyond that something is stuck.
    stopTimeoutMs: 50_000,
    env: {
      // Not a Lambda: the stack process's emulation of Lambda concurrency stays there, and the
      // companies' secrets key stays with the functions (the session host never opens one).
      ...withoutSecretsKey(withoutLambdaConcurrency(process.env)),
      ...withoutSecretsKey(opts.env),
      // Loopback only, like every local service (issue 16 §6).
      HEALTH_HOST: '127.0.0.1',
      // A restarted process takes its own leases back at once instead of waiting for them to expire.
      SESSION_HOST_TASK_ID: process.env.SESSION_HOST_TASK_ID ?? 'local-session-host',
      SESSION_HOST_EXIT_WITH_STDIN: '1',
    },
  });
}

function withoutLambdaConcurrency(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const { AWS_LAMBDA_MAX_CONCURRENCY: _dropped, ...rest } = env;
  return rest;
}

function withoutSecretsKey<T extends Record<string, string | undefined>>(env: T): T {
  const { SECRETS_LOCAL_KEY: _dropped, ...rest } = env;
  return rest as T;
}
