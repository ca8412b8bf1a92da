/** The load process of `load.ts`: receives one plan, runs it, answers the timings and exits. */
import type { LoadPlan, LoadResult } from './load.js';

async function get(apiUrl: string, token: string, path: string) {
  const res = await fetch(`${apiUrl}${path}`, { headers: { authorization: `Bearer ${token}` }, signal: AbortSignal.timeout(30_000) });
  const text = await res.text();
  // Parsed as the console parses it: part of a client's cost, as before.
  JSON.parse(text);
  return { status: res.status, text };
}

process.once('message', async (plan: LoadPlan) => {
  const latencies: number[] = [];
  const failures: string[] = [];
  // One untimed request per client first: its connection is open before the clock starts, as the
  // clients of the stack's process had theirs from the warm-up.
  await Promise.all(plan.clients.map((c) => (c.paths[0] ? get(plan.apiUrl, c.token, c.paths[0]) : undefined)));
  const t0 = performance.now();
  await Promise.all(
    plan.clients.map(async (c) => {
      for (const path of c.paths) {
        const t = performance.now();
        const res = await get(plan.apiUrl, c.token, path);
        latencies.push(performance.now() - t);
        if (res.status !== 200) failures.push(`GET ${path}: HTTP ${res.status} ${res.text.slice(0, 300)}`);
      }
    }),
  );
  const result: LoadResult = { latencies, wallMs: performance.now() - t0, failures };
  process.send!(result, () => process.exit(0));
});
