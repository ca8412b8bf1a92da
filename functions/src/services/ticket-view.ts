import { companyEvent, type ApiTicket, type MessageSummary, type RealtimeMessage, type TicketFields } from '@balcao/shared';
import { batchGet, type Key } from '../core/db.js';
import { connectionKey, contactKey, keys } from '../table/keys.js';
import { refsOf, tagRefs, type TagRef } from './tag-refs.js';
import { cachedRef, keepRef } from './ref-cache.js';
import { type ConnectionItem, type ContactItem, type ContactView, contactViewOf, type QueueItem, TICKET_FIELDS, type TicketItem, type UserItem } from '../table/items.js';
import { nowMs } from '../core/ports.js';

/** A ticket's contact as pages show it. */
type ContactShown = ContactView & { id: number };

export interface TicketRefs {
  contacts: Map<number, ContactShown>;
  users: Map<number, UserItem>;
  queues: Map<number, QueueItem>;
  connections: Map<number, ConnectionItem>;
  /** Tags of the tickets and of their contacts. */
  tags?: Map<number, TagRef>;
}

/**
 * The contacts, agents, queues and connections a page of tickets names. A contact comes from the
 * ticket's own copy (`contactView`); agents, queues and connections, a company's few names, from a
 * short per-instance cache; what is left, one BatchGet.
 */
export async function loadRefs(companyId: number, tickets: TicketItem[]): Promise<TicketRefs> {
  const uniq = (xs: (number | null)[]) => [...new Set(xs.filter((x): x is number => typeof x === 'number' && x > 0))];
  const named = [
    ...uniq(tickets.map((t) => t.userId)).map((id) => keys.user(companyId, id)),
    ...uniq(tickets.map((t) => t.queueId)).map((id) => keys.queue(companyId, id)),
    ...uniq(tickets.map((t) => t.whatsappId)).map((id) => connectionKey(companyId, id)),
  ];
  const now = nowMs();
  const items: { entity: string; id: number }[] = [];
  const missing: Key[] = [];
  for (const k of named) {
    const hit = cachedRef(k, now);
    if (hit) items.push(hit);
    else missing.push(k);
  }
  const contacts = new Map<number, ContactShown>();
  for (const t of tickets) if (t.contactView) contacts.set(t.contactId, { id: t.contactId, ...t.contactView });
  missing.push(...uniq(tickets.filter((t) => !contacts.has(t.contactId)).map((t) => t.contactId)).map((id) => contactKey(companyId, id)));
  if (missing.length) {
    for (const item of await batchGet<{ PK: string; SK: string; entity: string; id: number }>(missing)) {
      if (item.entity === 'contact') {
        const c = item as unknown as ContactItem;
        contacts.set(c.id, { id: c.id, ...contactViewOf(c) });
        continue;
      }
      items.push(item);
      keepRef(item, now);
    }
  }
  const of = <T>(entity: string) => new Map(items.filter((i) => i.entity === entity).map((i) => [i.id, i as unknown as T]));
  const tags = await tagRefs(companyId, [...tickets.flatMap((t) => t.tagIds ?? []), ...[...contacts.values()].flatMap((c) => c.tagIds)]);
  return { contacts, users: of<UserItem>('user'), queues: of<QueueItem>('queue'), connections: of<ConnectionItem>('connection'), tags };
}

/** A ticket as the API answers it, with the names the list and the header show. */
/**
 * The ticket's own fields the API answers (`TicketFields`), copied in one order: a page's tickets
 * share one object shape (a rest-spread of the stored item cost more than the page's DynamoDB call).
 */
function ticketFields(t: TicketItem): TicketFields {
  const out: Record<string, unknown> = {};
  for (const k of TICKET_FIELDS) if (t[k] !== undefined) out[k] = t[k];
  return out as unknown as TicketFields;
}

export function toApiTicket(t: TicketItem, refs: TicketRefs): ApiTicket {
  const rest = ticketFields(t);
  const contact = refs.contacts.get(t.contactId);
  const user = t.userId ? refs.users.get(t.userId) : undefined;
  const queue = t.queueId ? refs.queues.get(t.queueId) : undefined;
  const wapp = refs.connections.get(t.whatsappId);
  return {
    ...rest,
    tagIds: t.tagIds ?? [],
    tags: refsOf(t.tagIds, refs.tags ?? new Map()),
    contact: contact
      ? { id: contact.id, name: contact.name, number: contact.number, email: contact.email, profilePicUrl: contact.profilePicUrl, isGroup: contact.isGroup, tagIds: contact.tagIds ?? [], tags: refsOf(contact.tagIds, refs.tags ?? new Map()) }
      : null,
    user: user ? { id: user.id, name: user.name } : null,
    queue: queue ? { id: queue.id, name: queue.name, color: queue.color } : null,
    whatsapp: wapp ? { id: wapp.id, name: wapp.name } : null,
  };
}

export async function toApiTickets(companyId: number, tickets: TicketItem[]) {
  const refs = await loadRefs(companyId, tickets);
  return tickets.map((t) => toApiTicket(t, refs));
}

/** What the fan-out needs to decide who may see a ticket's event (visibility rules). */
export const ticketFacts = (t: Pick<TicketItem, 'userId' | 'queueId' | 'status' | 'isGroup'>) => ({ userId: t.userId, queueId: t.queueId, status: t.status, isGroup: t.isGroup });

/**
 * The `company-{id}-ticket` event of a change: the ticket as the API answers it, delivered by the
 * visibility of `seenAs` (by default the ticket itself; the ticket before a move, so those who saw it
 * then drop it).
 */
export function ticketEvent(ticket: TicketItem, api: ApiTicket, action: 'update' | 'delete' = 'update', seenAs: TicketItem = ticket, message?: MessageSummary): RealtimeMessage {
  return {
    companyId: ticket.companyId,
    event: companyEvent(ticket.companyId, 'ticket'),
    data: action === 'delete' ? { action, ticketId: ticket.id, ticket: api } : { action, ticket: api, ...(message ? { message } : {}) },
    audience: [{ kind: 'company' }],
    ticket: ticketFacts(seenAs),
  };
}

