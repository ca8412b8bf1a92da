import { createRouter } from '../../core/http.js';
import { listCampaignSettings, saveCampaignSettings } from '../../services/campaign-settings.js';

export const handler = createRouter('campaignSettings', {
  'GET /campaign-settings': (req) => listCampaignSettings(req.identity),
  'POST /campaign-settings': (req) => saveCampaignSettings(req.identity, req.body),
});
