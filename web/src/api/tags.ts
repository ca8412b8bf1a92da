import type { TagType } from '@balcao/shared';
import type { TagRef } from '../pages/tickets/types';
import type { Tag } from '../pages/tags/tag';
import { api } from './http';
import { resource } from './resource';

export const tagsApi = {
  ...resource<Tag>('/tags'),
  /** Every tag of a type, unpaged (pickers and filters). */
  list: (type: TagType) => api.get<TagRef[]>('/tags/list', { query: { type } }),
};
