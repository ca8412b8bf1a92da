import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { TICKETS_PAGE, canSeeTicket, isAdminProfile, parseOrThrow, ticketListQuerySchema, type TicketListQuery, type TicketStatusValue } from '@balcao/shared';
import { dynamo } from '../core/aws.js';
import { env } from '../core/env.js';
import { batchGet, getItem, queryAll } from '../core/db.js';
import type { Identity } from '../core/identity.js';
import { contactKey, fold, numberMarker, type ContactItem } from './contacts.js';
import { currentMarker, ticketKey } from './tickets.js';
import type { TicketItem } from './tickets.js';
import type { ConnectionItem } from './connections.js';
import { toApiTickets } from './ticket-view.js';

type Index = 'GSI1' | 'GSI2' | 'GSI3';
interface Source {
  index: Index;
  pk: string;
}

/** Upper bound of items read for one page when filters drop many: the answer says hasMore. */
const MAX_READ = 4000;

/**
 * One index partition read newest first, a page at a time, between `lo` (inclusive) and `hi`
 * (exclusive). All three ticket indexes share the sort key `<updatedAt>#<id>`.
 */
class Stream {
  private buf: TicketItem[] = [];
  private start: Record<string, unknown> | undefined;
  done = false;
  constructor(private src: Source, private hi: string | undefined, private lo: string | undefined, private pageSize: number) {}

  async head(): Promise<TicketItem | undefined> {
    while (!this.buf.length && !this.done) await this.fill();
    return this.buf[0];
  }
  shift() {
    return this.buf.shift();
  }
  read = 0;
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
    const out = await dynamo().send(
      new QueryCommand({
        TableName: env.tableName,
        IndexName: index,
        KeyConditionExpression: cond.join(' AND '),
        ExpressionAttributeValues: values,
        ScanIndexForward: false,
        Limit: this.pageSize,
        ExclusiveStartKey: this.start,
      }),
    );
    const items = (out.Items ?? []) as TicketItem[];
    this.read += items.length;
    // BETWEEN includes `hi`: the cursor's own ticket was on the previous page.
    this.buf.push(...items.filter((t) => !this.hi || t.GSI1SK < this.hi));
    this.start = out.LastEvaluatedKey;
    this.done = !this.start;
    // Later pages of a heavily filtered partition are read in bigger steps.
    this.pageSize = Math.min(this.pageSize * 2, 400);
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
  const byUser = (u: number, s: string): Source => ({ index: 'GSI2', pk: `C#${cid}#TKU#${u}#${s}` });
  const byQueue = (qid: number, s: string): Source => ({ index: 'GSI3', pk: `C#${cid}#TKQ#${qid}#${s}` });
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
      else out.push({ index: 'GSI1', pk: `C#${cid}#TKS#${s}` });
      continue;
    }
    out.push(byUser(identity.userId, s));
    const queuesSeen = s === 'pending' || identity.profile === 'Nível 2';
    if (queuesSeen) {
      const mine = q.queueIds?.length ? identity.queueIds.filter((x) => q.queueIds!.includes(x)) : identity.queueIds;
      for (const qid of mine) out.push(byQueue(qid, s));
      if (identity.allTicket) out.push(byQueue(0, s));
    }
  }
  const seen = new Set<string>();
  return out.filter((x) => (seen.has(x.pk) ? false : (seen.add(x.pk), true)));
}

const nextDay = (day: string) => new Date(Date.parse(`${day}T00:00:00Z`) + 86_400_000).toISOString().slice(0, 10);

/**
 * `GET /tickets` (spec 001 §4): `{tickets, count, hasMore, nextCursor}`, 40 per page, newest
 * `updatedAt` first. The partitions of `sourcesFor` are merged by their common sort key; every
 * candidate passes `canSeeTicket` and the filters. Paging: `cursor` (the previous answer's
 * `nextCursor`) reads only from there on; `pageNumber` alone skips the earlier pages' tickets.
 */
export async function listTickets(identity: Identity, query: Record<string, string | undefined>) {
  const q = parseOrThrow(ticketListQuerySchema, query);
  const statuses: TicketStatusValue[] =
    q.isUseStatusFilter && q.statusFilter?.length ? [...new Set(q.statusFilter)] : q.status ? [q.status] : q.statusFilter?.length ? [...new Set(q.statusFilter)] : ['pending', 'open'];
  const pageNumber = q.cursor ? 1 : q.pageNumber ?? 1;
  const skip = (pageNumber - 1) * TICKETS_PAGE;
  const want = skip + TICKETS_PAGE + 1;
  const hi = q.cursor ?? (q.updatedAt ? `${nextDay(q.updatedAt)}` : undefined);
  const lo = q.updatedAt;
  const viewer = { userId: identity.userId, profile: identity.profile, queueIds: identity.queueIds, allTicket: identity.allTicket };
  const sources = sourcesFor(identity, statuses, q);
  const streams = sources.map((s) => new Stream(s, hi, lo, Math.min(want + 1, 100)));

  const pass = (t: TicketItem) => {
    if (!identity.isSuper && !canSeeTicket(viewer, t)) return false;
    if (!statuses.includes(t.status)) return false;
    if (q.queueIds?.length && t.queueId !== null && !q.queueIds.includes(t.queueId)) return false;
    if (q.withUnreadMessages && !(t.unreadMessages > 0)) return false;
    if (q.assigned === 'me' && t.userId !== identity.userId) return false;
    if (q.assigned === 'others' && t.userId === identity.userId) return false;
    if (q.users?.length && identity.isAdmin && (t.userId === null || !q.users.includes(t.userId))) return false;
    if (q.tags?.length && !q.tags.every((tag) => (t.tagIds ?? []).includes(tag))) return false;
    if (q.date && !t.createdAt.startsWith(q.date)) return false;
    return true;
  };

  if (q.searchParam?.trim()) return searchTickets(identity, q, statuses, pass, skip);

  const accepted: TicketItem[] = [];
  const ids = new Set<number>();
  let candidates: TicketItem[] = [];
  let read = 0;
  let truncated = false;
  const flush = async () => {
    // Contact tags live on the contacts: checked per batch of candidates.
    let batch = candidates;
    candidates = [];
    if (q.tagsContact?.length && batch.length) {
      const contacts = await batchGet<ContactItem>(batch.map((t) => contactKey(identity.companyId, t.contactId)));
      const byId = new Map(contacts.map((c) => [c.id, c]));
      batch = batch.filter((t) => q.tagsContact!.every((tag) => (byId.get(t.contactId)?.tagIds ?? []).includes(tag)));
    }
    accepted.push(...batch);
  };
  for (;;) {
    if (accepted.length + candidates.length >= want) await flush();
    if (accepted.length >= want) break;
    let best: Stream | undefined;
    let bestHead: TicketItem | undefined;
    for (const s of streams) {
      const h = await s.head();
      if (h && (!bestHead || h.GSI1SK > bestHead.GSI1SK)) {
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
    if (pass(bestHead)) candidates.push(bestHead);
  }
  await flush();
  const page = accepted.slice(skip, skip + TICKETS_PAGE);
  const hasMore = accepted.length > skip + TICKETS_PAGE || truncated;
  const last = page[page.length - 1];
  return {
    tickets: await toApiTickets(identity.companyId, page),
    /** Tickets up to and including this page (exact totals per tab are not kept yet). */
    count: skip + page.length,
    hasMore,
    nextCursor: hasMore && last ? last.GSI1SK : null,
  };
}

/** Contacts read for one search: a prefix that matches more is narrowed by typing more. */
const SEARCH_CONTACTS = 200;

/**
 * `searchParam` (first step): contacts whose name starts with the text (accents and case folded,
 * the contacts' alphabetical index) or whose number is exactly the digits typed (the number
 * marker); then each chat's current ticket on every connection (the chat markers). Partial numbers,
 * words inside names and message text need a search index: not done yet.
 */
async function searchTickets(identity: Identity, q: TicketListQuery, statuses: TicketStatusValue[], pass: (t: TicketItem) => boolean, skip: number) {
  const cid = identity.companyId;
  const term = q.searchParam!.trim();
  const digits = term.replace(/\D/g, '');
  const contactIds = new Set<number>();
  if (/^[\d\s()+.-]+$/.test(term) && digits.length >= 3) {
    const m = await getItem<{ contactId: number }>(numberMarker(cid, digits));
    if (m) contactIds.add(m.contactId);
  } else {
    const out = await dynamo().send(
      new QueryCommand({
        TableName: env.tableName,
        IndexName: 'GSI1',
        KeyConditionExpression: 'GSI1PK = :pk AND begins_with(GSI1SK, :p)',
        ExpressionAttributeValues: { ':pk': `C#${cid}#CONTACTS`, ':p': fold(term) },
        Limit: SEARCH_CONTACTS,
      }),
    );
    for (const c of (out.Items ?? []) as ContactItem[]) contactIds.add(c.id);
  }
  const connections = contactIds.size ? await queryAll<ConnectionItem>(`C#${cid}`, 'WAPP#') : [];
  const markers = await batchGet<{ ticketId: number }>([...contactIds].flatMap((ct) => connections.map((w) => currentMarker(cid, w.id, ct))));
  const found = await batchGet<TicketItem>([...new Set(markers.map((m) => m.ticketId))].map((id) => ticketKey(cid, id)));
  let matches = found.filter((t) => statuses.includes(t.status) && pass(t)).sort((a, b) => (a.GSI1SK < b.GSI1SK ? 1 : -1));
  if (q.cursor) matches = matches.filter((t) => t.GSI1SK < q.cursor!);
  const page = matches.slice(skip, skip + TICKETS_PAGE);
  const hasMore = matches.length > skip + TICKETS_PAGE;
  return {
    tickets: await toApiTickets(cid, page),
    count: matches.length,
    hasMore,
    nextCursor: hasMore && page.length ? page[page.length - 1].GSI1SK : null,
  };
}
