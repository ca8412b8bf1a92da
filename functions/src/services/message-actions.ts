import {
  AppError,
  EDIT_NOT_ALLOWED,
  EDIT_WINDOW_EXPIRED,
  MESSAGE_EDIT_WINDOW_MS,
  MSG,
  MULTIPART_MEDIA_MAX_BYTES,
  TICKET_CLOSED,
  buildVcard,
  fillVariables,
  parseOrThrow,
  reactionSchema,
  sendMessageSchema,
  sendMultipartSchema,
} from '@balcao/shared';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { nowMs, table } from '../core/ports.js';
import { getItem, isConditionFailure } from '../core/db.js';
import { env } from '../core/env.js';
import type { UploadedFile } from '../core/http.js';
import type { Identity } from '../core/identity.js';
import { visibleTicket } from './conversation.js';
import { checkFile, checkUpload, commitFile, commitUpload, type OutgoingMedia } from './media.js';
import { changeMessage, publishMessageChange } from './messages.js';
import { findMessageById } from './message-lookup.js';
import { sendInTicket, sendMessageAction, type OutgoingMessage } from './outbound.js';
import { stopBot } from './bot.js';
import { publishTicketChange, timeZone } from './ticket-lifecycle.js';
import { contactKey, keys, ticketKey } from '../table/keys.js';
import { getTicketItem } from './tickets.js';
import { type ContactItem, type MessageItem, type QueueItem, type TicketItem } from '../table/items.js';

/**
 * What an agent does with messages (spec 001 §4-§5, server-behaviour §7): send text, files, voice
 * notes and contact cards; edit their own text within 15 minutes; delete for everyone; react.
 * Every change is stored first, published to the consoles and then handed to WhatsApp.
 */

const invalid = (field: string, message: string) => new AppError(400, 'ERR_VALIDATION', { message, fields: [{ field, message }] });
const isAdmin = (identity: Identity) => identity.isAdmin || identity.isSuper;

/** One message to send, its media still to be moved into place. */
interface Part {
  body: string;
  media?: () => Promise<OutgoingMedia>;
  vcard?: string;
}

export type SendOutcome = { kind: 'sent'; messages: MessageItem[] } | { kind: 'edited'; message: MessageItem };

/**
 * `POST /messages/{ticketId}`: JSON `{ body?, quotedMsg?, editMsg?, medias?, contacts? }` or
 * multipart (`medias` files, `body`). Everything is checked before anything is stored or sent, so
 * a bad file changes nothing.
 */
export async function sendFromConsole(identity: Identity, ticket: TicketItem, input: Record<string, unknown>, files: UploadedFile[]): Promise<SendOutcome> {
  if (ticket.status === 'closed') throw invalid('ticketId', TICKET_CLOSED);
  const parts: Part[] = [];
  let quotedWaId: string | undefined;

  const uploads = files.filter((f) => f.field === 'medias' || f.field === 'media' || f.field === 'file');
  if (uploads.length) {
    const data = parseOrThrow(sendMultipartSchema, input);
    quotedWaId = data.quotedMsg;
    const total = uploads.reduce((n, f) => n + f.data.length, 0);
    if (total > MULTIPART_MEDIA_MAX_BYTES) {
      throw invalid('medias', `Arquivos grandes demais para este envio (máximo ${MULTIPART_MEDIA_MAX_BYTES / 1024 / 1024} MB no total); envie por upload`);
    }
    const checked = uploads.map((f, i) => checkFile(ticket.companyId, ticket.whatsappId, f, data.ptt === true, `medias.${i}`));
    parts.push(...captioned(data.body ?? '', checked.map((c) => ({ kind: c.media.mediaType, caption: undefined, media: () => commitFile(c) }))));
  } else {
    const data = parseOrThrow(sendMessageSchema, input);
    quotedWaId = data.quotedMsg;
    const body = data.body ?? '';
    if (data.editMsg) return { kind: 'edited', message: await editMessage(identity, ticket, data.editMsg.id, body) };
    if (data.medias?.length) {
      const checked = await Promise.all(data.medias.map((m, i) => checkUpload(ticket.companyId, ticket.whatsappId, m, `medias.${i}`)));
      parts.push(...captioned(body, checked.map((c, i) => ({ kind: c.media.mediaType, caption: data.medias![i].caption, media: () => commitUpload(c) }))));
    } else if (data.contacts?.length && body.trim()) {
      parts.push({ body });
    }
    for (const c of data.contacts ?? []) parts.push({ body: '', vcard: buildVcard(c.name, c.number) });
    // Empty or blank text is not sent (spec 001 §5).
    if (!parts.length) {
      if (!body.trim()) throw invalid('body', MSG.required);
      parts.push({ body });
    }
  }

  // Variables (server-behaviour §3) are filled at send time, as in automated texts: a quick reply
  // or a typed `{{name}}` reaches the customer as their name, never as the placeholder.
  if (parts.some((p) => hasVariables(p.body))) {
    const fill = await variableFiller(identity, ticket);
    for (const p of parts) p.body = fill(p.body);
  }
  // An agent writing takes over from the bot, before the message goes out (a quick answer of the
  // customer meets the agent, not the menu).
  let current = ticket;
  if (!ticket.userId && !ticket.bot?.stopped) {
    await stopBot(ticket);
    current = await getTicketItem(ticket.companyId, ticket.id);
  }
  const messages: MessageItem[] = [];
  for (const [i, part] of parts.entries()) {
    const out: OutgoingMessage = { body: part.body, userId: identity.userId, quotedWaId: i === 0 ? quotedWaId : undefined, vcard: part.vcard, agentReply: true };
    if (part.media) out.media = await part.media();
    messages.push(await sendInTicket(current, out));
    // The next message goes after this one: read the ticket as this send left it.
    if (i < parts.length - 1) current = await getTicketItem(ticket.companyId, ticket.id);
  }
  return { kind: 'sent', messages };
}

/**
 * One message per file, each with its caption; the text typed beside the files is the first
 * file's caption. Audio carries no caption on WhatsApp, so text that cannot ride along goes first,
 * as its own message.
 */
function captioned(body: string, files: { kind: string; caption?: string; media: () => Promise<OutgoingMedia> }[]): Part[] {
  const parts: Part[] = [];
  const text = body.trim() ? body : '';
  const first = files[0];
  const firstTakesBody = !!text && !first.caption?.trim() && first.kind !== 'audio';
  if (text && !firstTakesBody) parts.push({ body: text });
  files.forEach((f, i) => {
    const caption = f.kind === 'audio' ? '' : (f.caption ?? '') || (i === 0 && firstTakesBody ? text : '');
    parts.push({ body: caption, media: f.media });
  });
  return parts;
}

const hasVariables = (text: string) => text.includes('{{');

/** Fills the variables of a text sent in `ticket` by the agent of `identity`. */
async function variableFiller(identity: Identity, ticket: TicketItem, known?: ContactItem): Promise<(text: string) => string> {
  const [contact, queue, zone] = await Promise.all([
    known ?? ticket.contactView ?? getItem<ContactItem>(contactKey(ticket.companyId, ticket.contactId)),
    ticket.queueId ? getItem<QueueItem>(keys.queue(ticket.companyId, ticket.queueId)) : undefined,
    timeZone(ticket.companyId),
  ]);
  const context = { name: contact?.name, queue: queue?.name, agent: identity.user.name, timeZone: zone };
  return (text) => (hasVariables(text) ? fillVariables(text, context) : text);
}

async function contactOf(m: MessageItem): Promise<ContactItem> {
  const contact = await getItem<ContactItem>(contactKey(m.companyId, m.contactId));
  if (!contact) throw new AppError(404, 'ERR_NO_CONTACT_FOUND');
  return contact;
}

/** A message of a ticket the caller may see, or 404. */
export async function visibleMessage(identity: Identity, messageId: string): Promise<MessageItem> {
  const message = messageId && messageId.length <= 128 ? await findMessageById(identity.companyId, messageId) : undefined;
  if (!message) throw new AppError(404, 'ERR_NOT_FOUND');
  await visibleTicket(identity, message.ticketId);
  return message;
}

/** Edits the agent's own text message within 15 minutes of sending it (spec 001 §4). */
export async function editMessage(identity: Identity, ticket: TicketItem, messageId: string, body: string, now = nowMs()): Promise<MessageItem> {
  const message = await findMessageById(identity.companyId, messageId);
  if (!message || message.ticketId !== ticket.id) throw new AppError(404, 'ERR_NOT_FOUND');
  if (!message.fromMe || message.userId !== identity.userId) throw new AppError(403, 'ERR_NO_PERMISSION', { message: EDIT_NOT_ALLOWED });
  if (message.mediaType || message.isDeleted) throw invalid('editMsg', EDIT_NOT_ALLOWED);
  if (now - Date.parse(message.createdAt) > MESSAGE_EDIT_WINDOW_MS) throw invalid('editMsg', EDIT_WINDOW_EXPIRED);
  if (!body.trim()) throw invalid('body', MSG.required);
  const contact = await contactOf(message);
  if (hasVariables(body)) body = (await variableFiller(identity, ticket, contact))(body);
  let deleted = false;
  const updated = await changeMessage(message, (m) => {
    if (m.isDeleted) return void (deleted = true);
    return m.body === body && m.isEdited ? undefined : { body, isEdited: true };
  });
  if (deleted) throw invalid('editMsg', EDIT_NOT_ALLOWED);
  if (!updated) return message; // the same text again: nothing to tell WhatsApp
  await publishMessageChange(updated);
  await refreshPreview(updated, body);
  await sendMessageAction(updated, contact, { type: 'edit', body });
  return updated;
}

/**
 * `DELETE /messages/{id}`: deletes for everyone a message we sent: one's own, or any of a visible
 * ticket for admins. Deleting again answers the deleted message and sends nothing.
 */
export async function deleteMessage(identity: Identity, messageId: string): Promise<MessageItem> {
  const message = await visibleMessage(identity, messageId);
  if (!message.fromMe || (message.userId !== identity.userId && !isAdmin(identity))) throw new AppError(403, 'ERR_NO_PERMISSION');
  if (message.isDeleted) return message;
  const updated = await changeMessage(message, (m) => (m.isDeleted ? undefined : { isDeleted: true }));
  if (!updated) return (await findMessageById(identity.companyId, messageId)) ?? message; // deleted meanwhile
  await publishMessageChange(updated);
  await refreshPreview(updated, DELETED_PREVIEW);
  await sendMessageAction(updated, await contactOf(updated), { type: 'delete' });
  return updated;
}

const DELETED_PREVIEW = '🚫 Mensagem apagada';

/**
 * The ticket lists show the last message: when that is the one edited or deleted, the preview
 * follows (never over a newer message: conditional on the sequence). The write version is bumped,
 * so a whole-ticket write that read the old preview re-reads instead of restoring it.
 */
async function refreshPreview(message: MessageItem, preview: string) {
  try {
    const out = await table().send(
      new UpdateCommand({
        TableName: env.tableName,
        Key: ticketKey(message.companyId, message.ticketId),
        UpdateExpression: 'SET lastMessage = :m, wv = if_not_exists(wv, :zero) + :one',
        ConditionExpression: 'attribute_exists(PK) AND lastSeq = :seq',
        ExpressionAttributeValues: { ':m': preview, ':seq': message.seq, ':zero': 0, ':one': 1 },
        ReturnValues: 'ALL_NEW',
      }),
    );
    await publishTicketChange(out.Attributes as TicketItem);
  } catch (err) {
    if (!isConditionFailure(err)) throw err; // a newer message is the preview now
  }
}

/** `POST /messages/{id}/reactions`: our one reaction on a message (an empty emoji removes it). */
export async function reactToMessage(identity: Identity, messageId: string, input: unknown): Promise<MessageItem> {
  const { emoji } = parseOrThrow(reactionSchema, input);
  const message = await visibleMessage(identity, messageId);
  if (message.isDeleted || message.mediaType === 'call_log') throw invalid('emoji', 'Não é possível reagir a esta mensagem');
  const contact = await contactOf(message);
  const updated = await changeMessage(message, (m) => {
    const ours = m.reactions.find((r) => r.fromMe);
    if ((ours?.emoji ?? '') === emoji) return undefined;
    const others = m.reactions.filter((r) => !r.fromMe);
    return { reactions: emoji ? [...others, { emoji, fromMe: true }] : others };
  });
  if (!updated) return message;
  await publishMessageChange(updated);
  await sendMessageAction(updated, contact, { type: 'react', emoji });
  return updated;
}
