/**
 * The load process of `load.ts`: receives one plan, runs it, answers the timings and exits.
 * Requests go through `node:http` with one kept-alive socket per client, as a load generator (wrk,
 * autocannon) would: `fetch` cost this process about twice the CPU per request, and on this 2-core
 * machine that CPU is taken from the stack being measured. Answers are read whole but not parsed
 * (a client's parsing is not the server's latency); the one-client runs parse and count them.
 */
import http from 'node:http';
import type { LoadPlan, LoadResult } from './load.js';

function get(agent: http.Agent, apiUrl: string, token: string, path: string): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = http.get(`${apiUrl}${path}`, { agent, headers: { authorization: `Bearer ${token}` }, timeout: 30_000 }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', reject);
    });
    req.on('timeout', () => req.destroy(new Error(`GET ${path}: no answer in 30 s`)));
    req.on('error', reject);
  });
}

process.once('message', async (plan: LoadPlan) => {
  const latencies: number[] = [];
  const failures: string[] = [];
  const clients = plan.clients.map((c) => ({ ...c, agent: new http.Agent({ keepAlive: true, maxSockets: 1 }) }));
  // One untimed request per client first: its connection is open before the clock starts.
  await Promise.all(clients.map((c) => (c.paths[0] ? get(c.agent, plan.apiUrl, c.token, c.paths[0]) : undefined)));
  const t0 = performance.now();
  await Promise.all(
    clients.map(async (c) => {
      for (const path of c.paths) {
        const t = performance.now();
        const res = await get(c.agent, plan.apiUrl, c.token, path);
        latencies.push(performance.now() - t);
        if (res.status !== 200) failures.push(`GET ${path}: HTTP ${res.status} ${res.text.slice(0, 300)}`);
      }
    }),
  );
  const result: LoadResult = { latencies, wallMs: performance.now() - t0, failures };
  process.send!(result, () => process.exit(0));
});
