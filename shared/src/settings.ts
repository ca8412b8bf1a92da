import { z } from 'zod';
import { DEFAULT_TIME_ZONE } from './variables.js';

/** Company settings keys (spec 000 §7) with the values each may take. */
const enabledDisabled = z.enum(['enabled', 'disabled'], { error: 'Valor inválido' });
export const SETTING_SCHEMAS = {
  userRating: enabledDisabled,
  scheduleType: z.enum(['disabled', 'queue', 'company'], { error: 'Valor inválido' }),
  CheckMsgIsGroup: enabledDisabled,
  call: enabledDisabled,
  chatBotType: z.enum(['text'], { error: 'Valor inválido' }),
  sendGreetingAccepted: enabledDisabled,
  sendMsgTransfTicket: enabledDisabled,
  sendGreetingMessageOneQueues: enabledDisabled,
  contactTagId: z.string().max(20).regex(/^\d*$/, { error: 'Valor inválido' }),
  /** The payment provider credential: write-only, answered masked. */
  asaas: z.string().max(500),
  /** IANA time zone for business hours and greetings (server-behaviour §3, §5). */
  timezone: z.string().max(64).refine(
    (tz) => {
      try {
        new Intl.DateTimeFormat('en', { timeZone: tz });
        return true;
      } catch {
        return false;
      }
    },
    { error: 'Valor inválido' },
  ),
} as const;
export type SettingKey = keyof typeof SETTING_SCHEMAS;
export const SETTING_KEYS = Object.keys(SETTING_SCHEMAS) as SettingKey[];
export const SECRET_SETTING_KEYS: readonly SettingKey[] = ['asaas'];

/** Defaults for a new company (server-behaviour §13). */
export const DEFAULT_SETTINGS: Record<SettingKey, string> = {
  userRating: 'disabled',
  scheduleType: 'disabled',
  CheckMsgIsGroup: 'enabled',
  call: 'disabled',
  chatBotType: 'text',
  sendGreetingAccepted: 'disabled',
  sendMsgTransfTicket: 'disabled',
  sendGreetingMessageOneQueues: 'disabled',
  contactTagId: '',
  asaas: '',
  timezone: DEFAULT_TIME_ZONE,
};

export const isSettingKey = (k: string): k is SettingKey => Object.prototype.hasOwnProperty.call(SETTING_SCHEMAS, k);

export const maskSecret = (v: string) => (v ? `${'•'.repeat(8)}${v.slice(-4)}` : '');
