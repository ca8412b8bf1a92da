import { describe, expect, it } from 'vitest';
import {
  addMonths,
  advanceDueDate,
  canSeeTicket,
  can,
  dayInputValue,
  formatDateBR,
  isAdminProfile,
  isPastDue,
  pastDueMessage,
  planLimitError,
  shouldWarnDueDate,
  AppError,
} from '../src/index.js';

describe('ticket visibility (server-behaviour §14)', () => {
  const base = { userId: 10, queueIds: [1], allTicket: false };
  const t = (userId: number | null, queueId: number | null, status = 'open') => ({ userId, queueId, status });
  it('admin and Nível 3 see everything', () => {
    expect(canSeeTicket({ ...base, profile: 'admin' }, t(99, 7))).toBe(true);
    expect(canSeeTicket({ ...base, profile: 'ADMIN' }, t(99, 7))).toBe(true);
    expect(canSeeTicket({ ...base, profile: 'Nível 3' }, t(99, null))).toBe(true);
  });
  it('Nível 1 sees its own and pending tickets of its queues only', () => {
    const v = { ...base, profile: 'Nível 1' };
    expect(canSeeTicket(v, t(10, 7))).toBe(true);
    expect(canSeeTicket(v, t(null, 1, 'pending'))).toBe(true);
    expect(canSeeTicket(v, t(99, 1, 'open'))).toBe(false);
    expect(canSeeTicket(v, t(null, 2, 'pending'))).toBe(false);
  });
  it('Nível 2 also sees the rest of its queues', () => {
    const v = { ...base, profile: 'Nível 2' };
    expect(canSeeTicket(v, t(99, 1, 'open'))).toBe(true);
    expect(canSeeTicket(v, t(99, 2, 'open'))).toBe(false);
  });
  it('tickets without a queue need allTicket', () => {
    expect(canSeeTicket({ ...base, profile: 'Nível 1' }, t(null, null, 'pending'))).toBe(false);
    expect(canSeeTicket({ ...base, profile: 'Nível 1', allTicket: true }, t(null, null, 'pending'))).toBe(true);
  });
});

describe('permissions', () => {
  it('compares admin case-insensitively and keeps named permissions for admins', () => {
    expect(isAdminProfile('Admin')).toBe(true);
    expect(can('admin', 'ticket-options:deleteTicket')).toBe(true);
    expect(can('Nível 3', 'ticket-options:deleteTicket')).toBe(false);
  });
});

describe('subscription dates', () => {
  const now = new Date('2026-11-21T12:00:00Z');
  it('is past due only after the due day', () => {
    expect(isPastDue('2026-11-21T03:00:00Z', now)).toBe(false);
    expect(isPastDue('2026-11-20T03:00:00Z', now)).toBe(true);
    expect(isPastDue(null, now)).toBe(false);
  });
  it('warns when fewer than 5 days remain', () => {
    expect(shouldWarnDueDate('2026-11-25T12:00:00Z', now)).toBe(true);
    expect(shouldWarnDueDate('2026-11-27T12:00:00Z', now)).toBe(false);
  });
  it('advances by the recurrence, clamping the month end', () => {
    expect(addMonths('2026-01-31T00:00:00.000Z', 1)).toBe('2026-02-28T00:00:00.000Z');
    expect(advanceDueDate('2026-01-15T00:00:00.000Z', 'TRIMESTRAL')).toBe('2026-04-15T00:00:00.000Z');
    expect(advanceDueDate('2026-01-15T00:00:00.000Z', 'ANUAL')).toBe('2027-01-15T00:00:00.000Z');
  });
  it('gives a date input the day the table shows (São Paulo), not the UTC date', () => {
    // 00:15 UTC on the 22nd is still the 21st in São Paulo.
    expect(formatDateBR('2026-12-22T00:15:00.000Z')).toBe('21/12/2026');
    expect(dayInputValue('2026-12-22T00:15:00.000Z')).toBe('2026-12-21');
    expect(dayInputValue('2026-12-22T12:00:00.000Z')).toBe('2026-12-22');
  });
  it('writes the past-due message with the date as DD/MM/YYYY', () => {
    expect(pastDueMessage('2026-10-05T15:00:00Z')).toMatch(/^Opss! Sua assinatura venceu 05\/10\/2026\./);
  });
});

describe('plan limits', () => {
  it('answers 400 with the spec text', () => {
    const e = planLimitError('queues', 3);
    expect(e).toBeInstanceOf(AppError);
    expect(e.status).toBe(400);
    expect(e.message).toBe('Número máximo de filas já alcançado: 3');
  });
});

describe('queue bodies', () => {
  it('escape everything outside ASCII and round-trip exactly', async () => {
    const { toQueueBody } = await import('../src/index.js');
    const value = { body: 'Olá 👍 ção \u{1F600} ~tachado~', n: 1 };
    const text = toQueueBody(value);
    expect(/^[\x20-\x7e]*$/.test(text)).toBe(true);
    expect(JSON.parse(text)).toEqual(value);
  });
});
