import { getItem, queryAll } from '../core/db.js';
import { messagePointer, messagePointers, ticketKey } from '../table/keys.js';
import { type MessageItem } from '../table/items.js';

/** A message by its WhatsApp id on one connection (the inbound pipeline and the session host). */
export async function findMessage(companyId: number, waMessageId: string, connectionId: number): Promise<MessageItem | undefined> {
  const pointer = await getItem<{ ticketId: number; sk: string }>(messagePointer(companyId, waMessageId, connectionId), true);
  if (!pointer) return undefined;
  return getItem<MessageItem>({ PK: ticketKey(companyId, pointer.ticketId).PK, SK: pointer.sk }, true);
}

/** A message by its id in a company (the API's `/messages/{id}` routes). */
export async function findMessageById(companyId: number, waMessageId: string): Promise<MessageItem | undefined> {
  const pointers = await queryAll<{ ticketId: number; sk: string }>(messagePointers(companyId, waMessageId));
  if (!pointers.length) return undefined;
  return getItem<MessageItem>({ PK: ticketKey(companyId, pointers[0].ticketId).PK, SK: pointers[0].sk }, true);
}
