import i18n from 'i18next';
import { initReactI18next } from 'react-i18next';
import { LANGUAGES, MSG, SCHEDULE_INVALID_DATE, SCHEDULE_MEDIA_REFUSED, type Language } from '@balcao/shared';
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
MESSAGE_KEYS['Esse token já está em uso'] = 'connections.tokenTaken';
MESSAGE_KEYS['Número inválido'] = 'connections.invalidNumber';
// Schedule dialog messages (shared/src/schemas/schedules.ts).
MESSAGE_KEYS[SCHEDULE_INVALID_DATE] = 'schedules.invalidDate';
MESSAGE_KEYS[SCHEDULE_MEDIA_REFUSED] = 'schedules.mediaRefused';

export function translateMessage(message: string | undefined): string | undefined {
  if (!message) return message;
  const key = MESSAGE_KEYS[message] ?? (/^ERR_[A-Z_]+$/.test(message) && i18n.exists(`errors.${message}`) ? `errors.${message}` : undefined);
  return key ? i18n.t(key) : message;
}

export default i18n;
