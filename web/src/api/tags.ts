import type { TagType } from '@balcao/shared';
import { call } from './call';
import { resource } from './resource';

export const tagsApi = {
  ...resource('/tags'),
  /** Every tag of a type, unpaged (pickers and filters). */
  list: (type: TagType) => call('GET /tags/list', { query: { type } }),
};
