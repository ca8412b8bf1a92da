import {
  dashboardChartQuerySchema,
  dashboardQuerySchema,
  parseOrThrow,
  zonedDayKey,
  type DashboardAttendant,
  type DashboardResult,
  type DashboardShare,
  type DashboardTicketsDay,
  type DashboardTicketsUsers,
} from '@balcao/shared';
import { isConditionFailure, putItem, queryAll } from '../core/db.js';
import { nowMs } from '../core/ports.js';
import type { Identity } from '../core/identity.js';
import { dashboardPartition, dashboardRange, dashboardRollupKey } from '../table/keys.js';
import { log } from '../core/observability.js';
import { companyZone, type DayStats } from './dashboard-stats.js';
import { listConnectionItems } from './connections.js';
import { listQueues } from './queues.js';
import { readTicketCounters } from './ticket-counters.js';
import { listUsersBrief } from './users.js';

/*
 * The dashboard's reads (spec 000 §2.5 and §7; decision 60): a period is its past days' rollups
 * (one item a day) and today's day and agent-day items, a range Query each, in the company's
 * dashboard partition (written with the tickets by dashboard-stats.ts), plus the working-set
 * counters for what is open and pending now. Nothing reads the company's tickets.
 */

type DayItem = DayStats & { day: string };
type AgentDayItem = DayStats & { day: string; userId: number };

const MINUTE = 60_000;
const avg = (sum: number | undefined, n: number | undefined, unit = 1) => (n ? (sum ?? 0) / n / unit : null);

/** The calendar day `n` days before `day` (YYYY-MM-DD; calendar arithmetic). */
const dayBefore = (day: string, n: number) => {
  const [y, m, d] = day.split('-').map(Number);
  return new Date(Date.UTC(y, m - 1, d - n)).toISOString().slice(0, 10);
};

async function readRange<T>(companyId: number, kind: 'D' | 'U' | 'R', from: string, to: string): Promise<T[]> {
  const { from: lo, to: hi } = dashboardRange(kind, from, to);
  return queryAll<T>(dashboardPartition(companyId), undefined, {
    KeyConditionExpression: 'PK = :pk AND SK BETWEEN :lo AND :hi',
    ExpressionAttributeValues: { ':lo': lo, ':hi': hi },
  });
}

/** The counts of `items` added up (their keys and `userId` are not counts). */
function sum(items: DayStats[]): DayStats {
  const out: DayStats = {};
  for (const item of items) for (const [k, v] of Object.entries(item)) if (typeof v === 'number' && k !== 'userId') out[k] = (out[k] ?? 0) + v;
  return out;
}

/** A day's sums: the day's totals and each agent's. */
interface DaySums {
  total: DayStats;
  agents: Record<string, DayStats>;
}
/** A day's sums as one JSON string: read many times, parsed at once (no per-field item mapping). */
type RollupItem = { day: string; sums: string };

/**
 * A day is over for the aggregates this long after its midnight (the company's calendar): nothing
 * adds to it any more, so its sums can be kept in one item (a write that read its clock a moment
 * before midnight is still in flight just after).
 */
const SEAL_AFTER_MS = 5 * 60_000;

function sumsOf(days: DayItem[], agentDays: AgentDayItem[]): Map<string, DaySums> {
  const out = new Map<string, DaySums>();
  const of = (day: string) => out.get(day) ?? (out.set(day, { total: {}, agents: {} }), out.get(day)!);
  for (const d of days) of(d.day).total = sum([of(d.day).total, d]);
  for (const a of agentDays) {
    const s = of(a.day);
    s.agents[a.userId] = sum([s.agents[a.userId] ?? {}, a]);
  }
  return out;
}

/**
 * Each day's sums of `from`..`to`. Days over (before today, by SEAL_AFTER_MS) come from their
 * rollups; a day over without one is summed from its items once and its rollup written (a Put of
 * sums of items that no longer change: a race writes the same). Today comes from its items.
 */
async function readPeriod(companyId: number, zone: string, from: string, to: string): Promise<Map<string, DaySums>> {
  const today = zonedDayKey(nowMs() - SEAL_AFTER_MS, zone);
  const sealedTo = to < today ? to : dayBefore(today, 1);
  const out = new Map<string, DaySums>();
  const live = from > sealedTo ? { from, to } : to > sealedTo ? { from: dayBefore(sealedTo, -1), to } : undefined;
  const [rollups, liveDays, liveAgents] = await Promise.all([
    from <= sealedTo ? readRange<RollupItem>(companyId, 'R', from, sealedTo) : Promise.resolve([]),
    live ? readRange<DayItem>(companyId, 'D', live.from, live.to) : Promise.resolve([]),
    live ? readRange<AgentDayItem>(companyId, 'U', live.from, live.to) : Promise.resolve([]),
  ]);
  for (const r of rollups) out.set(r.day, JSON.parse(r.sums) as DaySums);
  for (const [day, s] of sumsOf(liveDays, liveAgents)) out.set(day, s);
  if (from <= sealedTo) {
    const missing: string[] = [];
    for (let day = from; day <= sealedTo; day = dayBefore(day, -1)) if (!out.has(day)) missing.push(day);
    if (missing.length) {
      const lo = missing[0];
      const hi = missing[missing.length - 1];
      const [days, agents] = await Promise.all([readRange<DayItem>(companyId, 'D', lo, hi), readRange<AgentDayItem>(companyId, 'U', lo, hi)]);
      const summed = sumsOf(days, agents);
      await Promise.all(
        missing.map(async (day) => {
          const s = summed.get(day) ?? { total: {}, agents: {} };
          out.set(day, s);
          try {
            await putItem({ ...dashboardRollupKey(companyId, day), entity: 'dashboardRollup', day, sums: JSON.stringify(s) }, 'attribute_not_exists(PK)');
          } catch (err) {
            // Another request wrote it first (the same sums); anything else only costs the next reader a sum.
            if (!isConditionFailure(err)) log.warn('dashboard rollup not written', { err, companyId, day });
          }
        }),
      );
    }
  }
  return out;
}

const totalOf = (period: Map<string, DaySums>) => sum([...period.values()].map((d) => d.total));
function agentTotals(period: Map<string, DaySums>): Map<number, DayStats> {
  const out = new Map<number, DayStats>();
  for (const d of period.values()) for (const [id, s] of Object.entries(d.agents)) out.set(Number(id), sum([out.get(Number(id)) ?? {}, s]));
  return out;
}

/** The period a `GET /dashboard` query names, on the company's calendar. */
function periodOf(query: { days?: number; from?: string; to?: string }, today: string): { from: string; to: string } {
  if (query.days) return { from: dayBefore(today, query.days - 1), to: today };
  if (query.from && query.to) return { from: query.from, to: query.to };
  if (query.from) return query.from <= today ? { from: query.from, to: today } : { from: query.from, to: query.from };
  return { from: query.to!, to: query.to! };
}

/** `GET /dashboard` (admins): the cards, the attendants table, and the closes per queue and connection. */
export async function getDashboard(identity: Identity, input: unknown): Promise<DashboardResult> {
  const query = parseOrThrow(dashboardQuerySchema, input);
  const companyId = identity.companyId;
  const zone = await companyZone(companyId);
  const period = periodOf(query, zonedDayKey(nowMs(), zone));
  const [days, counters, users, queues, connections] = await Promise.all([
    readPeriod(companyId, zone, period.from, period.to),
    readTicketCounters(companyId),
    listUsersBrief(companyId),
    listQueues(companyId),
    listConnectionItems(companyId),
  ]);
  const total = totalOf(days);
  const byAgent = agentTotals(days);

  const attendants: DashboardAttendant[] = users.map((u) => {
    const s = byAgent.get(u.id) ?? {};
    return {
      id: u.id,
      name: u.name,
      online: u.online,
      tickets: s.finished ?? 0,
      avgSupportTime: avg(s.supportMs, s.supportN, MINUTE),
      avgFirstResponseTime: avg(s.firstReplyMs, s.firstReplyN, MINUTE),
      rating: avg(s.ratingSum, s.ratingN),
      ratingCount: s.ratingN ?? 0,
    };
  });
  const shares = (prefix: string, named: { id: number; name: string; color?: string }[], none?: string): DashboardShare[] => {
    const out: DashboardShare[] = [];
    for (const [k, n] of Object.entries(total)) {
      if (!k.startsWith(prefix) || !n) continue;
      const id = Number(k.slice(prefix.length)) || null;
      const ref = named.find((x) => x.id === id);
      out.push({ id, name: ref?.name ?? (id === null ? (none ?? '') : `#${id}`), ...(ref?.color ? { color: ref.color } : {}), finished: n });
    }
    return out.sort((a, b) => b.finished - a.finished);
  };
  const now = (status: string) => counters.filter((c) => c.status === status).reduce((acc, c) => acc + c.n, 0);
  return {
    period,
    counters: {
      supportHappening: now('open'),
      supportPending: now('pending'),
      supportFinished: total.finished ?? 0,
      opened: total.opened ?? 0,
      newContacts: total.newContacts ?? 0,
      avgSupportTime: avg(total.supportMs, total.supportN, MINUTE),
      avgWaitTime: avg(total.waitMs, total.waitN, MINUTE),
      avgFirstResponseTime: avg(total.firstReplyMs, total.firstReplyN, MINUTE),
      ratingAverage: avg(total.ratingSum, total.ratingN),
      ratingCount: total.ratingN ?? 0,
    },
    attendants,
    byQueue: shares('fq_', queues.map((q) => ({ id: q.id, name: q.name, color: q.color }))),
    byConnection: shares('fw_', connections.map((c) => ({ id: c.id, name: c.name }))),
  };
}

/** The chart period: `initialDate`..`finalDate`, today for a missing end. */
async function chartPeriod(companyId: number, input: unknown) {
  const q = parseOrThrow(dashboardChartQuerySchema, input);
  const zone = await companyZone(companyId);
  const today = zonedDayKey(nowMs(), zone);
  const from = q.from ?? q.to ?? today;
  const to = q.to ?? (q.from && q.from > today ? q.from : today);
  return { from, to, days: await readPeriod(companyId, zone, from, to) };
}

/** `GET /dashboard/ticketsUsers`: tickets closed per agent in the period, most first. */
export async function ticketsPerUser(identity: Identity, input: unknown): Promise<DashboardTicketsUsers> {
  const [{ days }, users] = await Promise.all([chartPeriod(identity.companyId, input), listUsersBrief(identity.companyId)]);
  const data = [...agentTotals(days).entries()]
    .filter(([, s]) => s.finished)
    .map(([id, s]) => ({ nome: users.find((u) => u.id === id)?.name ?? `#${id}`, quantidade: s.finished }))
    .sort((a, b) => b.quantidade - a.quantidade || a.nome.localeCompare(b.nome));
  return { data, count: data.reduce((acc, d) => acc + d.quantidade, 0) };
}

/** `GET /dashboard/ticketsDay`: conversations opened per hour of one day, or per day of a range (every slot, zeros included). */
export async function ticketsPerDay(identity: Identity, input: unknown): Promise<DashboardTicketsDay> {
  const { from, to, days } = await chartPeriod(identity.companyId, input);
  if (from === to) {
    const total = totalOf(days);
    const data = Array.from({ length: 24 }, (_, h) => {
      const horario = String(h).padStart(2, '0');
      return { horario, total: total[`opened_h${horario}`] ?? 0 };
    });
    return { data, count: data.reduce((acc, d) => acc + d.total, 0) };
  }
  const data: { data: string; total: number }[] = [];
  for (let day = from; day <= to; day = dayBefore(day, -1)) data.push({ data: day, total: days.get(day)?.total.opened ?? 0 });
  return { data, count: data.reduce((acc, d) => acc + d.total, 0) };
}
