import { createRouter } from '../../core/http.js';
import { bearer } from '../../core/jwt.js';
import { sendFromExternalApi } from '../../services/external-api.js';
import { clientIp } from '../../services/rate-limits.js';

export const handler = createRouter('externalApi', {
  'POST /api/messages/send': (req) => sendFromExternalApi(bearer(req.headers), req.body, req.files, clientIp(req.event)),
});
