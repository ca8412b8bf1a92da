import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { onLines, type Log } from './http-util.js';

const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const MAIN = path.join('session-host', 'src', 'main.ts');

export interface SessionHostControl {
  /** `http://127.0.0.1:<port>/health` of the running process (same port across restarts). */
  url: string;
  /** Process id of the running session host (0 while stopped). */
  pid(): number;
  /** Starts it if stopped and waits until its health answers. */
  start(): Promise<void>;
  /** SIGTERM (sessions closed without logout, leases released) and waits for the exit. */
  stop(): Promise<void>;
  /** SIGKILL, as a crash: nothing settled, released or closed. Waits for the exit. */
  kill(): Promise<void>;
  restart(): Promise<void>;
}

/**
 * The session host as a child process (`node --import tsx session-host/src/main.ts`), the way ECS
 * runs it: its own process, SIGTERM to stop. Output lines go to the stack log as `[session-host]`.
 * It also exits when the stack process dies without stopping it (its stdin closes): no orphans.
 */
export function sessionHostProcess(opts: { env: Record<string, string>; port: number; log: Log }): SessionHostControl {
  const url = `http://127.0.0.1:${opts.port}/health`;
  let child: ChildProcess | undefined;
  let exited: Promise<void> = Promise.resolve();
  // Start and stop requests (stack code, the /_local routes) run one after another.
  let chain: Promise<unknown> = Promise.resolve();
  const serial = (fn: () => Promise<void>) => {
    const next = chain.then(fn, fn);
    chain = next.catch(() => {});
    return next;
  };

  const healthy = async () => {
    try {
      return (await fetch(url, { signal: AbortSignal.timeout(1000) })).status === 200;
    } catch {
      return false;
    }
  };

  const launch = async () => {
    if (child) return;
    const proc = spawn(process.execPath, ['--import', 'tsx', MAIN], {
      cwd: REPO_ROOT,
      env: {
        // Not a Lambda: the stack process's emulation of Lambda concurrency stays there, and the
        // companies' secrets key stays with the functions (the session host never opens one).
        ...withoutSecretsKey(withoutLambdaConcurrency(process.env)),
        ...withoutSecretsKey(opts.env),
        PORT: String(opts.port),
        // Loopback only, like every local service (issue 16 §6).
        HEALTH_HOST: '127.0.0.1',
        // A restarted process takes its own leases back at once instead of waiting for them to expire.
        SESSION_HOST_TASK_ID: process.env.SESSION_HOST_TASK_ID ?? 'local-session-host',
        SESSION_HOST_EXIT_WITH_STDIN: '1',
      },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    child = proc;
    let gone = false;
    exited = new Promise<void>((resolve) =>
      proc.once('exit', (code, signal) => {
        gone = true;
        if (child === proc) {
          child = undefined;
          opts.log('session-host', `!!! the session host exited unexpectedly (${signal ?? code})`);
        }
        resolve();
      }),
    );
    proc.on('error', (e) => opts.log('session-host', `!!! could not start: ${e.message}`));
    onLines(proc.stdout, (l) => opts.log('session-host', l));
    onLines(proc.stderr, (l) => opts.log('session-host', l));
    const deadline = Date.now() + 60_000;
    while (!(await healthy())) {
      if (gone) throw new Error('the session host exited during start (see the [session-host] log lines)');
      if (Date.now() > deadline) throw new Error(`the session host did not answer ${url} within 60 s`);
      await new Promise((r) => setTimeout(r, 200));
    }
    opts.log('session-host', `running (pid ${proc.pid}), health ${url}`);
  };

  const terminate = async () => {
    const proc = child;
    if (!proc) return;
    child = undefined; // an exit from now on is expected
    proc.kill('SIGTERM');
    // main.ts gives itself 45 s; beyond that something is stuck.
    const kill = setTimeout(() => proc.kill('SIGKILL'), 50_000);
    await exited;
    clearTimeout(kill);
    opts.log('session-host', `stopped (${proc.signalCode ?? `exit ${proc.exitCode}`})`);
  };

  const crash = async () => {
    const proc = child;
    if (!proc) return;
    child = undefined;
    proc.kill('SIGKILL');
    await exited;
    opts.log('session-host', 'killed (SIGKILL)');
  };

  return {
    url,
    pid: () => child?.pid ?? 0,
    start: () => serial(launch),
    stop: () => serial(terminate),
    kill: () => serial(crash),
    restart: () => serial(async () => {
      await terminate();
      await launch();
    }),
  };
}

function withoutLambdaConcurrency(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const { AWS_LAMBDA_MAX_CONCURRENCY: _dropped, ...rest } = env;
  return rest;
}

function withoutSecretsKey<T extends Record<string, string | undefined>>(env: T): T {
  const { SECRETS_LOCAL_KEY: _dropped, ...rest } = env;
  return rest as T;
}
