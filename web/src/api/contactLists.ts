import { call } from './call';
import { resource } from './resource';

/**
 * Contact lists and their items (spec 002 §7, issue 20 §2): the lists campaigns send to. Lists are
 * paged by 20 (`records`), a list's items by 40 (`contacts`); both answers carry `count`.
 */
export const contactListsApi = {
  ...resource('/contact-lists'),
  page: (searchParam: string | undefined, pageNumber: number) => call('GET /contact-lists', { query: { searchParam, pageNumber } }),
  /** Every list of the company, unpaged (the campaign dialog's selector). */
  all: () => call('GET /contact-lists/list'),
  /**
   * A spreadsheet (.csv, .xls, .xlsx) imported into the list in the background: answers the list at
   * once (202) with its `import` running; progress and report arrive with the list's live updates.
   */
  upload: (id: number, file: File) => {
    const form = new FormData();
    form.append('file', file, file.name);
    return call('POST /contact-lists/{id}/upload', { params: { id }, body: form });
  },
};

export const contactListItemsApi = {
  ...resource('/contact-list-items'),
  page: (contactListId: number, searchParam: string | undefined, pageNumber: number) =>
    call('GET /contact-list-items', { query: { contactListId, searchParam, pageNumber } }),
};
