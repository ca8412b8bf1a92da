import type { SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { ACK, inboundEventSchema, type InboundEvent, type Peer } from '@balcao/shared';
import { getItem, updateItem, isConditionFailure } from '../core/db.js';
import { count, log } from '../core/observability.js';
import { sendCommand } from '../core/commands.js';
import { publishSession } from '../services/connections.js';
import { findOrCreateContact, updateContactProfile } from '../services/contacts.js';
import { findOrCreateTicket } from '../services/tickets.js';
import { findMessage } from '../services/message-lookup.js';
import { changeMessage, loadTicketAndContact, markSendFailed, patchMessage, publishMessage, publishTicket, raiseAck, storeMessage } from '../services/messages.js';
import { settingValue } from '../services/settings.js';
import { sendInTicket } from '../services/outbound.js';
import { handleRatingAnswer, ticketAwaitingRating } from '../services/ticket-rating.js';
import { connectionKey } from '../table/keys.js';
import { type ConnectionItem, type MessageItem } from '../table/items.js';
import { lambdaHandler } from '../core/lambda.js';

export const CALLS_DISABLED_MESSAGE =
  '*Mensagem Automática:*\n\nAs chamadas de voz e vídeo estão desabilitadas para esse WhatsApp, favor enviar uma mensagem de texto. Obrigado';

type Of<T extends InboundEvent['type']> = Extract<InboundEvent, { type: T }>;

async function connectionOf(e: InboundEvent): Promise<ConnectionItem | undefined> {
  return getItem<ConnectionItem>(connectionKey(e.companyId, e.connectionId));
}

/** The ticket a chat event belongs to, by the message it names. */
async function withMessage(e: InboundEvent & { waMessageId: string }, fn: (m: MessageItem) => Promise<MessageItem | undefined>) {
  const message = await findMessage(e.companyId, e.waMessageId, e.connectionId);
  if (!message) return; // not ours (older than our history) — nothing to change
  const updated = await fn(message);
  if (!updated) return;
  const { ticket, contact } = await loadTicketAndContact(e.companyId, message.ticketId);
  if (ticket) await publishMessage(updated, ticket, contact, 'update');
}

async function onMessage(e: Of<'message'>) {
  if (e.broadcast) return; // status broadcasts and newsletters (§2 step 2)
  if (e.chat.groupId && (await settingValue(e.companyId, 'CheckMsgIsGroup')) === 'enabled') return;
  if (!(await connectionOf(e))) return; // the connection was deleted meanwhile
  // Our own messages come back as echoes: already stored under this id, so nothing changes (§1).
  const existing = await findMessage(e.companyId, e.waMessageId, e.connectionId);
  if (existing) {
    if (existing.fromMe && existing.ack < ACK.SENT) {
      const raised = await raiseAck(existing, ACK.SENT);
      if (raised) await withMessage({ ...e, waMessageId: existing.id }, async () => raised);
    }
    return;
  }
  const contact = await findOrCreateContact(e.companyId, e.chat, { pushName: e.fromMe ? undefined : e.chat.name, connectionId: e.connectionId });
  // A reply 1-3 to a rating request is recorded on the closed ticket and goes no further (§2 step 6).
  if (!e.fromMe && !e.chat.groupId) {
    const awaiting = await ticketAwaitingRating(e.companyId, e.connectionId, contact.id);
    if (awaiting && (await handleRatingAnswer(awaiting, e.body))) {
      const rated = await storeMessage(awaiting, {
        id: e.waMessageId,
        body: e.body,
        fromMe: false,
        ack: ACK.DELIVERED,
        createdAt: new Date(e.timestamp).toISOString(),
        unread: false,
      });
      if (rated) await publishMessage(rated.message, rated.ticket, contact, 'create');
      return;
    }
  }
  const { ticket } = await findOrCreateTicket(e.companyId, e.connectionId, contact);
  const stored = await storeMessage(ticket, {
    id: e.waMessageId,
    body: e.body,
    fromMe: e.fromMe,
    ack: e.fromMe ? ACK.SENT : ACK.DELIVERED,
    mediaType: e.mediaType ?? null,
    media: e.media ?? null,
    quotedWaId: e.quotedWaId,
    participant: e.sender ? { number: e.sender.number, lid: e.sender.lid, name: e.sender.name } : null,
    createdAt: new Date(e.timestamp).toISOString(),
    unread: !e.fromMe,
  });
  if (!stored) return; // a concurrent redelivery stored it first
  if (!e.fromMe) count('MessagesIn');
  await publishMessage(stored.message, stored.ticket, contact, 'create');
  await publishTicket(stored.ticket, contact);
}

async function onCall(e: Of<'call'>) {
  const connection = await connectionOf(e);
  if (!connection) return;
  const contact = await findOrCreateContact(e.companyId, e.chat, { pushName: e.chat.name, connectionId: e.connectionId });
  const { ticket } = await findOrCreateTicket(e.companyId, e.connectionId, contact);
  const stored = await storeMessage(ticket, {
    id: `call-${e.callId}`,
    body: e.isVideo ? '📹 Chamada de vídeo' : '📞 Chamada de voz',
    fromMe: false,
    ack: ACK.DELIVERED,
    mediaType: 'call_log',
    createdAt: new Date(e.timestamp).toISOString(),
    unread: true,
  });
  if (!stored) return; // redelivered call event: already handled
  await publishMessage(stored.message, stored.ticket, contact, 'create');
  await publishTicket(stored.ticket, contact);
  if ((await settingValue(e.companyId, 'call')) === 'disabled') {
    await sendCommand({ type: 'rejectCall', companyId: e.companyId, connectionId: e.connectionId, callId: e.callId, from: e.chat, commandId: `reject-${e.connectionId}-${e.callId}` });
    await sendInTicket(stored.ticket, { body: CALLS_DISABLED_MESSAGE });
  }
}

async function onSession(e: Of<'session'>) {
  try {
    const updated = await updateItem<ConnectionItem>(connectionKey(e.companyId, e.connectionId), {
      status: e.status,
      // The QR string while showing a QR; the pairing code while pairing with a number.
      qrcode: e.status === 'qrcode' || e.status === 'PAIRING' ? e.qrcode ?? '' : '',
      number: e.number,
      retries: e.retries,
      updatedAt: e.at,
    });
    await publishSession(updated);
  } catch (err) {
    if (!isConditionFailure(err)) throw err; // connection deleted: nothing to show
  }
}

async function onSendResult(e: Of<'sendResult'>) {
  await withMessage(e, async (m) => {
    if (e.ok) return (await raiseAck(m, ACK.SENT)) ?? (m.error ? patchMessage(m, { error: null }) : undefined);
    // A late failure report of something WhatsApp already confirmed changes nothing (also when the
    // confirmation is being written at this very moment: the write is conditional).
    if (m.ack > ACK.ERROR) return undefined;
    return markSendFailed(m);
  });
}

async function onReaction(e: Of<'reaction'>) {
  // One reaction per sender (ours has none); guarded, so an agent reacting at the same time is kept.
  await withMessage(e, (message) =>
    changeMessage(message, (m) => {
      const who = e.fromMe ? 'me' : (e.sender?.number ?? e.sender?.lid ?? e.chat.number ?? e.chat.lid ?? '');
      const others = m.reactions.filter((r) => (r.fromMe ? 'me' : (r.sender ?? r.from)) !== who);
      return { reactions: e.emoji ? [...others, e.fromMe ? { emoji: e.emoji, fromMe: true } : { emoji: e.emoji, fromMe: false, sender: who }] : others };
    }),
  );
}

export async function handleEvent(e: InboundEvent): Promise<void> {
  switch (e.type) {
    case 'message':
      return onMessage(e);
    case 'ack':
      for (const id of e.waMessageIds) await withMessage({ ...e, waMessageId: id }, (m) => raiseAck(m, e.ack));
      return;
    case 'edit':
      // A redelivered edit, or the echo of our own, changes nothing and publishes nothing.
      return withMessage(e, (msg) => changeMessage(msg, (m) => (m.isDeleted || (m.isEdited && m.body === e.body) ? undefined : { body: e.body, isEdited: true })));
    case 'delete':
      return withMessage(e, (msg) => changeMessage(msg, (m) => (m.isDeleted ? undefined : { isDeleted: true })));
    case 'reaction':
      return onReaction(e);
    case 'call':
      return onCall(e);
    case 'contact':
      return updateContactProfile(e.companyId, e.peer as Peer, e.name, e.pictureUrl);
    case 'session':
      return onSession(e);
    case 'sendResult':
      return onSendResult(e);
  }
}

/**
 * The ingest worker (DESIGN §6): idempotent on the WhatsApp id. The queue is FIFO grouped per chat:
 * once a record fails, the later records of the same group in the batch fail too, so a later
 * message of a chat never overtakes an earlier one, while other chats go on (concurrently). Unreadable or invalid
 * events fail every time, so after `maxReceiveCount` they land in the dead-letter queue (alarmed).
 */
export const handler = lambdaHandler(async function handler(event: SQSEvent): Promise<SQSBatchResponse> {
  // Chats are independent: each chat's records run in order, different chats run side by side.
  const groups = new Map<string, SQSRecord[]>();
  for (const record of event.Records) {
    const group = record.attributes?.MessageGroupId ?? '';
    groups.set(group, [...(groups.get(group) ?? []), record]);
  }
  const failures = await Promise.all([...groups.values()].map(processGroup));
  return { batchItemFailures: failures.flat().map((itemIdentifier) => ({ itemIdentifier })) };
});

async function processGroup(records: SQSRecord[]): Promise<string[]> {
  for (const [index, record] of records.entries()) {
    try {
      let body: unknown;
      try {
        body = JSON.parse(record.body);
      } catch {
        throw new PoisonEvent('unreadable JSON');
      }
      const result = inboundEventSchema.safeParse(body);
      if (!result.success) throw new PoisonEvent(result.error.issues.slice(0, 3).map((i) => `${i.path.join('.')}: ${i.message}`).join('; '));
      await handleEvent(result.data);
    } catch (err) {
      const receives = Number(record.attributes?.ApproximateReceiveCount ?? 1);
      if (err instanceof PoisonEvent) log.error('invalid inbound event (goes to the DLQ)', { messageId: record.messageId, receives, reason: err.message });
      else log.error('inbound event failed; will be retried', { err, messageId: record.messageId, receives });
      count('Errors');
      // This record and the later ones of its chat come back; earlier ones are done.
      return records.slice(index).map((r) => r.messageId);
    }
  }
  return [];
}

class PoisonEvent extends Error {}

