import { AppError, type TicketStatus } from '@balcao/shared';
import { getItem, isTransactionConflict, nextId, transact, tx, isTransactionCanceled } from '../core/db.js';
import { counterDeltas, countTicketChange } from './ticket-counters.js';
import { ticketStatsWrites } from './dashboard-stats.js';
import { currentMarker, ticketIndexKeys, ticketKey, uuidPointer } from '../table/keys.js';
import { contactTicketWrites } from './search-index.js';
import { settleContactView } from './contact-view.js';
import { contactViewOf, type ContactViewSource, type CurrentTicketMarker, ticketGuard, type TicketItem } from '../table/items.js';
import { nowMs, uuid } from '../core/ports.js';

export type { TicketStatus } from '@balcao/shared';



export const TWO_HOURS_MS = 2 * 60 * 60 * 1000;





/** A ticket as first stored: every field at its starting value, the index keys from its state. */
export function newTicketItem(t: {
  companyId: number;
  id: number;
  status: TicketStatus;
  userId: number | null;
  queueId: number | null;
  contact: ContactViewSource & { id: number };
  whatsappId: number;
  at: string;
}): TicketItem {
  const { companyId, id, status, userId, queueId, contact, whatsappId, at } = t;
  return {
    ...ticketKey(companyId, id),
    entity: 'ticket',
    ...ticketIndexKeys({ companyId, id, status, userId, queueId, whatsappId, updatedAt: at }),
    id,
    uuid: uuid(),
    companyId,
    status,
    userId,
    queueId,
    contactId: contact.id,
    contactView: contactViewOf(contact),
    whatsappId,
    unreadMessages: 0,
    isGroup: contact.isGroup,
    lastMessage: '',
    lastSeq: 0,
    chatbot: false,
    useIntegration: false,
    integrationId: null,
    promptId: null,
    tagIds: [],
    queuedAt: at,
    startedAt: status === 'open' ? at : null,
    finishedAt: status === 'closed' ? at : null,
    wv: 0,
    createdAt: at,
    updatedAt: at,
  };
}

export async function getTicketItem(companyId: number, id: number): Promise<TicketItem> {
  const t = await getItem<TicketItem>(ticketKey(companyId, id), true);
  if (!t) throw new AppError(404, 'ERR_NO_TICKET_FOUND');
  return t;
}

/**
 * The ticket an inbound message belongs to (server-behaviour §2 step 4): the non-closed ticket of
 * the contact on this connection; else the last one reopened as pending when it closed less than
 * two hours ago; else a new pending ticket. The per-chat marker is written conditionally, so two
 * first messages arriving at once never make two tickets.
 */
export async function findOrCreateTicket(
  companyId: number,
  connectionId: number,
  contact: ContactViewSource & { id: number },
  now = nowMs(),
  /**
   * `closed`: what a campaign sends through (decision 55): the contact's open ticket, else a new
   * one created closed (a bulk send fills no queue; a reply reopens it by the rule above).
   */
  mode: 'inbound' | 'closed' = 'inbound',
): Promise<{ ticket: TicketItem; created: boolean; reopened: boolean }> {
  const marker = currentMarker(companyId, connectionId, contact.id);
  for (let attempt = 0; attempt < 6; attempt++) {
    const cur = await getItem<CurrentTicketMarker>(marker, true);
    if (cur && cur.status !== 'closed') {
      const ticket = await getItem<TicketItem>(ticketKey(companyId, cur.ticketId), true);
      if (ticket && ticket.status !== 'closed') return { ticket, created: false, reopened: false };
    }
    const iso = new Date(now).toISOString();
    if (mode === 'inbound' && cur && cur.status === 'closed' && cur.closedAt && now - Date.parse(cur.closedAt) < TWO_HOURS_MS) {
      const ticket = await getItem<TicketItem>(ticketKey(companyId, cur.ticketId), true);
      if (ticket) {
        const guard = ticketGuard(ticket);
        // A new cycle: the bot starts over, remembering only the last message it handled (an old
        // message seen again is never answered in the new cycle).
        // The same for an integration or prompt: the old cycle's session and answer are forgotten.
        const { bot: closedCycle, automation: closedAutomation, ...reopened } = ticket;
        const kept = {
          ...(closedCycle?.handledSeq !== undefined ? { bot: { handled: closedCycle.handled, handledSeq: closedCycle.handledSeq } } : {}),
          ...(closedAutomation?.handledSeq !== undefined ? { automation: { handled: closedAutomation.handled, handledSeq: closedAutomation.handledSeq } } : {}),
        };
        const next: TicketItem = { ...reopened, ...kept, status: 'pending', userId: null, queueId: null, chatbot: false, useIntegration: false, integrationId: null, promptId: null, unreadMessages: 0, queuedAt: iso, startedAt: null, finishedAt: null, firstReplyAt: null, agentStarted: false, awaitingRatingUntil: null, updatedAt: iso, wv: guard.wv, contactView: contactViewOf(contact) };
        Object.assign(next, ticketIndexKeys(next));
        try {
          await transact(
            [
              tx.update(marker, 'SET #s = :p REMOVE closedAt', { ':p': 'pending', ':c': 'closed', ':t': ticket.id }, '#s = :c AND ticketId = :t', { '#s': 'status' }),
              { Put: { TableName: process.env.TABLE_NAME!, Item: next, ConditionExpression: `${guard.condition} AND #s = :c`, ExpressionAttributeNames: { '#s': 'status' }, ExpressionAttributeValues: { ...guard.values, ':c': 'closed' } } },
              ...counterDeltas(ticket, next),
              ...(await ticketStatsWrites(ticket, next)),
            ],
            () => new RaceLost(),
          );
          countTicketChange(ticket, next);
          await settleContactView(companyId, next);
          return { ticket: next, created: false, reopened: true };
        } catch (err) {
          if (err instanceof RaceLost || isTransactionCanceled(err)) continue;
          throw err;
        }
      }
    }
    const id = await nextId(companyId, 'ticket');
    const status = mode === 'closed' ? 'closed' : 'pending';
    const ticket = newTicketItem({ companyId, id, status, userId: null, queueId: null, contact, whatsappId: connectionId, at: iso });
    // Never waiting in a queue: no wait time in the reports.
    if (status === 'closed') Object.assign(ticket, { queuedAt: null });
    const markerCondition = cur ? '#s = :c AND ticketId = :old' : 'attribute_not_exists(PK)';
    const markerValues = cur ? { ':c': 'closed', ':old': cur.ticketId } : undefined;
    try {
      await transact(
        [
          {
            Put: {
              TableName: process.env.TABLE_NAME!,
              Item: { ...marker, entity: 'currentTicket', ticketId: id, status, ...(status === 'closed' ? { closedAt: iso } : {}) },
              ConditionExpression: markerCondition,
              ExpressionAttributeNames: cur ? { '#s': 'status' } : undefined,
              ExpressionAttributeValues: markerValues,
            },
          },
          tx.put(ticket, 'attribute_not_exists(PK)'),
          tx.put({ ...uuidPointer(companyId, ticket.uuid), entity: 'ticketUuid', ticketId: id }),
          ...contactTicketWrites(companyId, contact.id, id),
          ...counterDeltas(null, ticket),
          ...(await ticketStatsWrites(null, ticket)),
        ],
        () => new RaceLost(),
      );
      countTicketChange(null, ticket);
      await settleContactView(companyId, ticket);
      return { ticket, created: true, reopened: false };
    } catch (err) {
      // Another message created it first, or a counter was busy: read it again.
      if (err instanceof RaceLost || isTransactionConflict(err)) continue;
      throw err;
    }
  }
  throw new AppError(409, 'ERR_CREATING_TICKET', { message: 'Ticket creation kept racing; retry' });
}

class RaceLost extends Error {}
