/**
 * Inbound message → event on the agent's WebSocket. Customers write through the sandbox on a fixed
 * schedule (message i at start + i/rate s, customer i mod customers) without waiting for earlier
 * sends; the latency of a message is from just before its sandbox POST to the arrival of the
 * `appMessage` frame with action `create` and its WhatsApp id.
 */
import { GetQueueAttributesCommand, SQSClient } from '@aws-sdk/client-sqs';
import type { Endpoints } from '../local/stack.js';
import { agentSocket, connectedSandbox, must, sandbox, sleep, summarize, tenant, type Api } from './client.js';

export async function latencyBench(ctx: { endpoints: Endpoints; env: Record<string, string>; sup: Api; log: (line: string) => void }, opts: { rate: number; seconds: number; customers: number; referenceRate: number; referenceSeconds: number }) {
  const e = ctx.endpoints;
  const t = await tenant(e, ctx.sup);
  const ws = await agentSocket(e, t.admin.token);
  const connectionId = await connectedSandbox(e, t, ws);
  const appMessage = `company-${t.companyId}-appMessage`;
  const customers = Array.from({ length: opts.customers }, (_, i) => `55119${String(80_000_000 + i).padStart(8, '0')}`);

  // Warm-up (not measured): each customer's first message opens its ticket, as in a running shop.
  ctx.log(`latency: warm-up, one message from each of ${customers.length} customers`);
  const warm = await Promise.all(
    customers.map(async (from, i) => must(await sandbox<{ id: string }>(e, 'POST', `/connections/${connectionId}/messages`, { from, name: `Cliente ${i}`, body: 'Oi' }), 'warm-up message').id),
  );
  await Promise.all(warm.map((id) => ws.waitFor((f) => f.event === appMessage && f.data.action === 'create' && f.data.message?.id === id, `warm-up ${id}`, 60_000)));
  await sleep(2000);

  const reference = await phase(opts.referenceRate, opts.referenceSeconds, 'reference');
  await sleep(2000);
  const main = await phase(opts.rate, opts.seconds, 'main');
  ws.close();
  return {
    unit: 'ms',
    method: `${main.sent} customer messages via POST {sandboxUrl}/connections/{id}/messages at ${opts.rate}/s (fixed schedule, not back-to-back) for ${opts.seconds} s from ${customers.length} customers with open tickets; latency = arrival of the matching 'company-<id>-appMessage' frame (action create) on one agent WebSocket minus the time just before the POST. After the last send, waits until every accepted message arrived, stopping early only if nothing arrives for 30 s (then the missing ones count as lost) or after 180 s`,
    target: 'p50 and p99 at 20 messages/s for 60 s (issue 3 §6 names no threshold); lost must be 0',
    ...main,
    reference: { rate: opts.referenceRate, seconds: opts.referenceSeconds, note: 'the same measurement at a low rate first, for the latency without a backlog', ...reference },
  };

  /**
   * Where messages wait, sampled every second: events the sandbox network holds for the device (not
   * yet acknowledged by the session host), and the inbound and realtime queues (visible + in flight).
   */
  function backlogSampler(start: number) {
    const sqs = new SQSClient({ region: ctx.env.AWS_REGION, endpoint: ctx.env.SQS_ENDPOINT, credentials: { accessKeyId: 'local', secretAccessKey: 'local' } });
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
            sandbox<{ pending: number }>(e, 'GET', `/connections/${connectionId}`),
            depth(ctx.env.INBOUND_QUEUE_URL),
            depth(ctx.env.REALTIME_QUEUE_URL),
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
        const every5 = samples.filter((_, i) => i % 5 === 0);
        return {
          method: 'sampled every 1 s: sandbox GET /connections/{id} pending (events not yet acknowledged by the device = session host), SQS inbound and realtime queue depth (visible + in flight)',
          max: { sandboxPending: max('sandboxPending'), inboundQueue: max('inboundQueue'), realtimeQueue: max('realtimeQueue') },
          every5s: every5,
        };
      },
    };
  }

  async function phase(rate: number, seconds: number, label: string) {
    const arrivals = new Map<string, number>();
    const stop = ws.onFrame((f) => {
      if (f.event === appMessage && f.data.action === 'create' && typeof f.data.message?.id === 'string' && !arrivals.has(f.data.message.id)) arrivals.set(f.data.message.id, f.at);
    });
    const total = Math.round(rate * seconds);
    const intervalMs = 1000 / rate;
    const sent: { id?: string; before: number; after?: number; error?: string; lateMs: number }[] = [];
    ctx.log(`latency (${label}): ${total} messages at ${rate}/s over ${seconds} s from ${customers.length} customers`);
    const start = performance.now() + 100;
    const sampler = backlogSampler(start);
    const inflight: Promise<void>[] = [];
    for (let i = 0; i < total; i++) {
      const due = start + i * intervalMs;
      const wait = due - performance.now();
      if (wait > 0) await sleep(wait);
      const rec: (typeof sent)[number] = { before: performance.now(), lateMs: 0 };
      rec.lateMs = rec.before - due;
      sent.push(rec);
      inflight.push(
        sandbox<{ id: string }>(e, 'POST', `/connections/${connectionId}/messages`, { from: customers[i % customers.length], body: `Mensagem ${label} ${i} do teste de carga` })
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
    // Drain: until every accepted message arrived; a stall of 30 s or 180 s in all ends it.
    const drainStart = Date.now();
    let lastCount = -1;
    let lastChange = Date.now();
    let drainEnd = 'all arrived';
    while (sent.some((s) => s.id && !arrivals.has(s.id))) {
      if (arrivals.size !== lastCount) {
        lastCount = arrivals.size;
        lastChange = Date.now();
      }
      if (Date.now() - lastChange > 30_000) {
        drainEnd = 'nothing arrived for 30 s';
        break;
      }
      if (Date.now() - drainStart > 180_000) {
        drainEnd = 'drain limit of 180 s';
        break;
      }
      await sleep(100);
    }
    stop();
    const backlog = await sampler.stop();
    const ok = sent.filter((s) => s.id);
    const arrived = ok.filter((s) => arrivals.has(s.id!));
    const lost = ok.filter((s) => !arrivals.has(s.id!)).map((s) => s.id!);
    const errors = sent.filter((s) => s.error).map((s) => s.error!);
    const late = sent.map((s) => s.lateMs);
    const lastArrival = Math.max(...arrived.map((s) => arrivals.get(s.id!)!));
    ctx.log(`latency (${label}): ${arrived.length}/${total} arrived, ${lost.length} lost (${drainEnd})`);
    return {
      sent: total,
      accepted: ok.length,
      sendErrors: errors.length,
      sendErrorSamples: errors.slice(0, 5),
      received: arrived.length,
      lost: lost.length,
      lostSamples: lost.slice(0, 5),
      drainEnded: drainEnd,
      latency: summarize(arrived.map((s) => arrivals.get(s.id!)! - s.before)),
      latencyFromPostReturn: summarize(arrived.map((s) => arrivals.get(s.id!)! - s.after!)),
      sandboxPostMs: summarize(ok.map((s) => s.after! - s.before)),
      schedule: { achievedRatePerSecond: Math.round((total / (sendSpanMs / 1000)) * 10) / 10, maxLateMs: Math.round(Math.max(...late) * 10) / 10, p99LateMs: summarize(late).p99 },
      timeline: timeline(arrived.map((s) => ({ sentS: (s.before - start) / 1000, ms: arrivals.get(s.id!)! - s.before }))),
      backlog,
      throughput: {
        unit: 'messages/s',
        receivedPerSecond: Math.round((arrived.length / ((lastArrival - start) / 1000)) * 10) / 10,
        method: 'messages received / (last arrival - first send)',
        lastArrivalAfterLastSendS: Math.round((lastArrival - sent.at(-1)!.before) / 100) / 10,
      },
    };
  }
}

/** Latency by 5-second slice of send time: shows a backlog building or a stall. */
function timeline(points: { sentS: number; ms: number }[]) {
  const slices = new Map<number, number[]>();
  for (const p of points) {
    const k = Math.floor(p.sentS / 5) * 5;
    slices.set(k, [...(slices.get(k) ?? []), p.ms]);
  }
  return [...slices.entries()].sort((a, b) => a[0] - b[0]).map(([fromS, ms]) => {
    const s = summarize(ms);
    return { sentFromS: fromS, count: s.count, p50: s.p50, max: s.max };
  });
}
