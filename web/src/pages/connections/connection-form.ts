import type { Connection } from '@balcao/shared';

export interface Values {
  name: string;
  provider: string;
  isDefault: boolean;
  greetingMessage: string;
  complationMessage: string;
  outOfHoursMessage: string;
  ratingMessage: string;
  expiresInactiveMessage: string;
  generateToken: boolean;
  queueIds: number[];
  transferQueueId: string;
  timeToTransfer: string;
  expiresTicket: string;
  timeUseBotQueues: string;
  maxUseBotQueues: string;
  promptId: string;
  integrationId: string;
}

/** What the resolver hands over: the shared schema's parsed output. */
interface Parsed {
  name: string;
  provider?: Connection['provider'];
  isDefault?: boolean;
  greetingMessage?: string;
  complationMessage?: string;
  outOfHoursMessage?: string;
  ratingMessage?: string;
  expiresInactiveMessage?: string;
  generateToken?: boolean;
  queueIds?: number[];
  transferQueueId?: number | null;
  timeToTransfer?: number;
  expiresTicket?: number;
  timeUseBotQueues?: number;
  maxUseBotQueues?: number;
  promptId?: number | null;
  integrationId?: number | null;
}

const DEFAULT_MAX_USE_BOT_QUEUES = 3; // spec 000 §2.8

const MESSAGES = ['greetingMessage', 'complationMessage', 'outOfHoursMessage', 'ratingMessage', 'expiresInactiveMessage'] as const;

export const EMPTY: Values = {
  name: '',
  provider: 'beta',
  isDefault: false,
  ...(Object.fromEntries(MESSAGES.map((m) => [m, ''])) as Record<(typeof MESSAGES)[number], string>),
  generateToken: false,
  queueIds: [],
  transferQueueId: '',
  timeToTransfer: '',
  expiresTicket: '',
  timeUseBotQueues: '',
  maxUseBotQueues: String(DEFAULT_MAX_USE_BOT_QUEUES),
  promptId: '',
  integrationId: '',
};

const num = (n: number | null | undefined) => (n ? String(n) : '');

export function toValues(c: Connection): Values {
  return {
    name: c.name,
    provider: c.provider,
    isDefault: c.isDefault,
    ...(Object.fromEntries(MESSAGES.map((m) => [m, c[m] ?? ''])) as Record<(typeof MESSAGES)[number], string>),
    generateToken: false,
    queueIds: c.queueIds ?? c.queues?.map((q) => q.id) ?? [],
    transferQueueId: num(c.transferQueueId),
    timeToTransfer: num(c.timeToTransfer),
    expiresTicket: num(c.expiresTicket),
    timeUseBotQueues: num(c.timeUseBotQueues),
    maxUseBotQueues: c.maxUseBotQueues != null ? String(c.maxUseBotQueues) : '',
    promptId: num(c.promptId),
    integrationId: num(c.integrationId),
  };
}

/** The request body; `prompts`/`integrations`: whether those lists are known (else left untouched). */
export function toBody(raw: Values, known: { prompts: boolean; integrations: boolean }) {
  const v = raw as unknown as Parsed;
  const body: Record<string, unknown> = {
    name: v.name.trim(),
    provider: v.provider ?? 'beta',
    isDefault: !!v.isDefault,
    ...Object.fromEntries(MESSAGES.map((m) => [m, v[m] ?? ''])),
    // The server makes the token and answers it once (issue 16 §4).
    generateToken: !!v.generateToken,
    queueIds: v.queueIds ?? [],
    transferQueueId: v.transferQueueId ?? null,
    // An emptied minutes field means "off" (0); an emptied maximum falls back to the default.
    timeToTransfer: v.timeToTransfer ?? 0,
    expiresTicket: v.expiresTicket ?? 0,
    timeUseBotQueues: v.timeUseBotQueues ?? 0,
    maxUseBotQueues: v.maxUseBotQueues ?? DEFAULT_MAX_USE_BOT_QUEUES,
  };
  if (known.prompts) body.promptId = v.promptId ?? null;
  if (known.integrations) body.integrationId = v.integrationId ?? null;
  return body;
}

