import { createRouter, created, idParam, noContent } from '../../core/http.js';
import {
  cancelCampaign,
  createCampaign,
  deleteCampaign,
  deleteCampaignMedia,
  getCampaign,
  listCampaigns,
  restartCampaign,
  updateCampaign,
  uploadCampaignMedia,
} from '../../services/campaigns.js';

export const handler = createRouter('campaigns', {
  'GET /campaigns': (req) => listCampaigns(req.identity, req.query),
  'POST /campaigns': async (req) => created(await createCampaign(req.identity, req.body)),
  'GET /campaigns/{id}': (req) => getCampaign(req.identity, idParam(req.params.id)),
  'PUT /campaigns/{id}': (req) => updateCampaign(req.identity, idParam(req.params.id), req.body),
  'DELETE /campaigns/{id}': async (req) => {
    await deleteCampaign(req.identity, idParam(req.params.id));
    return noContent();
  },
  'POST /campaigns/{id}/cancel': (req) => cancelCampaign(req.identity, idParam(req.params.id)),
  'POST /campaigns/{id}/restart': (req) => restartCampaign(req.identity, idParam(req.params.id)),
  'POST /campaigns/{id}/media-upload': (req) => uploadCampaignMedia(req.identity, idParam(req.params.id), req.files),
  'DELETE /campaigns/{id}/media-upload': (req) => deleteCampaignMedia(req.identity, idParam(req.params.id)),
});
