import path from 'node:path';
import type { Log } from './http-util.js';
import { childService, type ChildServiceControl } from './child-service.js';

/** Receive loops per queue in the workers process (BALCAO_WORKER_LOOPS overrides): Lambda polls a queue with several pollers too. */
export const WORKER_LOOPS = 2;

/**
 * The workers (SQS pollers and the sweeper) as a child process (infra/local/workers-main.ts). Its
 * `[part] text` lines go to the stack log under their own part.
 */
export function workersProcess(opts: { env: Record<string, string>; port: number; queues: { name: string; url: string; arn: string }[]; log: Log }): ChildServiceControl {
  return childService({
    name: 'workers',
    main: path.join('infra', 'local', 'workers-main.ts'),
    log: opts.log,
    port: opts.port,
    // Batches in hand finish first; the longest visibility timeout is two minutes.
    stopTimeoutMs: 60_000,
    env: { ...process.env, ...opts.env, LOCAL_QUEUES: JSON.stringify(opts.queues), LOCAL_WORKER_LOOPS: process.env.BALCAO_WORKER_LOOPS ?? String(WORKER_LOOPS) },
    onLine: (line) => {
      const m = /^\[([\w-]+)\] (.*)$/.exec(line);
      if (m) opts.log(m[1], m[2]);
      else opts.log('workers', line);
    },
  });
}
