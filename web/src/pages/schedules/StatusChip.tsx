import { useCallback } from 'react';
import { useTranslation } from 'react-i18next';
import type { Schedule, ScheduleStatus } from '@balcao/shared';

/** A schedule's status: ENVIADA highlighted, ERRO in the error colour (spec 001 §3); an ERRO's reason as its tooltip. */
export function StatusChip({ status, reason }: { status: ScheduleStatus; reason?: string | null }) {
  const { t } = useTranslation();
  return (
    <span className={`sch-chip sch-${status.toLowerCase()}`} data-status={status} title={reason ?? undefined}>
      {t(`schedules.status.${status}`)}
    </span>
  );
}

/**
 * The reason of an ERRO in the reader's language, from its code; schedules that failed before codes
 * existed have only the Portuguese text, shown as it is.
 */
export function useScheduleReason() {
  const { t, i18n } = useTranslation();
  return useCallback(
    (s: Pick<Schedule, 'status' | 'reason' | 'reasonCode' | 'reasonParams'>): string | null => {
      if (s.status !== 'ERRO') return null;
      if (!s.reasonCode || !i18n.exists(`schedules.reasons.${s.reasonCode}`)) return s.reason;
      const p = s.reasonParams ?? {};
      const detail = p.detail && i18n.exists(`errors.${p.detail}`) ? t(`errors.${p.detail}`) : '';
      return t(`schedules.reasons.${s.reasonCode}`, { connection: p.connection ?? '', detail }).trim();
    },
    [t, i18n],
  );
}
