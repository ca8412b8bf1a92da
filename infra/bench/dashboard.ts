/**
 * Issue 22 §1: `GET /dashboard` with a 90-day period on a company of 100 000 tickets, at `clients`
 * concurrent clients (target: p99 ≤ 200 ms at ten clients), and the two charts over the same 90 days.
 *
 * Data: the tickets benchmark's data set when `--data-dir` holds one made with the same sizes (the
 * tickets part's 100 000 tickets with a million messages take hours to write); otherwise a company
 * of `--tickets` tickets written here the same way (straight into the table with the product's key
 * helpers), without their messages, which the dashboard never reads: a year of ticket histories
 * (queued, accepted by one of `--agents` agents, closed, a third of them rated), the newest
 * `--pending-share` + `--open-share` (5 % by default) still pending or open. Their dashboard
 * aggregates are then written by the product's own aggregation of the
 * tickets (`aggregateTickets`, which the migration `rebuildDashboardStats` uses): what the live
 * writes would hold. A request sums a period's day and agent-day items; it never reads the tickets.
 */
import { zonedDayKey, DEFAULT_TIME_ZONE } from '@balcao/shared';
import { aggregateTickets, rebuildDashboardStats, rebuildTicketCounters, ticketIndexKeys, ticketKey, type TicketItem, type TicketStatus } from '@balcao/functions/tools';
import { PASSWORD, login, must, summarize, tenant, type Api } from './client.js';
import { runLoad } from './load.js';
import { reserveIds, TableWriter } from './table-writer.js';
import { existingData, type DataContext, type DataOptions } from './tickets-data.js';

export const DASHBOARD_TARGET_P99_MS = 200;

export interface DashboardOptions extends DataOptions {
  clients: number;
  requests: number;
  warmup: number;
}

const dayBefore = (day: string, n: number) => {
  const [y, m, d] = day.split('-').map(Number);
  return new Date(Date.UTC(y, m - 1, d - n)).toISOString().slice(0, 10);
};

export async function dashboardBench(ctx: DataContext & { log: (line: string) => void }, o: DashboardOptions) {
  const m = await existingData(ctx, o);
  let company: { companyId: number; admin: Api; source: string; aggregateItems: number };
  if (m) {
    const t0 = Date.now();
    const items = await rebuildDashboardStats(m.companyId);
    ctx.log(`dashboard: aggregates of company ${m.companyId} rebuilt from its tickets in ${((Date.now() - t0) / 1000).toFixed(1)} s (${items} items)`);
    company = { companyId: m.companyId, admin: await login(ctx.endpoints, m.admin.email, PASSWORD), source: `the tickets data set of ${ctx.dataDir}`, aggregateItems: items };
  } else company = await writeHistories(ctx, o);
  const items = company.aggregateItems;
  const admin = company.admin;
  const today = zonedDayKey(Date.now(), DEFAULT_TIME_ZONE);
  const from = dayBefore(today, 89);
  const sample = must(await admin.get('/dashboard?days=90'), 'dashboard') as { counters: Record<string, number | null>; attendants: unknown[] };
  ctx.log(`dashboard: 90 days: ${JSON.stringify(sample.counters)}; ${sample.attendants.length} attendants`);

  const phase = async (name: string, path: string) => {
    const clients = Array.from({ length: o.clients }, () => ({ token: admin.token, paths: Array(Math.ceil(o.requests / o.clients)).fill(path) as string[] }));
    if (o.warmup) await runLoad({ apiUrl: ctx.endpoints.apiUrl, clients: clients.map((c) => ({ ...c, paths: c.paths.slice(0, Math.ceil(o.warmup / o.clients)) })) });
    const r = await runLoad({ apiUrl: ctx.endpoints.apiUrl, clients });
    const s = summarize(r.latencies);
    const pass = s.p99 <= DASHBOARD_TARGET_P99_MS;
    const rps = Math.round((r.latencies.length / (r.wallMs / 1000)) * 10) / 10;
    ctx.log(`dashboard: ${name}: p50 ${s.p50} ms, p99 ${s.p99} ms at ${o.clients} clients (${rps} req/s; target p99 ≤ ${DASHBOARD_TARGET_P99_MS} ms) ${pass ? 'PASS' : 'MISS'}`);
    return { name, path, ...s, requestsPerSecond: rps, targetP99Ms: DASHBOARD_TARGET_P99_MS, pass };
  };
  const results = [
    await phase('GET /dashboard, last 90 days', '/dashboard?days=90'),
    await phase('GET /dashboard/ticketsUsers, 90 days', `/dashboard/ticketsUsers?initialDate=${from}&finalDate=${today}`),
    await phase('GET /dashboard/ticketsDay, 90 days', `/dashboard/ticketsDay?initialDate=${from}&finalDate=${today}`),
  ];
  return {
    data: {
      source: company.source,
      tickets: o.tickets,
      companyId: company.companyId,
      aggregateItems: items,
      ninetyDays: sample.counters,
      note: m ? 'aggregates written by rebuildDashboardStats from the tickets (what the live writes hold)' : 'aggregates written by aggregateTickets over the same tickets (what the live writes hold)',
    },
    clients: o.clients,
    requests: o.requests,
    results,
  };
}

const DAY = 86_400_000;

/** A company of `o.tickets` tickets with a year of histories, written straight into the table. */
async function writeHistories(ctx: DataContext & { log: (line: string) => void }, o: DashboardOptions): Promise<{ companyId: number; admin: Api; source: string; aggregateItems: number }> {
  const t = await tenant(ctx.endpoints, ctx.sup, { users: o.agents + 5, queues: 10 });
  const cid = t.companyId;
  const connection = must(await t.admin.post('/whatsapp', { name: 'Loja', provider: 'sandbox' }), 'connection') as { id: number };
  const queues: number[] = [];
  for (const [i, color] of ['#2563eb', '#16a34a', '#dc2626'].entries()) queues.push((must(await t.admin.post('/queue', { name: `Fila ${i + 1}`, color, greetingMessage: 'Olá' }), 'queue') as { id: number }).id);
  const agents: number[] = [];
  for (let i = 0; i < o.agents; i++) {
    const email = `agente${i}.${cid}@bench.test`;
    agents.push((must(await t.admin.post('/users', { name: `Agente ${String(i + 1).padStart(2, '0')}`, email, password: PASSWORD, profile: 'Nível 1', queueIds: queues }), 'agent') as { id: number }).id);
  }
  const w = new TableWriter(ctx.table, o.concurrency, o.writeMode);
  const first = await reserveIds(ctx.table, cid, 'ticket', o.tickets);
  const now = Date.now();
  const t0 = Date.now();
  const written: TicketItem[] = [];
  for (let i = 0; i < o.tickets; i++) {
    const id = first + i;
    // Newest last; a deterministic spread of statuses, agents, waits, service times and ratings.
    const queued = now - 365 * DAY + Math.floor((i / o.tickets) * 365 * DAY);
    const late = i >= o.tickets * (1 - o.pendingShare - o.openShare);
    const status: TicketStatus = late ? (i % 8 < 3 ? 'pending' : 'open') : 'closed';
    const userId = status === 'pending' ? null : agents[i % agents.length];
    const started = status === 'pending' ? null : queued + ((i * 37) % 20) * 60_000 + 30_000;
    const finished = status === 'closed' ? started! + ((i * 53) % 90) * 60_000 + 60_000 : null;
    const rated = status === 'closed' && i % 3 === 0;
    const updatedAt = new Date(finished ?? started ?? queued).toISOString();
    const ticket: TicketItem = {
      ...ticketKey(cid, id),
      entity: 'ticket',
      ...ticketIndexKeys({ companyId: cid, id, status, userId, queueId: queues[i % queues.length], updatedAt, whatsappId: connection.id, lastFromMe: true }),
      id,
      uuid: `00000000-0000-4000-8000-${String(id).padStart(12, '0')}`,
      companyId: cid,
      status,
      userId,
      queueId: queues[i % queues.length],
      contactId: 1_000_000 + i,
      contactView: { name: `Cliente ${i}`, number: `5511${String(900_000_000 + i)}`, email: '', profilePicUrl: null, isGroup: false, tagIds: [] },
      whatsappId: connection.id,
      unreadMessages: 0,
      isGroup: false,
      lastMessage: 'Obrigado!',
      lastSeq: 6,
      lastFromMe: true,
      chatbot: false,
      useIntegration: false,
      integrationId: null,
      promptId: null,
      tagIds: [],
      queuedAt: new Date(queued).toISOString(),
      startedAt: started === null ? null : new Date(started).toISOString(),
      finishedAt: finished === null ? null : new Date(finished).toISOString(),
      ...(rated ? { rating: 1 + (Math.floor(i / 3) % 3), ratingAt: new Date(finished! + 60_000).toISOString(), ratingUserId: userId } : {}),
      wv: 1,
      createdAt: new Date(queued).toISOString(),
      updatedAt,
    };
    await w.put(ticket);
    written.push(ticket);
  }
  // Their aggregates, by the product's own function over the same tickets (what the writes hold).
  const aggregates = aggregateTickets(cid, written, DEFAULT_TIME_ZONE);
  for (const item of aggregates.values()) await w.put(item);
  await w.drain();
  await rebuildTicketCounters(cid);
  ctx.log(`dashboard: ${o.tickets} tickets of company ${cid} and their ${aggregates.size} aggregate items written in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
  return { companyId: cid, admin: t.admin, source: `${o.tickets} tickets written by the dashboard part (no messages: the dashboard never reads them)`, aggregateItems: aggregates.size };
}
