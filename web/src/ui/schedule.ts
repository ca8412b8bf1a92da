import { defaultSchedule, WEEKDAYS_PT, type ScheduleEntry, type WeekdayEn } from '@balcao/shared';

/** One row of the week editor: a day and its opening hours (`00:00`-`00:00` is closed). */
export interface ScheduleRow {
  weekday: string;
  weekdayEn: WeekdayEn;
  startTime: string;
  endTime: string;
}

/** The week as the editor shows it, Monday first (the order of the default schedule). */
export const WEEK_ORDER: readonly WeekdayEn[] = ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'];

/**
 * Seven rows from a stored schedule: a day without an entry is closed (server-behaviour §5), and
 * nothing stored at all is the default week.
 */
export function weekOf(schedules: readonly ScheduleEntry[] | null | undefined): ScheduleRow[] {
  const list = schedules ?? defaultSchedule();
  return WEEK_ORDER.map((d) => {
    const e = list.find((x) => x.weekdayEn === d);
    return { weekday: WEEKDAYS_PT[d], weekdayEn: d, startTime: e?.startTime ?? '00:00', endTime: e?.endTime ?? '00:00' };
  });
}

export const isClosedRow = (r: Pick<ScheduleRow, 'startTime' | 'endTime'>) => r.startTime === '00:00' && r.endTime === '00:00';

/**
 * The four-digit HH:MM mask: digits only, the colon put in after the hours ("0830" is "08:30";
 * "8:" is read as "08:").
 */
export function maskTime(typed: string): string {
  const padded = /^\d:/.test(typed) ? `0${typed}` : typed;
  const d = padded.replace(/\D/g, '').slice(0, 4);
  return d.length > 2 ? `${d.slice(0, 2)}:${d.slice(2)}` : d;
}

/** The form paths a refusal of a schedule may name (`schedules.2.endTime`), for `useEntityForm`'s `fields`. */
export const schedulePaths = (name = 'schedules') =>
  WEEK_ORDER.flatMap((_, i) => [`${name}.${i}.startTime`, `${name}.${i}.endTime`, `${name}.${i}.weekdayEn`]);
