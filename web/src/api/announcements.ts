import { call } from './call';
import { mediaOf, resource } from './resource';

/**
 * Announcements (spec 002 §7; decision 58): pages of 20 (`records`, with `count`), written by the
 * super user, with an optional image (multipart `file`, uploaded after the announcement is saved:
 * the route needs its id). `active` reads only the active ones, in the popover's order.
 */
export const announcementsApi = {
  ...resource('/announcements'),
  ...mediaOf('/announcements'),
  active: (pageNumber: number) => call('GET /announcements', { query: { status: 'true', pageNumber } }),
};
