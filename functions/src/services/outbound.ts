import { AppError, ACK, newWaMessageId, type StoredMedia, type MediaType } from '@balcao/shared';
import { sendCommand } from '../core/commands.js';
import { getItem } from '../core/db.js';
import { storeMessage, publishMessage, publishNewMessage, patchMessage } from './messages.js';
import { getTicketItem } from './tickets.js';
import { connectionKey, contactKey } from '../table/keys.js';
import { type ConnectionItem, type ContactItem, type MessageItem, type TicketItem } from '../table/items.js';
import { count } from '../core/observability.js';
import { nowIso } from '../core/ports.js';

export interface OutgoingMessage {
  body: string;
  userId?: number | null;
  quotedWaId?: string;
  media?: StoredMedia & { mediaType: MediaType };
  /** A contact card: stored as the message body with mediaType `contactMessage` (as inbound cards are). */
  vcard?: string;
}

export const peerOf = (contact: ContactItem) => (contact.isGroup ? { groupId: contact.number } : { number: contact.number, lid: contact.lid ?? undefined });

/**
 * Sends a message in a ticket (server-behaviour §1, DESIGN §6): stored first with our own WhatsApp
 * id and ack 0, visible at once, then handed to the session host; the ack rises as WhatsApp
 * confirms, or the message shows ERR_SENDING_WAPP_MSG and can be retried. Automated messages use
 * the same path, so their echo is recognised by id and never stored twice.
 */
export async function sendInTicket(ticket: TicketItem, out: OutgoingMessage): Promise<MessageItem> {
  const contact = await getItem<ContactItem>(contactKey(ticket.companyId, ticket.contactId));
  if (!contact) throw new AppError(404, 'ERR_NO_CONTACT_FOUND');
  const connection = await getItem<ConnectionItem>(connectionKey(ticket.companyId, ticket.whatsappId));
  if (!connection) throw new AppError(400, 'ERR_NO_WAPP_FOUND');
  const waMessageId = newWaMessageId();
  const stored = await storeMessage(ticket, {
    id: waMessageId,
    body: out.vcard ?? out.body,
    fromMe: true,
    ack: ACK.ERROR,
    mediaType: out.vcard ? 'contactMessage' : (out.media?.mediaType ?? null),
    media: out.media ?? null,
    quotedWaId: out.quotedWaId,
    userId: out.userId ?? null,
    createdAt: nowIso(),
    unread: false,
  });
  if (!stored) throw new AppError(500, 'ERR_CREATING_MESSAGE');
  await publishNewMessage(stored.message, stored.ticket, contact);
  await dispatch(stored.message, contact);
  count('MessagesOut');
  return stored.message;
}

async function dispatch(message: MessageItem, contact: ContactItem) {
  await sendCommand({
    type: 'send',
    companyId: message.companyId,
    connectionId: message.whatsappId,
    ticketId: message.ticketId,
    waMessageId: message.id,
    to: peerOf(contact),
    body: message.body,
    media: message.media && message.mediaType ? { ...message.media, mediaType: message.mediaType } : undefined,
    quotedWaId: message.quotedMsg?.id,
    vcard: message.mediaType === 'contactMessage' ? message.body : undefined,
  });
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
  const updated = await patchMessage(message, { error: null, ack: ACK.ERROR });
  await publishMessage(updated, ticket, contact, 'update');
  await dispatch(updated, contact);
  return updated;
}
