import { createRouter, created, idParam, noContent } from '../../core/http.js';
import {
  createConnection,
  deleteConnection,
  getConnectionItem,
  listConnections,
  sessionAction,
  toApiConnection,
  updateConnection,
} from '../../services/connections.js';

export const handler = createRouter('whatsapp', {
  // `session=0` answers the list without session data (the QR), as the spec's clients ask.
  'GET /whatsapp': (req) => listConnections(req.identity.companyId, req.query.session !== '0'),
  'GET /whatsapp/{id}': async (req) => toApiConnection(await getConnectionItem(req.identity.companyId, idParam(req.params.id))),
  'POST /whatsapp': async (req) => created(await createConnection(req.identity.companyId, req.body)),
  'PUT /whatsapp/{id}': (req) => updateConnection(req.identity.companyId, idParam(req.params.id), req.body),
  'DELETE /whatsapp/{id}': async (req) => {
    await deleteConnection(req.identity.companyId, idParam(req.params.id));
    return noContent();
  },
  // Try again (a DISCONNECTED session starts over with its credentials, or a new QR). An optional
  // `pairingNumber` links with a pairing code instead of the QR.
  'POST /whatsappsession/{id}': (req) => sessionAction(req.identity.companyId, idParam(req.params.id), 'start', req.body),
  // New QR: forget the credentials and show a new code.
  'PUT /whatsappsession/{id}': (req) => sessionAction(req.identity.companyId, idParam(req.params.id), 'newQr', req.body),
  'POST /whatsappsession/reconnect/{id}': (req) => sessionAction(req.identity.companyId, idParam(req.params.id), 'restart'),
  'DELETE /whatsappsession/{id}': (req) => sessionAction(req.identity.companyId, idParam(req.params.id), 'logout'),
});
