import { useEffect } from 'react';
import { useTranslation } from 'react-i18next';
import { useNavigate } from 'react-router-dom';
import type { PlanFlag } from '@balcao/shared';
import { toast } from '../ui/toast';
import { useAuth } from './AuthContext';
import { campaignsAllowed, hasPlanFlag } from './planRules';

export { campaignsAllowed, hasPlanFlag } from './planRules';

/** Spec 002 §8, 003 §6: the wait before a page the plan does not allow sends the user home. */
export const PLAN_REDIRECT_MS = 1000;

export function usePlanFlag(flag: PlanFlag): boolean {
  const { user } = useAuth();
  return hasPlanFlag(user, flag);
}

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
