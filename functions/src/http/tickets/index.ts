import { AppError } from '@balcao/shared';
import { createRouter, created, idParam, noContent } from '../../core/http.js';
import { getItem } from '../../core/db.js';
import { visibleTicket } from '../../services/conversation.js';
import { createTicket, updateTicket } from '../../services/ticket-lifecycle.js';
import { deleteTicket } from '../../services/ticket-delete.js';
import { kanbanBoard } from '../../services/kanban.js';
import { countTickets, listTickets } from '../../services/ticket-list.js';
import { toApiTickets } from '../../services/ticket-view.js';
import { uuidPointer } from '../../table/keys.js';

const one = async (companyId: number, t: Parameters<typeof toApiTickets>[1][number]) => (await toApiTickets(companyId, [t]))[0];

export const handler = createRouter('tickets', {
  'GET /tickets': async (req) => listTickets(req.identity, req.query),
  'GET /tickets/counts': async (req) => countTickets(req.identity, req.query),
  'GET /ticket/kanban': async (req) => kanbanBoard(req.identity, req.query),
  'GET /tickets/{id}': async (req) => one(req.identity.companyId, await visibleTicket(req.identity, idParam(req.params.id))),
  'GET /tickets/u/{uuid}': async (req) => {
    const uuid = req.params.uuid ?? '';
    if (!/^[0-9a-f-]{36}$/i.test(uuid)) throw new AppError(404, 'ERR_NO_TICKET_FOUND');
    const pointer = await getItem<{ ticketId: number }>(uuidPointer(req.identity.companyId, uuid.toLowerCase()));
    if (!pointer) throw new AppError(404, 'ERR_NO_TICKET_FOUND');
    return one(req.identity.companyId, await visibleTicket(req.identity, pointer.ticketId));
  },
  'POST /tickets': async (req) => created(await one(req.identity.companyId, await createTicket(req.identity, req.body))),
  'PUT /tickets/{id}': async (req) => one(req.identity.companyId, await updateTicket(req.identity, idParam(req.params.id), req.body)),
  'DELETE /tickets/{id}': async (req) => {
    await deleteTicket(req.identity, idParam(req.params.id));
    return noContent();
  },
});
