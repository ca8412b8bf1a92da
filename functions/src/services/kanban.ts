import { AppError, KANBAN_FIRST_PAGE, KANBAN_LANE_PAGE, kanbanQuerySchema, parseOrThrow, type ApiKanbanBoard, type ApiKanbanCard, type ApiTicket, type KanbanLane, type TicketListQuery } from '@balcao/shared';
import { table } from '../core/ports.js';
import { env } from '../core/env.js';
import { batchGet } from '../core/db.js';
import type { Identity } from '../core/identity.js';
import { kanbanLaneTags } from './tags.js';
import { pageOf, planOf, type Plan } from './ticket-list.js';
import { toApiTickets } from './ticket-view.js';
import { contactTicketsPartition, tagKey, tagLinkKey, tagLinkPrefix, ticketKey, ticketSortKey } from '../table/keys.js';
import { TICKET_FIELDS, type TicketItem } from '../table/items.js';

/** Links read per lane at most for one page (a lane of closed tickets ends early, saying hasMore). */
const LINK_BUDGET = 1200;
/** A contact's newest tickets looked at: its pending or open ones are among them. */
const TICKETS_PER_CONTACT = 5;
/** What a card needs of a ticket: the API's fields and the contact's copy (not the index keys). */
const CARD_PROJECTION = (() => {
  const fields = ['entity', ...TICKET_FIELDS, 'contactView'];
  return { ProjectionExpression: fields.map((_, i) => `#p${i}`).join(', '), ExpressionAttributeNames: Object.fromEntries(fields.map((f, i) => [`#p${i}`, f])) };
})();

type BoardType = 'ticket' | 'contact';

interface LanePage {
  tickets: TicketItem[];
  hasMore: boolean;
  cursor: string | null;
}

/**
 * `GET /ticket/kanban` (spec 002 §2, §7; decision 56): the pending and open tickets the user may
 * see, in lanes. A tag lane is read from its tag's link items (one partition per tag, newest ticket
 * or contact first), so a lane's page costs the same with 5 or 5 000 cards; 'Em aberto' (lane 0) is
 * the tickets list's merge of the status partitions, keeping tickets without a lane's tag. Every
 * card passes the tickets list's visibility and queue rules (`planOf`).
 */
export async function kanbanBoard(identity: Identity, query: Record<string, string | undefined>): Promise<ApiKanbanBoard> {
  const q = parseOrThrow(kanbanQuerySchema, query);
  const type: BoardType = q.type ?? 'ticket';
  const laneIds = (await kanbanLaneTags(identity.companyId, type)).map((t) => t.id);
  if (q.lane !== undefined && q.lane !== 0 && !laneIds.includes(q.lane)) throw new AppError(404, 'ERR_NOT_FOUND');
  const listQuery: TicketListQuery = { showAll: true, ...(q.queueIds?.length ? { queueIds: q.queueIds } : {}) };
  const plan = await planOf(identity, listQuery, ['pending', 'open']);
  // Lanes listed that are no longer lanes (a tag changed meanwhile) are left out, not refused.
  const wanted = q.lane !== undefined ? [q.lane] : [0, ...laneIds].filter((id) => !q.lanes?.length || q.lanes.includes(id));
  const cursorOf = (id: number) => (q.lane === id ? q.cursor : undefined);

  // The first load shows a short page of every lane; a lane's own later pages are longer.
  const size = q.lane === undefined ? KANBAN_FIRST_PAGE : KANBAN_LANE_PAGE;
  const tagLaneIds = wanted.filter((id) => id !== 0);
  const [open, tagged] = await Promise.all([
    wanted.includes(0) ? openLane(identity, plan, new Set(laneIds), type, size, cursorOf(0)) : undefined,
    type === 'ticket'
      ? ticketTagLanes(identity.companyId, tagLaneIds, plan, size, cursorOf)
      : Promise.all(tagLaneIds.map((id) => contactTagLane(identity.companyId, id, plan, size, cursorOf(id)))),
  ]);
  const pages = wanted.map((id) => (id === 0 ? open! : tagged[tagLaneIds.indexOf(id)]));
  const unique = new Map<number, TicketItem>();
  for (const p of pages) for (const t of p.tickets) unique.set(t.id, t);
  const lanes: KanbanLane[] = wanted.map((id, i) => ({ id, ticketIds: pages[i].tickets.map((t) => t.id), hasMore: pages[i].hasMore, cursor: pages[i].cursor }));
  const cards = (await toApiTickets(identity.companyId, [...unique.values()])).map(toCard);
  return { tickets: cards, lanes };
}

/** A card's fields of the API's ticket (a board of 21 lanes answers some 200: only what it shows). */
const toCard = (t: ApiTicket): ApiKanbanCard => ({
  id: t.id,
  uuid: t.uuid,
  status: t.status,
  queueId: t.queueId,
  userId: t.userId,
  contactId: t.contactId,
  updatedAt: t.updatedAt,
  lastMessage: t.lastMessage,
  unreadMessages: t.unreadMessages,
  tagIds: t.tagIds,
  contact: t.contact && { id: t.contact.id, name: t.contact.name, number: t.contact.number, tagIds: t.contact.tagIds },
});

const laneTagsOf = (t: TicketItem, type: BoardType) => (type === 'ticket' ? t.tagIds : t.contactView?.tagIds) ?? [];

/** 'Em aberto': newest `updatedAt` first, the tickets list's cursor (`<updatedAt>#<id>`). */
async function openLane(identity: Identity, plan: Plan, lanes: Set<number>, type: BoardType, size: number, cursor?: string): Promise<LanePage> {
  if (cursor !== undefined && !/^\d{4}-\d{2}-\d{2}T[^#]+#\d{10}$/.test(cursor)) throw invalidCursor();
  const lanePlan: Plan = { ...plan, q: { ...plan.q, cursor }, pass: (t) => plan.pass(t) && !laneTagsOf(t, type).some((x) => lanes.has(x)) };
  const { page, hasMore } = await pageOf(identity, lanePlan, 0, size);
  const last = page[page.length - 1];
  return { tickets: page, hasMore, cursor: hasMore && last ? ticketSortKey(last) : null };
}

const invalidCursor = () => new AppError(400, 'ERR_VALIDATION', { message: 'Valor inválido', fields: [{ field: 'cursor', message: 'Valor inválido' }] });

function idCursor(cursor?: string): number | undefined {
  if (cursor === undefined) return undefined;
  if (!/^\d{1,10}$/.test(cursor)) throw invalidCursor();
  return Number(cursor);
}

/**
 * Target ids of a tag's links of one kind, newest (highest id) first, below `below`, at most
 * `limit`: the link items share the tag's partition (`TK#`/`CT#` + padded id).
 */
async function linkedIds(companyId: number, tagId: number, kind: 'TK' | 'CT', below: number | undefined, limit: number): Promise<{ ids: number[]; done: boolean }> {
  if (below !== undefined && below <= 1) return { ids: [], done: true };
  const out = await table().query({
    TableName: env.tableName,
    KeyConditionExpression: 'PK = :pk AND SK BETWEEN :lo AND :hi',
    ExpressionAttributeValues: {
      ':pk': tagKey(companyId, tagId).PK,
      ':lo': tagLinkPrefix(kind),
      ':hi': tagLinkKey(companyId, tagId, kind, below === undefined ? 9_999_999_999 : below - 1).SK,
    },
    ProjectionExpression: 'SK',
    ScanIndexForward: false,
    Limit: limit,
  });
  const ids = ((out.Items ?? []) as { SK: string }[]).map((l) => Number(l.SK.slice(tagLinkPrefix(kind).length))).filter((n) => n > 0);
  return { ids, done: !out.LastEvaluatedKey };
}

/** The tickets of `ids` as cards need them (one BatchGet per 100). */
async function ticketsById(companyId: number, ids: number[]): Promise<Map<number, TicketItem>> {
  const found = await batchGet<TicketItem>(ids.map((id) => ticketKey(companyId, id)), CARD_PROJECTION);
  return new Map(found.filter((t) => t.entity === 'ticket').map((t) => [t.id, t]));
}

/**
 * Ticket tags' lanes: each one's linked tickets, newest first, that are pending or open and
 * visible. Read in rounds over all lanes at once: every lane still short reads its next links (a
 * little more than it lacks, more each round), and their tickets come in one BatchGet.
 */
async function ticketTagLanes(companyId: number, laneIds: number[], plan: Plan, size: number, cursorOf: (id: number) => string | undefined): Promise<LanePage[]> {
  const lanes = laneIds.map((id) => ({ id, below: idCursor(cursorOf(id)), accepted: [] as TicketItem[], scanned: 0, done: false, step: Math.ceil((size + 1) * 1.5) }));
  const pageOfLane = (l: (typeof lanes)[number]): LanePage => {
    if (l.accepted.length > size) {
      const page = l.accepted.slice(0, size);
      return { tickets: page, hasMore: true, cursor: String(page[page.length - 1].id) };
    }
    // Done: all read; else the budget ran out and the next page starts below the last link read.
    return { tickets: l.accepted, hasMore: !l.done, cursor: l.done ? null : String(l.below) };
  };
  for (;;) {
    const active = lanes.filter((l) => !l.done && l.accepted.length <= size && l.scanned < LINK_BUDGET);
    if (!active.length) break;
    const links = await Promise.all(active.map((l) => linkedIds(companyId, l.id, 'TK', l.below, l.step)));
    const tickets = await ticketsById(companyId, [...new Set(links.flatMap((x) => x.ids))]);
    for (const [i, l] of active.entries()) {
      const { ids, done } = links[i];
      for (const id of ids) {
        l.below = id;
        l.scanned++;
        const t = tickets.get(id);
        if (t && plan.pass(t)) l.accepted.push(t);
        if (l.accepted.length > size) break;
      }
      // A page filled before its links ran out: the next page reads them again from its cursor.
      l.done = done && l.accepted.length <= size;
      l.step = Math.min(l.step * 2, 200);
    }
  }
  return lanes.map(pageOfLane);
}

/**
 * A contact tag's lane (the board by Contato): the pending or open tickets of the tag's contacts,
 * contact by contact (newest contact first). The cursor is the last contact whose tickets were given.
 */
async function contactTagLane(companyId: number, tagId: number, plan: Plan, size: number, cursor?: string): Promise<LanePage> {
  const accepted: TicketItem[] = [];
  let scanned = 0;
  let lastScanned = idCursor(cursor);
  for (;;) {
    const { ids: contactIds, done } = await linkedIds(companyId, tagId, 'CT', lastScanned, size + 10);
    const perContact = await Promise.all(contactIds.map((contactId) => newestTicketIds(companyId, contactId)));
    const found = await ticketsById(companyId, perContact.flat());
    for (const [i, contactId] of contactIds.entries()) {
      if (accepted.length >= size) return { tickets: accepted, hasMore: true, cursor: String(lastScanned) };
      lastScanned = contactId;
      scanned++;
      for (const id of perContact[i]) {
        const t = found.get(id);
        if (t && plan.pass(t)) accepted.push(t);
      }
    }
    if (done) return { tickets: accepted, hasMore: false, cursor: null };
    if (scanned >= LINK_BUDGET) return { tickets: accepted, hasMore: true, cursor: String(lastScanned) };
  }
}

async function newestTicketIds(companyId: number, contactId: number): Promise<number[]> {
  const out = await table().query({
    TableName: env.tableName,
    KeyConditionExpression: 'PK = :pk',
    ExpressionAttributeValues: { ':pk': contactTicketsPartition(companyId, contactId) },
    ProjectionExpression: 'ticketId',
    ScanIndexForward: false,
    Limit: TICKETS_PER_CONTACT,
  });
  return ((out.Items ?? []) as { ticketId: number }[]).map((x) => x.ticketId);
}
