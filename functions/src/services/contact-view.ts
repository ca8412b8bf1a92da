import { getItem, isConditionFailure, queryAll } from '../core/db.js';
import { table } from '../core/ports.js';
import { env } from '../core/env.js';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { pool } from './search-index.js';
import { contactKey, contactTicketsPartition, ticketKey } from '../table/keys.js';
import { type ContactItem, type ContactView, contactViewOf, sameContactView } from '../table/items.js';





/** How many of a contact's tickets are written at once. */
const FAN_OUT = 8;

/**
 * Writes `view` on one ticket unless it already holds it. The write version moves, so a whole-item
 * write of the ticket prepared from an older read (ticketGuard) reads it again instead of putting
 * the old copy back. Returns whether it wrote.
 */
async function writeView(companyId: number, ticketId: number, view: ContactView, onlyMissing = false): Promise<boolean> {
  try {
    await table().send(
      new UpdateCommand({
        TableName: env.tableName,
        Key: ticketKey(companyId, ticketId),
        UpdateExpression: 'SET contactView = :v ADD wv :one',
        ConditionExpression: onlyMissing ? 'attribute_exists(PK) AND attribute_not_exists(contactView)' : 'attribute_exists(PK) AND (attribute_not_exists(contactView) OR contactView <> :v)',
        ExpressionAttributeValues: { ':v': view, ':one': 1 },
      }),
    );
    return true;
  } catch (err) {
    if (isConditionFailure(err)) return false;
    throw err;
  }
}

/** The ids of every ticket of a contact (its `CTK#` partition, written with each ticket). */
export async function contactTicketIds(companyId: number, contactId: number): Promise<number[]> {
  const items = await queryAll<{ ticketId: number }>(contactTicketsPartition(companyId, contactId), undefined, { ProjectionExpression: 'ticketId' });
  return items.map((i) => i.ticketId);
}

/**
 * After a change of a contact's shown fields: writes them on each of its tickets, then reads the
 * contact again and repeats if it changed meanwhile. Two changes at once both end on the later
 * state: whichever finishes last saw it after its own writes.
 */
export async function refreshContactViews(companyId: number, contactId: number): Promise<number> {
  let written = 0;
  let contact = await getItem<ContactItem>(contactKey(companyId, contactId), true);
  for (let round = 0; contact && round < 5; round++) {
    const view = contactViewOf(contact);
    const ids = await contactTicketIds(companyId, contactId);
    const wrote = await pool(ids, FAN_OUT, (id) => writeView(companyId, id, view));
    written += wrote.filter(Boolean).length;
    const again = await getItem<ContactItem>(contactKey(companyId, contactId), true);
    if (!again || sameContactView(contactViewOf(again), view)) break;
    contact = again;
  }
  return written;
}

/**
 * After a ticket was stored (made or reopened) with the contact as read before: a change of the
 * contact committed meanwhile may have listed the contact's tickets before this one existed, so
 * the ticket takes the contact's current fields itself.
 */
export async function settleContactView(companyId: number, ticket: { id: number; contactId: number; contactView?: ContactView }) {
  const contact = await getItem<ContactItem>(contactKey(companyId, ticket.contactId), true);
  if (!contact) return;
  const view = contactViewOf(contact);
  if (!sameContactView(view, ticket.contactView)) await writeView(companyId, ticket.id, view);
}

/** Migration: the copy on the tickets of one contact that have none yet. */
export async function fillContactViews(companyId: number, contact: ContactItem): Promise<number> {
  const view = contactViewOf(contact);
  const ids = await contactTicketIds(companyId, contact.id);
  const wrote = await pool(ids, FAN_OUT, (id) => writeView(companyId, id, view, true));
  return wrote.filter(Boolean).length;
}
