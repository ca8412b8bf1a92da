import { isAdminProfile, type PlanFlag, type User } from '@balcao/shared';

/**
 * Who may see what by plan and company switches: pure rules (no React, no browser storage), read by
 * the menu, the page gates and the node tests of the rules.
 */

/** Whether the company's plan has `flag` (the plan travels with the signed-in user, as the menu reads it). */
export const hasPlanFlag = (user: User | null | undefined, flag: PlanFlag) => !!user?.company?.plan?.[flag];

/**
 * Campaign screens (campaigns, contact lists, campaign settings): admins of a company whose plan has
 * `useCampaigns` and whose own `campaignsEnabled` switch is not off (spec 000 §2.2, 002 §6; issue 20
 * §1), as the API decides. The spec's browser-storage flag `cshow` is no gate (decision 52): it is
 * neither read nor written.
 */
export const campaignsAllowed = (user: User | null | undefined) =>
  !!user && (isAdminProfile(user.profile) || !!user.super) && hasPlanFlag(user, 'useCampaigns') && user.company?.campaignsEnabled !== false;
