import { useEffect } from 'react';
import { useTranslation } from 'react-i18next';
import { useNavigate } from 'react-router-dom';
import type { PlanFlag, User } from '@balcao/shared';
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
 * A page the plan must allow (the prompts page: useOpenAi; the integrations page: useIntegrations):
 * without the flag, the spec's error toast and, a second later, the dashboard. Answers whether the
 * page may show (and call its routes, which answer 403 otherwise).
 */
export function usePlanGate(flag: PlanFlag): boolean {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const allowed = usePlanFlag(flag);
  useEffect(() => {
    if (allowed) return;
    toast.error(t('common.noPlanPermission'));
    const timer = setTimeout(() => navigate('/', { replace: true }), PLAN_REDIRECT_MS);
    return () => clearTimeout(timer);
  }, [allowed]);
  return allowed;
}
