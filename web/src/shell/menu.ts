import { isAdminProfile, type PlanFlag, type User } from '@balcao/shared';
import { campaignsAllowed } from '../auth/planRules';
import type { IconName } from '../ui/icons';

export type MenuSectionId = 'main' | 'campaigns' | 'admin';

export interface MenuSection {
  id: MenuSectionId;
  /** The heading's catalogue key (none for the main items). */
  title?: string;
  testId?: string;
  /** Who sees the section at all; each item may add its own rule. */
  when?: (u: User) => boolean;
}

/**
 * The drawer's groups, in order (spec 000 §2.2): everyone's items; the Campaigns group (admins, when
 * the plan allows campaigns and the company has them on: `campaignsAllowed`); the administration
 * section (admins).
 */
export const SECTIONS: MenuSection[] = [
  { id: 'main' },
  { id: 'campaigns', title: 'menu.campaigns', testId: 'campaigns-section', when: campaignsAllowed },
  { id: 'admin', title: 'shell.adminSection', testId: 'admin-section', when: (u) => isAdminProfile(u.profile) },
];

export interface MenuItem {
  to: string;
  label: string; // catalogue key
  icon: IconName;
  section: MenuSectionId;
  /** Extra rule on top of the section (spec 000 §2.2). */
  when?: (u: User) => boolean;
  /** A live marker next to the label (the connections alert of spec 000 §2.2). */
  badge?: 'connections';
}

const flag = (f: PlanFlag) => (u: User) => !!u.company?.plan?.[f];
const superOnly = (u: User) => !!u.super;

/**
 * Spec 000 §2.2, limited to the pages that exist. A later page adds its one line here, e.g.
 *   { to: '/tickets', label: 'menu.tickets', icon: 'queue', section: 'main' },
 *   { to: '/kanban', label: 'menu.kanban', icon: 'queue', section: 'main', when: flag('useKanban') },
 *   { to: '/announcements', label: 'menu.announcements', icon: 'home', section: 'main', when: superOnly },
 */
export const MENU: MenuItem[] = [
  { to: '/', label: 'menu.home', icon: 'home', section: 'main' },
  { to: '/tickets', label: 'menu.tickets', icon: 'queue', section: 'main' },
  { to: '/quick-messages', label: 'menu.quickMessages', icon: 'bolt', section: 'main' },
  { to: '/contacts', label: 'menu.contacts', icon: 'account', section: 'main' },
  { to: '/schedules', label: 'menu.schedules', icon: 'calendar', section: 'main' },
  { to: '/tags', label: 'menu.tags', icon: 'tag', section: 'main' },
  // The Campaigns group (spec 000 §2.2): the campaigns, their contact lists, their settings.
  { to: '/campaigns', label: 'menu.campaigns', icon: 'campaign', section: 'campaigns' },
  { to: '/contact-lists', label: 'menu.contactLists', icon: 'contactList', section: 'campaigns' },
  { to: '/campaigns-config', label: 'menu.campaignsConfig', icon: 'tune', section: 'campaigns' },
  { to: '/prompts', label: 'menu.prompts', icon: 'sparkle', section: 'admin', when: flag('useOpenAi') },
  { to: '/queue-integration', label: 'menu.integrations', icon: 'hub', section: 'admin', when: flag('useIntegrations') },
  { to: '/connections', label: 'menu.connections', icon: 'connections', section: 'admin', badge: 'connections' },
  { to: '/files', label: 'menu.files', icon: 'fileList', section: 'admin' },
  { to: '/queues', label: 'menu.queues', icon: 'queue', section: 'admin' },
  { to: '/users', label: 'menu.users', icon: 'users', section: 'admin' },
  { to: '/settings', label: 'menu.settings', icon: 'settings', section: 'admin' },
];

export function visibleItems(user: User): MenuItem[] {
  const shown = new Set(SECTIONS.filter((s) => !s.when || s.when(user)).map((s) => s.id));
  return MENU.filter((i) => shown.has(i.section) && (!i.when || i.when(user)));
}

/** The drawer's groups with the items the user sees, empty groups left out. */
export function visibleSections(user: User): { section: MenuSection; items: MenuItem[] }[] {
  const items = visibleItems(user);
  return SECTIONS.map((section) => ({ section, items: items.filter((i) => i.section === section.id) })).filter((g) => g.items.length > 0);
}

// Kept exported so the rules above stay type-checked while no current item uses them.
export const rules = { flag, superOnly };
