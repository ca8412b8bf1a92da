import { DeleteCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { zonedParts } from '@balcao/shared';
import { queryAll, tx, type TransactItem } from '../core/db.js';
import { env } from '../core/env.js';
import { table } from '../core/ports.js';
import { DASHBOARD_DAY_SHARDS, dashboardAgentDayKey, dashboardDayKey, dashboardPartition, ticketsByStatus } from '../table/keys.js';
import type { TicketItem } from '../table/items.js';
import { cachedTimeZone } from './settings.js';

/**
 * The dashboard's aggregates (server-behaviour §12; decision 60), written with the data: every
 * ticket write adds what it changed to its day's item (and its agent's day) in the same
 * transaction, so the numbers move exactly when the tickets do and a request only sums a period's
 * few hundred items. Days and hours are the company's calendar (setting `timezone`) at the moment
 * of the event.
 *
 * What each ticket change adds:
 * - a cycle opened (created, or reopened, not closed): `opened` and `opened_hHH` (the per-day and
 *   per-hour chart);
 * - accepted from pending: `waitMs`/`waitN` (queued → started);
 * - closed: `finished`, `supportMs`/`supportN` (started → finished, when it was started),
 *   `fq_<queueId|0>` and `fw_<connectionId>`; for its agent, the same;
 * - an agent's first message of the cycle: `firstReplyMs`/`firstReplyN` (queued → first reply);
 * - rated: `ratingSum`/`ratingN`, for the day and for the agent who served;
 * and a contact created adds `newContacts`.
 */

export type DayStats = Record<string, number>;

/** The per-ticket facts the deltas read. */
type Facts = Pick<TicketItem, 'companyId' | 'id' | 'status' | 'userId' | 'queueId' | 'whatsappId' | 'queuedAt' | 'startedAt' | 'finishedAt' | 'rating' | 'ratingAt' | 'ratingUserId' | 'firstReplyAt'>;

interface Increment {
  at: string;
  /** The day's shard; a ticket's increments go to the shard of its id. */
  shard: number;
  userId?: number | null;
  add: DayStats;
}

const ms = (from: string | null | undefined, to: string | null | undefined) => {
  const d = from && to ? Date.parse(to) - Date.parse(from) : NaN;
  return Number.isFinite(d) && d >= 0 ? d : undefined;
};

/** What a ticket going from `before` to `after` adds to the aggregates (pure; `after` undefined: deleted, history kept). */
export function ticketIncrements(before: Facts | null | undefined, after: Facts | null | undefined): Increment[] {
  if (!after) return [];
  const shard = after.id % DASHBOARD_DAY_SHARDS;
  const out: Increment[] = [];
  const wasOpen = !!before && before.status !== 'closed';
  const isOpen = after.status !== 'closed';
  // Every cycle starts queued (created or reopened, `queuedAt` set with it; open at once when an agent starts it).
  const openedAt = after.queuedAt ?? after.startedAt;
  if (isOpen && !wasOpen && openedAt) out.push({ at: openedAt, shard, add: { opened: 1 } });
  if (before?.status === 'pending' && after.status === 'open' && after.startedAt) {
    const wait = ms(after.queuedAt, after.startedAt);
    if (wait !== undefined) out.push({ at: after.startedAt, shard, add: { waitMs: wait, waitN: 1 } });
  }
  if (wasOpen && after.status === 'closed' && after.finishedAt) {
    const support = ms(after.startedAt, after.finishedAt);
    const add: DayStats = { finished: 1, [`fq_${after.queueId ?? 0}`]: 1, [`fw_${after.whatsappId}`]: 1, ...(support !== undefined ? { supportMs: support, supportN: 1 } : {}) };
    out.push({ at: after.finishedAt, shard, add, userId: after.userId ?? before?.userId ?? null });
  }
  if (after.firstReplyAt && after.firstReplyAt !== before?.firstReplyAt) {
    const reply = ms(after.queuedAt, after.firstReplyAt);
    if (reply !== undefined) out.push({ at: after.firstReplyAt, shard, add: { firstReplyMs: reply, firstReplyN: 1 }, userId: after.userId ?? null });
  }
  if (after.rating && after.ratingAt && after.ratingAt !== before?.ratingAt) {
    out.push({ at: after.ratingAt, shard, add: { ratingSum: after.rating, ratingN: 1 }, userId: after.ratingUserId ?? after.userId ?? null });
  }
  return out;
}

/** The attributes of the day item an increment adds to (its hour's `opened_hHH` with `opened`). */
function dayAdds(inc: Increment, hour: number): DayStats {
  return inc.add.opened ? { ...inc.add, [`opened_h${String(hour).padStart(2, '0')}`]: inc.add.opened } : inc.add;
}

/** The agent's share of an increment: closes, first replies and ratings. */
const AGENT_FIELDS = ['finished', 'supportMs', 'supportN', 'ratingSum', 'ratingN', 'firstReplyMs', 'firstReplyN'];

function addUpdate(key: { PK: string; SK: string }, add: DayStats, extra: Record<string, unknown>): TransactItem {
  const names: Record<string, string> = {};
  const values: Record<string, unknown> = {};
  const parts = Object.entries(add).map(([field, n], i) => {
    names[`#a${i}`] = field;
    values[`:a${i}`] = n;
    return `#a${i} :a${i}`;
  });
  const sets = Object.entries(extra).map(([field, v], i) => {
    names[`#s${i}`] = field;
    values[`:s${i}`] = v;
    return `#s${i} = :s${i}`;
  });
  return tx.update(key, `ADD ${parts.join(', ')}${sets.length ? ` SET ${sets.join(', ')}` : ''}`, values, undefined, names);
}

/** The day and hour of `at` on `zone`'s calendar. */
export function zonedDayHour(at: string, zone: string): { day: string; hour: number } {
  const p = zonedParts(new Date(at), zone);
  return { day: `${p.year}-${p.month}-${p.day}`, hour: p.hour };
}

/** Transaction items adding `increments` to the company's day and agent-day items (merged per item). */
export function incrementWrites(companyId: number, increments: Increment[], zone: string): TransactItem[] {
  const items = new Map<string, { key: { PK: string; SK: string }; add: DayStats; extra: Record<string, unknown> }>();
  const merge = (key: { PK: string; SK: string }, add: DayStats, extra: Record<string, unknown>) => {
    const id = `${key.PK}|${key.SK}`;
    const cur = items.get(id) ?? { key, add: {}, extra };
    for (const [k, n] of Object.entries(add)) cur.add[k] = (cur.add[k] ?? 0) + n;
    items.set(id, cur);
  };
  for (const inc of increments) {
    const { day, hour } = zonedDayHour(inc.at, zone);
    merge(dashboardDayKey(companyId, day, inc.shard), dayAdds(inc, hour), { entity: 'dashboardDay', day });
    const agentAdd = Object.fromEntries(Object.entries(inc.add).filter(([k]) => AGENT_FIELDS.includes(k)));
    if (inc.userId && Object.keys(agentAdd).length) merge(dashboardAgentDayKey(companyId, day, inc.userId), agentAdd, { entity: 'dashboardAgentDay', day, userId: inc.userId });
  }
  return [...items.values()].map((i) => addUpdate(i.key, i.add, i.extra));
}

/** The company's calendar for the aggregates (cached: see settings.ts). */
export const companyZone = (companyId: number) => cachedTimeZone(companyId);

/** The aggregate writes of a ticket change, for the transaction that makes it. */
export async function ticketStatsWrites(before: Facts | null | undefined, after: Facts | null | undefined): Promise<TransactItem[]> {
  const increments = ticketIncrements(before, after);
  if (!increments.length) return [];
  return incrementWrites(after!.companyId, increments, await companyZone(after!.companyId));
}

/** `n` contacts created at `at` (the transaction that creates them adds this). */
export async function newContactsWrite(companyId: number, n: number, at: string, shardSeed: number): Promise<TransactItem[]> {
  if (n <= 0) return [];
  return incrementWrites(companyId, [{ at, shard: shardSeed % DASHBOARD_DAY_SHARDS, add: { newContacts: n } }], await companyZone(companyId));
}

/**
 * The aggregate items of `tickets` as their current fields tell (pure): each ticket's last cycle as
 * if lived through the writes (opened, accepted, closed, rated). The rebuild and the benchmark's
 * data use it; earlier cycles of a reopened ticket are not known.
 */
export function aggregateTickets(companyId: number, tickets: Facts[], zone: string): Map<string, Record<string, unknown> & { PK: string; SK: string }> {
  const sums = new Map<string, Record<string, unknown> & { PK: string; SK: string }>();
  const add = (key: { PK: string; SK: string }, fields: DayStats, base: Record<string, unknown>) => {
    const id = `${key.PK}|${key.SK}`;
    const cur = sums.get(id) ?? { ...key, ...base };
    for (const [k, n] of Object.entries(fields)) cur[k] = ((cur[k] as number | undefined) ?? 0) + n;
    sums.set(id, cur);
  };
  for (const t of tickets) {
    const pending: Facts = { ...t, status: 'pending', startedAt: null, finishedAt: null, rating: null, ratingAt: null, firstReplyAt: null };
    const steps: [Facts | null, Facts][] = [[null, pending]];
    const open: Facts = { ...pending, status: 'open', startedAt: t.startedAt, userId: t.userId };
    if (t.startedAt) steps.push([pending, open]);
    const replied: Facts = { ...(t.startedAt ? open : pending), firstReplyAt: t.firstReplyAt ?? null };
    if (t.firstReplyAt) steps.push([t.startedAt ? open : pending, replied]);
    if (t.status === 'closed') steps.push([replied, { ...t, rating: null, ratingAt: null }]);
    if (t.rating && t.ratingAt) steps.push([{ ...t, rating: null, ratingAt: null }, t]);
    for (const [b, a] of steps) {
      for (const inc of ticketIncrements(b, a)) {
        const { day, hour } = zonedDayHour(inc.at, zone);
        add(dashboardDayKey(companyId, day, inc.shard), dayAdds(inc, hour), { entity: 'dashboardDay', day });
        const agentAdd = Object.fromEntries(Object.entries(inc.add).filter(([k]) => AGENT_FIELDS.includes(k)));
        if (inc.userId && Object.keys(agentAdd).length) add(dashboardAgentDayKey(companyId, day, inc.userId), agentAdd, { entity: 'dashboardAgentDay', day, userId: inc.userId });
      }
    }
  }
  return sums;
}

/** The projection of a ticket's facts (what `aggregateTickets` reads). */
export const TICKET_FACTS_PROJECTION = {
  ProjectionExpression: 'companyId, id, #s, userId, queueId, whatsappId, queuedAt, startedAt, finishedAt, rating, ratingAt, ratingUserId, firstReplyAt',
  ExpressionAttributeNames: { '#s': 'status' },
};

/**
 * Rewrites a company's ticket aggregates from its tickets' current fields (the migration that
 * introduced them). Contacts' `newContacts` are kept as stored. Not for a company taking ticket
 * writes at the same moment (a write between the read and the Put would be lost).
 */
export async function rebuildDashboardStats(companyId: number): Promise<number> {
  const zone = await companyZone(companyId);
  const tickets: Facts[] = [];
  for (const status of ['pending', 'open', 'closed'] as const) {
    tickets.push(
      ...(await queryAll<Facts>(ticketsByStatus(companyId, status), undefined, {
        IndexName: 'GSI1',
        KeyConditionExpression: 'GSI1PK = :pk',
        ...TICKET_FACTS_PROJECTION,
        // Small pages: DynamoDB Local holds a page in its heap.
        Limit: 1000,
      })),
    );
  }
  const sums = aggregateTickets(companyId, tickets, zone);
  // Contacts created are not in the tickets: the stored counts stay.
  const stored = await queryAll<Record<string, unknown> & { PK: string; SK: string }>(dashboardPartition(companyId));
  for (const s of stored) {
    // A past day's rollup sums the items rewritten here: the next read sums them again.
    if (s.entity === 'dashboardRollup') {
      await table().send(new DeleteCommand({ TableName: env.tableName, Key: { PK: s.PK, SK: s.SK } }));
      continue;
    }
    const cur = sums.get(`${s.PK}|${s.SK}`);
    const keep = { PK: s.PK, SK: s.SK, entity: s.entity, day: s.day, ...(s.userId ? { userId: s.userId } : {}) };
    if (cur) {
      if (s.newContacts) cur.newContacts = s.newContacts;
    } else sums.set(`${s.PK}|${s.SK}`, { ...keep, ...(s.newContacts ? { newContacts: s.newContacts } : {}) });
  }
  for (const item of sums.values()) await table().send(new PutCommand({ TableName: env.tableName, Item: item }));
  return sums.size;
}
