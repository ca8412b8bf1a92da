import { useTranslation } from 'react-i18next';
import type { ScheduleStatus } from '@balcao/shared';

/** A schedule's status: ENVIADA highlighted, ERRO in the error colour (spec 001 §3). */
export function StatusChip({ status }: { status: ScheduleStatus }) {
  const { t } = useTranslation();
  return (
    <span className={`sch-chip sch-${status.toLowerCase()}`} data-status={status}>
      {t(`schedules.status.${status}`)}
    </span>
  );
}
