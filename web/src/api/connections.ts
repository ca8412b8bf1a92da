import type { Connection } from '@balcao/shared';
import { api } from './http';
import { listOf, resource } from './resource';

const session = (id: number) => `/whatsappsession/${id}`;

export const connectionsApi = {
  ...resource<Connection>('/whatsapp'),
  /** The list without session data (no QR codes): the session events bring those. */
  list: listOf<Connection>('/whatsapp', { session: 0 }),
  tryAgain: (id: number, body?: { pairingNumber: string }) => api.post<Connection>(session(id), body),
  newQr: (id: number) => api.put<Connection>(session(id)),
  reconnect: (id: number) => api.post<Connection>(`/whatsappsession/reconnect/${id}`),
  disconnect: (id: number) => api.del<Connection>(session(id)),
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
