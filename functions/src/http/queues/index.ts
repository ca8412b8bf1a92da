import { createRouter, created, idParam, noContent } from '../../core/http.js';
import { createQueue, deleteQueue, getQueueItem, listQueues, toApiQueue, updateQueue } from '../../services/queues.js';

export const handler = createRouter('queues', {
  'GET /queue': (req) => listQueues(req.identity.companyId),
  'GET /queue/{id}': async (req) => toApiQueue(await getQueueItem(req.identity.companyId, idParam(req.params.id))),
  'POST /queue': async (req) => created(await createQueue(req.identity.companyId, req.body)),
  'PUT /queue/{id}': (req) => updateQueue(req.identity.companyId, idParam(req.params.id), req.body),
  'DELETE /queue/{id}': async (req) => {
    await deleteQueue(req.identity.companyId, idParam(req.params.id));
    return noContent();
  },
});
