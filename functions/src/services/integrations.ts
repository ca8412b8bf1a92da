import {
  AppError,
  INTEGRATIONS_PAGE,
  MSG,
  companyEvent,
  integrationListQuerySchema,
  maskKey,
  maskServiceAccount,
  parseOrThrow,
  promptSchema,
  promptUpdateSchema,
  queueIntegrationSchema,
  queueIntegrationUpdateSchema,
  type ApiPrompt,
  type ApiQueueIntegration,
  type PlanFlag,
} from '@balcao/shared';
import { clean, getItem, nextId, putItem, queryAll, transact, tx } from '../core/db.js';
import { nowIso, secrets } from '../core/ports.js';
import { secretContext } from '../core/secrets.js';
import { publish } from '../core/realtime.js';
import { loadCompanyAndPlan, type Identity } from '../core/identity.js';
import { connectionPrefix, fold, integrationKey, integrationPrefix, integrationsPartition, keys, promptKey, promptPrefix, promptsPartition } from '../table/keys.js';
import type { ConnectionItem, PromptItem, QueueIntegrationItem, QueueItem } from '../table/items.js';

/**
 * Queue integrations and AI prompts (issue 19 §1): their routes' rules. Secrets are sealed before
 * they are stored (core/secrets.ts) and answered only as masks; a write that sends a mask back
 * unchanged keeps the stored secret. Runtimes read them through `openIntegration`/`openPrompt`.
 */

const integrationNotFound = () => new AppError(404, 'ERR_NOT_FOUND');
const promptNotFound = () => new AppError(404, 'ERR_NOT_FOUND');
const changedMeanwhile = () => new AppError(409, 'ERR_VALIDATION', { message: 'O registro mudou ao mesmo tempo; tente de novo' });

const integrationDefaults = { typebotExpires: 1, typebotDelayMessage: 1000 };
const jsonContext = (i: { companyId: number; id: number }) => secretContext(i.companyId, 'integration', i.id, 'jsonContent');
const promptContext = (p: { companyId: number; id: number }, field: 'apiKey' | 'voiceKey') => secretContext(p.companyId, 'prompt', p.id, field);

export function toApiIntegration(i: QueueIntegrationItem): ApiQueueIntegration {
  const { jsonContentSealed: _sealed, jsonContentMask, ...rest } = clean(i);
  return { ...rest, jsonContent: jsonContentMask };
}

export async function toApiPrompt(p: PromptItem, queue?: QueueItem): Promise<ApiPrompt> {
  const q = queue ?? (await getItem<QueueItem>(keys.queue(p.companyId, p.queueId)));
  const { apiKeySealed: _a, apiKeyMask, voiceKeySealed: _v, voiceKeyMask, ...rest } = clean(p);
  return { ...rest, apiKey: apiKeyMask, voiceKey: voiceKeyMask, queue: q ? { id: q.id, name: q.name, color: q.color } : null };
}

// ------------------------------------------------------------------ integrations

const allIntegrations = (companyId: number) => queryAll<QueueIntegrationItem>(integrationsPartition(companyId), integrationPrefix());

export async function getIntegrationItem(companyId: number, id: number): Promise<QueueIntegrationItem> {
  const item = await getItem<QueueIntegrationItem>(integrationKey(companyId, id));
  if (!item) throw integrationNotFound();
  return item;
}

/** `GET /queueIntegration`: by name, pages of 20, narrowed by a name fragment (accents and case ignored). */
export async function listIntegrations(identity: Identity, query: Record<string, string | undefined>) {
  const q = parseOrThrow(integrationListQuerySchema, query);
  const term = fold(q.searchParam ?? '');
  const pageNumber = q.pageNumber ?? 1;
  const list = (await allIntegrations(identity.companyId))
    .filter((i) => !term || fold(i.name).includes(term) || fold(i.type).includes(term))
    .sort((a, b) => fold(a.name).localeCompare(fold(b.name)) || a.id - b.id);
  const page = list.slice((pageNumber - 1) * INTEGRATIONS_PAGE, pageNumber * INTEGRATIONS_PAGE);
  return { queueIntegrations: page.map(toApiIntegration), count: list.length, hasMore: pageNumber * INTEGRATIONS_PAGE < list.length };
}

export const getIntegration = async (identity: Identity, id: number) => toApiIntegration(await getIntegrationItem(identity.companyId, id));

/** The stored service account when the form sent its mask back unchanged. */
async function unmaskJson(input: unknown, current?: QueueIntegrationItem): Promise<unknown> {
  if (!input || typeof input !== 'object' || !current?.jsonContentSealed) return input;
  const body = input as Record<string, unknown>;
  if (body.jsonContent !== current.jsonContentMask) return input;
  return { ...body, jsonContent: await secrets().open(current.jsonContentSealed, jsonContext(current)) };
}

async function integrationItem(companyId: number, id: number, data: ReturnType<typeof queueIntegrationSchema.parse>, createdAt: string): Promise<QueueIntegrationItem> {
  const json = data.type === 'dialogflow' ? (data.jsonContent ?? null) : null;
  return {
    ...integrationKey(companyId, id),
    entity: 'queueIntegration',
    id,
    companyId,
    type: data.type,
    name: data.name,
    // n8n, webhook and typebot are known by the integration's name (spec 003 §5).
    projectName: data.type === 'dialogflow' ? (data.projectName ?? null) : data.name,
    jsonContentSealed: json ? await secrets().seal(json, jsonContext({ companyId, id })) : null,
    jsonContentMask: json ? maskServiceAccount(json) : null,
    language: data.language ?? null,
    urlN8N: data.type === 'dialogflow' ? null : (data.urlN8N ?? null),
    typebotSlug: data.typebotSlug ?? null,
    typebotExpires: data.typebotExpires ?? integrationDefaults.typebotExpires,
    typebotDelayMessage: data.typebotDelayMessage ?? integrationDefaults.typebotDelayMessage,
    typebotKeywordFinish: data.typebotKeywordFinish ?? null,
    typebotKeywordRestart: data.typebotKeywordRestart ?? null,
    typebotRestartMessage: data.typebotRestartMessage ?? null,
    typebotUnknownMessage: data.typebotUnknownMessage ?? null,
    createdAt,
    updatedAt: nowIso(),
  };
}

async function announceIntegration(companyId: number, data: { action: 'create' | 'update'; queueIntegration: ApiQueueIntegration } | { action: 'delete'; integrationId: number }) {
  // Admins configure them: only they are told (the page and the queue dialog are theirs).
  await publish({ companyId, event: companyEvent(companyId, 'queueIntegration'), data, audience: [{ kind: 'admins' }] });
}

export async function createIntegration(identity: Identity, input: unknown): Promise<ApiQueueIntegration> {
  const data = parseOrThrow(queueIntegrationSchema, input);
  const id = await nextId(identity.companyId, 'queueIntegration');
  const item = await integrationItem(identity.companyId, id, data, nowIso());
  await putItem(item, 'attribute_not_exists(PK)');
  const api = toApiIntegration(item);
  await announceIntegration(identity.companyId, { action: 'create', queueIntegration: api });
  return api;
}

export async function updateIntegration(identity: Identity, id: number, input: unknown): Promise<ApiQueueIntegration> {
  const current = await getIntegrationItem(identity.companyId, id);
  const changes = parseOrThrow(queueIntegrationUpdateSchema, await unmaskJson(input, current));
  const stored = { ...toApiIntegration(current), jsonContent: current.jsonContentSealed ? await secrets().open(current.jsonContentSealed, jsonContext(current)) : null };
  // Checked whole: a type change must bring what the new type needs.
  const data = parseOrThrow(queueIntegrationSchema, { ...stored, ...Object.fromEntries(Object.entries(changes).filter(([, v]) => v !== undefined)) });
  const item = await integrationItem(identity.companyId, id, data, current.createdAt);
  try {
    await putItem(item, 'attribute_exists(PK) AND updatedAt = :u', undefined, { ':u': current.updatedAt });
  } catch (err) {
    if ((err as { name?: string }).name === 'ConditionalCheckFailedException') throw changedMeanwhile();
    throw err;
  }
  const api = toApiIntegration(item);
  await announceIntegration(identity.companyId, { action: 'update', queueIntegration: api });
  return api;
}

/** Who uses an integration or a prompt: a connection or a queue of the company. */
async function users(companyId: number, field: 'integrationId' | 'promptId', id: number) {
  const [queues, connections] = await Promise.all([
    queryAll<QueueItem>(keys.companyPartition(companyId), keys.queuePrefix()),
    queryAll<ConnectionItem>(keys.companyPartition(companyId), connectionPrefix()),
  ]);
  return [...queues.filter((q) => q[field] === id).map((q) => q.name), ...connections.filter((c) => c[field] === id).map((c) => c.name)];
}

export async function deleteIntegration(identity: Identity, id: number): Promise<void> {
  await getIntegrationItem(identity.companyId, id);
  const usedBy = await users(identity.companyId, 'integrationId', id);
  if (usedBy.length) throw new AppError(409, 'ERR_INTEGRATION_IN_USE', { details: { usedBy } });
  await transact([tx.delete(integrationKey(identity.companyId, id), 'attribute_exists(PK)')], () => integrationNotFound());
  // Tickets it was running on fall back to an agent at their next message (services/automation.ts).
  await announceIntegration(identity.companyId, { action: 'delete', integrationId: id });
}

/** The integration with its service account opened, for a runtime (undefined: deleted meanwhile). */
export async function openIntegration(companyId: number, id: number): Promise<(QueueIntegrationItem & { jsonContent: string | null }) | undefined> {
  const item = await getItem<QueueIntegrationItem>(integrationKey(companyId, id));
  if (!item) return undefined;
  return { ...item, jsonContent: item.jsonContentSealed ? await secrets().open(item.jsonContentSealed, jsonContext(item)) : null };
}

/** `POST /queueIntegration/testSession`: the service account of the form, or the stored one behind its mask. */
export async function testSessionCredentials(identity: Identity, body: { id?: number | null; jsonContent: string }): Promise<string> {
  if (body.id) {
    const current = await getIntegrationItem(identity.companyId, body.id);
    if (current.jsonContentSealed && body.jsonContent === current.jsonContentMask) return secrets().open(current.jsonContentSealed, jsonContext(current));
  }
  return body.jsonContent;
}

// ------------------------------------------------------------------ prompts

const allPrompts = (companyId: number) => queryAll<PromptItem>(promptsPartition(companyId), promptPrefix());

export async function getPromptItem(companyId: number, id: number): Promise<PromptItem> {
  const item = await getItem<PromptItem>(promptKey(companyId, id));
  if (!item) throw promptNotFound();
  return item;
}

async function checkPromptQueue(companyId: number, queueId: number): Promise<QueueItem> {
  const q = await getItem<QueueItem>(keys.queue(companyId, queueId));
  if (!q) throw new AppError(400, 'ERR_VALIDATION', { message: MSG.promptQueueRequired, fields: [{ field: 'queueId', message: MSG.promptQueueRequired }] });
  return q;
}

/** `GET /prompt`: every prompt of the company (a handful), by name. */
export async function listPrompts(identity: Identity) {
  const [list, queues] = await Promise.all([allPrompts(identity.companyId), queryAll<QueueItem>(keys.companyPartition(identity.companyId), keys.queuePrefix())]);
  const byId = new Map(queues.map((q) => [q.id, q]));
  list.sort((a, b) => fold(a.name).localeCompare(fold(b.name)) || a.id - b.id);
  const prompts = await Promise.all(list.map((p) => toApiPrompt(p, byId.get(p.queueId))));
  return { prompts, count: prompts.length, hasMore: false };
}

export const getPrompt = async (identity: Identity, id: number) => toApiPrompt(await getPromptItem(identity.companyId, id));

async function promptItem(companyId: number, id: number, data: ReturnType<typeof promptSchema.parse>, createdAt: string, current?: PromptItem): Promise<PromptItem> {
  const keep = (secret: string, mask: string | null | undefined, sealed: string | null | undefined) => (mask && sealed && secret === mask ? sealed : undefined);
  const voiceKey = data.voice === 'texto' ? null : (data.voiceKey ?? null);
  const keptApiKey = keep(data.apiKey, current?.apiKeyMask, current?.apiKeySealed);
  const keptVoiceKey = voiceKey ? keep(voiceKey, current?.voiceKeyMask, current?.voiceKeySealed) : undefined;
  // A mask (or a copy of one) is never sealed as if it were a key.
  const refuse = (field: string) => new AppError(400, 'ERR_VALIDATION', { message: MSG.secretRetype, fields: [{ field, message: MSG.secretRetype }] });
  if (!keptApiKey && data.apiKey.includes('…')) throw refuse('apiKey');
  if (voiceKey && !keptVoiceKey && voiceKey.includes('…')) throw refuse('voiceKey');
  // The stored key goes only where it went before: a new address needs the key typed again.
  if (keptApiKey && current && data.baseUrl !== current.baseUrl) throw refuse('apiKey');
  const apiKeySealed = keptApiKey ?? (await secrets().seal(data.apiKey, promptContext({ companyId, id }, 'apiKey')));
  const voiceKeySealed = voiceKey ? (keptVoiceKey ?? (await secrets().seal(voiceKey, promptContext({ companyId, id }, 'voiceKey')))) : null;
  return {
    ...promptKey(companyId, id),
    entity: 'prompt',
    id,
    companyId,
    name: data.name,
    prompt: data.prompt,
    queueId: data.queueId,
    maxTokens: data.maxTokens,
    temperature: data.temperature,
    maxMessages: data.maxMessages,
    apiKeySealed,
    apiKeyMask: apiKeySealed === current?.apiKeySealed ? current.apiKeyMask : maskKey(data.apiKey),
    voice: data.voice,
    voiceKeySealed,
    voiceKeyMask: !voiceKey ? null : voiceKeySealed === current?.voiceKeySealed ? current.voiceKeyMask : maskKey(voiceKey),
    voiceRegion: data.voice === 'texto' ? null : (data.voiceRegion ?? null),
    baseUrl: data.baseUrl,
    createdAt,
    updatedAt: nowIso(),
  };
}

async function announcePrompt(companyId: number, data: { action: 'create' | 'update'; prompt: ApiPrompt } | { action: 'delete'; promptId: number }) {
  await publish({ companyId, event: companyEvent(companyId, 'prompt'), data, audience: [{ kind: 'admins' }] });
}

export async function createPrompt(identity: Identity, input: unknown): Promise<ApiPrompt> {
  const data = parseOrThrow(promptSchema, input);
  const queue = await checkPromptQueue(identity.companyId, data.queueId);
  const id = await nextId(identity.companyId, 'prompt');
  const item = await promptItem(identity.companyId, id, data, nowIso());
  await putItem(item, 'attribute_not_exists(PK)');
  const api = await toApiPrompt(item, queue);
  await announcePrompt(identity.companyId, { action: 'create', prompt: api });
  return api;
}

export async function updatePrompt(identity: Identity, id: number, input: unknown): Promise<ApiPrompt> {
  const current = await getPromptItem(identity.companyId, id);
  const changes = parseOrThrow(promptUpdateSchema, input);
  const merged = {
    name: current.name,
    prompt: current.prompt,
    queueId: current.queueId,
    maxTokens: current.maxTokens,
    temperature: current.temperature,
    maxMessages: current.maxMessages,
    apiKey: current.apiKeyMask,
    voice: current.voice,
    voiceKey: current.voiceKeyMask,
    voiceRegion: current.voiceRegion,
    baseUrl: current.baseUrl,
    ...Object.fromEntries(Object.entries(changes).filter(([, v]) => v !== undefined)),
  };
  const data = parseOrThrow(promptSchema, merged);
  const queue = await checkPromptQueue(identity.companyId, data.queueId);
  const item = await promptItem(identity.companyId, id, data, current.createdAt, current);
  try {
    await putItem(item, 'attribute_exists(PK) AND updatedAt = :u', undefined, { ':u': current.updatedAt });
  } catch (err) {
    if ((err as { name?: string }).name === 'ConditionalCheckFailedException') throw changedMeanwhile();
    throw err;
  }
  const api = await toApiPrompt(item, queue);
  await announcePrompt(identity.companyId, { action: 'update', prompt: api });
  return api;
}

export async function deletePrompt(identity: Identity, id: number): Promise<{ message: string }> {
  await getPromptItem(identity.companyId, id);
  const usedBy = await users(identity.companyId, 'promptId', id);
  if (usedBy.length) throw new AppError(409, 'ERR_PROMPT_IN_USE', { details: { usedBy } });
  await transact([tx.delete(promptKey(identity.companyId, id), 'attribute_exists(PK)')], () => promptNotFound());
  await announcePrompt(identity.companyId, { action: 'delete', promptId: id });
  return { message: 'Prompt deletado com sucesso!' };
}

/** The prompt with its keys opened, for the AI runtime (undefined: deleted meanwhile). */
export async function openPrompt(companyId: number, id: number): Promise<(PromptItem & { apiKey: string; voiceKey: string | null }) | undefined> {
  const item = await getItem<PromptItem>(promptKey(companyId, id));
  if (!item) return undefined;
  const [apiKey, voiceKey] = await Promise.all([
    secrets().open(item.apiKeySealed, promptContext(item, 'apiKey')),
    item.voiceKeySealed ? secrets().open(item.voiceKeySealed, promptContext(item, 'voiceKey')) : null,
  ]);
  return { ...item, apiKey, voiceKey };
}

// ------------------------------------------------------------------ references from queues and connections

const planFlagOf = { integrationId: 'useIntegrations', promptId: 'useOpenAi' } as const satisfies Record<string, PlanFlag>;

/**
 * A queue's or a connection's `integrationId`/`promptId` must name one of the company's, and its
 * plan must have the feature (a reference would otherwise pretend to run one).
 */
export async function checkAutomationReferences(companyId: number, data: { integrationId?: number | null; promptId?: number | null }) {
  const fail = (field: string, message: string) => new AppError(400, 'ERR_VALIDATION', { message, fields: [{ field, message }] });
  if (!data.integrationId && !data.promptId) return;
  const { plan } = await loadCompanyAndPlan(companyId, true);
  for (const field of ['integrationId', 'promptId'] as const) {
    const id = data[field];
    if (!id) continue;
    if (!plan?.[planFlagOf[field]]) throw fail(field, 'ERR_PLAN_FEATURE_DISABLED');
    const exists = field === 'integrationId' ? await getItem(integrationKey(companyId, id)) : await getItem(promptKey(companyId, id));
    if (!exists) throw fail(field, 'ERR_NOT_FOUND');
  }
}
