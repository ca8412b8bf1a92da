import { describe, expect, it } from 'vitest';
import { daysBetween, dashboardChartQuerySchema, dashboardQuerySchema, formatMinutes } from '../src/index.js';

describe('dashboard helpers', () => {
  it('writes average minutes as hours and minutes, seconds under a minute', () => {
    expect(formatMinutes(null)).toBe('—');
    expect(formatMinutes(0)).toBe('0s');
    expect(formatMinutes(0.66)).toBe('40s');
    expect(formatMinutes(12.4)).toBe('12m');
    expect(formatMinutes(65)).toBe('1h 05m');
    expect(formatMinutes(600)).toBe('10h 00m');
  });

  it('reads the filter forms and refuses what names no period', () => {
    expect(dashboardQuerySchema.parse({ days: '7' })).toEqual({ days: 7, from: undefined, to: undefined });
    expect(dashboardQuerySchema.parse({ date_from: '2026-03-01', date_to: '2026-03-31' })).toEqual({ days: undefined, from: '2026-03-01', to: '2026-03-31' });
    expect(dashboardQuerySchema.safeParse({}).error?.issues[0]).toMatchObject({ path: ['days'], message: 'Parametrize o filtro' });
    expect(dashboardQuerySchema.safeParse({ days: '0' }).error?.issues[0]).toMatchObject({ message: 'Parametrize o filtro' });
    expect(dashboardQuerySchema.safeParse({ days: '4' }).success).toBe(false);
    expect(dashboardQuerySchema.safeParse({ date_from: '2025-01-01', date_to: '2026-03-01' }).error?.issues[0]).toMatchObject({ path: ['date_to'] });
    expect(dashboardChartQuerySchema.safeParse({ initialDate: '2026-02-29' }).success).toBe(false);
    expect(daysBetween('2026-03-01', '2026-03-31')).toBe(31);
  });
});
