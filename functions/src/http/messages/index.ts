import { AppError } from '@balcao/shared';
import { createRouter, created, idParam, pageParams } from '../../core/http.js';
import { messagesPage, visibleTicket } from '../../services/conversation.js';
import { findMessageById, toApiMessage } from '../../services/messages.js';
import { retrySend, sendInTicket } from '../../services/outbound.js';

const quotedIdOf = (q: unknown): string | undefined => {
  if (typeof q === 'string' && q) return q;
  if (q && typeof q === 'object' && typeof (q as { id?: unknown }).id === 'string') return (q as { id: string }).id;
  return undefined;
};

export const handler = createRouter('messages', {
  'GET /messages/{ticketId}': async (req) => {
    const ticket = await visibleTicket(req.identity, idParam(req.params.ticketId));
    return { ...(await messagesPage(ticket, pageParams(req.query).pageNumber)), ticketId: ticket.id };
  },
  'POST /messages/{ticketId}': async (req) => {
    const ticket = await visibleTicket(req.identity, idParam(req.params.ticketId));
    if (ticket.status === 'closed') {
      throw new AppError(400, 'ERR_VALIDATION', { message: 'O atendimento está encerrado', fields: [{ field: 'ticketId', message: 'O atendimento está encerrado' }] });
    }
    const body = typeof req.body.body === 'string' ? req.body.body : '';
    // Empty or blank text is not sent (spec 001 §5).
    if (!body.trim()) throw new AppError(400, 'ERR_VALIDATION', { message: 'Required', fields: [{ field: 'body', message: 'Required' }] });
    const message = await sendInTicket(ticket, { body, userId: req.identity.userId, quotedWaId: quotedIdOf(req.body.quotedMsg) });
    return created(await toApiMessage(message));
  },
  'POST /messages/retry/{messageId}': async (req) => {
    const message = await findMessageById(req.identity.companyId, req.params.messageId);
    if (!message) throw new AppError(404, 'ERR_NOT_FOUND');
    await visibleTicket(req.identity, message.ticketId);
    return toApiMessage(await retrySend(message));
  },
});
