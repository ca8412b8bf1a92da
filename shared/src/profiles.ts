/** Profiles, permissions and plan flags (spec 000 §6, 001 §6, 003 §1). */
export const PROFILES = ['admin', 'Nível 1', 'Nível 2', 'Nível 3'] as const;
export type Profile = (typeof PROFILES)[number];
export const DEFAULT_PROFILE: Profile = 'Nível 1';

/** The spec compares "admin" case-insensitively. */
export const isAdminProfile = (profile: string | undefined | null): boolean =>
  (profile ?? '').toLowerCase() === 'admin';

export const PLAN_FLAGS = [
  'useCampaigns',
  'useSchedules',
  'useInternalChat',
  'useExternalApi',
  'useKanban',
  'useOpenAi',
  'useIntegrations',
] as const;
export type PlanFlag = (typeof PLAN_FLAGS)[number];

/** Named permissions the client shows or hides (the spec's rule names). All are admin-only. */
export const PERMISSIONS = [
  'dashboard:view',
  'drawer-admin-items:view',
  'tickets-manager:showall',
  'user-modal:editProfile',
  'user-modal:editQueues',
  'user-modal:editWhatsapp',
  'ticket-options:deleteTicket',
  'contacts-page:deleteContact',
  'connections-page:actionButtons',
  'connections-page:addConnection',
  'connections-page:editOrDeleteConnection',
] as const;
export type Permission = (typeof PERMISSIONS)[number];

export function can(profile: string | undefined | null, permission: Permission): boolean {
  // Every named permission of the spec belongs to admins only.
  return PERMISSIONS.includes(permission) && isAdminProfile(profile);
}
