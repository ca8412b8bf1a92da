import {
  TICKETS_PAGE,
  canSeeTicket,
  isAdminProfile,
  parseOrThrow,
  ticketCountsQuerySchema,
  ticketListQuerySchema,
  zonedParts,
  type TicketListQuery,
  type TicketStatusValue,
} from '@balcao/shared';
import { table } from '../core/ports.js';
import { env } from '../core/env.js';
import type { Identity } from '../core/identity.js';
import { toApiTickets } from './ticket-view.js';
import { settingValue } from './settings.js';
import { parseQuery } from './search-index.js';
import { byContactTags, countSearch, searchCursor, searchTickets } from './ticket-search.js';
import { readTicketCounters, type TicketCounter } from './ticket-counters.js';
import { ticketIndexKeys, ticketsByQueue, ticketsByStatus, ticketsByUser, ticketSortKey } from '../table/keys.js';
import { TICKET_FIELDS, type TicketItem } from '../table/items.js';

type Index = 'GSI1' | 'GSI2' | 'GSI3';
interface Source {
  index: Index;
  pk: string;
}

/** Upper bound of items read for one page when filters drop many: the answer says hasMore. */
const MAX_READ = 4000;
/** Upper bound of items read to count one list (pending and open tickets: the working set). */
const MAX_COUNT_READ = 20_000;
/**
 * What a page reads of each ticket: the API's fields, the contact copy and the index's sort key;
 * not the other index keys or `wv` (DynamoDB Local's and the SDK's cost grows with every attribute).
 */
const pageProjections = new Map<string, { ProjectionExpression: string; ExpressionAttributeNames: Record<string, string> }>();
function pageProjection(index: string) {
  let p = pageProjections.get(index);
  if (!p) {
    const fields = [...TICKET_FIELDS, 'contactView', `${index}SK`];
    p = { ProjectionExpression: fields.map((_, i) => `#p${i}`).join(', '), ExpressionAttributeNames: Object.fromEntries(fields.map((f, i) => [`#p${i}`, f])) };
    pageProjections.set(index, p);
  }
  return p;
}
/** The attributes the rules and filters look at: counting reads only these. */
const COUNT_PROJECTION = 'id, userId, queueId, #s, unreadMessages, tagIds, contactId, createdAt, updatedAt';

/**
 * One index partition read newest first, a page at a time, between `lo` (inclusive) and `hi`
 * (exclusive). All three ticket indexes share the sort key `<updatedAt>#<id>`.
 */
class Stream {
  private buf: TicketItem[] = [];
  private start: Record<string, unknown> | undefined;
  done = false;
  read = 0;
  constructor(
    private src: Source,
    private hi: string | undefined,
    private lo: string | undefined,
    private pageSize: number,
    private projection = false,
  ) {}

  /** Sort key of the oldest item read so far: every item not read yet is older. */
  lastKey: string | undefined;
  /** What is read and not yet taken. */
  buffered(): readonly TicketItem[] {
    return this.buf;
  }
  /** Reads the next page now (a refill decided ahead of the merge). */
  async more() {
    if (!this.done) await this.fill();
  }

  async head(): Promise<TicketItem | undefined> {
    while (!this.buf.length && !this.done) await this.fill();
    return this.buf[0];
  }
  shift() {
    return this.buf.shift();
  }
  /** The next page as it comes (counting does not need the merge order). */
  async next(): Promise<TicketItem[]> {
    if (!this.buf.length && !this.done) await this.fill();
    return this.buf.splice(0);
  }
  private async fill() {
    const { index, pk } = this.src;
    const cond = [`${index}PK = :pk`];
    const values: Record<string, unknown> = { ':pk': pk };
    if (this.hi && this.lo) {
      cond.push(`${index}SK BETWEEN :lo AND :hi`);
      values[':lo'] = this.lo;
      values[':hi'] = this.hi;
    } else if (this.hi) {
      cond.push(`${index}SK < :hi`);
      values[':hi'] = this.hi;
    } else if (this.lo) {
      cond.push(`${index}SK >= :lo`);
      values[':lo'] = this.lo;
    }
    const out = await table().query({
      TableName: env.tableName,
      IndexName: index,
      KeyConditionExpression: cond.join(' AND '),
      ExpressionAttributeValues: values,
      ScanIndexForward: false,
      Limit: this.pageSize,
      ExclusiveStartKey: this.start,
      ...(this.projection ? { ProjectionExpression: `${COUNT_PROJECTION}, ${index}SK`, ExpressionAttributeNames: { '#s': 'status' } } : pageProjection(index)),
    });
    const items = (out.Items ?? []) as TicketItem[];
    this.read += items.length;
    const sk = `${index}SK` as const;
    if (items.length) this.lastKey = items[items.length - 1][sk];
    // BETWEEN includes `hi`: the cursor's own ticket was on the previous page.
    this.buf.push(...items.filter((t) => !this.hi || t[sk] < this.hi));
    this.start = out.LastEvaluatedKey;
    this.done = !this.start;
    // Later pages of a heavily filtered partition are read in bigger steps.
    this.pageSize = Math.min(this.pageSize * 2, this.projection ? 1000 : 400);
  }
}


/**
 * Which index partitions can hold the tickets of a list (docs/data-model.md, "Ticket lists"):
 * never the whole company unless the viewer may see all of it.
 */
function sourcesFor(identity: Identity, statuses: TicketStatusValue[], q: TicketListQuery): Source[] {
  const cid = identity.companyId;
  const seesAll = identity.isSuper || isAdminProfile(identity.profile) || identity.profile === 'Nível 3';
  const out: Source[] = [];
  const byUser = (u: number, s: string): Source => ({ index: 'GSI2', pk: ticketsByUser(cid, u, s) });
  const byQueue = (qid: number, s: string): Source => ({ index: 'GSI3', pk: ticketsByQueue(cid, qid, s) });
  for (const s of statuses) {
    if (q.users?.length && identity.isAdmin) {
      for (const u of q.users) out.push(byUser(u, s));
      continue;
    }
    // Open and closed lists show one's own tickets unless showAll (the "others" view); pending
    // lists show every ticket the viewer may accept.
    const everything = s === 'pending' || q.showAll === true || q.assigned === 'others';
    if (!everything) {
      out.push(byUser(identity.userId, s));
      continue;
    }
    if (seesAll) {
      if (q.queueIds?.length) for (const qid of [...q.queueIds, 0]) out.push(byQueue(qid, s));
      else out.push({ index: 'GSI1', pk: ticketsByStatus(cid, s) });
      continue;
    }
    // A pending ticket has no agent (every write that makes one pending clears it): the viewer's
    // own pending partition is always empty; "assigned to others" leaves out the viewer's own.
    if (s !== 'pending' && q.assigned !== 'others') out.push(byUser(identity.userId, s));
    const queuesSeen = s === 'pending' || identity.profile === 'Nível 2';
    if (queuesSeen) {
      const mine = q.queueIds?.length ? identity.queueIds.filter((x) => q.queueIds!.includes(x)) : identity.queueIds;
      for (const qid of mine) out.push(byQueue(qid, s));
    }
    if (identity.allTicket) out.push(byQueue(0, s));
  }
  const seen = new Set<string>();
  return out.filter((x) => (seen.has(x.pk) ? false : (seen.add(x.pk), true)));
}

const nextDay = (day: string) => new Date(Date.parse(`${day}T00:00:00Z`) + 86_400_000).toISOString().slice(0, 10);

/** The instant a day starts in a time zone (two steps settle a DST change on that day). */
function zonedMidnight(day: string, timeZone: string): number {
  const wall = Date.parse(`${day}T00:00:00Z`);
  const offsetAt = (t: number) => {
    const p = zonedParts(new Date(t), timeZone);
    return Date.UTC(Number(p.year), Number(p.month) - 1, Number(p.day), p.hour, Number(p.minute), Number(p.second)) - t;
  };
  const first = wall - offsetAt(wall);
  return wall - offsetAt(first);
}

/** `[start, end)` of a calendar day of the company's time zone, as ISO instants (the stored form). */
export function zonedDayRange(day: string, timeZone: string): [string, string] {
  return [new Date(zonedMidnight(day, timeZone)).toISOString(), new Date(zonedMidnight(nextDay(day), timeZone)).toISOString()];
}

/** Statuses a query lists: the search tab's checkboxes, else the tab's status, else pending + open. */
function statusesOf(q: TicketListQuery): TicketStatusValue[] {
  if (q.isUseStatusFilter && q.statusFilter?.length) return [...new Set(q.statusFilter)];
  if (q.status) return [q.status];
  if (q.statusFilter?.length) return [...new Set(q.statusFilter)];
  return ['pending', 'open'];
}

export interface Plan {
  q: TicketListQuery;
  statuses: TicketStatusValue[];
  /** `updatedAt` day: a key range. */
  updated?: [string, string];
  /** `date` day: tickets created that day. */
  created?: [string, string];
  /** Visibility and every filter that the ticket item alone decides. */
  pass: (t: TicketItem) => boolean;
}

export async function planOf(identity: Identity, q: TicketListQuery, statuses = statusesOf(q)): Promise<Plan> {
  // Days are the company's calendar days (setting `timezone`, America/Sao_Paulo by default).
  const tz = q.date || q.updatedAt ? await settingValue(identity.companyId, 'timezone') : 'UTC';
  const updated = q.updatedAt ? zonedDayRange(q.updatedAt, tz) : undefined;
  const created = q.date ? zonedDayRange(q.date, tz) : undefined;
  const viewer = { userId: identity.userId, profile: identity.profile, queueIds: identity.queueIds, allTicket: identity.allTicket };
  const pass = (t: TicketItem) => {
    if (!identity.isSuper && !canSeeTicket(viewer, t)) return false;
    if (!statuses.includes(t.status)) return false;
    // Tickets without a queue stay listed under a queue selection (visible only through allTicket
    // or as one's own); a ticket of a queue not selected is not.
    if (q.queueIds?.length && t.queueId !== null && !q.queueIds.includes(t.queueId)) return false;
    if (q.withUnreadMessages && !(t.unreadMessages > 0)) return false;
    if (q.assigned === 'me' && t.userId !== identity.userId) return false;
    // "Assigned to others": someone else holds it (an open ticket without an agent is no one's).
    if (q.assigned === 'others' && (t.userId === null || t.userId === identity.userId)) return false;
    if (q.users?.length && identity.isAdmin && (t.userId === null || !q.users.includes(t.userId))) return false;
    // Tag filters keep a ticket that has ANY of the chosen tags (docs/decisions.md).
    if (q.tags?.length && !q.tags.some((tag) => (t.tagIds ?? []).includes(tag))) return false;
    if (created && !(t.createdAt >= created[0] && t.createdAt < created[1])) return false;
    if (updated && !(t.updatedAt >= updated[0] && t.updatedAt < updated[1])) return false;
    return true;
  };
  return { q, statuses, updated, created, pass };
}

/**
 * `GET /tickets` (spec 001 §4, §7): `{tickets, count, hasMore, nextCursor}`, 40 per page, newest
 * `updatedAt` first. The partitions of `sourcesFor` are merged by their common sort key; every
 * candidate passes `canSeeTicket` and the filters. Paging: `cursor` (the previous answer's
 * `nextCursor`) reads only from there on; `pageNumber` alone skips the earlier pages' tickets.
 * `count` (not in the spec's answer; the badges use `GET /tickets/counts`) is given when this page
 * ends the list, and with `withCount` from the counters for pending/open lists that filter only by
 * the fields they count (one more read, which the console's pages do without).
 */
export async function listTickets(identity: Identity, query: Record<string, string | undefined>) {
  const q = parseOrThrow(ticketListQuerySchema, query);
  const plan = await planOf(identity, q);
  const pageNumber = q.cursor ? 1 : q.pageNumber ?? 1;
  const skip = (pageNumber - 1) * TICKETS_PAGE;

  if (q.searchParam && parseQuery(q.searchParam).length) {
    // Ordered by ticket id, newest first; a page reads as far as it needs (ticket-search.ts).
    const found = await searchTickets(identity, plan, { below: searchCursor(q.cursor), skip });
    return {
      tickets: await toApiTickets(identity.companyId, found.list),
      ...(found.count !== undefined ? { count: found.count } : {}),
      hasMore: found.hasMore,
      nextCursor: found.nextCursor,
      /** The search reached one of its bounds: older matches may exist; more words narrow it. */
      truncated: found.truncated,
    };
  }

  const byCounters = q.withCount === true && countableByCounters(plan) && !q.cursor && pageNumber === 1;
  const [listed, counted] = await Promise.all([pageOf(identity, plan, skip), byCounters ? countByCounters(identity, plan) : Promise.resolve(undefined)]);
  const { page, hasMore } = listed;
  const last = page[page.length - 1];
  const count = counted ?? (hasMore || q.cursor ? undefined : skip + page.length);
  return {
    tickets: await toApiTickets(identity.companyId, page),
    ...(count !== undefined ? { count } : {}),
    hasMore,
    nextCursor: hasMore && last ? ticketSortKey(last) : null,
  };
}

/** One page of a list: the partitions merged newest first until the page (+1) is filled. */
export async function pageOf(identity: Identity, plan: Plan, skip: number, size = TICKETS_PAGE) {
  const { q } = plan;
  const want = skip + size + 1;
  const hi = [q.cursor, plan.updated?.[1]].filter((x): x is string => !!x).sort()[0];
  const lo = plan.updated?.[0];
  const sources = sourcesFor(identity, plan.statuses, q);
  // A merge of several partitions first reads each one's share of the page and a margin, then
  // refills at once the ones that may hold more of it: ~70 tickets read for a page of 40 from
  // three queues, not 3 × 42.
  const first = sources.length > 1 ? Math.min(Math.ceil(want / sources.length) + 8, want + 1) : want + 1;
  const streams = sources.map((s) => new Stream(s, hi, lo, Math.min(first, 100)));

  const accepted: TicketItem[] = [];
  const ids = new Set<number>();
  let candidates: TicketItem[] = [];
  let read = 0;
  let truncated = false;
  const flush = async () => {
    // Contact tags live on the contacts: checked per batch of candidates.
    const batch = candidates;
    candidates = [];
    accepted.push(...(await byContactTags(identity.companyId, q, batch)));
  };
  // Every partition's first read at once, and the refills they need at once (the merge below then
  // rarely waits for one).
  await Promise.all(streams.map((s) => s.head()));
  await refillAhead(streams, want, plan.pass);
  for (;;) {
    if (accepted.length + candidates.length >= want) await flush();
    if (accepted.length >= want) break;
    let best: Stream | undefined;
    let bestHead: TicketItem | undefined;
    for (const s of streams) {
      const h = await s.head();
      if (h && (!bestHead || ticketSortKey(h) > ticketSortKey(bestHead))) {
        best = s;
        bestHead = h;
      }
    }
    if (!best || !bestHead) break;
    best.shift();
    read++;
    if (read > MAX_READ) {
      truncated = true;
      break;
    }
    if (ids.has(bestHead.id)) continue;
    ids.add(bestHead.id);
    if (plan.pass(bestHead)) candidates.push(bestHead);
  }
  await flush();
  const page = accepted.slice(skip, skip + size);
  return { page, hasMore: accepted.length > skip + size || truncated };
}

/**
 * Refills, in parallel, every partition that may still hold tickets of the page: the page is the
 * `want` newest tickets that pass, so a partition whose oldest read ticket is newer than the
 * `want`-th newest passing ticket read so far may hold more of it. An estimate (a ticket listed in
 * two partitions counts twice): the merge still refills what it finds short.
 */
async function refillAhead(streams: Stream[], want: number, pass: (t: TicketItem) => boolean) {
  if (streams.length < 2) return;
  for (let round = 0; round < 4; round++) {
    const keys = streams.flatMap((s) => s.buffered().filter(pass).map(ticketSortKey)).sort().reverse();
    const bound = keys.length >= want ? keys[want - 1] : '';
    const short = streams.filter((s) => !s.done && s.lastKey !== undefined && s.lastKey > bound);
    if (!short.length) return;
    await Promise.all(short.map((s) => s.more()));
  }
}

/** Lists whose filters look only at status, queue and agent: their counters can count them. */
function countableByCounters(plan: Plan): boolean {
  const { q } = plan;
  const searching = !!q.searchParam && parseQuery(q.searchParam).length > 0;
  return (
    plan.statuses.every((s) => s === 'pending' || s === 'open') &&
    !searching &&
    !q.withUnreadMessages &&
    !q.tags?.length &&
    !q.tagsContact?.length &&
    !plan.created &&
    !plan.updated
  );
}

/**
 * A list's size from the working-set counters (docs/decisions.md, "Tab counts"): each counter is
 * a combination of status, queue and agent, kept when the list would read its tickets (one of the
 * list's partitions holds them) and the viewer's rules pass them — the list's own two tests.
 */
async function countByCounters(identity: Identity, plan: Plan): Promise<number> {
  const sources = sourcesFor(identity, plan.statuses, plan.q);
  const cid = identity.companyId;
  // The partitions a ticket of this combination sits in: the same keys every ticket write computes.
  const inSources = (c: TicketCounter) => {
    const keys: Record<string, string | undefined> = ticketIndexKeys({ ...c, companyId: cid, id: 0, whatsappId: 0, updatedAt: '' });
    return sources.some((src) => keys[`${src.index}PK`] === src.pk);
  };
  let n = 0;
  for (const c of await readTicketCounters(cid)) {
    const facts = { ...c, companyId: cid } as unknown as TicketItem;
    if (inSources(c) && plan.pass(facts)) n += c.n;
  }
  return n;
}

/**
 * The exact number of tickets a list holds: from the counters when its filters allow, else the
 * same partitions and rules as the list, reading only the attributes the rules need.
 */
async function countOf(identity: Identity, plan: Plan): Promise<number> {
  if (countableByCounters(plan)) return countByCounters(identity, plan);
  if (plan.q.searchParam && parseQuery(plan.q.searchParam).length) return countSearch(identity, plan);
  const streams = sourcesFor(identity, plan.statuses, plan.q).map((s) => new Stream(s, plan.updated?.[1], plan.updated?.[0], 500, true));
  const seen = new Map<number, TicketItem>();
  let read = 0;
  await Promise.all(
    streams.map(async (s) => {
      while (!s.done && read < MAX_COUNT_READ) {
        const items = await s.next();
        read += items.length;
        for (const t of items) if (!seen.has(t.id) && plan.pass(t)) seen.set(t.id, t);
      }
    }),
  );
  return (await byContactTags(identity.companyId, plan.q, [...seen.values()])).length;
}

/**
 * `GET /tickets/counts`: the badges of the open tab's sub-tabs and of pending, exact, with the
 * list's filters (queues, unread, tags, contact tags, users, search).
 */
export async function countTickets(identity: Identity, query: Record<string, string | undefined>) {
  const base = parseOrThrow(ticketCountsQuerySchema, query) as TicketListQuery;
  const [me, others, pending] = await Promise.all([
    planOf(identity, { ...base, assigned: 'me' }, ['open']).then((p) => countOf(identity, p)),
    planOf(identity, { ...base, assigned: 'others' }, ['open']).then((p) => countOf(identity, p)),
    planOf(identity, base, ['pending']).then((p) => countOf(identity, p)),
  ]);
  return { me, others, pending };
}
