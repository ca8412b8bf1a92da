import { describe, expect, it } from 'vitest';
import { defaultSchedule } from '@balcao/shared';
import { maskTime, schedulePaths, weekOf } from './schedule';

describe('the week editor', () => {
  it('masks times as HH:MM while they are typed', () => {
    expect(maskTime('0')).toBe('0');
    expect(maskTime('08')).toBe('08');
    expect(maskTime('083')).toBe('08:3');
    expect(maskTime('0830')).toBe('08:30');
    expect(maskTime('08:30')).toBe('08:30');
    expect(maskTime('08:301')).toBe('08:30');
    expect(maskTime('8:')).toBe('08');
    expect(maskTime('8:3')).toBe('08:3');
    expect(maskTime('ab12cd34')).toBe('12:34');
    expect(maskTime('')).toBe('');
  });

  it('shows seven rows from Monday; a day without an entry is closed; nothing stored is the default week', () => {
    expect(weekOf(undefined).map((r) => [r.weekdayEn, r.startTime, r.endTime])).toEqual(defaultSchedule().map((e) => [e.weekdayEn, e.startTime, e.endTime]));
    const rows = weekOf([{ weekday: 'Domingo', weekdayEn: 'sunday', startTime: '09:00', endTime: '13:00' }]);
    expect(rows).toHaveLength(7);
    expect(rows[0]).toEqual({ weekday: 'Segunda-feira', weekdayEn: 'monday', startTime: '00:00', endTime: '00:00' });
    expect(rows[6]).toEqual({ weekday: 'Domingo', weekdayEn: 'sunday', startTime: '09:00', endTime: '13:00' });
    expect(weekOf([]).every((r) => r.startTime === '00:00' && r.endTime === '00:00')).toBe(true);
  });

  it('names every path a refusal may point at', () => {
    expect(schedulePaths()).toContain('schedules.6.endTime');
    expect(schedulePaths()).toHaveLength(21);
  });
});
