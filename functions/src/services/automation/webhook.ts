import type { ContactItem, MessageItem, QueueIntegrationItem, TicketItem } from '../../table/items.js';
import { callOutside, jsonOf, OutsideError } from './outside.js';

/**
 * n8n and webhooks (server-behaviour §9): each customer message is POSTed as JSON to `urlN8N`; an
 * answer `{ "reply": "…" }` is sent to the customer, an empty or reply-less 2xx says nothing.
 */
export async function webhookTurn(integ: QueueIntegrationItem, input: { ticket: TicketItem; contact: ContactItem; message: MessageItem; text: string }): Promise<{ replies: string[] }> {
  const { ticket, contact, message } = input;
  const payload = {
    event: 'message',
    integrationId: integ.id,
    integrationType: integ.type,
    companyId: ticket.companyId,
    connectionId: ticket.whatsappId,
    ticketId: ticket.id,
    contactId: contact.id,
    message: { id: message.id, body: input.text, mediaType: message.mediaType, fromMe: false, createdAt: message.createdAt },
    contact: { id: contact.id, name: contact.name, number: contact.number },
    ticket: { id: ticket.id, uuid: ticket.uuid, status: ticket.status, queueId: ticket.queueId },
  };
  const answer = await callOutside(integ.type, integ.urlN8N ?? '', {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json' },
    body: JSON.stringify(payload),
  });
  if (!answer.text.trim()) return { replies: [] };
  const body = jsonOf<{ reply?: unknown }>(integ.type, answer);
  if (body.reply === undefined || body.reply === null || body.reply === '') return { replies: [] };
  if (typeof body.reply !== 'string') throw new OutsideError(integ.type, 'garbage', '"reply" is not a text');
  return { replies: [body.reply] };
}
