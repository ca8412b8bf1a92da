import { api } from './http';
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

interface Named {
  id: number;
  name: string;
}

/** Prompts and integrations come with later issues (features.ts): until then their lists are unknown (null). */
const optionalList = (path: string) => () =>
  api
    .get<unknown>(path)
    .then((l) => (Array.isArray(l) ? l : l && typeof l === 'object' ? Object.values(l).find(Array.isArray) ?? null : null) as Named[] | null)
    .catch(() => null);

export const promptsApi = { list: optionalList('/prompt') };
export const integrationsApi = { list: optionalList('/queueIntegration') };
