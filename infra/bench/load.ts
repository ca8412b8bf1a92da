/**
 * The concurrent clients of a benchmark phase run in a process of their own, as a load generator on
 * another machine would: their HTTP and JSON work does not queue on the stack's event loop, and a
 * busy stack does not delay the moment their answers are timed. (In the stack's own process, with
 * its event loop saturated, a client's latency included the wait for that loop.)
 */
import { fork } from 'node:child_process';

export interface LoadPlan {
  apiUrl: string;
  /** Each client's requests, made one after another; the clients run at once. */
  clients: { token: string; paths: string[] }[];
}

export interface LoadResult {
  /** Milliseconds of each request, from the request's start to its whole answer parsed. */
  latencies: number[];
  wallMs: number;
  /** Requests that did not answer 200 (the phase fails with them). */
  failures: string[];
}

export function runLoad(plan: LoadPlan): Promise<LoadResult> {
  return new Promise((resolve, reject) => {
    const child = fork(new URL('./load-client.ts', import.meta.url), { execArgv: ['--import', 'tsx'], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    let result: LoadResult | undefined;
    child.once('message', (m) => (result = m as LoadResult));
    child.once('error', reject);
    child.once('exit', (code) => {
      if (!result) return reject(new Error(`load process exited with ${code} before answering`));
      if (result.failures.length) return reject(new Error(`load: ${result.failures.length} failed requests, first: ${result.failures[0]}`));
      resolve(result);
    });
    child.send(plan);
  });
}
