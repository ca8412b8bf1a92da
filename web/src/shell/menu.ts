import { isAdminProfile, type PlanFlag, type User } from '@balcao/shared';
import type { IconName } from '../ui/icons';

export interface MenuItem {
  to: string;
  label: string; // catalogue key
  icon: IconName;
  section: 'main' | 'admin';
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
  { to: '/prompts', label: 'menu.prompts', icon: 'sparkle', section: 'admin', when: flag('useOpenAi') },
  { to: '/queue-integration', label: 'menu.integrations', icon: 'hub', section: 'admin', when: flag('useIntegrations') },
  { to: '/connections', label: 'menu.connections', icon: 'connections', section: 'admin', badge: 'connections' },
  { to: '/queues', label: 'menu.queues', icon: 'queue', section: 'admin' },
  { to: '/users', label: 'menu.users', icon: 'users', section: 'admin' },
  { to: '/settings', label: 'menu.settings', icon: 'settings', section: 'admin' },
];

export function visibleItems(user: User): MenuItem[] {
  const admin = isAdminProfile(user.profile);
  return MENU.filter((i) => (i.section === 'admin' ? admin : true) && (!i.when || i.when(user)));
}

// Kept exported so the rules above stay type-checked while no current item uses them.
export const rules = { flag, superOnly };
