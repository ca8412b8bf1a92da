import { z } from 'zod';
import { MSG, boundedName, optionalId, requiredString } from '../validation.js';

/**
 * Queue integrations (spec 003 §4, server-behaviour §9) and AI prompts (spec 002 §4): the forms'
 * fields, defaults and validations, shared by the console's dialogs and the API.
 */
export const INTEGRATION_TYPES = ['dialogflow', 'n8n', 'webhook', 'typebot'] as const;
export type IntegrationType = (typeof INTEGRATION_TYPES)[number];
export const DIALOGFLOW_LANGUAGES = ['pt-BR', 'en', 'es'] as const;
export const INTEGRATIONS_PAGE = 20;

/** Azure's Brazilian Portuguese neural voices (spec 002: "text or one of sixteen"). */
export const PT_BR_VOICES = [
  'pt-BR-FranciscaNeural',
  'pt-BR-AntonioNeural',
  'pt-BR-BrendaNeural',
  'pt-BR-DonatoNeural',
  'pt-BR-ElzaNeural',
  'pt-BR-FabioNeural',
  'pt-BR-GiovannaNeural',
  'pt-BR-HumbertoNeural',
  'pt-BR-JulioNeural',
  'pt-BR-LeilaNeural',
  'pt-BR-LeticiaNeural',
  'pt-BR-ManuelaNeural',
  'pt-BR-NicolauNeural',
  'pt-BR-ThalitaNeural',
  'pt-BR-ValerioNeural',
  'pt-BR-YaraNeural',
] as const;
export const PROMPT_VOICES = ['texto', ...PT_BR_VOICES] as const;
export type PromptVoice = (typeof PROMPT_VOICES)[number];
export const DEFAULT_AI_BASE_URL = 'https://api.openai.com/v1';

/** The phrase a model begins its answer with to hand the customer to a human (server-behaviour §9). */
export const AI_TRANSFER_PHRASE = 'Ação: Transferir para o setor de atendimento';

const trimmed = (v: unknown) => (typeof v === 'string' ? v.trim() : v);
const blankToNull = (v: unknown) => (typeof v === 'string' ? v.trim() || null : v === undefined ? undefined : v);
const optionalText = (max: number) => z.preprocess(blankToNull, z.string().max(max, { error: MSG.tooLong }).nullable().optional());

/** An http(s) URL (an outside service's address). */
export const isHttpUrl = (v: string) => {
  try {
    const u = new URL(v);
    // Credentials in the address would be shown back whole: keys go in their own (sealed) fields.
    return (u.protocol === 'http:' || u.protocol === 'https:') && !!u.hostname && !u.username && !u.password;
  } catch {
    return false;
  }
};
const httpUrl = () => z.string().max(2_000, { error: MSG.tooLong }).refine(isHttpUrl, { error: MSG.invalidUrl });

/** A Google service account's key file, as Dialogflow needs it (the fields the token request reads). */
export interface ServiceAccount {
  type: 'service_account';
  project_id: string;
  private_key: string;
  client_email: string;
  token_uri?: string;
  private_key_id?: string;
}
export function parseServiceAccount(text: string): ServiceAccount | undefined {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (!v || typeof v !== 'object') return undefined;
  const o = v as Record<string, unknown>;
  const str = (k: string) => typeof o[k] === 'string' && (o[k] as string).trim() !== '';
  if (o.type !== 'service_account' || !str('project_id') || !str('client_email') || !str('private_key')) return undefined;
  if (!/-----BEGIN (RSA )?PRIVATE KEY-----/.test(o.private_key as string)) return undefined;
  if (o.token_uri !== undefined && (typeof o.token_uri !== 'string' || !isHttpUrl(o.token_uri))) return undefined;
  return o as unknown as ServiceAccount;
}

const integrationFields = {
  type: z.enum(INTEGRATION_TYPES, { error: MSG.invalidValue }),
  name: boundedName(2, 50),
  projectName: optionalText(100),
  jsonContent: optionalText(20_000),
  language: z.preprocess(blankToNull, z.enum(DIALOGFLOW_LANGUAGES, { error: MSG.invalidValue }).nullable().optional()),
  urlN8N: z.preprocess(blankToNull, httpUrl().nullable().optional()),
  typebotSlug: optionalText(200),
  /** Minutes a Typebot session may stay idle before the next message restarts it (0: never). */
  typebotExpires: z.preprocess((v) => (v === '' || v === null ? undefined : v), z.coerce.number({ error: MSG.invalidValue }).int({ error: MSG.invalidValue }).min(0, { error: MSG.invalidValue }).max(10_080, { error: MSG.invalidValue }).optional()),
  /** Milliseconds between two of the bot's messages (at most 10 s: an answer's parts must fit one worker run). */
  typebotDelayMessage: z.preprocess((v) => (v === '' || v === null ? undefined : v), z.coerce.number({ error: MSG.invalidValue }).int({ error: MSG.invalidValue }).min(0, { error: MSG.invalidValue }).max(10_000, { error: MSG.invalidValue }).optional()),
  typebotKeywordFinish: optionalText(100),
  typebotKeywordRestart: optionalText(100),
  typebotRestartMessage: optionalText(4_096),
  typebotUnknownMessage: optionalText(4_096),
};

/** The per-type rules of spec 003 §5 on a complete integration (create, or an update merged with what is stored). */
function integrationRules(v: { type: IntegrationType; language?: string | null; urlN8N?: string | null; typebotSlug?: string | null; jsonContent?: string | null }, ctx: z.RefinementCtx) {
  const need = (field: string) => ctx.addIssue({ code: 'custom', path: [field], message: MSG.required });
  if (v.type === 'dialogflow') {
    if (!v.language) need('language');
    if (!v.jsonContent) need('jsonContent');
    else if (!parseServiceAccount(v.jsonContent)) ctx.addIssue({ code: 'custom', path: ['jsonContent'], message: MSG.serviceAccountInvalid });
  }
  if ((v.type === 'n8n' || v.type === 'webhook' || v.type === 'typebot') && !v.urlN8N) need('urlN8N');
  if (v.type === 'typebot' && !v.typebotSlug) need('typebotSlug');
}

export const queueIntegrationSchema = z
  .object({ ...integrationFields, type: integrationFields.type.default('typebot') })
  .superRefine(integrationRules);
export type QueueIntegrationInput = z.infer<typeof queueIntegrationSchema>;
/** An update is merged over the stored integration, then checked whole with `queueIntegrationSchema`. */
export const queueIntegrationUpdateSchema = z.object(integrationFields).partial();

export const integrationListQuerySchema = z.object({
  searchParam: z.preprocess(trimmed, z.string().max(100, { error: MSG.tooLong }).optional()),
  pageNumber: z.coerce.number({ error: MSG.invalidValue }).int({ error: MSG.invalidValue }).min(1, { error: MSG.invalidValue }).optional(),
});

/** `POST /queueIntegration/testSession`: one detectIntent (`id`: use that integration's stored key when `jsonContent` is its mask). */
export const integrationTestSchema = z.object({
  id: optionalId().optional(),
  projectName: optionalText(100),
  jsonContent: requiredString(),
  language: z.enum(DIALOGFLOW_LANGUAGES, { error: MSG.required }),
});

/** A number typed in a form: text or number; empty, null and booleans are not numbers (coercion would make them 0 or 1). */
const formNumber = () => z.preprocess((v) => (v === '' || v === null || typeof v === 'boolean' || (typeof v === 'string' && !v.trim()) ? Number.NaN : v), z.coerce.number({ error: MSG.invalidValue }));

const promptFields = {
  name: boundedName(1, 100),
  prompt: z.preprocess(trimmed, z.string({ error: MSG.required }).min(1, { error: MSG.required }).max(20_000, { error: MSG.tooLong })),
  queueId: z.preprocess((v) => (v === '' || v === null || v === undefined ? undefined : v), z.coerce.number({ error: MSG.promptQueueRequired }).int({ error: MSG.promptQueueRequired }).positive({ error: MSG.promptQueueRequired })),
  maxTokens: formNumber().pipe(z.number().int({ error: MSG.invalidValue }).min(1, { error: MSG.invalidValue }).max(32_000, { error: MSG.invalidValue })),
  temperature: formNumber().pipe(z.number().min(0, { error: MSG.invalidValue }).max(2, { error: MSG.invalidValue })),
  maxMessages: formNumber().pipe(z.number().int({ error: MSG.invalidValue }).min(1, { error: MSG.invalidValue }).max(50, { error: MSG.invalidValue })),
  apiKey: z.preprocess(trimmed, z.string({ error: MSG.required }).min(1, { error: MSG.required }).max(500, { error: MSG.tooLong })),
  voice: z.enum(PROMPT_VOICES, { error: MSG.invalidValue }),
  voiceKey: optionalText(500),
  voiceRegion: z.preprocess(blankToNull, z.string().regex(/^[a-z0-9-]{2,40}$/, { error: MSG.invalidValue }).nullable().optional()),
  baseUrl: z.preprocess((v) => (typeof v === 'string' ? v.trim().replace(/\/+$/, '') : v), httpUrl()),
};

function promptRules(v: { voice: PromptVoice; voiceKey?: string | null; voiceRegion?: string | null }, ctx: z.RefinementCtx) {
  if (v.voice === 'texto') return;
  if (!v.voiceKey) ctx.addIssue({ code: 'custom', path: ['voiceKey'], message: MSG.required });
  if (!v.voiceRegion) ctx.addIssue({ code: 'custom', path: ['voiceRegion'], message: MSG.required });
}

export const promptSchema = z
  .object({
    ...promptFields,
    maxTokens: promptFields.maxTokens.default(100),
    temperature: promptFields.temperature.default(1),
    maxMessages: promptFields.maxMessages.default(10),
    voice: promptFields.voice.default('texto'),
    baseUrl: promptFields.baseUrl.default(DEFAULT_AI_BASE_URL),
  })
  .superRefine(promptRules);
export type PromptInput = z.infer<typeof promptSchema>;
export const promptUpdateSchema = z.object(promptFields).partial();

/**
 * How a secret is shown once stored: its first three and last four characters (`sk-…a1b2`). A form
 * that sends the mask back unchanged keeps the stored secret.
 */
export function maskKey(secret: string): string {
  // Short keys show less: never more than a fifth of a key.
  if (secret.length >= 35) return `${secret.slice(0, 3)}…${secret.slice(-4)}`;
  if (secret.length >= 20) return `…${secret.slice(-4)}`;
  return '…';
}
/** A service account shown with its private key hidden (project and e-mail stay readable). */
export function maskServiceAccount(text: string): string {
  const sa = parseServiceAccount(text);
  if (!sa) return '…';
  return JSON.stringify({ ...sa, private_key: '…', ...(sa.private_key_id ? { private_key_id: maskKey(sa.private_key_id) } : {}) }, null, 2);
}
