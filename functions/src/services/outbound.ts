import { AppError, ACK, newWaMessageId, type StoredMedia, type MediaType } from '@balcao/shared';
import { z } from 'zod';
import { sendCommand } from '../core/commands.js';
import { getItem } from '../core/db.js';
import { storeMessage, publishMessageUpdate, publishNewMessage, patchMessage, markSendFailed, markSendTimedOut, ticketOfMessage } from './messages.js';
import { findMessage } from './message-lookup.js';
import { getTicketItem } from './tickets.js';
import { connectionKey, contactKey } from '../table/keys.js';
import { type ConnectionItem, type ContactItem, type MessageItem, type TicketItem } from '../table/items.js';
import { count, log } from '../core/observability.js';
import { nowIso, ports } from '../core/ports.js';

/**
 * How long a sent message may wait for WhatsApp's confirmation before it shows failed with the
 * retry button: past the host's wait for a reconnecting session (20 s) and a host restart, well
 * before an agent would wonder about a clock icon. Retrying reuses the WhatsApp id, so a late send
 * of the first attempt is never a second message.
 */
export const SEND_TIMEOUT_SECONDS = 120;

/** The check a send leaves on the ticket-timers queue, delayed by SEND_TIMEOUT_SECONDS. */
export const sendTimeoutJobSchema = z.object({
  v: z.literal(1),
  kind: z.literal('sendTimeout'),
  companyId: z.number().int().positive(),
  connectionId: z.number().int().positive(),
  waMessageId: z.string().min(1),
  /** The message's version when it was handed to the session host. */
  since: z.string(),
});
export type SendTimeoutJob = z.infer<typeof sendTimeoutJobSchema>;

/**
 * How soon a send checks it was handed to the session host. The check is left before the message
 * is stored, so a process killed between storing and handing over (the one-machine stack's power
 * button, a Lambda timeout) cannot leave a message no one sends.
 */
export const SEND_RECOVERY_SECONDS = 10;

export const sendRecoveryJobSchema = z.object({
  v: z.literal(1),
  kind: z.literal('sendRecovery'),
  companyId: z.number().int().positive(),
  connectionId: z.number().int().positive(),
  waMessageId: z.string().min(1),
  /** The command id of the hand-over it guards: the command queue drops a second copy (5 minutes). */
  commandId: z.string().min(1),
});
export type SendRecoveryJob = z.infer<typeof sendRecoveryJobSchema>;

/** One command id per attempt (a send, each retry), so a repeated hand-over is dropped by the FIFO queue. */
const sendCommandId = (waMessageId: string, attemptAt: string) => `send:${waMessageId}:${attemptAt}`;

/** Leaves the recovery check of an attempt; a queue that refuses it is left to dispatch, which then shows the failure. */
async function leaveRecovery(job: Omit<SendRecoveryJob, 'v' | 'kind'>) {
  try {
    await ports().jobs.enqueue('ticket-timers', [{ v: 1, kind: 'sendRecovery', ...job } satisfies SendRecoveryJob], SEND_RECOVERY_SECONDS);
  } catch (err) {
    log.warn('send recovery check not enqueued', { err, companyId: job.companyId });
  }
}

export interface OutgoingMessage {
  body: string;
  userId?: number | null;
  quotedWaId?: string;
  media?: StoredMedia & { mediaType: MediaType };
  /** A contact card: stored as the message body with mediaType `contactMessage` (as inbound cards are). */
  vcard?: string;
  /**
   * The WhatsApp id to send under, when the caller derives it (the bot: from the message it
   * answers). A second send with the same id is the first one: it is not sent again.
   */
  id?: string;
  /** Sent by the bot (shown as such in the conversation, never as an agent's). */
  isBot?: boolean;
  /** An agent's answer typed in the console (the dashboard's first response). */
  agentReply?: boolean;
}

/**
 * Where to send to a contact: its group, else its number and LID. A contact known only by its LID
 * (number '') is sent to by the LID (the session host's `jidOfPeer` falls back to it).
 */
export const peerOf = (contact: ContactItem) =>
  contact.isGroup ? { groupId: contact.number } : { number: contact.number || undefined, lid: contact.lid ?? undefined };

/**
 * Sends a message in a ticket (server-behaviour §1, DESIGN §6): stored first with our own WhatsApp
 * id and ack 0, visible at once, then handed to the session host; the ack rises as WhatsApp
 * confirms, or the message shows ERR_SENDING_WAPP_MSG and can be retried. Automated messages use
 * the same path, so their echo is recognised by id and never stored twice.
 */
export async function sendInTicket(ticket: TicketItem, out: OutgoingMessage, known: KnownRefs = {}): Promise<MessageItem> {
  return (await sendInTicketWithTicket(ticket, out, known)).message;
}

/** What a caller already read, so a send does not read it again (the bot answers at inbound rates). */
export interface KnownRefs {
  contact?: ContactItem;
  connection?: ConnectionItem;
}

/**
 * `sendInTicket`, answering also the ticket as the send left it (`undefined` when the message was
 * already stored under `out.id` by an earlier run).
 */
export async function sendInTicketWithTicket(ticket: TicketItem, out: OutgoingMessage, known: KnownRefs = {}): Promise<{ message: MessageItem; ticket?: TicketItem }> {
  const [contact, connection, earlier] = await Promise.all([
    known.contact ?? getItem<ContactItem>(contactKey(ticket.companyId, ticket.contactId)),
    known.connection ?? getItem<ConnectionItem>(connectionKey(ticket.companyId, ticket.whatsappId)),
    // Already stored by an earlier run (a redelivered inbound message): its own checks send it.
    out.id ? findMessage(ticket.companyId, out.id, ticket.whatsappId) : undefined,
  ]);
  if (!contact) throw new AppError(404, 'ERR_NO_CONTACT_FOUND');
  if (!connection) throw new AppError(400, 'ERR_NO_WAPP_FOUND');
  if (earlier) return { message: earlier };
  const waMessageId = out.id ?? newWaMessageId();
  const createdAt = nowIso();
  const commandId = sendCommandId(waMessageId, createdAt);
  await leaveRecovery({ companyId: ticket.companyId, connectionId: ticket.whatsappId, waMessageId, commandId });
  const stored = await storeMessage(ticket, {
    id: waMessageId,
    body: out.vcard ?? out.body,
    fromMe: true,
    ack: ACK.ERROR,
    mediaType: out.vcard ? 'contactMessage' : (out.media?.mediaType ?? null),
    media: out.media ?? null,
    quotedWaId: out.quotedWaId,
    userId: out.userId ?? null,
    sendCommandId: commandId,
    ...(out.isBot ? { isBot: true } : {}),
    ...(out.agentReply ? { agentReply: true } : {}),
    createdAt,
    unread: false,
  });
  if (!stored) {
    // A concurrent run stored the same derived id first.
    const raced = out.id ? await findMessage(ticket.companyId, out.id, ticket.whatsappId) : undefined;
    if (raced) return { message: raced };
    throw new AppError(500, 'ERR_CREATING_MESSAGE');
  }
  await publishNewMessage(stored.message, stored.ticket, contact);
  const dispatched = await dispatch(stored.message, stored.ticket, contact, commandId);
  count('MessagesOut');
  return { message: dispatched, ticket: stored.ticket };
}

/**
 * Hands a stored message to the session host, with its timeout check. If the queues cannot take
 * it, the message is shown failed at once (the retry button), never as a silent clock icon.
 */
async function dispatch(message: MessageItem, ticket: TicketItem, contact: ContactItem, commandId: string): Promise<MessageItem> {
  const check: SendTimeoutJob = { v: 1, kind: 'sendTimeout', companyId: message.companyId, connectionId: message.whatsappId, waMessageId: message.id, since: message.updatedAt };
  try {
    // The check first: a command without its check could leave a clock icon if the next call failed.
    if (await ports().jobs.enqueue('ticket-timers', [check], SEND_TIMEOUT_SECONDS)) throw new Error('the send timeout check was not enqueued');
    await sendCommand({ ...commandFor(message, contact), commandId });
    return message;
  } catch (err) {
    log.error('send not handed to the session host; shown failed', { err, companyId: message.companyId, ticketId: message.ticketId });
    const failed = await markSendFailed(message);
    if (!failed) return message;
    await publishMessageUpdate(failed, ticket);
    return failed;
  }
}

function commandFor(message: MessageItem, contact: ContactItem) {
  return {
    type: 'send' as const,
    companyId: message.companyId,
    connectionId: message.whatsappId,
    ticketId: message.ticketId,
    waMessageId: message.id,
    to: peerOf(contact),
    body: message.body,
    media: message.media && message.mediaType ? { ...message.media, mediaType: message.mediaType } : undefined,
    quotedWaId: message.quotedMsg?.id,
    vcard: message.mediaType === 'contactMessage' ? message.body : undefined,
  };
}

/** Edits, deletes (for everyone) and reactions on WhatsApp, in order with the sends of the connection. */
export async function sendMessageAction(
  message: MessageItem,
  contact: ContactItem,
  action: { type: 'edit'; body: string } | { type: 'delete' } | { type: 'react'; emoji: string },
) {
  const base = { companyId: message.companyId, connectionId: message.whatsappId, to: peerOf(contact), waMessageId: message.id };
  if (action.type === 'edit') await sendCommand({ ...base, type: 'edit', body: action.body });
  else if (action.type === 'delete') await sendCommand({ ...base, type: 'delete' });
  else await sendCommand({ ...base, type: 'react', emoji: action.emoji });
}

/** Sends a failed message again with the same id (WhatsApp dedups by id on the phone side). */
export async function retrySend(message: MessageItem): Promise<MessageItem> {
  if (!message.fromMe || !message.error) throw new AppError(400, 'ERR_SENDING_WAPP_MSG', { message: 'Só mensagens com falha de envio podem ser reenviadas' });
  const ticket = await getTicketItem(message.companyId, message.ticketId);
  const contact = await getItem<ContactItem>(contactKey(ticket.companyId, ticket.contactId));
  if (!contact) throw new AppError(404, 'ERR_NO_CONTACT_FOUND');
  const commandId = sendCommandId(message.id, nowIso());
  await leaveRecovery({ companyId: message.companyId, connectionId: message.whatsappId, waMessageId: message.id, commandId });
  const updated = await patchMessage(message, { error: null, ack: ACK.ERROR, sendCommandId: commandId });
  await publishMessageUpdate(updated, ticket);
  return dispatch(updated, ticket, contact, commandId);
}

/**
 * The recovery check of an attempt: a message still unconfirmed and not failed is handed over
 * again under the attempt's command id. If the first hand-over happened, the command queue drops
 * this copy; if the process died before it, this is the send.
 */
export async function runSendRecovery(job: SendRecoveryJob): Promise<'settled' | 'redispatched'> {
  const m = await findMessage(job.companyId, job.waMessageId, job.connectionId);
  if (!m || !m.fromMe || m.ack > ACK.ERROR || m.error) return 'settled';
  // A later attempt (a quick retry) owns the message now; its own check covers it. Re-sending under
  // this older id would not be dropped by the queue (a different id) and could send twice.
  if (m.sendCommandId && m.sendCommandId !== job.commandId) return 'settled';
  const ticket = await getTicketItem(m.companyId, m.ticketId).catch(() => undefined);
  const contact = ticket && (await getItem<ContactItem>(contactKey(ticket.companyId, ticket.contactId)));
  if (!ticket || !contact) return 'settled';
  await dispatch(m, ticket, contact, job.commandId);
  return 'redispatched';
}

/**
 * The send timeout (issue 16 §1): a message still unconfirmed (ack 0, no failure) at the version it
 * was sent becomes a failure the agent can retry. A message that changed meanwhile without being
 * confirmed (a reaction, an edit) gets a new check, so none stays a clock icon forever.
 */
export async function runSendTimeout(job: SendTimeoutJob): Promise<'failed' | 'confirmed' | 'rechecked'> {
  const m = await findMessage(job.companyId, job.waMessageId, job.connectionId);
  if (!m || !m.fromMe || m.ack > ACK.ERROR || m.error) return 'confirmed';
  if (m.updatedAt !== job.since) {
    await ports().jobs.enqueue('ticket-timers', [{ ...job, since: m.updatedAt }], SEND_TIMEOUT_SECONDS);
    return 'rechecked';
  }
  const failed = await markSendTimedOut(m);
  if (!failed) return runSendTimeout(job); // it changed between the read and the write: decide again
  const ticket = await ticketOfMessage(failed.companyId, failed.ticketId);
  if (ticket) await publishMessageUpdate(failed, ticket);
  return 'failed';
}
