import type { User } from '@balcao/shared';
import { api } from './http';
import { listOf, resource } from './resource';

export interface UserRef {
  id: number;
  name: string;
}

export const usersApi = {
  ...resource<User>('/users'),
  /** Every user's id and name (filters, attendant pickers). */
  list: listOf<UserRef>('/users/list'),
  /** The first page of a search (pickers). */
  search: <T = User>(searchParam: string) => api.get<{ users: T[] }>('/users', { query: { searchParam } }),
  /** Sorted by name as Brazilians read it. */
  sorted: async () => [...(await listOf<UserRef>('/users/list')())].sort((a, b) => a.name.localeCompare(b.name, 'pt-BR')),
};
