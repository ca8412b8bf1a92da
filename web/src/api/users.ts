import { call } from './call';
import { listOf, resource } from './resource';

export interface UserRef {
  id: number;
  name: string;
}

export const usersApi = {
  ...resource('/users'),
  /** Every user's id and name (filters, attendant pickers). */
  list: listOf('/users/list'),
  /** The first page of a search (pickers). */
  search: (searchParam: string) => call('GET /users', { query: { searchParam } }),
  /** Sorted by name as Brazilians read it. */
  sorted: async () => [...(await listOf('/users/list')())].sort((a, b) => a.name.localeCompare(b.name, 'pt-BR')),
};
