import { AppError } from '@balcao/shared';
import { deleteItem, getItem, queryAll, transact, tx, type TransactItem, isTransactionCanceled } from '../core/db.js';
import { currentMarker, messagePointer, ticketKey, uuidPointer } from '../table/keys.js';
import { type CurrentTicketMarker, type MessageItem, ticketGuard, type TicketItem } from '../table/items.js';
import type { Identity } from '../core/identity.js';
import { counterDeltas } from './ticket-counters.js';
import { publishTagCounts, ticketLinkOps } from './tags.js';
import { getTicketItem } from './tickets.js';
import { publishTicketChange } from './ticket-lifecycle.js';

/**
 * Deletes a ticket (admins, `DELETE /tickets/{id}`): the ticket, its uuid pointer, its tag links
 * and counters in one transaction over the version read, then its conversation.
 */
export async function deleteTicket(identity: Identity, ticketId: number): Promise<void> {
  let t: TicketItem | undefined;
  for (let attempt = 0; !t; attempt++) {
    const current = await getTicketItem(identity.companyId, ticketId);
    const marker = await getItem<CurrentTicketMarker>(currentMarker(current.companyId, current.whatsappId, current.contactId), true);
    // The ticket's tag links (and the tags' ticketsCount) go in the same transaction, over the
    // version read: a tag put on it meanwhile makes this read again instead of leaving a link.
    const guard = ticketGuard(current);
    const items: TransactItem[] = [
      { Delete: { TableName: process.env.TABLE_NAME!, Key: ticketKey(current.companyId, current.id), ConditionExpression: guard.condition, ExpressionAttributeValues: guard.values } },
      tx.delete(uuidPointer(current.companyId, current.uuid)),
      ...ticketLinkOps(current.companyId, current.id, [...new Set(current.tagIds ?? [])], []),
      ...counterDeltas(current, null),
    ];
    if (marker?.ticketId === current.id) {
      items.push({ Delete: { TableName: process.env.TABLE_NAME!, Key: currentMarker(current.companyId, current.whatsappId, current.contactId), ConditionExpression: 'ticketId = :t', ExpressionAttributeValues: { ':t': current.id } } });
    }
    try {
      await transact(items);
      t = current;
    } catch (err) {
      if (!isTransactionCanceled(err)) throw err;
      if (attempt >= 5) throw new AppError(409, 'ERR_VALIDATION', { message: 'O ticket mudou ao mesmo tempo; tente de novo' });
      await new Promise((r) => setTimeout(r, 20 * 2 ** attempt + Math.random() * 20));
    }
  }
  await publishTicketChange(t, 'delete');
  await publishTagCounts(t.companyId, t.tagIds ?? []);
  // The conversation goes with it (same partition); pointers of its messages too.
  const rest = await queryAll<MessageItem & { entity: string }>(t.PK);
  for (const m of rest) {
    await deleteItem({ PK: m.PK, SK: m.SK });
    if (m.entity === 'message') await deleteItem(messagePointer(t.companyId, m.id, m.whatsappId));
  }
}
