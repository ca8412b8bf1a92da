/**
 * Sockets per session-host process: one tenant whose plan allows the connections, N sandbox
 * connections created through the API, each scanned as soon as its QR is published, until all are
 * CONNECTED. Memory is the session host's VmRSS (/proc/<pid>/status), median of 5 samples 1 s apart
 * after a settle, before the first connection is created and after the last is CONNECTED.
 */
import fs from 'node:fs';
import type { Endpoints } from '../local/stack.js';
import WebSocket from 'ws';
import { agentSocket, must, sandbox, sleep, summarize, tenant, uniq, type Api } from './client.js';

/**
 * Full GC in the session host through its inspector (the bench starts it with --inspect=127.0.0.1:0),
 * then its V8 heap usage: without it, the startup garbage (tsx compiling the sources) dominates RSS.
 */
type Mem = { usedMB: number; totalMB: number; externalMB: number; arrayBuffersMB: number; rssMB: number };
async function collectGarbage(inspectorUrl: string, settleMs = 0): Promise<Mem> {
  const ws = new WebSocket(inspectorUrl);
  await new Promise<void>((resolve, reject) => (ws.once('open', () => resolve()), ws.once('error', reject)));
  let id = 0;
  const call = (method: string, params?: unknown) =>
    new Promise<any>((resolve, reject) => {
      const my = ++id;
      const timer = setTimeout(() => reject(new Error(`inspector ${method} timed out`)), 30_000);
      const on = (raw: WebSocket.RawData) => {
        const m = JSON.parse(String(raw)) as { id?: number; result?: unknown; error?: unknown };
        if (m.id !== my) return;
        ws.off('message', on);
        clearTimeout(timer);
        if (m.error) reject(new Error(`inspector ${method}: ${JSON.stringify(m.error)}`));
        else resolve(m.result);
      };
      ws.on('message', on);
      ws.send(JSON.stringify({ id: my, method, params }));
    });
  try {
    await call('HeapProfiler.collectGarbage');
    if (settleMs) await sleep(settleMs);
    await call('HeapProfiler.collectGarbage');
    const r = (await call('Runtime.evaluate', { expression: 'JSON.stringify(process.memoryUsage())', returnByValue: true })) as { result: { value: string } };
    const m = JSON.parse(r.result.value) as { rss: number; heapTotal: number; heapUsed: number; external: number; arrayBuffers: number };
    const mb = (v: number) => Math.round((v / 2 ** 20) * 10) / 10;
    return { usedMB: mb(m.heapUsed), totalMB: mb(m.heapTotal), externalMB: mb(m.external), arrayBuffersMB: mb(m.arrayBuffers), rssMB: mb(m.rss) };
  } finally {
    ws.close();
  }
}

function status(pid: number) {
  const text = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(text)?.[1] ?? NaN);
  return { rssKb: kb('VmRSS'), hwmKb: kb('VmHWM'), fds: fs.readdirSync(`/proc/${pid}/fd`).length };
}

async function rssMedian(pid: number) {
  const samples: number[] = [];
  for (let i = 0; i < 5; i++) {
    samples.push(status(pid).rssKb);
    await sleep(1000);
  }
  return samples.sort((a, b) => a - b)[2];
}

async function health(url: string) {
  const res = await fetch(url, { signal: AbortSignal.timeout(5000) });
  return (await res.json()) as { ok: boolean; sessions: number; shards: number[] };
}

async function pool<T>(items: T[], concurrency: number, fn: (item: T) => Promise<void>) {
  let next = 0;
  await Promise.all(Array.from({ length: concurrency }, async () => {
    while (next < items.length) await fn(items[next++]);
  }));
}

export async function sessionsBench(
  ctx: { endpoints: Endpoints; sup: Api; sessionHostPid: () => number; sessionHostUrl: string; inspectorUrl: () => string | undefined; log: (line: string) => void },
  opts: { connections: number; timeoutMs: number },
) {
  const e = ctx.endpoints;
  const n = opts.connections;
  const pid = ctx.sessionHostPid();
  if (!pid) throw new Error('the session host is not running');
  const t = await tenant(e, ctx.sup, { connections: n });
  const ws = await agentSocket(e, t.admin.token);
  const sessionEvent = `company-${t.companyId}-whatsappSession`;

  const inspector = ctx.inspectorUrl();
  if (!inspector) ctx.log('sessions: !!! no inspector URL from the session host; RSS without a full GC first');
  const heapBefore = inspector ? await collectGarbage(inspector, 10_000) : undefined;
  const healthBefore = await health(ctx.sessionHostUrl);
  const rssBeforeKb = await rssMedian(pid);
  const fdsBefore = status(pid).fds;
  ctx.log(`sessions: session host pid ${pid}, ${healthBefore.sessions} sessions, RSS ${(rssBeforeKb / 1024).toFixed(1)} MB; creating ${n} connections`);

  const ids = new Set<number>();
  const scanned = new Set<number>();
  const connected = new Map<number, number>();
  const scanErrors: string[] = [];
  const scanQueue: number[] = [];
  let wake: (() => void) | undefined;
  ws.onFrame((f) => {
    if (f.event !== sessionEvent) return;
    const s = f.data.session as { id: number; status: string; qrcode?: string };
    if (s.status === 'qrcode' && s.qrcode && !scanned.has(s.id)) {
      scanned.add(s.id);
      scanQueue.push(s.id);
      wake?.();
    }
    if (s.status === 'CONNECTED' && !connected.has(s.id)) connected.set(s.id, performance.now());
  });

  const t0 = performance.now();
  let done = false;
  // Scanner: scans QRs as they are published (the phone's owner scanning each one).
  const scanner = (async () => {
    while (!done) {
      const id = scanQueue.shift();
      if (id === undefined) {
        await new Promise<void>((r) => ((wake = r), setTimeout(r, 500)));
        continue;
      }
      const res = await sandbox(e, 'POST', `/connections/${id}/scan`);
      if (res.status >= 300) scanErrors.push(`connection ${id}: HTTP ${res.status} ${JSON.stringify(res.body)}`);
    }
  })();
  const createErrors: string[] = [];
  const createMs: number[] = [];
  const r1 = (v: number) => Math.round(v * 10) / 10;

  /** Two halves with a measurement between them: RSS right after start is inflated by startup garbage V8 gives back only slowly, so the marginal RSS per connection comes from the second half. */
  const phases: { connections: number; createS: number; connectedS: number; rssMB: number; openFds: number; heap?: Mem }[] = [];
  let connectSpentMs = 0;
  let index = 0;
  for (const count of [Math.floor(n / 2), n - Math.floor(n / 2)]) {
    const p0 = performance.now();
    await pool(Array.from({ length: count }, () => index++), 4, async (i) => {
      const c0 = performance.now();
      const res = await t.admin.post('/whatsapp', { name: `Loja ${i} ${uniq('')}`, provider: 'sandbox' });
      createMs.push(performance.now() - c0);
      if (res.status === 201) ids.add(res.body.id as number);
      else createErrors.push(`#${i}: HTTP ${res.status} ${JSON.stringify(res.body)}`);
    });
    const createdS = (performance.now() - p0) / 1000;
    ctx.log(`sessions: ${ids.size} created (${count} in ${createdS.toFixed(1)} s)${createErrors.length ? `; ${createErrors.length} failed, e.g. ${createErrors[0]}` : ''}`);
    while (connected.size < ids.size && performance.now() - t0 < opts.timeoutMs) await sleep(250);
    const connectedS = (performance.now() - p0) / 1000;
    connectSpentMs += performance.now() - p0;
    ctx.log(`sessions: ${connected.size}/${ids.size} CONNECTED (phase took ${connectedS.toFixed(1)} s); measuring`);
    if (connected.size < ids.size) break;
    await sleep(3000);
    const heap = inspector ? await collectGarbage(inspector, 5_000) : undefined;
    phases.push({ connections: connected.size, createS: r1(createdS), connectedS: r1(connectedS), rssMB: r1((await rssMedian(pid)) / 1024), openFds: status(pid).fds, heap });
  }
  done = true;
  wake?.();
  await scanner;
  const missing = [...ids].filter((id) => !connected.has(id));
  const missingStatuses: Record<string, number> = {};
  if (missing.length) {
    const list = must(await t.admin.get<any[]>('/whatsapp'), 'list connections');
    for (const c of list) if (missing.includes(c.id)) missingStatuses[c.status] = (missingStatuses[c.status] ?? 0) + 1;
  }
  const healthAfter = await health(ctx.sessionHostUrl);
  const { hwmKb } = status(pid);
  ws.close();
  const last = phases.at(-1);
  const half = phases.length === 2 ? phases[0] : undefined;
  const rssAfterKb = (last?.rssMB ?? NaN) * 1024;
  const deltaKb = rssAfterKb - rssBeforeKb;
  const heapAfter = last?.heap;
  return {
    method: `${n} sandbox connections (POST /whatsapp, 4 at a time) in one tenant whose plan allows ${n}, in two halves; each scanned (POST {sandboxUrl}/connections/{id}/scan) when its QR frame arrives on the admin socket; a half is done when every connection has sent a CONNECTED whatsappSession frame. Memory: a full GC in the session host (inspector HeapProfiler.collectGarbage, twice 5-10 s apart), then process.memoryUsage() in it and its VmRSS (/proc/<pid>/status, median of 5 samples 1 s apart), before the first connection, after the first half and after all`,
    connections: { requested: n, created: ids.size, scanned: scanned.size, connected: connected.size, createErrors: createErrors.slice(0, 5), scanErrors: scanErrors.slice(0, 5), notConnectedByStatus: missingStatuses },
    timeToConnectAll: { unit: 's', total: r1(connectSpentMs / 1000), method: 'sum over the two halves of first POST /whatsapp → last CONNECTED frame (the measurement pause between them excluded)' },
    createConnectionMs: { unit: 'ms', method: 'POST /whatsapp round trip, 4 concurrent', ...summarize(createMs) },
    sessionHost: { pid, sessionsBefore: healthBefore.sessions, sessionsAfter: healthAfter.sessions, shards: healthAfter.shards.length },
    memory: {
      unit: 'MB (totals), KB (per connection)',
      rssBeforeMB: r1(rssBeforeKb / 1024),
      rssAfterMB: r1(rssAfterKb / 1024),
      peakRssMB: r1(hwmKb / 1024),
      deltaMB: r1(deltaKb / 1024),
      perConnectionKB: connected.size ? r1(deltaKb / connected.size) : null,
      marginalRssPerConnectionKB: half && last ? r1(((last.rssMB - half.rssMB) * 1024) / (last.connections - half.connections)) : null,
      heapPerConnectionKB: heapBefore && heapAfter && connected.size ? r1(((heapAfter.usedMB - heapBefore.usedMB) * 1024) / connected.size) : null,
      heapPlusExternalPerConnectionKB:
        heapBefore && heapAfter && connected.size ? r1(((heapAfter.usedMB + heapAfter.externalMB - heapBefore.usedMB - heapBefore.externalMB) * 1024) / connected.size) : null,
      before: { sessions: healthBefore.sessions, rssMB: r1(rssBeforeKb / 1024), openFds: fdsBefore, heap: heapBefore },
      phases,
    },
    target: 'memory per sandbox connection at 200 connections (issue 3 §6 names no threshold)',
  };
}
