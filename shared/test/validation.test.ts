import { describe, expect, it } from 'vitest';
import {
  AppError,
  MSG,
  parseOrThrow,
  queueSchema,
  userCreateSchema,
  signupSchema,
  resetPasswordSchema,
  planSchema,
  companySchema,
  contactSchema,
} from '../src/index.js';

function issue(fn: () => unknown) {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(AppError);
    const e = err as AppError;
    return { status: e.status, field: e.fields?.[0]?.field, message: e.fields?.[0]?.message, all: e.fields };
  }
  throw new Error('expected a validation error');
}

describe('user form (spec 000 §5)', () => {
  const valid = { name: 'Maria', email: 'maria@example.com', password: 'Senha123' };
  it('accepts a valid user and defaults nothing it should not', () => {
    const out = parseOrThrow(userCreateSchema, valid);
    expect(out).toMatchObject({ name: 'Maria', email: 'maria@example.com' });
    expect(out.profile).toBeUndefined();
  });
  it.each([
    [{ ...valid, name: 'M' }, 'name', MSG.tooShort],
    [{ ...valid, name: 'x'.repeat(51) }, 'name', MSG.tooLong],
    [{ ...valid, name: '' }, 'name', MSG.required],
    [{ ...valid, name: undefined }, 'name', MSG.required],
    [{ ...valid, email: 'nope' }, 'email', MSG.invalidEmail],
    [{ ...valid, password: '1234' }, 'password', MSG.tooShort],
    [{ ...valid, password: 'x'.repeat(51) }, 'password', MSG.tooLong],
    [{ ...valid, password: 'senhafraca' }, 'password', MSG.passwordPolicy],
    [{ ...valid, profile: 'root' }, 'profile', MSG.invalidValue],
  ])('refuses %j on %s with the spec message', (input, field, message) => {
    const r = issue(() => parseOrThrow(userCreateSchema, input));
    expect(r.status).toBe(400);
    expect(r.field).toBe(field);
    expect(r.message).toBe(message);
  });
  it('reads multipart text fields (queueIds as JSON, booleans as text)', () => {
    const out = parseOrThrow(userCreateSchema, { ...valid, queueIds: '[1,2]', sendGreetingAccepted: 'true', whatsappId: '' });
    expect(out.queueIds).toEqual([1, 2]);
    expect(out.sendGreetingAccepted).toBe(true);
    expect(out.whatsappId).toBeNull();
  });
  it('lower-cases and trims e-mails so uniqueness is case-insensitive', () => {
    expect(parseOrThrow(userCreateSchema, { ...valid, email: '  Maria@Example.COM ' }).email).toBe('maria@example.com');
  });
});

describe('queue form (spec 003 §5)', () => {
  it.each([
    [{ name: 'A', color: '#fff' }, 'name', MSG.tooShort],
    [{ name: 'x'.repeat(256), color: '#fff' }, 'name', MSG.tooLong],
    [{ name: 'Vendas', color: '#f' }, 'color', MSG.tooShort],
    [{ name: 'Vendas', color: '#ffffffffff' }, 'color', MSG.tooLong],
    [{ name: 'Vendas' }, 'color', MSG.required],
  ])('refuses %j', (input, field, message) => {
    const r = issue(() => parseOrThrow(queueSchema, input));
    expect([r.field, r.message]).toEqual([field, message]);
  });
  it('accepts 255 characters and an order', () => {
    expect(parseOrThrow(queueSchema, { name: 'x'.repeat(255), color: '#2563EB', orderQueue: '2' }).orderQueue).toBe(2);
  });
});

describe('signup and reset (spec 003 §5)', () => {
  it('keeps the phone digits only, at most 11', () => {
    const out = parseOrThrow(signupSchema, { name: 'Loja', email: 'a@b.co', phone: '(11) 98765-4321', password: 'Senha123', planId: '1' });
    expect(out.phone).toBe('11987654321');
    expect(out.planId).toBe(1);
    expect(issue(() => parseOrThrow(signupSchema, { name: 'Loja', email: 'a@b.co', phone: '119876543210', password: 'Senha123', planId: 1 })).field).toBe('phone');
  });
  it('requires matching passwords with the policy', () => {
    expect(issue(() => parseOrThrow(resetPasswordSchema, { email: 'a@b.co', token: '1', newPassword: 'Senha123', confirmPassword: 'Senha124' })).message).toBe(MSG.passwordMismatch);
    expect(issue(() => parseOrThrow(resetPasswordSchema, { email: 'a@b.co', token: '1', newPassword: 'abc', confirmPassword: 'abc' })).message).toBe(MSG.passwordPolicy);
    expect(issue(() => parseOrThrow(resetPasswordSchema, { email: 'a@b.co', token: '1', newPassword: '', confirmPassword: '' })).message).toBe('Campo obrigatório');
  });
});

describe('plans and companies', () => {
  it('turns every plan flag on by default', () => {
    const p = parseOrThrow(planSchema, { name: 'Básico' });
    expect([p.useCampaigns, p.useSchedules, p.useInternalChat, p.useExternalApi, p.useKanban, p.useOpenAi, p.useIntegrations]).toEqual(Array(7).fill(true));
  });
  it('sends an invalid due date as null', () => {
    expect(parseOrThrow(companySchema, { name: 'Loja', email: 'a@b.co', planId: 1, dueDate: 'not a date' }).dueDate).toBeNull();
    expect(parseOrThrow(companySchema, { name: 'Loja', email: 'a@b.co', planId: 1, dueDate: '' }).dueDate).toBeNull();
  });
  it('requires the plan', () => {
    expect(issue(() => parseOrThrow(companySchema, { name: 'Loja', email: 'a@b.co' })).field).toBe('planId');
  });
});

describe('contact number (spec 001 §5)', () => {
  it('refuses a number a spreadsheet turned into scientific notation (its digits are lost)', () => {
    for (const number of ['5,5112E+12', '5.51199E+12', '5,51199e12', ' 5,5E+12 ']) {
      expect(issue(() => parseOrThrow(contactSchema, { name: 'Maria', number }))).toMatchObject({ status: 400, field: 'number', message: MSG.scientificNumber });
    }
    expect(parseOrThrow(contactSchema, { name: 'Maria', number: '+55 (11) 98765-4321' }).number).toBe('5511987654321');
  });
});
