import { createHash, createPrivateKey } from 'node:crypto';
import { SignJWT } from 'jose';
import { AppError, integrationTestSchema, MSG, parseOrThrow, parseServiceAccount, type ServiceAccount } from '@balcao/shared';
import { env } from '../../core/env.js';
import type { Identity } from '../../core/identity.js';
import { testSessionCredentials } from '../integrations.js';
import { callOutside, jsonOf, OutsideError } from './outside.js';

/**
 * Dialogflow ES (server-behaviour §9): a service account's key signs a JWT (RS256) that Google's
 * token endpoint exchanges for an access token (kept until shortly before it expires), then
 * `detectIntent` in a session per ticket. Fulfilment texts are sent; an intent that ends the
 * interaction hands the ticket to its queue.
 */

const SCOPE = 'https://www.googleapis.com/auth/dialogflow';
const tokens = new Map<string, { token: string; until: number }>();

async function accessToken(sa: ServiceAccount, timeoutMs?: number): Promise<string> {
  // Google's endpoint, never the key file's `token_uri` (a tenant's text could point anywhere).
  const tokenUri = env.googleTokenUrl;
  // Only the holder of the private key gets its token back (the e-mail and key id are not secret).
  const cacheKey = createHash('sha256').update(`${sa.client_email}\n${sa.private_key}\n${tokenUri}`).digest('hex');
  const hit = tokens.get(cacheKey);
  if (hit && hit.until > Date.now()) return hit.token;
  let key;
  try {
    key = createPrivateKey(sa.private_key);
  } catch {
    throw new OutsideError('google', 'status', 'the service account private key cannot be read', 400);
  }
  const assertion = await new SignJWT({ scope: SCOPE })
    .setProtectedHeader({ alg: 'RS256', typ: 'JWT', ...(sa.private_key_id ? { kid: sa.private_key_id } : {}) })
    .setIssuer(sa.client_email)
    .setSubject(sa.client_email)
    .setAudience(tokenUri)
    .setIssuedAt()
    .setExpirationTime('1h')
    .sign(key);
  const answer = jsonOf<{ access_token?: string; expires_in?: number }>(
    'google',
    await callOutside('google', tokenUri, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'urn:ietf:params:oauth:grant-type:jwt-bearer', assertion }).toString(),
      timeoutMs,
    }),
  );
  if (!answer.access_token) throw new OutsideError('google', 'garbage', 'the token endpoint answered no access_token');
  const seconds = Number(answer.expires_in) || 3600;
  if (tokens.size > 1000) tokens.clear();
  tokens.set(cacheKey, { token: answer.access_token, until: Date.now() + Math.max(0, seconds - 120) * 1000 });
  return answer.access_token;
}

export interface DialogflowTurn {
  replies: string[];
  intent: string | null;
  /** The intent ends the conversation: the ticket goes to its queue. */
  end: boolean;
}

interface DetectIntentAnswer {
  queryResult?: {
    fulfillmentText?: string;
    fulfillmentMessages?: { text?: { text?: string[] } }[];
    intent?: { displayName?: string; endInteraction?: boolean };
    diagnosticInfo?: { end_conversation?: boolean };
  };
}

export async function detectIntent(input: { jsonContent: string; projectName?: string | null; language: string; sessionId: string; text: string; timeoutMs?: number }): Promise<DialogflowTurn> {
  const sa = parseServiceAccount(input.jsonContent);
  if (!sa) throw new OutsideError('google', 'status', MSG.serviceAccountInvalid, 400);
  const project = input.projectName?.trim() || sa.project_id;
  const token = await accessToken(sa, input.timeoutMs);
  const url = `${env.dialogflowApiUrl.replace(/\/+$/, '')}/v2/projects/${encodeURIComponent(project)}/agent/sessions/${encodeURIComponent(input.sessionId)}:detectIntent`;
  const answer = jsonOf<DetectIntentAnswer>(
    'dialogflow',
    await callOutside('dialogflow', url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      body: JSON.stringify({ queryInput: { text: { text: input.text.slice(0, 256), languageCode: input.language } } }),
      timeoutMs: input.timeoutMs,
    }),
  );
  const r = answer.queryResult ?? {};
  const texts = (r.fulfillmentMessages ?? []).flatMap((m) => m.text?.text ?? []).filter((t) => t.trim());
  const replies = texts.length ? texts : r.fulfillmentText?.trim() ? [r.fulfillmentText] : [];
  return { replies, intent: r.intent?.displayName ?? null, end: !!(r.intent?.endInteraction || r.diagnosticInfo?.end_conversation) };
}

/** Why a test failed, in words an admin can act on (`reason` lets the console say it in the user's language). */
export type TestFailure = 'timeout' | 'credentials' | 'access' | 'notFound' | 'refused' | 'unexpected';
function testFailure(err: unknown): { reason: TestFailure; message: string } {
  if (!(err instanceof OutsideError)) return { reason: 'unexpected', message: 'Falha inesperada ao testar a sessão' };
  if (err.reason === 'timeout') return { reason: 'timeout', message: 'O Dialogflow não respondeu a tempo' };
  if (err.reason === 'blocked') return { reason: 'refused', message: 'O endereço do serviço não é permitido' };
  // What the service answered is not echoed (the Test must not read arbitrary pages back): its status only.
  if (err.service === 'google') return { reason: 'credentials', message: `As credenciais foram recusadas pelo Google${err.status ? ` (HTTP ${err.status})` : ''}` };
  if (err.status === 401 || err.status === 403) return { reason: 'access', message: 'A conta de serviço não tem acesso a este projeto do Dialogflow' };
  if (err.status === 404) return { reason: 'notFound', message: 'Projeto ou agente do Dialogflow não encontrado' };
  return { reason: 'refused', message: `O Dialogflow recusou o teste${err.status ? ` (HTTP ${err.status})` : ''}` };
}

/** `POST /queueIntegration/testSession` (spec 003): one real detectIntent with the form's credentials. */
export async function testDialogflowSession(identity: Identity, body: unknown) {
  const data = parseOrThrow(integrationTestSchema, body);
  const jsonContent = await testSessionCredentials(identity, { id: data.id, jsonContent: data.jsonContent });
  if (!parseServiceAccount(jsonContent)) {
    throw new AppError(400, 'ERR_VALIDATION', { message: MSG.serviceAccountInvalid, fields: [{ field: 'jsonContent', message: MSG.serviceAccountInvalid }] });
  }
  try {
    const turn = await detectIntent({ jsonContent, projectName: data.projectName, language: data.language, sessionId: `test-${identity.companyId}-${identity.userId}`, text: 'Olá', timeoutMs: 10_000 });
    return { ok: true as const, intent: turn.intent, reply: turn.replies.join('\n') };
  } catch (err) {
    const failure = testFailure(err);
    throw new AppError(400, 'ERR_INTEGRATION_TEST_FAILED', { message: failure.message, details: { reason: failure.reason } });
  }
}
