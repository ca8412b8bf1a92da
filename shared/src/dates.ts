import { zonedParts } from './variables.js';

/**
 * The one date formatter (decision 34): every date the console shows is the company's wall clock
 * (setting `timezone`) written in the reader's language's pattern. Pure and zod-free: the console's
 * first load (ticket rows) and the server's Portuguese texts use it.
 */

export type DateLanguage = 'pt' | 'en' | 'es';
export type DateFormatName = 'day' | 'dayMonth' | 'dateTime' | 'shortDateTime' | 'time';
type DateInput = string | number | Date;

/**
 * date-fns tokens (the schedules calendar formats with the same patterns). Spec 000 §9 and 003:
 * days DD/MM/YYYY; 000 §9 and 001 §9: DD/MM/YY HH:mm for connections and notes. English writes the
 * month first, as English readers (and the calendar's en-US locale) expect; the time stays 24-hour.
 */
const DMY = { day: 'dd/MM/yyyy', dayMonth: 'dd/MM', dateTime: 'dd/MM/yyyy HH:mm', shortDateTime: 'dd/MM/yy HH:mm', time: 'HH:mm' };
const PATTERNS: Record<DateLanguage, Record<DateFormatName, string>> = {
  pt: DMY,
  es: DMY,
  en: { day: 'MM/dd/yyyy', dayMonth: 'MM/dd', dateTime: 'MM/dd/yyyy HH:mm', shortDateTime: 'MM/dd/yy HH:mm', time: 'HH:mm' },
};

/** i18next's language (`pt`, `en`, `es`, possibly with a region) as a pattern set; Portuguese otherwise. */
export function dateLanguage(lang: string | undefined): DateLanguage {
  const base = (lang ?? '').slice(0, 2).toLowerCase();
  return base === 'en' || base === 'es' ? base : 'pt';
}

export const datePattern = (lang: string | undefined, name: DateFormatName) => PATTERNS[dateLanguage(lang)][name];

function toDate(value: DateInput): Date | null {
  const d = value instanceof Date ? value : new Date(value);
  return Number.isNaN(d.getTime()) ? null : d;
}

const TOKENS = /yyyy|yy|MM|dd|HH|mm/g;

type Parts = ReturnType<typeof zonedParts>;

/** `value` in `name`'s pattern for `lang`, on `timeZone`'s wall clock; '' for a missing or invalid date. */
export function formatInZone(value: DateInput | null | undefined, name: DateFormatName, lang: string | undefined, timeZone: string): string {
  const d = value === null || value === undefined || value === '' ? null : toDate(value);
  if (!d) return '';
  return formatParts(zonedParts(d, timeZone), name, lang);
}

function formatParts(p: Parts, name: DateFormatName, lang: string | undefined): string {
  const parts: Record<string, string> = {
    yyyy: p.year,
    yy: p.year.slice(-2),
    MM: p.month,
    dd: p.day,
    HH: String(p.hour).padStart(2, '0'),
    mm: p.minute,
  };
  return datePattern(lang, name).replace(TOKENS, (t) => parts[t]);
}

/** The company's calendar day of `value`, `YYYY-MM-DD` (what a date input holds; sortable). */
export function zonedDayKey(value: DateInput, timeZone: string): string {
  const d = toDate(value);
  if (!d) return '';
  const { year, month, day } = zonedParts(d, timeZone);
  return `${year}-${month}-${day}`;
}

/** The calendar day before `YYYY-MM-DD` (calendar arithmetic: a DST day is not 24 hours long). */
function previousDay(key: string): string {
  const [y, m, d] = key.split('-').map(Number);
  return new Date(Date.UTC(y, m - 1, d - 1)).toISOString().slice(0, 10);
}

/** 'today' or 'yesterday' by the company's calendar, null for any other day. */
export function relativeDay(value: DateInput, timeZone: string, now: DateInput = Date.now()): 'today' | 'yesterday' | null {
  const key = zonedDayKey(value, timeZone);
  const today = zonedDayKey(now, timeZone);
  if (!key || !today) return null;
  if (key === today) return 'today';
  return key === previousDay(today) ? 'yesterday' : null;
}

/** `<input type="datetime-local">` value (`YYYY-MM-DDTHH:mm`) of `value` on the company's wall clock. */
export function zonedInputValue(value: DateInput, timeZone: string): string {
  const d = toDate(value);
  if (!d) return '';
  const p = zonedParts(d, timeZone);
  return `${p.year}-${p.month}-${p.day}T${String(p.hour).padStart(2, '0')}:${p.minute}`;
}

/** Milliseconds `timeZone`'s wall clock is ahead of UTC at `t` (whole seconds). */
function offsetAt(t: number, timeZone: string): number {
  const p = zonedParts(new Date(t), timeZone);
  const wall = Date.UTC(Number(p.year), Number(p.month) - 1, Number(p.day), p.hour, Number(p.minute), Number(p.second));
  return wall - Math.floor(t / 1000) * 1000;
}

const INPUT = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2}))?$/;

/**
 * The instant (ISO) a `datetime-local` value names on the company's wall clock; null when it is not
 * one. A wall time repeated when clocks go back is its first occurrence; one skipped when they go
 * forward is read with the offset before the change (it lands after the gap). `keep`, the instant
 * the field was filled from, is answered as is while the field still shows it, so opening and saving
 * a form never moves a time (seconds, or the second occurrence of a repeated hour).
 */
export function fromZonedInput(input: string, timeZone: string, keep?: string | null): string | null {
  const text = input.trim();
  const m = INPUT.exec(text);
  if (!m) return null;
  if (keep && zonedInputValue(keep, timeZone) === text) return new Date(keep).toISOString();
  const [y, mo, d, h, mi, s] = m.slice(1).map((x) => Number(x ?? 0));
  const wall = Date.UTC(y, mo - 1, d, h, mi, s);
  // Date.UTC rolls 31/02 or 25:00 over to another day: such a value names no time.
  if (!Number.isFinite(wall) || new Date(wall).toISOString().slice(0, 16) !== text.slice(0, 16) || s > 59) return null;
  // The zone's offset a day either side of the wall time: a time is valid with whichever of them
  // reads back to it (zones change offset at most once in a day).
  const before = wall - offsetAt(wall - 86_400_000, timeZone);
  const after = wall - offsetAt(wall + 86_400_000, timeZone);
  const valid = [before, after].filter((t) => t + offsetAt(t, timeZone) === wall).sort((a, b) => a - b);
  return new Date(valid[0] ?? before).toISOString();
}

/**
 * A Date whose local fields (getHours, getDate…) are the company's wall clock at `value`, for
 * widgets that only speak the browser's zone (the schedules calendar). Display only: it is not the
 * same instant unless the browser is on the company's zone.
 */
export function zonedWallClock(value: DateInput, timeZone: string): Date {
  const d = toDate(value);
  if (!d) return new Date(NaN);
  const p = zonedParts(d, timeZone);
  return new Date(Number(p.year), Number(p.month) - 1, Number(p.day), p.hour, Number(p.minute), Number(p.second));
}

export interface DateFormatter {
  readonly timeZone: string;
  readonly language: DateLanguage;
  format(value: DateInput | null | undefined, name: DateFormatName): string;
  day(value: DateInput | null | undefined): string;
  dateTime(value: DateInput | null | undefined): string;
  shortDateTime(value: DateInput | null | undefined): string;
  time(value: DateInput | null | undefined): string;
  /** The company's calendar day, `YYYY-MM-DD`. */
  dayKey(value: DateInput): string;
  relativeDay(value: DateInput, now?: DateInput): 'today' | 'yesterday' | null;
  /** Lists (tickets, notifications): the time for today's, the day for older ones. */
  timeOrDay(value: DateInput | null | undefined, now?: DateInput): string;
}

const formatters = new Map<string, DateFormatter>();

/** The formatter of a zone and language (one per pair, kept: components ask on every render). */
export function dateFormatter(timeZone: string, lang: string | undefined): DateFormatter {
  const language = dateLanguage(lang);
  const cacheKey = `${timeZone}|${language}`;
  let f = formatters.get(cacheKey);
  if (!f) {
    const format = (v: DateInput | null | undefined, name: DateFormatName) => formatInZone(v, name, language, timeZone);
    // Today's key, read again at most once a second: a list formats many rows against the same day.
    let today = { at: -Infinity, key: '' };
    const todayKey = (now?: DateInput) => {
      if (now !== undefined) return zonedDayKey(now, timeZone);
      const t = Date.now();
      if (t - today.at > 1000) today = { at: t, key: zonedDayKey(t, timeZone) };
      return today.key;
    };
    f = {
      timeZone,
      language,
      format,
      day: (v) => format(v, 'day'),
      dateTime: (v) => format(v, 'dateTime'),
      shortDateTime: (v) => format(v, 'shortDateTime'),
      time: (v) => format(v, 'time'),
      dayKey: (v) => zonedDayKey(v, timeZone),
      relativeDay: (v, now) => relativeDay(v, timeZone, now),
      timeOrDay: (v, now) => {
        const d = v === null || v === undefined || v === '' ? null : toDate(v);
        if (!d) return '';
        // One wall-clock reading of the value serves both the comparison and the text.
        const p = zonedParts(d, timeZone);
        return formatParts(p, `${p.year}-${p.month}-${p.day}` === todayKey(now) ? 'time' : 'day', language);
      },
    };
    formatters.set(cacheKey, f);
  }
  return f;
}
