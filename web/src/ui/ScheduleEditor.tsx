import { useTranslation } from 'react-i18next';
import { Text, TextField } from '@aws-amplify/ui-react';
import { isClosedRow, maskTime, type ScheduleRow } from './schedule';
import './schedule-editor.css';

type TimeField = 'startTime' | 'endTime';

/**
 * A week of business hours (server-behaviour §5): one row per day, in the user's language, with
 * its opening and closing times under the four-digit HH:MM mask; `00:00`-`00:00` is closed. The
 * refusals of a row (`schedules.2.endTime`) show under it: `error(index, field)`.
 */
export function ScheduleEditor({
  value,
  onChange,
  error,
  testId = 'schedule-editor',
}: {
  value: ScheduleRow[];
  onChange: (rows: ScheduleRow[]) => void;
  error?: (index: number, field: TimeField | 'weekdayEn') => string | undefined;
  testId?: string;
}) {
  const { t } = useTranslation();
  const set = (i: number, field: TimeField, typed: string) => onChange(value.map((r, j) => (j === i ? { ...r, [field]: maskTime(typed) } : r)));
  return (
    <div className="schedule-editor" data-testid={testId}>
      <div className="schedule-head" aria-hidden="true">
        <span>{t('hours.day')}</span>
        <span>{t('hours.start')}</span>
        <span>{t('hours.end')}</span>
      </div>
      {value.map((row, i) => {
        const day = t(`hours.weekdays.${row.weekdayEn}`);
        const errors = (['startTime', 'endTime', 'weekdayEn'] as const).map((f) => error?.(i, f));
        const messages = [...new Set(errors.filter(Boolean))];
        const errorId = `${testId}-${row.weekdayEn}-error`;
        const time = (field: TimeField, k: number) => (
          <TextField
            label={t(field === 'startTime' ? 'hours.startOf' : 'hours.endOf', { day })}
            labelHidden
            value={row[field]}
            onChange={(e) => set(i, field, e.target.value)}
            placeholder="HH:MM"
            inputMode="numeric"
            autoComplete="off"
            maxLength={5}
            size="small"
            hasError={!!errors[k]}
            aria-describedby={errors[k] ? errorId : undefined}
            data-testid={`schedule-${field === 'startTime' ? 'start' : 'end'}-${row.weekdayEn}`}
          />
        );
        return (
          <div key={row.weekdayEn} className="schedule-row" role="group" aria-label={day} data-testid={`schedule-row-${row.weekdayEn}`}>
            <div className="schedule-day">
              <span>{day}</span>
              {isClosedRow(row) && <span className="schedule-closed">{t('hours.closed')}</span>}
            </div>
            {time('startTime', 0)}
            {time('endTime', 1)}
            {messages.length > 0 && (
              <Text as="div" className="schedule-error" id={errorId} role="alert">
                {messages.join(' ')}
              </Text>
            )}
          </div>
        );
      })}
      <Text as="div" fontSize="small" color="font.secondary" marginTop="0.5rem">
        {t('hours.closedHint')}
      </Text>
    </div>
  );
}
