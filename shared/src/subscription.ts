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

export function addMonths(iso: string, months: number): string {
  const d = new Date(iso);
  const day = d.getUTCDate();
  d.setUTCDate(1);
  d.setUTCMonth(d.getUTCMonth() + months);
  const lastDay = new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 0)).getUTCDate();
  d.setUTCDate(Math.min(day, lastDay));
  return d.toISOString();
}

export const advanceDueDate = (iso: string, recurrence: Recurrence) => addMonths(iso, RECURRENCE_MONTHS[recurrence]);

export const TRIAL_DAYS = 3;
export const trialDueDate = (now: Date = new Date()) => new Date(now.getTime() + TRIAL_DAYS * DAY).toISOString();

export const blockedMessage = 'Sistema bloqueado, entre em contato com o suporte';
export const pastDueMessage = (dueDate: string, timeZone?: string) =>
  `Opss! Sua assinatura venceu ${formatDateBR(dueDate, timeZone)}. Entre em contato com o suporte para mais informações!`;
export const otherSessionMessage = 'Sua conta foi acessada em outro computador.';
