import { createRouter } from '../../core/http.js';
import { bearer } from '../../core/jwt.js';
import { sendFromExternalApi } from '../../services/external-api.js';

export const handler = createRouter('externalApi', {
  'POST /api/messages/send': (req) => sendFromExternalApi(bearer(req.headers), req.body, req.files),
});
