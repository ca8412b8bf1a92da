import { createRouter, created, idParam, noContent } from '../../core/http.js';
import {
  createQuickMessage,
  deleteQuickMessage,
  deleteQuickMessageMedia,
  getQuickMessage,
  listQuickMessages,
  listQuickMessagesForUser,
  toApiQuickMessage,
  updateQuickMessage,
  uploadQuickMessageMedia,
} from '../../services/quick-messages.js';

export const handler = createRouter('quickMessages', {
  'GET /quick-messages': (req) => listQuickMessages(req.identity, req.query),
  'GET /quick-messages/list': (req) => listQuickMessagesForUser(req.identity, req.query),
  'GET /quick-messages/{id}': (req) => getQuickMessage(req.identity, idParam(req.params.id)),
  'POST /quick-messages': async (req) => created(await toApiQuickMessage(await createQuickMessage(req.identity, req.body))),
  'PUT /quick-messages/{id}': async (req) => toApiQuickMessage(await updateQuickMessage(req.identity, idParam(req.params.id), req.body)),
  'DELETE /quick-messages/{id}': async (req) => {
    await deleteQuickMessage(req.identity, idParam(req.params.id));
    return noContent();
  },
  'POST /quick-messages/{id}/media-upload': async (req) =>
    toApiQuickMessage(await uploadQuickMessageMedia(req.identity, idParam(req.params.id), req.files, req.body)),
  'DELETE /quick-messages/{id}/media-upload': async (req) => toApiQuickMessage(await deleteQuickMessageMedia(req.identity, idParam(req.params.id))),
});
