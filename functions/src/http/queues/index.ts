import { createRouter, created, idParam, noContent } from '../../core/http.js';
import { createQueue, deleteQueue, getQueueItem, listQueues, toApiQueue, updateQueue } from '../../services/queues.js';
import { createQueueOption, deleteQueueOption, getQueueOption, listQueueOptions, updateQueueOption } from '../../services/queue-options.js';

export const handler = createRouter('queues', {
  'GET /queue': (req) => listQueues(req.identity.companyId),
  'GET /queue/{id}': async (req) => toApiQueue(await getQueueItem(req.identity.companyId, idParam(req.params.id))),
  'POST /queue': async (req) => created(await createQueue(req.identity.companyId, req.body)),
  'PUT /queue/{id}': (req) => updateQueue(req.identity.companyId, idParam(req.params.id), req.body),
  'DELETE /queue/{id}': async (req) => {
    await deleteQueue(req.identity.companyId, idParam(req.params.id));
    return noContent();
  },
  'GET /queue-options': (req) => listQueueOptions(req.identity.companyId, req.query),
  'GET /queue-options/{id}': (req) => getQueueOption(req.identity.companyId, idParam(req.params.id)),
  'POST /queue-options': async (req) => created(await createQueueOption(req.identity.companyId, req.body)),
  'PUT /queue-options/{id}': (req) => updateQueueOption(req.identity.companyId, idParam(req.params.id), req.body),
  'DELETE /queue-options/{id}': async (req) => {
    await deleteQueueOption(req.identity.companyId, idParam(req.params.id));
    return noContent();
  },
});
