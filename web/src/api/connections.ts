import { call } from './call';
import { listOf, resource } from './resource';

export const connectionsApi = {
  ...resource('/whatsapp'),
  /** The list without session data (no QR codes): the session events bring those. */
  list: listOf('/whatsapp', { session: 0 }),
  tryAgain: (id: number, body?: { pairingNumber: string }) => call('POST /whatsappsession/{id}', { params: { id }, body }),
  newQr: (id: number) => call('PUT /whatsappsession/{id}', { params: { id } }),
  reconnect: (id: number) => call('POST /whatsappsession/reconnect/{id}', { params: { id } }),
  disconnect: (id: number) => call('DELETE /whatsappsession/{id}', { params: { id } }),
};
