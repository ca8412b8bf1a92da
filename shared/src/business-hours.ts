import { z } from 'zod';
import { MSG } from './messages.js';
import { zonedParts } from './variables.js';

/**
 * Business hours (server-behaviour §5): a weekly schedule of seven entries in the company's time
 * zone. `00:00-00:00` is closed all day, and so is a day without an entry.
 */
export const WEEKDAYS_EN = ['sunday', 'monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday'] as const;
export type WeekdayEn = (typeof WEEKDAYS_EN)[number];
/** The Portuguese names the spec's entries carry beside `weekdayEn`. */
export const WEEKDAYS_PT: Record<WeekdayEn, string> = {
  sunday: 'Domingo',
  monday: 'Segunda-feira',
  tuesday: 'Terça-feira',
  wednesday: 'Quarta-feira',
  thursday: 'Quinta-feira',
  friday: 'Sexta-feira',
  saturday: 'Sábado',
};

const TIME = /^([01]\d|2[0-3]):[0-5]\d$/;
const timeField = () =>
  z.preprocess(
    // The console's four-digit mask may send "0800".
    (v) => (typeof v === 'string' && /^\d{4}$/.test(v.trim()) ? `${v.trim().slice(0, 2)}:${v.trim().slice(2)}` : typeof v === 'string' ? v.trim() : v),
    z.string({ error: MSG.invalidTime }).regex(TIME, { error: MSG.invalidTime }),
  );

export const scheduleEntrySchema = z
  .object({
    weekday: z.string().max(30).optional(),
    weekdayEn: z.enum(WEEKDAYS_EN, { error: MSG.invalidWeekday }),
    startTime: timeField(),
    endTime: timeField(),
  })
  .transform((e) => ({ ...e, weekday: WEEKDAYS_PT[e.weekdayEn] }))
  .superRefine((e, ctx) => {
    if (isClosedEntry(e)) return;
    if (e.endTime <= e.startTime) ctx.addIssue({ code: 'custom', path: ['endTime'], message: MSG.endBeforeStart });
  });
export type ScheduleEntry = z.output<typeof scheduleEntrySchema>;

/** A weekly schedule: at most one entry per weekday (a missing day is closed). */
export const schedulesSchema = z.array(scheduleEntrySchema, { error: MSG.invalidValue }).max(7, { error: MSG.invalidValue }).superRefine((list, ctx) => {
  const seen = new Set<string>();
  list.forEach((e, i) => {
    if (seen.has(e.weekdayEn)) ctx.addIssue({ code: 'custom', path: [i, 'weekdayEn'], message: MSG.repeatedWeekday });
    seen.add(e.weekdayEn);
  });
});

/** `PUT /companies/{id}/schedules`. */
export const companySchedulesSchema = z.object({ schedules: schedulesSchema });

const entry = (weekdayEn: WeekdayEn, startTime: string, endTime: string): ScheduleEntry => ({ weekday: WEEKDAYS_PT[weekdayEn], weekdayEn, startTime, endTime });

/** A new queue's or company's schedule: Monday-Friday 08:00-18:00, Saturday 08:00-12:00, Sunday closed. */
export function defaultSchedule(): ScheduleEntry[] {
  return [
    entry('monday', '08:00', '18:00'),
    entry('tuesday', '08:00', '18:00'),
    entry('wednesday', '08:00', '18:00'),
    entry('thursday', '08:00', '18:00'),
    entry('friday', '08:00', '18:00'),
    entry('saturday', '08:00', '12:00'),
    entry('sunday', '00:00', '00:00'),
  ];
}

function isClosedEntry(e: { startTime: string; endTime: string }) {
  return e.startTime === '00:00' && e.endTime === '00:00';
}

const minutesOf = (hhmm: string) => Number(hhmm.slice(0, 2)) * 60 + Number(hhmm.slice(3, 5));

/** The company's wall clock at `now`: its calendar day (as a UTC date), weekday and minute of the day. */
function wallClock(now: Date, timeZone: string) {
  const z = zonedParts(now, timeZone);
  const day = Date.UTC(Number(z.year), Number(z.month) - 1, Number(z.day));
  return { day, weekday: new Date(day).getUTCDay(), minute: z.hour * 60 + Number(z.minute) };
}

function openingOf(schedules: readonly ScheduleEntry[], weekday: number) {
  const e = schedules.find((x) => x.weekdayEn === WEEKDAYS_EN[weekday]);
  return e && !isClosedEntry(e) ? { start: minutesOf(e.startTime), end: minutesOf(e.endTime) } : undefined;
}

/** Whether `now` falls in the schedule (start inclusive, end exclusive), in the company's zone. */
export function isOpenAt(schedules: readonly ScheduleEntry[], now: Date, timeZone: string): boolean {
  const w = wallClock(now, timeZone);
  const open = openingOf(schedules, w.weekday);
  return !!open && w.minute >= open.start && w.minute < open.end;
}

/**
 * The out-of-hours period `now` is in, named by the wall-clock time it ends (the next opening, as
 * `YYYY-MM-DDTHH:MM` in the company's zone; `closed` when the schedule never opens). Two moments
 * of the same period have the same name: the out-of-hours answer goes once per period.
 */
export function outOfHoursPeriod(schedules: readonly ScheduleEntry[], now: Date, timeZone: string): string {
  const w = wallClock(now, timeZone);
  for (let offset = 0; offset <= 7; offset++) {
    const open = openingOf(schedules, (w.weekday + offset) % 7);
    if (!open || (offset === 0 && open.start <= w.minute)) continue;
    const day = new Date(w.day + offset * 86_400_000).toISOString().slice(0, 10);
    return `${day}T${String(Math.floor(open.start / 60)).padStart(2, '0')}:${String(open.start % 60).padStart(2, '0')}`;
  }
  return 'closed';
}
