import { addMonths as dfAddMonths } from 'date-fns/addMonths';
import { TZDate } from '@date-fns/tz';
import { formatInZone, zonedDayKey } from './dates.js';
import { DEFAULT_TIME_ZONE } from './variables.js';

// Kept here, not with the plan schemas: the console's first load formats due dates and must not
// pull zod in through this module.
export const RECURRENCES = ['MENSAL', 'BIMESTRAL', 'TRIMESTRAL', 'SEMESTRAL', 'ANUAL'] as const;
export type Recurrence = (typeof RECURRENCES)[number];
export const RECURRENCE_MONTHS: Record<Recurrence, number> = {
  MENSAL: 1,
  BIMESTRAL: 2,
  TRIMESTRAL: 3,
  SEMESTRAL: 6,
  ANUAL: 12,
};

const DAY = 86_400_000;

/** DD/MM/YYYY in the company's time zone (the spec's date format; the server's Portuguese texts). */
export function formatDateBR(iso: string, timeZone = DEFAULT_TIME_ZONE): string {
  return formatInZone(iso, 'day', 'pt', timeZone);
}

/** YYYY-MM-DD of the same calendar day `formatDateBR` shows (what a date input holds). */
export function dayInputValue(iso: string, timeZone = DEFAULT_TIME_ZONE): string {
  return zonedDayKey(iso, timeZone);
}

/** The due date has passed when its calendar day is before today's (the due day itself is still valid). */
export function isPastDue(dueDate: string | null | undefined, now: Date = new Date()): boolean {
  if (!dueDate) return false;
  const due = new Date(dueDate);
  const endOfDueDay = Date.UTC(due.getUTCFullYear(), due.getUTCMonth(), due.getUTCDate()) + DAY;
  return now.getTime() >= endOfDueDay;
}

/** Whole days left until the due date, rounded up (negative once past). */
export function daysUntil(dueDate: string, now: Date = new Date()): number {
  return Math.ceil((new Date(dueDate).getTime() - now.getTime()) / DAY);
}

/** The subscription warning toast shows when fewer than 5 days remain (spec 000 §9). */
export const shouldWarnDueDate = (dueDate: string | null | undefined, now: Date = new Date()) =>
  !!dueDate && daysUntil(dueDate, now) < 5;

/**
 * `months` calendar months later, on the same day of the month, or the month's last day when it has
 * fewer days (31/01 → 28/02); the time of day is kept. The calendar is UTC's by default, the one
 * `isPastDue` counts days in (decision 61). date-fns does the calendar, @date-fns/tz the zone.
 */
export function addMonths(iso: string, months: number, timeZone = 'UTC'): string {
  return new Date(dfAddMonths(new TZDate(Date.parse(iso), timeZone), months).getTime()).toISOString();
}

export const advanceDueDate = (iso: string, recurrence: Recurrence, timeZone = 'UTC') => addMonths(iso, RECURRENCE_MONTHS[recurrence] ?? 1, timeZone);

export const TRIAL_DAYS = 3;
export const trialDueDate = (now: Date = new Date()) => new Date(now.getTime() + TRIAL_DAYS * DAY).toISOString();

export const blockedMessage = 'Sistema bloqueado, entre em contato com o suporte';
export const pastDueMessage = (dueDate: string, timeZone?: string) =>
  `Opss! Sua assinatura venceu ${formatDateBR(dueDate, timeZone)}. Entre em contato com o suporte para mais informações!`;
export const otherSessionMessage = 'Sua conta foi acessada em outro computador.';
