import { call } from './call';
import { resource } from './resource';

/** A queue's options tree (spec 003 §4): one level at a time, `null` for the root. */
export const queueOptionsApi = {
  ...resource('/queue-options'),
  level: (queueId: number, parentId: number | null) => call('GET /queue-options', { query: { queueId, parentId: parentId ?? -1 } }),
};
