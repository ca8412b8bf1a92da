import { beforeAll, describe, expect, it, vi } from 'vitest';
import { MSG, SAME_ATTENDANT, SELECT_QUEUE } from '@balcao/shared';
import pt from './pt';
import en from './en';

// The i18n module reads the stored language and sets the page's lang when it loads.
const stored = new Map<string, string>();
vi.stubGlobal('localStorage', { getItem: (k: string) => stored.get(k) ?? null, setItem: (k: string, v: string) => stored.set(k, v) });
vi.stubGlobal('document', { documentElement: { lang: '' } });

type I18n = typeof import('./index');
let i18n: I18n;
let form: typeof import('../ui/form');
let errors: typeof import('../api/errors');
let http: typeof import('../api/http');

beforeAll(async () => {
  i18n = await import('./index');
  form = await import('../ui/form');
  errors = await import('../api/errors');
  http = await import('../api/http');
  await i18n.i18nReady;
  await i18n.default.changeLanguage('pt');
});

async function inLanguage(lang: 'pt' | 'en', run: () => void) {
  i18n.setLanguage(lang);
  await vi.waitFor(() => expect(i18n.default.language).toBe(lang));
  run();
}

describe('messages of the schemas and the API on screen', () => {
  it('shows each of the spec’s form messages in Portuguese, not in the spec’s English', async () => {
    await inLanguage('pt', () => {
      expect(i18n.translateMessage(MSG.required)).toBe('Obrigatório');
      expect(i18n.translateMessage(MSG.tooShort)).toBe('Muito curto!');
      expect(i18n.translateMessage(MSG.tooLong)).toBe('Muito longo!');
      expect(i18n.translateMessage(MSG.invalidEmail)).toBe('Email inválido');
      for (const [key, text] of Object.entries(MSG)) expect(i18n.translateMessage(text)).toBe(pt.validation[key as keyof typeof MSG]);
    });
  });

  it('translates the message after a field prefix and the field too', async () => {
    await inLanguage('pt', () => {
      expect(i18n.translateMessage('number: Too Short!')).toBe('Número: Muito curto!');
      expect(i18n.translateMessage('name: Too Long!')).toBe('Nome: Muito longo!');
      expect(i18n.translateMessage('email: Invalid email')).toBe('Email: Email inválido');
      // "row" names no field; an unknown field keeps its name, its message is still translated.
      expect(i18n.translateMessage('row: Valor inválido')).toBe('Valor inválido');
      expect(i18n.translateMessage('extraInfo.0.name: Required')).toBe('extraInfo.0.name: Obrigatório');
      // A known field before a text of no catalogue: the field in Portuguese, the text as it came.
      expect(i18n.translateMessage('name: Invalid input')).toBe('Nome: Invalid input');
    });
    await inLanguage('en', () => {
      expect(i18n.translateMessage('number: Too Short!')).toBe(`${en.contacts.number}: ${en.validation.tooShort}`);
    });
  });

  it('translates error codes and the spec’s Portuguese refusals, and leaves other texts alone', async () => {
    await inLanguage('en', () => {
      expect(i18n.translateMessage('ERR_DUPLICATED_CONTACT')).toBe(en.errors.ERR_DUPLICATED_CONTACT);
      expect(i18n.translateMessage(SELECT_QUEUE)).toBe(en.tickets.selectQueue);
      expect(i18n.translateMessage(SAME_ATTENDANT)).toBe(en.contacts.sameAttendant);
      expect(i18n.translateMessage(MSG.obrigatorio)).toBe(en.validation.obrigatorio);
    });
    await inLanguage('pt', () => {
      expect(i18n.translateMessage('Opss: texto livre do servidor')).toBe('Opss: texto livre do servidor');
      expect(i18n.translateMessage('ERR_NOT_A_KNOWN_CODE')).toBe('ERR_NOT_A_KNOWN_CODE');
      expect(i18n.translateMessage(undefined)).toBeUndefined();
    });
  });

  it('goes through the same translation for form fields, API field errors and error toasts', async () => {
    await inLanguage('pt', () => {
      expect(form.fieldError({ message: MSG.required })).toBe('Obrigatório');
      const set: { name: string; message: string }[] = [];
      const err = new http.ApiError(400, { error: 'ERR_VALIDATION', message: MSG.required, fields: [{ field: 'color', message: MSG.required }] });
      expect(errors.applyFieldErrors(err, ((name: string, e: { message: string }) => set.push({ name, message: e.message })) as never, ['color'])).toBe(true);
      expect(set).toEqual([{ name: 'color', message: 'Obrigatório' }]);
      expect(errors.errorText(err)).toBe('Obrigatório');
      expect(errors.errorText(new http.ApiError(400, { error: 'ERR_VALIDATION', message: 'number: Too Short!' }))).toBe('Número: Muito curto!');
    });
  });
});
