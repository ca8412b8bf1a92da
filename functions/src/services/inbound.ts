import { ACK, type InboundEvent, type Peer } from '@balcao/shared';
import { getItem, updateItem, isConditionFailure } from '../core/db.js';
import { count } from '../core/observability.js';
import { sendCommand } from '../core/commands.js';
import { publishSession } from './connections.js';
import { findOrCreateContact, updateContactProfile } from './contacts.js';
import { findOrCreateTicket } from './tickets.js';
import { findMessage } from './message-lookup.js';
import { changeMessage, loadTicketAndContact, markSendFailed, patchMessage, publishMessage, publishMessageUpdate, publishNewMessage, raiseAck, storeMessage, ticketOfMessage } from './messages.js';
import { settingValue } from './settings.js';
import { sendInTicket } from './outbound.js';
import { runBot } from './bot.js';
import { confirmCampaignReply } from './campaign-dispatch.js';
import { nowMs } from '../core/ports.js';
import { handleRatingAnswer, ticketAwaitingRating } from './ticket-rating.js';
import { connectionKey } from '../table/keys.js';
import { type ConnectionItem, type MessageItem } from '../table/items.js';

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
  const ticket = await ticketOfMessage(e.companyId, message.ticketId);
  if (ticket) await publishMessageUpdate(updated, ticket);
}

/** A contact's name or picture from WhatsApp; the number↔LID pair it tells is learned like a message's. */
async function onContactProfile(e: Of<'contact'>) {
  const connection = await connectionOf(e);
  await updateContactProfile(e.companyId, e.peer as Peer, e.name, e.pictureUrl, connection?.number);
}

async function onMessage(e: Of<'message'>) {
  if (e.broadcast) return; // status broadcasts and newsletters (§2 step 2)
  if (e.chat.groupId && (await settingValue(e.companyId, 'CheckMsgIsGroup')) === 'enabled') return;
  const connection = await connectionOf(e);
  if (!connection) return; // the connection was deleted meanwhile
  // Our own messages come back as echoes: already stored under this id, so nothing changes (§1).
  const existing = await findMessage(e.companyId, e.waMessageId, e.connectionId);
  if (existing) {
    if (existing.fromMe && existing.ack < ACK.SENT) {
      const raised = await raiseAck(existing, ACK.SENT);
      if (raised) await withMessage({ ...e, waMessageId: existing.id }, async () => raised);
    }
    // Stored, but the bot may not have answered it yet (a crash, a failed reply): a redelivery
    // soon after finishes that, never an old message seen again (the bot skips what it handled).
    if (!existing.fromMe && nowMs() - Date.parse(existing.updatedAt) < BOT_REDELIVERY_MS) {
      const { ticket, contact } = await loadTicketAndContact(e.companyId, existing.ticketId);
      if (ticket && contact) await runBot({ ticket, contact, connection, message: existing });
    }
    return;
  }
  const contact = await findOrCreateContact(e.companyId, e.chat, { pushName: e.fromMe ? undefined : e.chat.name, connectionId: e.connectionId, ownNumber: connection.number });
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
      if (rated) await publishMessage(rated.message, rated.ticket, contact);
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
    mediaError: e.mediaError,
    quotedWaId: e.quotedWaId,
    participant: e.sender ? { number: e.sender.number, lid: e.sender.lid, name: e.sender.name } : null,
    waKey: e.waKey,
    createdAt: new Date(e.timestamp).toISOString(),
    unread: !e.fromMe,
  });
  if (!stored) return; // a concurrent redelivery stored it first
  if (!e.fromMe) count('MessagesIn');
  await publishNewMessage(stored.message, stored.ticket, contact);
  // A reply to a campaign's confirmation message sends the campaign message (server-behaviour §10).
  if (!e.fromMe && contact.campaignConfirm) await confirmCampaignReply(contact);
  // The automation step (§2 step 7). A failure throws: the queue delivers the event again and the
  // bot, which keys its replies on this message, finishes without repeating itself.
  await runBot({ ticket: stored.ticket, contact, connection, message: stored.message });
}

/** How long after storing a customer message its redelivery still runs the bot. */
const BOT_REDELIVERY_MS = 15 * 60_000;

async function onCall(e: Of<'call'>) {
  const connection = await connectionOf(e);
  if (!connection) return;
  const contact = await findOrCreateContact(e.companyId, e.chat, { pushName: e.chat.name, connectionId: e.connectionId, ownNumber: connection.number });
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
  await publishNewMessage(stored.message, stored.ticket, contact);
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
      statusEpoch: e.epoch,
      updatedAt: e.at,
    }, e.epoch === undefined ? {} : {
      // A report of an older owner of the shard (its socket closing after a handover) loses to the current one's.
      condition: 'attribute_exists(PK) AND (attribute_not_exists(statusEpoch) OR statusEpoch <= :epoch)',
      values: { ':epoch': e.epoch },
    });
    await publishSession(updated);
  } catch (err) {
    if (!isConditionFailure(err)) throw err; // connection deleted, or a stale owner's report: nothing to show
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

/**
 * The inbound use case (server-behaviour §1-2): one WhatsApp event from the session host, already
 * validated, applied idempotently on its WhatsApp id — a message or call joins (or opens) the chat's
 * ticket, receipts raise acks, edits, deletions and reactions change the stored message, session
 * changes update the connection, send results settle our own messages. The ingest worker
 * (workers/ingest.ts) only reads the queue and calls this.
 */
export async function receiveInbound(e: InboundEvent): Promise<void> {
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
      return onContactProfile(e);
    case 'session':
      return onSession(e);
    case 'sendResult':
      return onSendResult(e);
  }
}
