import { AppError, messageSearchQuerySchema, parseOrThrow } from '@balcao/shared';
import { createRouter, created, idParam, pageParams } from '../../core/http.js';
import { messagesPage, searchMessages, visibleTicket } from '../../services/conversation.js';
import { forwardMessages } from '../../services/forward.js';
import { createUpload } from '../../services/media.js';
import { deleteMessage, reactToMessage, sendFromConsole } from '../../services/message-actions.js';
import { senderNames, toApiMessage } from '../../services/messages.js';
import { findMessageById } from '../../services/message-lookup.js';
import { retrySend } from '../../services/outbound.js';
import { type MessageItem } from '../../table/items.js';

const apiMessages = async (companyId: number, list: MessageItem[]) => {
  const names = await senderNames(companyId, list);
  return Promise.all(list.map((m) => toApiMessage(m, names)));
};

export const handler = createRouter('messages', {
  'GET /messages/{ticketId}': async (req) => {
    const ticket = await visibleTicket(req.identity, idParam(req.params.ticketId));
    const search = parseOrThrow(messageSearchQuerySchema, req.query);
    if (search.searchParam !== undefined) return { ...(await searchMessages(ticket, search.searchParam, search.cursor)), ticketId: ticket.id };
    return { ...(await messagesPage(ticket, pageParams(req.query).pageNumber)), ticketId: ticket.id };
  },
  'POST /messages/{ticketId}': async (req) => {
    const ticket = await visibleTicket(req.identity, idParam(req.params.ticketId));
    const outcome = await sendFromConsole(req.identity, ticket, req.body, req.files);
    if (outcome.kind === 'edited') return toApiMessage(outcome.message);
    // The first message, as the single-message answer always was; every message when there are several.
    const messages = await apiMessages(ticket.companyId, outcome.messages);
    return created(messages.length > 1 ? { ...messages[0], messages } : messages[0]);
  },
  'POST /messages/{ticketId}/media-upload': async (req) => {
    await visibleTicket(req.identity, idParam(req.params.ticketId));
    return created(await createUpload(req.identity.companyId, req.body));
  },
  // `{ticketId}` is the message's id on these two routes (one variable name per path level).
  'DELETE /messages/{ticketId}': async (req) => toApiMessage(await deleteMessage(req.identity, req.params.ticketId)),
  'POST /messages/{ticketId}/reactions': async (req) => toApiMessage(await reactToMessage(req.identity, req.params.ticketId, req.body)),
  'POST /messages/retry/{messageId}': async (req) => {
    const message = await findMessageById(req.identity.companyId, req.params.messageId);
    if (!message) throw new AppError(404, 'ERR_NOT_FOUND');
    await visibleTicket(req.identity, message.ticketId);
    return toApiMessage(await retrySend(message));
  },
  'POST /forward': async (req) => {
    const { ticket, messages } = await forwardMessages(req.identity, req.body);
    return created({ ticketId: ticket.id, ticketUuid: ticket.uuid, ticketStatus: ticket.status, messages: await apiMessages(ticket.companyId, messages) });
  },
});
