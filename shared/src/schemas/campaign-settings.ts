import { z } from 'zod';
import { MSG } from '../messages.js';

/**
 * Campaign settings (spec 002 §2, §3, §5, §9; issue 20 §3): the company's dispatch pacing and its
 * custom message variables. The API speaks the spec's shape, a list of `{key, value}` whose values
 * are JSON-encoded (`GET /campaign-settings`); `POST /campaign-settings` takes the settings object.
 */

/** Seconds between two messages (0: none). Spec 002 §9. */
export const CAMPAIGN_MESSAGE_INTERVALS = [0, 5, 10, 15, 20] as const;
/** Messages after which the longer pause comes (0: not defined). Spec 002 §9. */
export const CAMPAIGN_LONGER_INTERVAL_AFTER = [0, 1, 5, 10, 15, 20, 30, 40, 60, 80, 100, 120] as const;
/** Seconds of the longer pause (0: none): the same list. Spec 002 §9. */
export const CAMPAIGN_GREATER_INTERVALS = CAMPAIGN_LONGER_INTERVAL_AFTER;
export const CAMPAIGN_VARIABLES_MAX = 50;
export const CAMPAIGN_VARIABLE_KEY_MAX = 30;
export const CAMPAIGN_VARIABLE_VALUE_MAX = 1000;
/** A shortcut: letters, digits and underscores (it is written `{key}` in a message). */
export const CAMPAIGN_VARIABLE_KEY = /^[A-Za-z0-9_]+$/;
/** The variables every campaign message has (server-behaviour §10): no custom one may take their name. */
export const CAMPAIGN_BUILTIN_VARIABLES = ['nome', 'numero', 'email'] as const;

export interface CampaignVariable {
  key: string;
  value: string;
}

export interface CampaignSettings {
  messageInterval: number;
  longerIntervalAfter: number;
  greaterInterval: number;
  variables: CampaignVariable[];
}

export type CampaignSettingKey = keyof CampaignSettings;
export const CAMPAIGN_SETTING_KEYS: readonly CampaignSettingKey[] = ['messageInterval', 'longerIntervalAfter', 'greaterInterval', 'variables'];

/** Spec 002 §9: 20 s between messages, a 60 s pause after every 20 messages, no variables. */
export const CAMPAIGN_SETTINGS_DEFAULTS: Readonly<CampaignSettings> = Object.freeze({ messageInterval: 20, longerIntervalAfter: 20, greaterInterval: 60, variables: [] });

/** One entry of `GET /campaign-settings`: the value is JSON (`"20"`, `"[{\"key\":…}]"`). */
export interface CampaignSettingEntry {
  key: CampaignSettingKey;
  value: string;
}

/** Variable keys compare without case: `{Cupom}` and `{cupom}` would read as the same word. */
export const variableKeyOf = (key: string) => key.trim().toLowerCase();

const oneOf = (allowed: readonly number[]) =>
  z.preprocess(
    (v) => (typeof v === 'string' && v.trim() !== '' ? Number(v) : v),
    z.number({ error: MSG.invalidValue }).refine((n) => allowed.includes(n), { error: MSG.invalidValue }),
  );

export const campaignVariableSchema = z.object({
  key: z.preprocess(
    (v) => (typeof v === 'string' ? v.trim() : v),
    z
      .string({ error: MSG.required })
      .min(1, { error: MSG.required })
      .max(CAMPAIGN_VARIABLE_KEY_MAX, { error: MSG.tooLong })
      .regex(CAMPAIGN_VARIABLE_KEY, { error: MSG.variableKeyInvalid })
      .refine((k) => !(CAMPAIGN_BUILTIN_VARIABLES as readonly string[]).includes(variableKeyOf(k)), { error: MSG.variableReserved }),
  ),
  value: z
    .string({ error: MSG.required })
    .max(CAMPAIGN_VARIABLE_VALUE_MAX, { error: MSG.tooLong })
    .refine((s) => s.trim().length > 0, { error: MSG.required }),
});

/** Whether `key` is already one of `variables` (the console's add and the server's check agree). */
export const hasVariable = (variables: readonly CampaignVariable[], key: string) => variables.some((v) => variableKeyOf(v.key) === variableKeyOf(key));

/**
 * `POST /campaign-settings`: the settings object. Fields left out keep their saved values;
 * `variables`, when sent, is the whole list (a shortcut at most once, case aside: 400 otherwise).
 */
export const campaignSettingsSchema = z.object({
  messageInterval: oneOf(CAMPAIGN_MESSAGE_INTERVALS).optional(),
  longerIntervalAfter: oneOf(CAMPAIGN_LONGER_INTERVAL_AFTER).optional(),
  greaterInterval: oneOf(CAMPAIGN_GREATER_INTERVALS).optional(),
  variables: z
    .array(campaignVariableSchema, { error: MSG.invalidValue })
    .max(CAMPAIGN_VARIABLES_MAX, { error: MSG.tooManyVariables })
    .superRefine((list, ctx) => {
      list.forEach((v, i) => {
        if (hasVariable(list.slice(0, i), v.key)) ctx.addIssue({ code: 'custom', path: [i, 'key'], message: MSG.variableTaken });
      });
    })
    .optional(),
});
export type CampaignSettingsInput = z.output<typeof campaignSettingsSchema>;

/** The settings as the spec's key/value list, each value JSON-encoded. */
export const campaignSettingEntries = (s: CampaignSettings): CampaignSettingEntry[] =>
  CAMPAIGN_SETTING_KEYS.map((key) => ({ key, value: JSON.stringify(s[key]) }));

/**
 * The settings from the key/value list (the console reads `GET /campaign-settings` so): a missing,
 * unreadable or out-of-list value is its default.
 */
export function campaignSettingsFrom(entries: readonly { key: string; value: unknown }[]): CampaignSettings {
  const read = (key: CampaignSettingKey): unknown => {
    const raw = entries.find((e) => e.key === key)?.value;
    if (typeof raw !== 'string') return raw;
    try {
      return JSON.parse(raw);
    } catch {
      return undefined;
    }
  };
  const number = (key: 'messageInterval' | 'longerIntervalAfter' | 'greaterInterval', allowed: readonly number[]) => {
    const v = read(key);
    return typeof v === 'number' && allowed.includes(v) ? v : CAMPAIGN_SETTINGS_DEFAULTS[key];
  };
  const variables = read('variables');
  return {
    messageInterval: number('messageInterval', CAMPAIGN_MESSAGE_INTERVALS),
    longerIntervalAfter: number('longerIntervalAfter', CAMPAIGN_LONGER_INTERVAL_AFTER),
    greaterInterval: number('greaterInterval', CAMPAIGN_GREATER_INTERVALS),
    variables: Array.isArray(variables)
      ? variables.filter((v): v is CampaignVariable => !!v && typeof v.key === 'string' && typeof v.value === 'string').map((v) => ({ key: v.key, value: v.value }))
      : [],
  };
}
