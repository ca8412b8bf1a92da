import i18n from 'i18next';
import { initReactI18next } from 'react-i18next';
import { LANGUAGES, MSG, SCHEDULE_INVALID_DATE, SCHEDULE_MEDIA_REFUSED, type Language } from '@balcao/shared';
import pt from './pt';
import en from './en';
import es from './es';

const stored = localStorage.getItem('language');
export const initialLanguage: Language = (LANGUAGES as readonly string[]).includes(stored ?? '')
  ? (stored as Language)
  : 'pt';

void i18n.use(initReactI18next).init({
  resources: { pt: { translation: pt }, en: { translation: en }, es: { translation: es } },
  lng: initialLanguage,
  fallbackLng: 'pt',
  interpolation: { escapeValue: false },
  returnNull: false,
});
document.documentElement.lang = initialLanguage;

export function setLanguage(lang: Language) {
  localStorage.setItem('language', lang);
  document.documentElement.lang = lang;
  void i18n.changeLanguage(lang);
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
