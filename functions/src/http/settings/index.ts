import { createRouter } from '../../core/http.js';
import { getSetting, listSettings, updateSetting } from '../../services/settings.js';

export const handler = createRouter('settings', {
  'GET /settings': (req) => listSettings(req.identity.companyId),
  'GET /settings/{key}': (req) => getSetting(req.identity.companyId, req.params.key),
  'PUT /settings/{key}': (req) => updateSetting(req.identity.companyId, req.params.key, req.body),
});
