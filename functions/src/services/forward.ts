import { AppError, forwardSchema, parseOrThrow } from '@balcao/shared';
import { getItem, isConditionFailure, isTransactionCanceled, transact, tx } from '../core/db.js';
import type { Identity } from '../core/identity.js';
import { visibleMessage } from './message-actions.js';
import { sendInTicket, type OutgoingMessage } from './outbound.js';
import { publishTicketChange } from './ticket-lifecycle.js';
import { counterDeltas } from './ticket-counters.js';
import { ticketStatsWrites } from './dashboard-stats.js';
import { findOrCreateTicket, getTicketItem } from './tickets.js';
import { connectionKey, contactKey, ticketIndexKeys, ticketKey } from '../table/keys.js';
import { type ConnectionItem, type ContactItem, type MessageItem, ticketGuard, type TicketItem } from '../table/items.js';
import { nowMs } from '../core/ports.js';

/**
 * `POST /forward` (spec 001 §7, server-behaviour §7): copies messages into another contact's
 * conversation. Media is not copied again: the forwarded message names the same stored object.
 */
export async function forwardMessages(identity: Identity, input: unknown) {
  const data = parseOrThrow(forwardSchema, input);
  const { companyId } = identity;
  const ids = data.messageIds?.length ? data.messageIds : [data.messageId!];
  const contact = await getItem<ContactItem>(contactKey(companyId, data.contactId));
  if (!contact) throw new AppError(404, 'ERR_NO_CONTACT_FOUND');
  const sources: MessageItem[] = [];
  for (const id of ids) sources.push(await visibleMessage(identity, id));
  for (const m of sources) {
    if (m.isDeleted || m.mediaType === 'call_log' || m.mediaType === 'unsupported') {
      throw new AppError(400, 'ERR_VALIDATION', { message: 'Esta mensagem não pode ser encaminhada', fields: [{ field: 'messageId', message: 'Esta mensagem não pode ser encaminhada' }] });
    }
  }
  const connectionId = await forwardConnection(identity, sources[0]);
  let ticket = await ticketForForward(identity, contact, connectionId, sources[0]);
  const messages: MessageItem[] = [];
  for (const [i, m] of sources.entries()) {
    const out: OutgoingMessage = { body: m.mediaType === 'contactMessage' ? '' : m.body, userId: identity.userId };
    if (m.mediaType === 'contactMessage') out.vcard = m.body;
    else if (m.media && m.mediaType) out.media = { ...m.media, mediaType: m.mediaType };
    messages.push(await sendInTicket(ticket, out));
    if (i < sources.length - 1) ticket = await getTicketItem(companyId, ticket.id);
  }
  return { ticket: await getTicketItem(companyId, ticket.id), messages };
}

/** The forwarder's own connection when it still exists, else the one the message came from. */
async function forwardConnection(identity: Identity, source: MessageItem): Promise<number> {
  const own = identity.user.whatsappId;
  if (own && own !== source.whatsappId && (await getItem<ConnectionItem>(connectionKey(identity.companyId, own)))) return own;
  return source.whatsappId;
}

/**
 * The contact's conversation on the connection: its open or pending ticket as it is; otherwise
 * the ticket is reopened (closed less than two hours ago) or created, and opened for the forwarder.
 */
async function ticketForForward(identity: Identity, contact: ContactItem, connectionId: number, source: MessageItem): Promise<TicketItem> {
  const found = await findOrCreateTicket(identity.companyId, connectionId, contact);
  if (!found.created && !found.reopened) return found.ticket;
  const sourceTicket = await getItem<TicketItem>(ticketKey(identity.companyId, source.ticketId));
  let current = found.ticket;
  for (let attempt = 0; attempt < 8; attempt++) {
    // Someone else (an agent, or the contact's own message) moved it meanwhile: use it as it is.
    if (current.status !== 'pending' || current.userId) return current;
    const now = new Date(Math.max(nowMs(), Date.parse(current.updatedAt) + 1)).toISOString();
    const guard = ticketGuard(current);
    const next: TicketItem = {
      ...current,
      status: 'open',
      userId: identity.userId,
      queueId: current.queueId ?? sourceTicket?.queueId ?? identity.queueIds[0] ?? null,
      startedAt: now,
      updatedAt: now,
      wv: guard.wv,
      // The agent starts this conversation by forwarding: no first response to measure.
      agentStarted: true,
    };
    Object.assign(next, ticketIndexKeys(next));
    try {
      await transact([tx.put(next, guard.condition, guard.values), ...counterDeltas(current, next), ...(await ticketStatsWrites(current, next))]);
      await publishTicketChange(next, 'update', current);
      return next;
    } catch (err) {
      if (!isTransactionCanceled(err) && !isConditionFailure(err)) throw err;
      current = await getTicketItem(identity.companyId, current.id);
    }
  }
  throw new AppError(409, 'ERR_CREATING_TICKET');
}
