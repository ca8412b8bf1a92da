import { call } from './call';
import { resource } from './resource';

/** The filters of the contacts list and export: tags and attendants as JSON arrays of ids. */
export interface ContactFilters {
  searchParam?: string;
  tagsContact?: string;
  users?: string;
}

export type ExportRow = { id: number; name: string; number: string; email: string };

export const contactsApi = {
  ...resource('/contacts'),
  page: (filters: ContactFilters, pageNumber: number) => call('GET /contacts', { query: { ...filters, pageNumber } }),
  /** One page of the phone's address book; `next` asks for the following one. */
  importPhone: (after?: string) => call('POST /contacts/import', { body: after ? { after } : {} }),
  importList: (contacts: unknown[]) => call('POST /contacts/importList', { body: { contacts } as never }),
  exportPage: (filters: ContactFilters, cursor?: string) => call('GET /contacts/export', { query: { ...filters, cursor } }),
  transferUser: (userIdSource: number, userIdDestination: number) => call('POST /contacts/transferUser', { body: { userIdSource, userIdDestination } }),
};
