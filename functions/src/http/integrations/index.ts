import { createRouter, created, idParam, noContent } from '../../core/http.js';
import {
  createIntegration,
  createPrompt,
  deleteIntegration,
  deletePrompt,
  getIntegration,
  getPrompt,
  listIntegrations,
  listPrompts,
  updateIntegration,
  updatePrompt,
} from '../../services/integrations.js';
import { testDialogflowSession } from '../../services/automation/dialogflow.js';

export const handler = createRouter('integrations', {
  'GET /queueIntegration': (req) => listIntegrations(req.identity, req.query),
  'POST /queueIntegration': async (req) => created(await createIntegration(req.identity, req.body)),
  'POST /queueIntegration/testSession': (req) => testDialogflowSession(req.identity, req.body),
  'GET /queueIntegration/{id}': (req) => getIntegration(req.identity, idParam(req.params.id)),
  'PUT /queueIntegration/{id}': (req) => updateIntegration(req.identity, idParam(req.params.id), req.body),
  'DELETE /queueIntegration/{id}': async (req) => {
    await deleteIntegration(req.identity, idParam(req.params.id));
    return noContent();
  },
  'GET /prompt': (req) => listPrompts(req.identity),
  'POST /prompt': async (req) => created(await createPrompt(req.identity, req.body)),
  'GET /prompt/{id}': (req) => getPrompt(req.identity, idParam(req.params.id)),
  'PUT /prompt/{id}': (req) => updatePrompt(req.identity, idParam(req.params.id), req.body),
  'DELETE /prompt/{id}': (req) => deletePrompt(req.identity, idParam(req.params.id)),
});
