import i18n from 'i18next';
import { initReactI18next } from 'react-i18next';
import { LANGUAGES, MSG, SAME_ATTENDANT, SCHEDULE_INVALID_DATE, SCHEDULE_MEDIA_REFUSED, SCHEDULE_TICKET_OF_OTHER_CONTACT, SELECT_QUEUE, type Language } from '@balcao/shared';
import pt, { type Catalogue } from './pt';

const stored = localStorage.getItem('language');
export const initialLanguage: Language = (LANGUAGES as readonly string[]).includes(stored ?? '')
  ? (stored as Language)
  : 'pt';

// Portuguese is the fallback and ships with the console; the other catalogues are their own chunks,
// fetched only when chosen (each is ~6 KB gzip of the first load otherwise).
const catalogues: Record<Exclude<Language, 'pt'>, () => Promise<{ default: Catalogue }>> = {
  en: () => import('./en'),
  es: () => import('./es'),
};

async function loadCatalogue(lang: Language) {
  if (lang === 'pt' || i18n.hasResourceBundle(lang, 'translation')) return;
  i18n.addResourceBundle(lang, 'translation', (await catalogues[lang]()).default);
}

void i18n.use(initReactI18next).init({
  resources: { pt: { translation: pt } },
  lng: initialLanguage,
  fallbackLng: 'pt',
  interpolation: { escapeValue: false },
  returnNull: false,
});
document.documentElement.lang = initialLanguage;

/** Resolves once the stored language's catalogue is in: main.tsx renders after it (no Portuguese flash). */
export const i18nReady: Promise<void> = loadCatalogue(initialLanguage);

export function setLanguage(lang: Language) {
  localStorage.setItem('language', lang);
  document.documentElement.lang = lang;
  // A catalogue that fails to load leaves the fallback (Portuguese) texts showing.
  void loadCatalogue(lang)
    .catch(() => {})
    .then(() => i18n.changeLanguage(lang));
}

// The shared schemas and the API speak the spec's message texts; map them back to catalogue keys.
const MESSAGE_KEYS: Record<string, string> = Object.fromEntries(
  Object.entries(MSG).map(([k, v]) => [v, `validation.${k}`]),
);
MESSAGE_KEYS['Campo obrigatório'] = 'validation.fieldRequired';
// Field messages of the connections service (409 conflicts).
MESSAGE_KEYS['Já existe uma conexão com esse nome'] = 'connections.nameTaken';
MESSAGE_KEYS['Número inválido'] = 'connections.invalidNumber';
// The reset's refusal of a wrong or expired code (functions/src/core/cognito.ts).
MESSAGE_KEYS['Código inválido ou expirado'] = 'forgot.invalidCode';
// Schedule dialog messages (shared/src/schemas/schedules.ts).
MESSAGE_KEYS[SCHEDULE_INVALID_DATE] = 'schedules.invalidDate';
MESSAGE_KEYS[SCHEDULE_MEDIA_REFUSED] = 'schedules.mediaRefused';
MESSAGE_KEYS[SCHEDULE_TICKET_OF_OTHER_CONTACT] = 'schedules.ticketOfOtherContact';
// Refusals of the ticket and contact transfers.
MESSAGE_KEYS[SELECT_QUEUE] = 'tickets.selectQueue';
MESSAGE_KEYS[SAME_ATTENDANT] = 'contacts.sameAttendant';
// The answer of a prompt's delete, shown as an info toast (spec 002 §7).
MESSAGE_KEYS['Prompt deletado com sucesso!'] = 'prompts.deleted';
// Uploads refused by their type or bytes (shared/src/schemas/messages.ts; spelled here: that module loads zod).
MESSAGE_KEYS['Tipo de arquivo não permitido'] = 'validation.fileTypeNotAllowed';
MESSAGE_KEYS['O conteúdo do arquivo não corresponde ao tipo informado'] = 'validation.fileContentMismatch';

/** Labels of the fields the API names before a message ("number: Too Short!", contact import refusals). */
const FIELD_KEYS: Record<string, string> = { name: 'contacts.name', number: 'contacts.number', email: 'contacts.email' };

const messageKey = (message: string) =>
  MESSAGE_KEYS[message] ?? (/^ERR_[A-Z_]+$/.test(message) && i18n.exists(`errors.${message}`) ? `errors.${message}` : undefined);

/**
 * The one way a message of the shared schemas or the API reaches the screen: the spec's texts and
 * error codes become the user's language, also after a field prefix ("number: Too Short!" is
 * "Número: Muito curto!"; "row: …" names no field). Anything else is shown as it came.
 */
export function translateMessage(message: string): string;
export function translateMessage(message: string | undefined): string | undefined;
export function translateMessage(message: string | undefined): string | undefined {
  if (!message) return message;
  const key = messageKey(message);
  if (key) return i18n.t(key);
  const prefixed = /^([A-Za-z][\w.]*): (.+)$/s.exec(message);
  if (!prefixed) return message;
  const [, field, rest] = prefixed;
  const inner = messageKey(rest);
  // An unknown field before an unknown text is likely not a prefix at all: shown as it came.
  const label = field === 'row' ? '' : FIELD_KEYS[field] ? i18n.t(FIELD_KEYS[field]) : inner ? field : undefined;
  if (label === undefined) return message;
  const text = inner ? i18n.t(inner) : rest;
  return label ? `${label}: ${text}` : text;
}

export default i18n;
