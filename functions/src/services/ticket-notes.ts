import { AppError, parseOrThrow, ticketNoteListSchema, ticketNoteSchema } from '@balcao/shared';
import { nowIso, table } from '../core/ports.js';
import { env } from '../core/env.js';
import { batchGet, getItem, nextId, putItem, deleteItem } from '../core/db.js';
import { keys, noteIndexKeys, noteKey, notesOfContact } from '../table/keys.js';
import type { Identity } from '../core/identity.js';
import { visibleTicket } from './conversation.js';
import { type TicketNoteItem, type UserItem } from '../table/items.js';


function toApiNote(n: TicketNoteItem, users: Map<number, UserItem>) {
  const u = users.get(n.userId);
  return { id: n.id, note: n.note, ticketId: n.ticketId, contactId: n.contactId, userId: n.userId, user: u ? { id: u.id, name: u.name } : null, createdAt: n.createdAt, updatedAt: n.updatedAt };
}

export async function createNote(identity: Identity, input: unknown) {
  const data = parseOrThrow(ticketNoteSchema, input);
  const ticket = await visibleTicket(identity, data.ticketId);
  if (ticket.contactId !== data.contactId) {
    throw new AppError(400, 'ERR_VALIDATION', { message: 'O contato não é o do atendimento', fields: [{ field: 'contactId', message: 'O contato não é o do atendimento' }] });
  }
  const id = await nextId(identity.companyId, 'ticketNote');
  const now = nowIso();
  const item: TicketNoteItem = {
    ...noteKey(identity.companyId, id),
    entity: 'ticketNote',
    ...noteIndexKeys(identity.companyId, data.contactId, now, id),
    id,
    companyId: identity.companyId,
    note: data.note,
    userId: identity.userId,
    ticketId: ticket.id,
    contactId: data.contactId,
    createdAt: now,
    updatedAt: now,
  };
  await putItem(item, 'attribute_not_exists(PK)');
  return toApiNote(item, new Map([[identity.user.id, identity.user]]));
}

/** Notes of a ticket's contact for that ticket, oldest first (a contact has few notes). */
export async function listNotes(identity: Identity, query: Record<string, string | undefined>) {
  const data = parseOrThrow(ticketNoteListSchema, query);
  const ticket = await visibleTicket(identity, data.ticketId);
  if (ticket.contactId !== data.contactId) return [];
  const items: TicketNoteItem[] = [];
  let start: Record<string, unknown> | undefined;
  do {
    const out = await table().query({
      TableName: env.tableName,
      IndexName: 'GSI1',
      KeyConditionExpression: 'GSI1PK = :pk',
      FilterExpression: 'ticketId = :t',
      ExpressionAttributeValues: { ':pk': notesOfContact(identity.companyId, data.contactId), ':t': ticket.id },
      ExclusiveStartKey: start,
    });
    items.push(...((out.Items ?? []) as TicketNoteItem[]));
    start = out.LastEvaluatedKey;
  } while (start);
  const users = await batchGet<UserItem>([...new Set(items.map((n) => n.userId))].map((u) => keys.user(identity.companyId, u)));
  const byId = new Map(users.map((u) => [u.id, u]));
  return items.map((n) => toApiNote(n, byId));
}

/** Its author or an admin deletes a note of a ticket they can see. */
export async function deleteNote(identity: Identity, id: number) {
  const note = await getItem<TicketNoteItem>(noteKey(identity.companyId, id), true);
  if (!note) throw new AppError(404, 'ERR_NOT_FOUND');
  await visibleTicket(identity, note.ticketId).catch(() => {
    throw new AppError(404, 'ERR_NOT_FOUND');
  });
  if (note.userId !== identity.userId && !identity.isAdmin && !identity.isSuper) throw new AppError(403, 'ERR_NO_PERMISSION');
  await deleteItem(noteKey(identity.companyId, id));
}
