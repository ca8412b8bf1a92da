/**
 * The load side of the latency benchmark (issue 23), in its own process:
 * `node --import tsx infra/bench/latency-load.ts <config.json> <result.json>`.
 * Opens the agents' sockets, has the watchers open their conversation, then per rate sends the
 * customers' messages on a fixed schedule and measures their arrival on every console.
 */
import fs from 'node:fs';
import os from 'node:os';
import { GetQueueAttributesCommand, SQSClient } from '@aws-sdk/client-sqs';
import type { Endpoints } from '../local/stack.js';
import { agentSocket, apiAs, sandbox, sleep, summarize, type AgentSocket, type Frame } from './client.js';

export interface LoadConfig {
  endpoints: Endpoints;
  sqs: { endpoint: string; region: string; inboundQueueUrl: string; realtimeQueueUrl: string };
  companyId: number;
  connectionId: number;
  customers: string[];
  /** The open ticket of each customer (same order). */
  customerTickets: number[];
  consoles: { token: string; userId: number; watchTicketId?: number }[];
  rates: number[];
  seconds: number;
}

export type PhaseResult = Awaited<ReturnType<typeof phase>>;

const DRAIN_STALL_MS = 30_000;
const DRAIN_LIMIT_MS = 180_000;
/** GET /tickets per second during a phase: 20 consoles opening their lists now and then. */
const TICKETS_PROBE_RATE = 5;

/** The WhatsApp id of the customer message a frame carries, if it carries one. */
function messageIdIn(f: Frame): string | undefined {
  if (f.event.endsWith('-appMessage') && f.data?.action === 'create') return typeof f.data.message?.id === 'string' ? f.data.message.id : undefined;
  if (f.event.endsWith('-ticket') && typeof f.data?.message?.id === 'string') return f.data.message.id;
  return undefined;
}

let sockets: AgentSocket[] = [];

async function main() {
  const [cfgFile, outFile] = process.argv.slice(2);
  const config = JSON.parse(fs.readFileSync(cfgFile, 'utf8')) as LoadConfig;
  sockets = await Promise.all(config.consoles.map((c) => agentSocket(config.endpoints, c.token)));
  config.consoles.forEach((c, i) => c.watchTicketId && sockets[i].send({ action: 'joinChatBox', ticketId: c.watchTicketId }));
  await sleep(2000);
  const results: PhaseResult[] = [];
  for (const rate of config.rates) {
    results.push(await phase(config, rate));
    await sleep(3000);
  }
  sockets.forEach((s) => s.close());
  fs.writeFileSync(outFile, JSON.stringify(results));
}

async function phase(config: LoadConfig, rate: number) {
  const e = config.endpoints;
  const n = config.consoles.length;
  const seconds = config.seconds;
  const total = Math.round(rate * seconds);
  const intervalMs = 1000 / rate;
  const label = `${rate}/s`;
  const watchersOf = new Map<number, number[]>();
  config.consoles.forEach((c, i) => c.watchTicketId && watchersOf.set(c.watchTicketId, [...(watchersOf.get(c.watchTicketId) ?? []), i]));

  // Per message id: arrival on each console (any frame carrying it) and on its watchers (appMessage).
  const arrivals = new Map<string, (number | undefined)[]>();
  const watcherArrivals = new Map<string, Map<number, number>>();
  const seenAppMessage = sockets.map(() => new Set<string>());
  let duplicated = 0;
  const offs = sockets.map((s, i) =>
    s.onFrame((f) => {
      const id = messageIdIn(f);
      if (!id) return;
      let row = arrivals.get(id);
      if (!row) arrivals.set(id, (row = new Array(n)));
      row[i] ??= f.at;
      if (f.event.endsWith('-appMessage')) {
        if (seenAppMessage[i].has(id)) duplicated++;
        seenAppMessage[i].add(id);
        const watched = config.consoles[i].watchTicketId;
        if (watched !== undefined && Number(f.data.message?.ticketId) === watched) {
          let w = watcherArrivals.get(id);
          if (!w) watcherArrivals.set(id, (w = new Map()));
          if (!w.has(i)) w.set(i, f.at);
        }
      }
    }),
  );
  const wsBefore = await wsStats(e);
  const framesBefore = sockets.map((s) => s.received);
  const loadBefore = os.loadavg().map((x) => Math.round(x * 100) / 100);
  log(`phase ${label}: ${total} messages over ${seconds} s from ${config.customers.length} customers to ${n} consoles`);

  const sent: { id?: string; customer: number; before: number; after?: number; error?: string; lateMs: number }[] = [];
  const start = performance.now() + 100;
  const sampler = backlogSampler(config, start);
  let sending = true;
  const probe = ticketsProbe(config, () => sending);
  const inflight: Promise<void>[] = [];
  for (let i = 0; i < total; i++) {
    const due = start + i * intervalMs;
    const wait = due - performance.now();
    if (wait > 0) await sleep(wait);
    const rec: (typeof sent)[number] = { customer: i % config.customers.length, before: performance.now(), lateMs: 0 };
    rec.lateMs = rec.before - due;
    sent.push(rec);
    inflight.push(
      sandbox<{ id: string }>(e, 'POST', `/connections/${config.connectionId}/messages`, { from: config.customers[rec.customer], body: `Mensagem ${label} ${i} do teste de carga` })
        .then((res) => {
          rec.after = performance.now();
          if (res.status >= 300 || typeof res.body?.id !== 'string') rec.error = `HTTP ${res.status} ${JSON.stringify(res.body)}`;
          else rec.id = res.body.id;
        })
        .catch((err: Error) => {
          rec.error = err.message;
        }),
    );
  }
  const sendSpanMs = sent.at(-1)!.before - start + intervalMs;
  await Promise.all(inflight);
  sending = false;
  const tickets = await probe;

  const ok = sent.filter((s) => s.id);
  const pairsArrived = () => ok.reduce((a, s) => a + (arrivals.get(s.id!)?.filter((x) => x !== undefined).length ?? 0), 0);
  const drainStart = Date.now();
  let lastCount = -1;
  let lastChange = Date.now();
  let drainEnd = 'all arrived';
  for (;;) {
    const got = pairsArrived();
    if (got >= ok.length * n) break;
    if (got !== lastCount) {
      lastCount = got;
      lastChange = Date.now();
    }
    if (Date.now() - lastChange > DRAIN_STALL_MS) {
      drainEnd = 'nothing arrived for 30 s';
      break;
    }
    if (Date.now() - drainStart > DRAIN_LIMIT_MS) {
      drainEnd = 'drain limit of 180 s';
      break;
    }
    await sleep(100);
  }
  // Late events of this phase (the ticket updates after the last message) count in its posts.
  await sleep(1000);
  offs.forEach((off) => off());
  const wsAfter = await wsStats(e);
  const backlog = await sampler.stop();

  const latencies: number[] = [];
  const firstConsole: number[] = [];
  let lostPairs = 0;
  const lostSamples: string[] = [];
  for (const s of ok) {
    const row = arrivals.get(s.id!) ?? [];
    let first = Infinity;
    for (let i = 0; i < n; i++) {
      const at = row[i];
      if (at === undefined) {
        lostPairs++;
        if (lostSamples.length < 5) lostSamples.push(`${s.id} on console ${i}`);
      } else {
        latencies.push(at - s.before);
        first = Math.min(first, at - s.before);
      }
    }
    if (first < Infinity) firstConsole.push(first);
  }
  const watcherLatencies: number[] = [];
  let watcherLost = 0;
  for (const s of ok) {
    const watched = watchersOf.get(config.customerTickets[s.customer]) ?? [];
    for (const i of watched) {
      const at = watcherArrivals.get(s.id!)?.get(i);
      if (at === undefined) watcherLost++;
      else watcherLatencies.push(at - s.before);
    }
  }
  const errors = sent.filter((s) => s.error).map((s) => s.error!);
  const late = sent.map((s) => s.lateMs);
  const wsMessages = sockets.reduce((a, s, i) => a + s.received - framesBefore[i], 0);
  const lastArrival = Math.max(...ok.flatMap((s) => (arrivals.get(s.id!) ?? []).filter((x): x is number => x !== undefined)));
  log(`phase ${label}: ${ok.length} accepted; ${latencies.length}/${ok.length * n} console deliveries, ${lostPairs} lost, ${duplicated} duplicated (${drainEnd})`);
  return {
    rate,
    seconds,
    sent: total,
    accepted: ok.length,
    sendErrors: errors.length,
    sendErrorSamples: errors.slice(0, 5),
    consoles: n,
    latency: summarize(latencies),
    firstConsoleLatency: summarize(firstConsole),
    watchers: { latency: summarize(watcherLatencies), lost: watcherLost },
    deliveries: latencies.length,
    lost: lostPairs,
    lostSamples,
    duplicated,
    drainEnded: drainEnd,
    getTickets: tickets,
    posts: {
      total: wsAfter.posts - wsBefore.posts,
      perAcceptedMessage: Math.round(((wsAfter.posts - wsBefore.posts) / Math.max(1, ok.length)) * 100) / 100,
      bytesPerAcceptedMessage: Math.round((wsAfter.postBytes - wsBefore.postBytes) / Math.max(1, ok.length)),
      consoleFramesPerAcceptedMessage: Math.round((wsMessages / Math.max(1, ok.length)) * 100) / 100,
    },
    schedule: { achievedRatePerSecond: Math.round((total / (sendSpanMs / 1000)) * 10) / 10, maxLateMs: Math.round(Math.max(...late) * 10) / 10, p99LateMs: summarize(late).p99 },
    sandboxPostMs: summarize(ok.map((s) => s.after! - s.before)),
    throughput: {
      unit: 'messages/s',
      receivedPerSecond: Math.round((ok.length / ((lastArrival - start) / 1000)) * 10) / 10,
      lastArrivalAfterLastSendS: Math.round((lastArrival - sent.at(-1)!.before) / 100) / 10,
    },
    timeline: timeline(ok.map((s) => ({ sentS: (s.before - start) / 1000, ms: Math.max(...(arrivals.get(s.id!) ?? []).map((at) => (at === undefined ? Infinity : at - s.before))) }))),
    backlog,
    loadAverage: { before: loadBefore, after: os.loadavg().map((x) => Math.round(x * 100) / 100) },
  };
}

const log = (line: string) => process.stdout.write(`${line}\n`);

async function wsStats(e: Endpoints) {
  const r = await sandbox<{ posts: number; postBytes: number }>(e, 'GET', '/_local/ws-stats');
  return r.body;
}

/**
 * `GET /tickets` as the console's first list, at a fixed rate while `running()` (requests are not
 * held back by slow answers): the load it adds is the same whatever the stack's speed.
 */
async function ticketsProbe(config: LoadConfig, running: () => boolean) {
  const agent = apiAs(config.endpoints, config.consoles[Math.min(1, config.consoles.length - 1)].token);
  const ms: number[] = [];
  let errors = 0;
  const inflight: Promise<void>[] = [];
  const start = performance.now();
  for (let i = 0; running(); i++) {
    const wait = start + (i * 1000) / TICKETS_PROBE_RATE - performance.now();
    if (wait > 0) await sleep(wait);
    const t0 = performance.now();
    inflight.push(
      agent
        .get('/tickets?status=pending&showAll=true')
        .then((r) => (r.status === 200 ? void ms.push(performance.now() - t0) : void errors++))
        .catch(() => void errors++),
    );
  }
  await Promise.all(inflight);
  return { ...summarize(ms), errors, ratePerSecond: TICKETS_PROBE_RATE, query: 'status=pending&showAll=true' };
}

/** Where messages wait, sampled every second: the sandbox's undelivered events and the two queues. */
function backlogSampler(config: LoadConfig, start: number) {
  const sqs = new SQSClient({ region: config.sqs.region, endpoint: config.sqs.endpoint, credentials: { accessKeyId: 'local', secretAccessKey: 'local' } });
  const depth = async (url: string) => {
    const a = (await sqs.send(new GetQueueAttributesCommand({ QueueUrl: url, AttributeNames: ['ApproximateNumberOfMessages', 'ApproximateNumberOfMessagesNotVisible'] }))).Attributes ?? {};
    return Number(a.ApproximateNumberOfMessages ?? 0) + Number(a.ApproximateNumberOfMessagesNotVisible ?? 0);
  };
  const samples: { atS: number; sandboxPending: number; inboundQueue: number; realtimeQueue: number }[] = [];
  let running = true;
  const loop = (async () => {
    while (running) {
      try {
        const [conn, inboundQueue, realtimeQueue] = await Promise.all([
          sandbox<{ pending: number }>(config.endpoints, 'GET', `/connections/${config.connectionId}`),
          depth(config.sqs.inboundQueueUrl),
          depth(config.sqs.realtimeQueueUrl),
        ]);
        samples.push({ atS: Math.round((performance.now() - start) / 100) / 10, sandboxPending: Number(conn.body?.pending ?? NaN), inboundQueue, realtimeQueue });
      } catch {
        /* a missed sample */
      }
      await sleep(1000);
    }
  })();
  return {
    async stop() {
      running = false;
      await loop;
      const max = (k: 'sandboxPending' | 'inboundQueue' | 'realtimeQueue') => Math.max(0, ...samples.map((x) => x[k]).filter(Number.isFinite));
      return {
        method: 'sampled every 1 s: sandbox pending events (not yet acknowledged by the session host), SQS inbound and realtime queue depth (visible + in flight)',
        max: { sandboxPending: max('sandboxPending'), inboundQueue: max('inboundQueue'), realtimeQueue: max('realtimeQueue') },
        every5s: samples.filter((_, i) => i % 5 === 0),
      };
    },
  };
}

/** Latency (slowest console) by 5-second slice of send time: shows a backlog building or a stall. */
function timeline(points: { sentS: number; ms: number }[]) {
  const slices = new Map<number, number[]>();
  for (const p of points) {
    const k = Math.floor(p.sentS / 5) * 5;
    slices.set(k, [...(slices.get(k) ?? []), p.ms]);
  }
  return [...slices.entries()].sort((a, b) => a[0] - b[0]).map(([fromS, ms]) => {
    const s = summarize(ms.filter(Number.isFinite));
    return { sentFromS: fromS, count: s.count, p50: s.p50, max: s.max };
  });
}

if (process.argv[1]?.endsWith('latency-load.ts')) {
  main().catch((err) => {
    process.stderr.write(`${(err as Error).stack ?? err}\n`);
    process.exit(1);
  });
}
