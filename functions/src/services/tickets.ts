import { randomUUID } from 'node:crypto';
import { AppError, type TicketFields, type TicketStatus } from '@balcao/shared';
import { getItem, isTransactionConflict, nextId, transact, tx } from '../core/db.js';
import { counterDeltas } from './ticket-counters.js';
import {
  currentMarker,
  ticketKey,
  ticketsByQueue,
  ticketsByStatus,
  ticketsByUser,
  ticketSortKey,
  type TicketTimerKind,
  ticketTimerPartition,
  TIMER_CONNECTIONS,
  timerConnectionSortKey,
  uuidPointer,
} from '../table/keys.js';
import { contactTicketWrites } from './search-index.js';
import { contactViewOf, settleContactView, type ContactView, type ContactViewSource } from './contact-view.js';

export type { TicketStatus } from '@balcao/shared';

/** The stored ticket: its public fields (shared `TicketFields`) with its keys and write version. */
export interface TicketItem extends TicketFields {
  PK: string;
  SK: string;
  entity: 'ticket';
  GSI1PK: string;
  GSI1SK: string;
  GSI2PK: string;
  GSI2SK: string;
  GSI3PK: string;
  GSI3SK: string;
  /** Ticket timer index (sparse; `ticketTimerKeys`). */
  GSI4PK?: string;
  GSI4SK?: string;
  /**
   * Write version: every write of the whole item bumps it and is conditional on the version read
   * (`ticketGuard`), so a message stored at the same time never overwrites a status change.
   */
  wv?: number;
  /** The contact's fields the lists show (services/contact-view.ts); tickets made before it have none until migrated. */
  contactView?: ContactView;
}

/** Every field of a ticket the API answers (`TicketFields`): a list page reads only these. */
export const TICKET_FIELDS = [
  'id', 'uuid', 'companyId', 'status', 'userId', 'queueId', 'contactId', 'whatsappId', 'unreadMessages', 'isGroup', 'lastMessage', 'lastSeq',
  'lastFromMe', 'chatbot', 'useIntegration', 'integrationId', 'promptId', 'tagIds', 'queuedAt', 'startedAt', 'finishedAt',
  'awaitingRatingUntil', 'rating', 'ratingAt', 'ratingUserId', 'createdAt', 'updatedAt',
] as const satisfies readonly (keyof TicketFields)[];
// A field added to TicketFields and not listed above fails to compile here.
const everyTicketField: Exclude<keyof TicketFields, (typeof TICKET_FIELDS)[number]> extends never ? true : never = true;
void everyTicketField;

export const TWO_HOURS_MS = 2 * 60 * 60 * 1000;

/**
 * The ticket timer index (GSI4, sparse): a pending ticket without a queue waits for the auto-transfer,
 * an open ticket whose last message was ours waits for the inactivity close, each in its
 * connection's partition ordered by its last activity (`updatedAt`). Computed with the list keys, so
 * every whole-item write of a ticket keeps it true; the sweeper reads only the due range.
 */
export function ticketTimerKeys(t: Pick<TicketItem, 'companyId' | 'id' | 'status' | 'queueId' | 'whatsappId' | 'updatedAt' | 'lastFromMe'>) {
  const kind: TicketTimerKind | undefined =
    t.status === 'pending' && t.queueId === null ? 'transfer' : t.status === 'open' && t.lastFromMe === true ? 'expire' : undefined;
  // undefined removes the attributes (the document client drops undefined values).
  if (!kind) return { GSI4PK: undefined, GSI4SK: undefined };
  return { GSI4PK: ticketTimerPartition(t.companyId, t.whatsappId, kind), GSI4SK: ticketSortKey(t) };
}

/**
 * A connection whose settings need the ticket timers is listed in the sparse `TIMERS` partition of
 * GSI2, so the sweeper reads only those connections.
 */
export function connectionTimerKeys(c: { companyId: number; id: number; timeToTransfer?: number | null; transferQueueId?: number | null; expiresTicket?: number | null }) {
  const on = ((c.timeToTransfer ?? 0) > 0 && !!c.transferQueueId) || (c.expiresTicket ?? 0) > 0;
  return on ? { GSI2PK: TIMER_CONNECTIONS, GSI2SK: timerConnectionSortKey(c.companyId, c.id) } : undefined;
}

/** The list indexes of a ticket (docs/data-model.md): per status, per agent, per queue; newest first. */
export function ticketIndexKeys(t: Pick<TicketItem, 'companyId' | 'id' | 'status' | 'userId' | 'queueId' | 'updatedAt' | 'whatsappId' | 'lastFromMe'>) {
  const sk = ticketSortKey(t);
  return {
    ...ticketTimerKeys(t),
    GSI1PK: ticketsByStatus(t.companyId, t.status),
    GSI1SK: sk,
    GSI2PK: ticketsByUser(t.companyId, t.userId ?? 0, t.status),
    GSI2SK: sk,
    GSI3PK: ticketsByQueue(t.companyId, t.queueId ?? 0, t.status),
    GSI3SK: sk,
  };
}

/**
 * The condition of a whole-item write of `current`'s next version: the item must still be the one
 * read (same message sequence and write version). Items written before `wv` existed have none.
 */
export function ticketGuard(current: Pick<TicketItem, 'lastSeq' | 'wv'>): { condition: string; values: Record<string, unknown>; wv: number } {
  if (current.wv === undefined) {
    return { condition: 'attribute_exists(PK) AND lastSeq = :gseq AND attribute_not_exists(wv)', values: { ':gseq': current.lastSeq }, wv: 1 };
  }
  return { condition: 'attribute_exists(PK) AND lastSeq = :gseq AND wv = :gwv', values: { ':gseq': current.lastSeq, ':gwv': current.wv }, wv: current.wv + 1 };
}

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
    uuid: randomUUID(),
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

interface CurrentMarker {
  ticketId: number;
  status: TicketStatus;
  closedAt?: string;
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
  now = Date.now(),
): Promise<{ ticket: TicketItem; created: boolean; reopened: boolean }> {
  const marker = currentMarker(companyId, connectionId, contact.id);
  for (let attempt = 0; attempt < 6; attempt++) {
    const cur = await getItem<CurrentMarker>(marker, true);
    if (cur && cur.status !== 'closed') {
      const ticket = await getItem<TicketItem>(ticketKey(companyId, cur.ticketId), true);
      if (ticket && ticket.status !== 'closed') return { ticket, created: false, reopened: false };
    }
    const iso = new Date(now).toISOString();
    if (cur && cur.status === 'closed' && cur.closedAt && now - Date.parse(cur.closedAt) < TWO_HOURS_MS) {
      const ticket = await getItem<TicketItem>(ticketKey(companyId, cur.ticketId), true);
      if (ticket) {
        const guard = ticketGuard(ticket);
        const next: TicketItem = { ...ticket, status: 'pending', userId: null, queueId: null, chatbot: false, unreadMessages: 0, queuedAt: iso, startedAt: null, finishedAt: null, awaitingRatingUntil: null, updatedAt: iso, wv: guard.wv, contactView: contactViewOf(contact) };
        Object.assign(next, ticketIndexKeys(next));
        try {
          await transact(
            [
              tx.update(marker, 'SET #s = :p REMOVE closedAt', { ':p': 'pending', ':c': 'closed', ':t': ticket.id }, '#s = :c AND ticketId = :t', { '#s': 'status' }),
              { Put: { TableName: process.env.TABLE_NAME!, Item: next, ConditionExpression: `${guard.condition} AND #s = :c`, ExpressionAttributeNames: { '#s': 'status' }, ExpressionAttributeValues: { ...guard.values, ':c': 'closed' } } },
              ...counterDeltas(ticket, next),
            ],
            () => new RaceLost(),
          );
          await settleContactView(companyId, next);
          return { ticket: next, created: false, reopened: true };
        } catch (err) {
          if (err instanceof RaceLost || (err as { name?: string }).name === 'TransactionCanceledException') continue;
          throw err;
        }
      }
    }
    const id = await nextId(companyId, 'ticket');
    const ticket = newTicketItem({ companyId, id, status: 'pending', userId: null, queueId: null, contact, whatsappId: connectionId, at: iso });
    const markerCondition = cur ? '#s = :c AND ticketId = :old' : 'attribute_not_exists(PK)';
    const markerValues = cur ? { ':c': 'closed', ':old': cur.ticketId } : undefined;
    try {
      await transact(
        [
          {
            Put: {
              TableName: process.env.TABLE_NAME!,
              Item: { ...marker, entity: 'currentTicket', ticketId: id, status: 'pending' },
              ConditionExpression: markerCondition,
              ExpressionAttributeNames: cur ? { '#s': 'status' } : undefined,
              ExpressionAttributeValues: markerValues,
            },
          },
          tx.put(ticket, 'attribute_not_exists(PK)'),
          tx.put({ ...uuidPointer(companyId, ticket.uuid), entity: 'ticketUuid', ticketId: id }),
          ...contactTicketWrites(companyId, contact.id, id),
          ...counterDeltas(null, ticket),
        ],
        () => new RaceLost(),
      );
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
