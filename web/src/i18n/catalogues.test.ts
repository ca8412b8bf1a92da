import { describe, expect, it } from 'vitest';
import en from './en';
import es from './es';
import pt from './pt';

/** Every leaf of a catalogue as `a.b.c` → text. */
function leaves(node: object, prefix = ''): Map<string, unknown> {
  const out = new Map<string, unknown>();
  for (const [k, v] of Object.entries(node)) {
    if (v && typeof v === 'object') for (const [kk, vv] of leaves(v, `${prefix}${k}.`)) out.set(kk, vv);
    else out.set(`${prefix}${k}`, v);
  }
  return out;
}

/** The interpolation variables of a text (`{{count}}`, `{{ name, format }}`), sorted. */
const variables = (text: string) => [...new Set([...text.matchAll(/\{\{\s*([\w.]+)[^}]*\}\}/g)].map((m) => m[1]))].sort();

/**
 * Texts the Portuguese console rightly writes as the English one does. Anything else equal in both
 * is English left in the Portuguese catalogue.
 */
const SAME_IN_PORTUGUESE = new Set([
  // Proper nouns: the product, WhatsApp, OpenAI as the spec writes it, the API; each language's
  // name is written in that language in every catalogue.
  'Balcão',
  'WhatsApp',
  'Open.Ai',
  'Prompt (Open.Ai)',
  'API',
  // The queue integrations' products as they name themselves (spec 003: DialogFlow, N8N, WebHooks,
  // Typebot), and the AI's prompt and the OK of the spec's dialogs, as Portuguese writes them too.
  'DialogFlow',
  'N8N',
  'WebHooks',
  'Typebot',
  'Prompt',
  'OK',
  'Português',
  'English',
  'Español',
  // Words Brazilian Portuguese uses as they are, and so does the spec's Portuguese ('Email ou senha
  // incorreta!', 'Email não encontrado') and the rest of this catalogue ('Tags do contato').
  'Email',
  'Tags',
  'Tag',
  'Ticket',
  'Status',
  'Dashboard',
  'Kanban',
  'Online',
  'Offline',
  'Admin',
  'ID',
  'QR CODE',
  'Emojis',
  // The queue bot's label on its messages, and the Brazilian documents a FORM field may ask for.
  'Bot',
  'CPF/CNPJ',
  // Portuguese words spelled as the English ones.
  'Volume',
  'Agenda',
]);

const catalogues = { pt: leaves(pt), en: leaves(en), es: leaves(es) };

describe('catalogues', () => {
  it('have the same keys', () => {
    const keys = [...catalogues.pt.keys()].sort();
    expect([...catalogues.en.keys()].sort()).toEqual(keys);
    expect([...catalogues.es.keys()].sort()).toEqual(keys);
  });

  it('give every key a non-empty text with the same interpolation variables in each language', () => {
    const wrong: string[] = [];
    for (const [key, text] of catalogues.pt) {
      for (const [lang, other] of Object.entries(catalogues)) {
        const value = other.get(key);
        if (typeof value !== 'string' || !value.trim()) wrong.push(`${lang} ${key}: empty`);
        else if (typeof text === 'string' && variables(value).join() !== variables(text).join())
          wrong.push(`${lang} ${key}: {${variables(value).join()}} but pt has {${variables(text).join()}}`);
      }
    }
    expect(wrong).toEqual([]);
  });

  it('leave no English text in the Portuguese catalogue', () => {
    const untranslated = [...catalogues.pt]
      .filter(([key, text]) => text === catalogues.en.get(key) && !SAME_IN_PORTUGUESE.has(String(text)))
      .map(([key, text]) => `${key}: ${String(text)}`);
    expect(untranslated).toEqual([]);
  });
});
