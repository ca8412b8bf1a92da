import { useMemo } from 'react';
import { useTranslation } from 'react-i18next';
import { dateFnsLocalizer, type DateRangeFormatFunction, type Formats, type View } from 'react-big-calendar';
import { format, getDay, parse, startOfWeek } from 'date-fns';
import { enUS, es, ptBR } from 'date-fns/locale';
import { datePattern, type Schedule } from '@balcao/shared';

const localizer = dateFnsLocalizer({ format, parse, startOfWeek, getDay, locales: { 'pt-BR': ptBR, 'en-US': enUS, es } });
export const CULTURES: Record<string, string> = { pt: 'pt-BR', en: 'en-US', es: 'es' };
/** Spec 001 §9: month and agenda views, height 500. */
const VIEWS: View[] = ['month', 'agenda'];
const CALENDAR_HEIGHT = 500;

/** The calendar's fixed settings. */
export const CALENDAR = { localizer, views: VIEWS, startAccessor: 'start', endAccessor: 'end', style: { height: CALENDAR_HEIGHT }, popup: true } as const;
/**
 * The console's date patterns (decision 34) where the calendar writes days and times: agenda dates
 * short enough for a phone's width. The calendar is fed the company's wall clock (zonedWallClock),
 * so its own formatting and its "today" are the company's.
 */
export function calendarFormats(lang: string): Formats {
  const day = datePattern(lang, 'day');
  const time = datePattern(lang, 'time');
  const range = (pattern: string): DateRangeFormatFunction => ({ start, end }, culture, local) =>
    `${local!.format(start, pattern, culture)} – ${local!.format(end, pattern, culture)}`;
  return {
    agendaDateFormat: `EEE ${datePattern(lang, 'dayMonth')}`,
    agendaHeaderFormat: range(day),
    agendaTimeFormat: time,
    agendaTimeRangeFormat: range(time),
    eventTimeRangeFormat: range(time),
  };
}

export interface CalendarEvent {
  id: number;
  title: string;
  start: Date;
  end: Date;
  schedule: Schedule;
}

/** The calendar's own words in the reader's language. */
export function useCalendarTexts() {
  const { t, i18n } = useTranslation();
  return useMemo(
    () => ({
      date: t('schedules.cal.date'),
      time: t('schedules.cal.time'),
      event: t('schedules.cal.event'),
      allDay: t('schedules.cal.allDay'),
      week: t('schedules.cal.week'),
      work_week: t('schedules.cal.workWeek'),
      day: t('schedules.cal.day'),
      month: t('schedules.cal.month'),
      previous: t('schedules.cal.previous'),
      next: t('schedules.cal.next'),
      yesterday: t('schedules.cal.yesterday'),
      tomorrow: t('schedules.cal.tomorrow'),
      today: t('schedules.cal.today'),
      agenda: t('schedules.cal.agenda'),
      noEventsInRange: t('schedules.cal.noEvents'),
      showMore: (count: number) => t('schedules.cal.showMore', { count }),
    }),
    [t, i18n.language],
  );
}
