import { createRouter, created, idParam, noContent } from '../../core/http.js';
import {
  addTicketTag,
  createTag,
  deleteTag,
  getTagItem,
  kanbanTags,
  listTags,
  listTagsBrief,
  removeKanbanTags,
  syncTags,
  toApiTag,
  updateTag,
} from '../../services/tags.js';

export const handler = createRouter('tags', {
  'GET /tags': (req) => listTags(req.identity.companyId, req.query),
  'GET /tags/list': (req) => listTagsBrief(req.identity.companyId, req.query),
  'GET /tags/kanban': (req) => kanbanTags(req.identity.companyId, req.query),
  'GET /tags/{id}': async (req) => toApiTag(await getTagItem(req.identity.companyId, idParam(req.params.id))),
  'POST /tags': async (req) => created(toApiTag(await createTag(req.identity, req.body))),
  'PUT /tags/{id}': async (req) => toApiTag(await updateTag(req.identity, idParam(req.params.id), req.body)),
  'DELETE /tags/{id}': async (req) => {
    await deleteTag(req.identity, idParam(req.params.id));
    return noContent();
  },
  'POST /tags/sync': (req) => syncTags(req.identity, req.body),
  'PUT /ticket-tags/{ticketId}/{tagId}': (req) => addTicketTag(req.identity, idParam(req.params.ticketId), idParam(req.params.tagId)),
  'DELETE /ticket-tags/{ticketId}': async (req) => {
    await removeKanbanTags(req.identity, idParam(req.params.ticketId), req.query);
    return noContent();
  },
});
