import { useEffect } from 'react';
import { useTranslation } from 'react-i18next';
import { useNavigate } from 'react-router-dom';
import { isAdminProfile, type PlanFlag, type User } from '@balcao/shared';
import { toast } from '../ui/toast';
import { useAuth } from './AuthContext';

/** Spec 002 §8, 003 §6: the wait before a page the plan does not allow sends the user home. */
export const PLAN_REDIRECT_MS = 1000;

/** Whether the company's plan has `flag` (the plan travels with the signed-in user, as the menu reads it). */
export const hasPlanFlag = (user: User | null | undefined, flag: PlanFlag) => !!user?.company?.plan?.[flag];

export function usePlanFlag(flag: PlanFlag): boolean {
  const { user } = useAuth();
  return hasPlanFlag(user, flag);
}

/**
 * Campaign screens (contact lists now; campaigns and their settings later): admins of a company
 * whose plan has `useCampaigns` and whose own `campaignsEnabled` switch is on (spec 000 §2.2,
 * 002 §6; issue 20 §1), as the API decides. The spec's browser-storage flag `cshow` is no gate
 * (decision 52): it is neither read nor written.
 */
export const campaignsAllowed = (user: User | null | undefined) =>
  !!user && (isAdminProfile(user.profile) || !!user.super) && hasPlanFlag(user, 'useCampaigns') && companySwitch(user) !== false;

/**
 * The company's `campaignsEnabled`: `GET /auth/me` and `/companies/listPlan` answer the whole
 * company, while the shared `User['company']` type names only some of its fields.
 */
const companySwitch = (user: User) => user.company?.campaignsEnabled;

/**
 * A page the user may not open: the spec's error toast and, a second later, the dashboard
 * (spec 002 §8). Answers `allowed`, whether the page may show (and call its routes, which answer
 * 403 otherwise).
 */
export function useAccessGate(allowed: boolean): boolean {
  const { t } = useTranslation();
  const navigate = useNavigate();
  useEffect(() => {
    if (allowed) return;
    toast.error(t('common.noPlanPermission'));
    const timer = setTimeout(() => navigate('/', { replace: true }), PLAN_REDIRECT_MS);
    return () => clearTimeout(timer);
  }, [allowed]);
  return allowed;
}

/** A page the plan must allow (the prompts page: useOpenAi; the integrations page: useIntegrations). */
export function usePlanGate(flag: PlanFlag): boolean {
  return useAccessGate(usePlanFlag(flag));
}

/** A campaign page (`campaignsAllowed`): anyone else gets the toast and the way home. */
export function useCampaignsGate(): boolean {
  const { user } = useAuth();
  return useAccessGate(campaignsAllowed(user));
}
