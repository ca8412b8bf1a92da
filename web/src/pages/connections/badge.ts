import { ALERT_STATUSES, type Connection } from '@balcao/shared';

/** Spec 000 §2.2: the menu badge shows when every connection needs attention (none usable). */
export const needsAttention = (list: readonly Pick<Connection, 'status'>[]) =>
  list.length > 0 && list.every((c) => ALERT_STATUSES.includes(c.status));
