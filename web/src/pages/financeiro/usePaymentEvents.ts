import { useEffect } from 'react';
import { useNavigate } from 'react-router-dom';
import { useTranslation } from 'react-i18next';
import { companyEvent } from '@balcao/shared';
import { realtime } from '../../api/realtime';
import { useAuth } from '../../auth/AuthContext';
import { toast } from '../../ui/toast';
import { useDates } from '../../ui/dates';

/** Spec 003 §4: after a redirect of 4 s. */
export const PAYMENT_REDIRECT_MS = 4000;

/**
 * The company's `payment` event `CONCLUIDA` (the webhook saw the Pix paid): the licence-renewed toast
 * with the new due date, then the way home after 4 s.
 */
export function usePaymentEvents(onPaid?: () => void) {
  const { user } = useAuth();
  const { t } = useTranslation();
  const navigate = useNavigate();
  const dates = useDates();
  useEffect(() => {
    if (!user?.companyId) return;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const off = realtime.on(companyEvent(user.companyId, 'payment'), (data) => {
      if (data.action !== 'CONCLUIDA') return;
      const due = data.company.dueDate;
      toast.success(t('billing.renewed', { date: due ? dates.day(due) : '' }), PAYMENT_REDIRECT_MS);
      onPaid?.();
      timer = setTimeout(() => navigate('/'), PAYMENT_REDIRECT_MS);
    });
    return () => {
      off();
      if (timer) clearTimeout(timer);
    };
  }, [user, t, navigate, onPaid, dates]);
}
