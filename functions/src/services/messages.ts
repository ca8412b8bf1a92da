import { AppError, MEDIA_PLACEHOLDER, companyEvent, displayFileName, parseVcard, room, type ApiMessage, type ApiTicket, type MediaType, type MessageSummary, type RealtimeMessage, type StoredMedia } from '@balcao/shared';
import { batchGet, clean, getItem, transact, tx, updateItem, isConditionFailure, isTransactionCanceled } from '../core/db.js';
import { contactKey, keys, messagePointer, messageSk, ticketIndexKeys, ticketKey } from '../table/keys.js';
import { readUrl } from '../core/storage.js';
import { publish } from '../core/realtime.js';
import { toApiContact } from './contact-api.js';
import { findMessage } from './message-lookup.js';
import { ticketEvent, ticketFacts, toApiTickets } from './ticket-view.js';
import { indexMessageText } from './search-index.js';
import { type ContactItem, type MessageItem, ticketGuard, type TicketItem } from '../table/items.js';
import { nowIso } from '../core/ports.js';
import { ticketStatsWrites } from './dashboard-stats.js';




/** Names of the agents who sent messages, read once per page rather than per message. */
export async function senderNames(companyId: number, messages: Pick<MessageItem, 'userId'>[]): Promise<Map<number, string>> {
  const ids = [...new Set(messages.map((m) => m.userId).filter((id): id is number => !!id))];
  if (!ids.length) return new Map();
  const users = await batchGet<{ id: number; name: string }>(ids.map((id) => keys.user(companyId, id)));
  return new Map(users.map((u) => [u.id, u.name]));
}

/**
 * The API shape of a message. A deleted message keeps its text and file in the table, but the API
 * shows only that it was deleted (for everyone, as on WhatsApp: server-behaviour §7).
 */
export async function toApiMessage(m: MessageItem, names?: Map<number, string>): Promise<ApiMessage> {
  const { media, mediaError, reactions, waKey: _waKey, sendCommandId: _sendCommandId, ...rest } = clean(m);
  const shown = m.isDeleted ? null : media;
  const userName = m.userId ? (names ?? (await senderNames(m.companyId, [m]))).get(m.userId) : undefined;
  return {
    ...rest,
    body: m.isDeleted ? '' : m.body,
    reactions: (reactions ?? []).map((r) => ({ emoji: r.emoji, fromMe: r.fromMe, ...((r.sender ?? r.from) ? { sender: r.sender ?? r.from } : {}) })),
    mediaUrl: shown ? await readUrl(shown.key) : null,
    // A customer's file name is shown without its direction overrides (displayFileName).
    mediaName: shown?.fileName ? displayFileName(shown.fileName) : null,
    fileName: shown?.fileName ? displayFileName(shown.fileName) : null,
    mimetype: shown?.mimetype ?? null,
    ptt: shown?.ptt ?? false,
    // Why a customer's file is missing (inbound only); its name shown like the names above.
    mediaError: mediaError && !m.isDeleted ? { ...mediaError, ...(mediaError.fileName ? { fileName: displayFileName(mediaError.fileName) } : {}) } : null,
    user: m.userId && userName ? { id: m.userId, name: userName } : null,
  };
}

export interface NewMessage {
  id: string;
  body: string;
  fromMe: boolean;
  ack: number;
  mediaType?: MediaType | null;
  media?: StoredMedia | null;
  mediaError?: MessageItem['mediaError'];
  quotedWaId?: string;
  participant?: MessageItem['participant'];
  waKey?: MessageItem['waKey'];
  sendCommandId?: string;
  isBot?: boolean;
  /** An agent's answer typed in the console: the cycle's first one is its first response. */
  agentReply?: boolean;
  userId?: number | null;
  createdAt: string;
  /** Counts as unread for the agents (inbound messages). */
  unread: boolean;
}

export const listBody = (body: string, mediaType?: MediaType | null) => {
  // A contact card's body is the vCard itself; lists show whose card it is.
  if (mediaType === 'contactMessage') return `👤 ${parseVcard(body).name ?? 'Contato'}`;
  // The body names a WhatsApp type, not something to show in a list.
  if (mediaType === 'unsupported') return MEDIA_PLACEHOLDER.unsupported!;
  return body || (mediaType ? MEDIA_PLACEHOLDER[mediaType] ?? '' : '');
};

/**
 * Stores a message in its ticket in one transaction with the WhatsApp-id pointer (a redelivered
 * event finds the pointer and changes nothing) and the ticket's last message, unread count and list
 * position. Answers `undefined` for a duplicate.
 */
export async function storeMessage(ticket: TicketItem, msg: NewMessage): Promise<{ message: MessageItem; ticket: TicketItem } | undefined> {
  // The search index (words → ticket) is written alongside and awaited before answering: a crash
  // or a redelivery (even one answered as a duplicate) only writes the same index items again.
  const [, stored] = await Promise.all([indexMessageText(ticket.companyId, ticket.id, msg.body, msg.mediaType), writeMessage(ticket, msg)]);
  return stored;
}

async function writeMessage(ticket: TicketItem, msg: NewMessage): Promise<{ message: MessageItem; ticket: TicketItem } | undefined> {
  const { companyId } = ticket;
  const quoted = msg.quotedWaId ? await findMessage(companyId, msg.quotedWaId, ticket.whatsappId) : undefined;
  let current = ticket;
  for (let attempt = 0; attempt < 8; attempt++) {
    const seq = current.lastSeq + 1;
    const now = nowIso();
    const message: MessageItem = {
      PK: ticketKey(companyId, current.id).PK,
      SK: messageSk(seq),
      entity: 'message',
      id: msg.id,
      seq,
      companyId,
      ticketId: current.id,
      contactId: current.contactId,
      whatsappId: current.whatsappId,
      body: msg.body,
      fromMe: msg.fromMe,
      read: msg.fromMe,
      ack: msg.ack,
      mediaType: msg.mediaType ?? null,
      media: msg.media ?? null,
      ...(msg.mediaError ? { mediaError: msg.mediaError } : {}),
      quotedMsg: quoted ? { id: quoted.id, body: quoted.body, fromMe: quoted.fromMe, mediaType: quoted.mediaType } : null,
      participant: msg.participant ?? null,
      ...(msg.waKey ? { waKey: msg.waKey } : {}),
      ...(msg.sendCommandId ? { sendCommandId: msg.sendCommandId } : {}),
      ...(msg.isBot ? { isBot: true } : {}),
      isDeleted: false,
      isEdited: false,
      reactions: [],
      error: null,
      userId: msg.userId ?? null,
      createdAt: msg.createdAt,
      updatedAt: now,
    };
    const guard = ticketGuard(current);
    const next: TicketItem = {
      ...current,
      wv: guard.wv,
      lastSeq: seq,
      lastMessage: listBody(msg.body, msg.mediaType),
      lastFromMe: msg.fromMe,
      unreadMessages: current.unreadMessages + (msg.unread ? 1 : 0),
      updatedAt: now,
    };
    // An agent's first answer in the console in a cycle the customer started (not the bot's, not an
    // automated, scheduled or campaign text): the first response.
    if (msg.agentReply && current.status !== 'closed' && !current.firstReplyAt && !current.agentStarted) next.firstReplyAt = msg.createdAt;
    Object.assign(next, ticketIndexKeys(next));
    try {
      await transact(
        [
          tx.putUnique({ ...messagePointer(companyId, msg.id, current.whatsappId), entity: 'messagePointer', ticketId: current.id, sk: message.SK }),
          tx.put(message, 'attribute_not_exists(PK)'),
          // Conditional on the version read: a status change committed meanwhile is never overwritten.
          tx.put(next, guard.condition, guard.values),
          ...(await ticketStatsWrites(current, next)),
        ],
        (i) => (i === 0 ? new Duplicate() : new Contention()),
      );
      return { message, ticket: next };
    } catch (err) {
      if (err instanceof Duplicate) return undefined;
      if (!(err instanceof Contention) && !isTransactionCanceled(err)) throw err;
      const fresh = await getItem<TicketItem>(ticketKey(companyId, ticket.id), true);
      if (!fresh) throw new AppError(404, 'ERR_NO_TICKET_FOUND');
      current = fresh;
    }
  }
  throw new AppError(409, 'ERR_CREATING_MESSAGE', { message: 'Message storage kept racing; retry' });
}

class Duplicate extends Error {}
class Contention extends Error {}

/**
 * The message itself goes to the ticket's room only (issue 23): the sockets with its conversation
 * open, still filtered by who may see the ticket.
 */
async function messageEvent(message: MessageItem, ticket: TicketItem, api: ApiTicket, contact: ContactItem | undefined): Promise<RealtimeMessage> {
  return {
    companyId: ticket.companyId,
    event: companyEvent(ticket.companyId, 'appMessage'),
    data: { action: 'create', message: await toApiMessage(message), ticket: api, contact: contact ? toApiContact(contact) : undefined },
    audience: [{ kind: 'room', room: room.chatBox(ticket.id) }],
    ticket: ticketFacts(ticket),
  };
}

/** The ticket facts a message change needs to reach its room (who may see the ticket). */
type TicketOfMessage = Pick<TicketItem, 'companyId' | 'id' | 'userId' | 'queueId' | 'status' | 'isGroup'>;

/**
 * A changed message (ack, edit, reaction, deletion, failure) to the ticket's room: the message
 * alone, so publishing it reads nothing but the ticket's visibility facts.
 */
export async function publishMessageUpdate(message: MessageItem, ticket: TicketOfMessage) {
  await publish({
    companyId: ticket.companyId,
    event: companyEvent(ticket.companyId, 'appMessage'),
    data: { action: 'update', message: await toApiMessage(message) },
    audience: [{ kind: 'room', room: room.chatBox(ticket.id) }],
    ticket: ticketFacts(ticket),
  });
}

/** Only what `publishMessageUpdate` needs of a ticket. */
export async function ticketOfMessage(companyId: number, ticketId: number): Promise<TicketOfMessage | undefined> {
  return getItem<TicketOfMessage>(ticketKey(companyId, ticketId), true, TICKET_FACTS);
}
const TICKET_FACTS = { ProjectionExpression: 'companyId, id, userId, queueId, #s, isGroup', ExpressionAttributeNames: { '#s': 'status' } };

/** What the lists and the notifications show of a new message (the ticket event carries it). */
function messageSummary(message: MessageItem): MessageSummary {
  return { id: message.id, body: message.body, fromMe: message.fromMe, mediaType: message.mediaType ?? null, createdAt: message.createdAt };
}

/** A message stored without a new-message ticket update (a rating answer on a closed ticket). */
export async function publishMessage(message: MessageItem, ticket: TicketItem, contact: ContactItem | undefined) {
  const [api] = await toApiTickets(ticket.companyId, [ticket]);
  await publish(await messageEvent(message, ticket, api, contact));
}

/**
 * A new message in a ticket, in one hand-over: the message's `create` to the ticket's room, and the
 * ticket's `update` with the message's summary to everyone who may see the ticket.
 */
export async function publishNewMessage(message: MessageItem, ticket: TicketItem, contact: ContactItem | undefined) {
  const [api] = await toApiTickets(ticket.companyId, [ticket]);
  await publish([await messageEvent(message, ticket, api, contact), ticketEvent(ticket, api, 'update', ticket, messageSummary(message))]);
}

/** Acks only rise (a late "delivered" never lowers "read": §7). */
export async function raiseAck(message: MessageItem, ack: number): Promise<MessageItem | undefined> {
  try {
    // WhatsApp confirming the message makes an earlier failure report obsolete.
    const set = ack >= 2 ? { ack, error: null, updatedAt: nowIso() } : { ack, updatedAt: nowIso() };
    return await updateItem<MessageItem>({ PK: message.PK, SK: message.SK }, set, {
      condition: 'attribute_exists(PK) AND ack < :a',
      values: { ':a': ack },
    });
  } catch (err) {
    if (isConditionFailure(err)) return undefined;
    throw err;
  }
}

/**
 * A failure report of a send: written only while WhatsApp has not confirmed the message (ack 0),
 * so a report that loses a race with the message's acks cannot mark a delivered message failed.
 */
export async function markSendFailed(message: MessageItem): Promise<MessageItem | undefined> {
  try {
    return await updateItem<MessageItem>({ PK: message.PK, SK: message.SK }, { error: 'ERR_SENDING_WAPP_MSG', updatedAt: nowIso() }, {
      condition: 'attribute_exists(PK) AND ack <= :unconfirmed',
      values: { ':unconfirmed': 0 },
    });
  } catch (err) {
    if (isConditionFailure(err)) return undefined;
    throw err;
  }
}

/**
 * A send WhatsApp never confirmed within the timeout (issue 16 §1): shown failed with the retry
 * button. Written only if the message is still the version the timeout read (no ack, no retry, no
 * failure report since), so it never marks a message that moved on.
 */
export async function markSendTimedOut(message: MessageItem): Promise<MessageItem | undefined> {
  try {
    return await updateItem<MessageItem>({ PK: message.PK, SK: message.SK }, { error: 'ERR_SENDING_WAPP_MSG', updatedAt: nowIso() }, {
      condition: 'attribute_exists(PK) AND ack <= :unconfirmed AND updatedAt = :read',
      values: { ':unconfirmed': 0, ':read': message.updatedAt },
    });
  } catch (err) {
    if (isConditionFailure(err)) return undefined;
    throw err;
  }
}

export async function patchMessage(message: MessageItem, set: Partial<MessageItem>): Promise<MessageItem> {
  return updateItem<MessageItem>({ PK: message.PK, SK: message.SK }, { ...set, updatedAt: nowIso() });
}

/**
 * A read-modify-write of a message (reactions, edits, deletes) that never loses a concurrent one:
 * written only if the message is still the version read, else read again and recomputed. `change`
 * answers the fields to set, or undefined when nothing needs to change.
 */
export async function changeMessage(message: MessageItem, change: (m: MessageItem) => Partial<MessageItem> | undefined): Promise<MessageItem | undefined> {
  let current = message;
  for (let attempt = 0; attempt < 8; attempt++) {
    const set = change(current);
    if (!set) return undefined;
    // An edited text's words are indexed first (idempotent), so a crash cannot leave them out.
    if (typeof set.body === 'string' && !current.isDeleted) await indexMessageText(current.companyId, current.ticketId, set.body, current.mediaType);
    const now = nowIso();
    try {
      return await updateItem<MessageItem>(
        { PK: current.PK, SK: current.SK },
        // Strictly later, so two changes in one millisecond still differ in version.
        { ...set, updatedAt: now > current.updatedAt ? now : new Date(Date.parse(current.updatedAt) + 1).toISOString() },
        { condition: 'attribute_exists(PK) AND updatedAt = :prev', values: { ':prev': current.updatedAt } },
      );
    } catch (err) {
      if (!isConditionFailure(err)) throw err;
      const fresh = await getItem<MessageItem>({ PK: current.PK, SK: current.SK }, true);
      if (!fresh) return undefined;
      current = fresh;
    }
  }
  throw new AppError(409, 'ERR_CREATING_MESSAGE', { message: 'A mensagem mudou várias vezes ao mesmo tempo; tente de novo' });
}

/** Publishes a changed message to those who may see its ticket. */
export async function publishMessageChange(message: MessageItem) {
  const ticket = await ticketOfMessage(message.companyId, message.ticketId);
  if (ticket) await publishMessageUpdate(message, ticket);
}

export async function loadTicketAndContact(companyId: number, ticketId: number) {
  const ticket = await getItem<TicketItem>(ticketKey(companyId, ticketId), true);
  const contact = ticket ? await getItem<ContactItem>(contactKey(companyId, ticket.contactId)) : undefined;
  return { ticket, contact };
}
