import { batchGet, clean } from '../core/db.js';
import { keys } from '../core/keys.js';
import { contactKey, type ContactItem } from './contacts.js';
import { connectionKey, type ConnectionItem } from './connections.js';
import type { TicketItem } from './tickets.js';
import type { QueueItem, UserItem } from './types.js';
import { refsOf, tagRefs, type TagRef } from './tags.js';

export interface TicketRefs {
  contacts: Map<number, ContactItem>;
  users: Map<number, UserItem>;
  queues: Map<number, QueueItem>;
  connections: Map<number, ConnectionItem>;
  /** Tags of the tickets and of their contacts. */
  tags?: Map<number, TagRef>;
}

/** The contacts, agents, queues and connections a page of tickets names: one BatchGet. */
export async function loadRefs(companyId: number, tickets: TicketItem[]): Promise<TicketRefs> {
  const uniq = (xs: (number | null)[]) => [...new Set(xs.filter((x): x is number => typeof x === 'number' && x > 0))];
  const keyList = [
    ...uniq(tickets.map((t) => t.contactId)).map((id) => contactKey(companyId, id)),
    ...uniq(tickets.map((t) => t.userId)).map((id) => keys.user(companyId, id)),
    ...uniq(tickets.map((t) => t.queueId)).map((id) => keys.queue(companyId, id)),
    ...uniq(tickets.map((t) => t.whatsappId)).map((id) => connectionKey(companyId, id)),
  ];
  const items = keyList.length ? await batchGet<{ entity: string; id: number }>(keyList) : [];
  const of = <T>(entity: string) => new Map(items.filter((i) => i.entity === entity).map((i) => [i.id, i as unknown as T]));
  const contacts = of<ContactItem>('contact');
  const tags = await tagRefs(companyId, [...tickets.flatMap((t) => t.tagIds ?? []), ...[...contacts.values()].flatMap((c) => c.tagIds ?? [])]);
  return { contacts, users: of<UserItem>('user'), queues: of<QueueItem>('queue'), connections: of<ConnectionItem>('connection'), tags };
}

/** A ticket as the API answers it, with the names the list and the header show. */
export function toApiTicket(t: TicketItem, refs: TicketRefs) {
  const { wv: _wv, ...rest } = clean(t);
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
export type ApiTicket = ReturnType<typeof toApiTicket>;

export async function toApiTickets(companyId: number, tickets: TicketItem[]) {
  const refs = await loadRefs(companyId, tickets);
  return tickets.map((t) => toApiTicket(t, refs));
}
