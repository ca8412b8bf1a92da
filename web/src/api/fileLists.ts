import { FILE_LIST_TYPE_ARCH } from '@balcao/shared';
import { call } from './call';
import { resource } from './resource';

/**
 * File lists (spec 002 §7, issue 20 §3): pages of 20 (`files`, with `count`); an option's file is
 * uploaded after the list is saved, one option per request (`id` names the option).
 */
export const fileListsApi = {
  ...resource('/files'),
  page: (searchParam: string | undefined, pageNumber: number) => call('GET /files', { query: { searchParam, pageNumber } }),
  /** One option's file (the spec's form: `fileId`, `typeArch=fileList`, `files`, `mediaType`, `name`, `id`). */
  uploadOption: (listId: number, option: { id: number; name: string }, file: File) => {
    const form = new FormData();
    form.append('fileId', String(listId));
    form.append('typeArch', FILE_LIST_TYPE_ARCH);
    form.append('id', String(option.id));
    form.append('name', option.name);
    form.append('mediaType', file.type);
    form.append('files', file, file.name);
    return call('POST /files/uploadList/{id}', { params: { id: listId }, body: form });
  },
};
