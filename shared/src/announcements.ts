/**
 * Announcements' pure rules (spec 002 §9, spec 000 §2.3; decision 58), without zod: the top bar's
 * popover loads with the shell, whose chunk must not carry the schemas.
 */

/** Spec 002 §9: 1 high, 2 medium, 3 low (the default). */
export const ANNOUNCEMENT_PRIORITIES = [1, 2, 3] as const;
export type AnnouncementPriority = (typeof ANNOUNCEMENT_PRIORITIES)[number];
export const DEFAULT_ANNOUNCEMENT_PRIORITY: AnnouncementPriority = 3;

/**
 * The popover's order: higher priority first (1 before 3), then the newest; the id breaks ties so
 * every reader lists the same order (the table's active index sorts the same way).
 */
export const compareAnnouncements = (a: { priority: number; createdAt: string; id: number }, b: { priority: number; createdAt: string; id: number }) =>
  a.priority - b.priority || (a.createdAt < b.createdAt ? 1 : a.createdAt > b.createdAt ? -1 : b.id - a.id);
