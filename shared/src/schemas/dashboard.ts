import { z } from 'zod';
import { MSG } from '../messages.js';

/** The period choices of the dashboard's filter (spec 000 §2.5): the last N days, today included. */
export const DASHBOARD_PERIODS = [3, 7, 15, 30, 60, 90] as const;
/** The longest period a dashboard call sums (a year and a day: leap years). */
export const DASHBOARD_MAX_DAYS = 366;

const DAY = /^\d{4}-\d{2}-\d{2}$/;
const isCalendarDay = (v: string) => {
  const d = new Date(`${v}T00:00:00Z`);
  // 2026-13-01 is no date at all; 2026-02-30 rolls over to March.
  return DAY.test(v) && !Number.isNaN(d.getTime()) && d.toISOString().slice(0, 10) === v;
};
const dayField = () =>
  z.preprocess(
    (v) => (typeof v === 'string' && v.trim() === '' ? undefined : v),
    z.string({ error: MSG.dashboardInvalidDate }).refine(isCalendarDay, { error: MSG.dashboardInvalidDate }).optional(),
  );

/** Days from `from` to `to` inclusive (YYYY-MM-DD). */
export const daysBetween = (from: string, to: string) => Math.round((Date.parse(`${to}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`)) / 86_400_000) + 1;

const ordered = <T extends { from?: string; to?: string }>(v: T, ctx: z.RefinementCtx, fields: [string, string]) => {
  if (!v.from || !v.to) return;
  if (v.to < v.from) ctx.addIssue({ code: 'custom', path: [fields[1]], message: MSG.dashboardRangeOrder });
  else if (daysBetween(v.from, v.to) > DASHBOARD_MAX_DAYS) ctx.addIssue({ code: 'custom', path: [fields[1]], message: MSG.dashboardRangeTooLong });
};

/**
 * `GET /dashboard`: `days` (one of DASHBOARD_PERIODS) or `date_from` / `date_to` (YYYY-MM-DD on the
 * company's calendar; one alone is that day to today, or that one day). Neither: 'Parametrize o filtro'.
 */
export const dashboardQuerySchema = z
  .object({
    days: z.preprocess(
      (v) => (v === '' || v === undefined || v === null || v === '0' ? undefined : Number(v)),
      z
        .number({ error: MSG.invalidValue })
        .refine((n) => (DASHBOARD_PERIODS as readonly number[]).includes(n), { error: MSG.invalidValue })
        .optional(),
    ),
    date_from: dayField(),
    date_to: dayField(),
  })
  .transform((v) => ({ days: v.days, from: v.date_from, to: v.date_to }))
  .superRefine((v, ctx) => {
    if (!v.days && !v.from && !v.to) ctx.addIssue({ code: 'custom', path: ['days'], message: MSG.dashboardNoFilter });
    ordered(v, ctx, ['date_from', 'date_to']);
  });
export type DashboardQuery = z.output<typeof dashboardQuerySchema>;

/** `GET /dashboard/ticketsUsers` and `/dashboard/ticketsDay`: `initialDate`, `finalDate` (yyyy-MM-dd; today when absent). */
export const dashboardChartQuerySchema = z
  .object({ initialDate: dayField(), finalDate: dayField() })
  .transform((v) => ({ from: v.initialDate, to: v.finalDate }))
  .superRefine((v, ctx) => ordered(v, ctx, ['initialDate', 'finalDate']));
export type DashboardChartQuery = z.output<typeof dashboardChartQuerySchema>;
