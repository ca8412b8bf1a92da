import { useMemo } from 'react';
import { useTranslation } from 'react-i18next';
import { companyTimeZone, dateFormatter, type DateFormatter } from '@balcao/shared';
import { useAuth } from '../auth/AuthContext';

export interface ConsoleDates extends DateFormatter {
  /** 'Hoje' / 'Ontem' by the company's calendar, else the day (message list separators). */
  dayLabel(value: string | number | Date, now?: string | number | Date): string;
}

/**
 * Every date the console shows (decision 34): the signed-in company's zone and i18next's language.
 * Components re-render on a language change (useTranslation) or a new zone (the user object).
 */
export function useDates(): ConsoleDates {
  const { t, i18n } = useTranslation();
  const { user } = useAuth();
  const zone = companyTimeZone(user);
  const lang = i18n.language;
  return useMemo(() => {
    const f = dateFormatter(zone, lang);
    return {
      ...f,
      dayLabel: (value, now) => {
        const rel = f.relativeDay(value, now);
        return rel ? t(`dates.${rel}`) : f.day(value);
      },
    };
  }, [zone, lang, t]);
}
