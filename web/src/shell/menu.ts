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
  badge?: 'connections' | 'chats';
}

const flag = (f: PlanFlag) => (u: User) => !!u.company?.plan?.[f];
const superOnly = (u: User) => !!u.super;

/** Spec 000 §2.2: every page of the menu, in order, with who sees it. */
export const MENU: MenuItem[] = [
  // `/` is the dashboard for admins (spec 000 §2.2: an administration item), the welcome page for others.
  { to: '/', label: 'menu.home', icon: 'home', section: 'main', when: (u) => !isAdminProfile(u.profile) },
  { to: '/tickets', label: 'menu.tickets', icon: 'queue', section: 'main' },
  { to: '/kanban', label: 'menu.kanban', icon: 'kanban', section: 'main', when: flag('useKanban') },
  { to: '/quick-messages', label: 'menu.quickMessages', icon: 'bolt', section: 'main' },
  { to: '/todolist', label: 'menu.todolist', icon: 'todo', section: 'main' },
  { to: '/contacts', label: 'menu.contacts', icon: 'account', section: 'main' },
  { to: '/schedules', label: 'menu.schedules', icon: 'calendar', section: 'main' },
  { to: '/tags', label: 'menu.tags', icon: 'tag', section: 'main' },
  { to: '/chats', label: 'menu.chats', icon: 'chat', section: 'main', when: flag('useInternalChat'), badge: 'chats' },
  { to: '/helps', label: 'menu.helps', icon: 'help', section: 'main' },
  { to: '/announcements', label: 'menu.announcements', icon: 'announcement', section: 'main', when: superOnly },
  // Spec 000 §2.2 lists it after Users with only the plan flag as its rule (not the administration
  // section's): everyone of such a company sees it, so it closes everyone's items.
  { to: '/messages-api', label: 'menu.messagesApi', icon: 'api', section: 'main', when: flag('useExternalApi') },
  // The Campaigns group (spec 000 §2.2): the campaigns, their contact lists, their settings.
  { to: '/campaigns', label: 'menu.campaigns', icon: 'campaign', section: 'campaigns' },
  { to: '/contact-lists', label: 'menu.contactLists', icon: 'contactList', section: 'campaigns' },
  { to: '/campaigns-config', label: 'menu.campaignsConfig', icon: 'tune', section: 'campaigns' },
  { to: '/', label: 'menu.dashboard', icon: 'dashboard', section: 'admin' },
  { to: '/prompts', label: 'menu.prompts', icon: 'sparkle', section: 'admin', when: flag('useOpenAi') },
  { to: '/queue-integration', label: 'menu.integrations', icon: 'hub', section: 'admin', when: flag('useIntegrations') },
  { to: '/connections', label: 'menu.connections', icon: 'connections', section: 'admin', badge: 'connections' },
  { to: '/files', label: 'menu.files', icon: 'fileList', section: 'admin' },
  { to: '/queues', label: 'menu.queues', icon: 'queue', section: 'admin' },
  { to: '/users', label: 'menu.users', icon: 'users', section: 'admin' },
  // Billing (issue 22 §2): the company's invoices (every company's for the super user),
  // before Settings as in spec 000 §2.2.
  { to: '/financeiro', label: 'menu.financeiro', icon: 'report', section: 'admin' },
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
