/** Business constants (spec 000 §9, 001 §9, 003 §9). */
export const SEARCH_DEBOUNCE_MS = 500;
export const FORM_SUBMIT_DELAY_MS = 400;
export const SHELL_TOAST_MS = 2000;
export const ROUTE_TOAST_MS = 3000;
export const CONNECTION_BADGE_DELAY_MS = 2000;
export const STATUS_HEARTBEAT_MS = 300_000;
export const INFINITE_SCROLL_THRESHOLD_PX = 100;
export const MIN_USER_SEARCH_CHARS = 3;
export const DRAWER_TEMPORARY_BELOW_PX = 600;
export const DRAWER_OPEN_ABOVE_PX = 1200;
export const DEFAULT_PAGE_SIZE = 20;
/** A user counts as online while a socket is open and the heartbeat is recent. */
export const PRESENCE_TTL_SECONDS = 11 * 60;
export const WS_CONNECTION_TTL_SECONDS = 2 * 60 * 60 + 600;
export const LOCAL_STORAGE_KEYS = ['token', 'companyId', 'language', 'preferredTheme', 'volume', 'signOption', 'cshow'] as const;
export const LANGUAGES = ['pt', 'en', 'es'] as const;
export type Language = (typeof LANGUAGES)[number];
