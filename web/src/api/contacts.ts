import type { Contact, ContactsPage, ImportResult } from '../pages/contacts/types';
import { api } from './http';
import { resource } from './resource';

/** The filters of the contacts list and export: tags and attendants as JSON arrays of ids. */
export interface ContactFilters {
  searchParam?: string;
  tagsContact?: string;
  users?: string;
}

export type ExportRow = { id: number; name: string; number: string; email: string };

export const contactsApi = {
  ...resource<Contact>('/contacts'),
  page: (filters: ContactFilters, pageNumber: number) => api.get<ContactsPage>('/contacts', { query: { ...filters, pageNumber } }),
  /** One page of the phone's address book; `next` asks for the following one. */
  importPhone: (after?: string) => api.post<ImportResult & { total?: number; next?: string | null }>('/contacts/import', after ? { after } : {}),
  importList: (contacts: unknown[]) => api.post<ImportResult>('/contacts/importList', { contacts }),
  exportPage: (filters: ContactFilters, cursor?: string) =>
    api.get<{ contacts: ExportRow[]; next: string | null }>('/contacts/export', { query: { ...filters, cursor } }),
  transferUser: (userIdSource: number, userIdDestination: number) =>
    api.post<{ transferred: number }>('/contacts/transferUser', { userIdSource, userIdDestination }),
};
