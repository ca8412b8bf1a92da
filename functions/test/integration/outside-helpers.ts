import { inject } from 'vitest';
import type {
  AzureCall,
  DialogflowCall,
  DialogflowScript,
  GoogleTokenCall,
  HookBehaviour,
  HookCall,
  OpenAiCalls,
  OpenAiScript,
  TypebotCall,
  TypebotFlow,
} from '../../../infra/test/local/outside-services.js';

export type { AzureCall, DialogflowCall, DialogflowScript, GoogleTokenCall, HookBehaviour, HookCall, OpenAiCalls, OpenAiScript, TypebotCall, TypebotFlow };

/**
 * Typed helpers that script the outside-services fake (infra/test/local/outside-services.ts) over
 * its control API. In the stack projects the fake runs in the global setup and its URL comes from
 * `inject('outsideUrl')`; elsewhere (a unit test that starts the fake itself) call
 * `useOutsideUrl(url)` first, or use `outsideClient(url)`. Pick keys (slug, hook id, project, API
 * key) unique to the test, e.g. with `uniq()`, so that parallel files never share a script.
 */

/** A service account key file as Google hands it out (what goes in a Dialogflow integration's jsonContent). */
export interface ServiceAccountJson {
  type: 'service_account';
  project_id: string;
  private_key_id: string;
  private_key: string;
  client_email: string;
  client_id: string;
  token_uri: string;
  [field: string]: string;
}

export function outsideClient(url: string) {
  const base = url.replace(/\/+$/, '');
  const control = async <T = unknown>(method: string, path: string, body?: unknown): Promise<T> => {
    const res = await fetch(`${base}/__control/${path}`, {
      method,
      headers: body === undefined ? {} : { 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    if (!res.ok) throw new Error(`outside-services ${method} /__control/${path}: ${res.status} ${text}`);
    return JSON.parse(text) as T;
  };
  const seg = encodeURIComponent;
  return {
    url: base,
    /** Base URL of the fake Typebot (an integration's `urlN8N`). */
    typebotUrl: base,
    /** The webhook receiver's URL for `id` (an n8n/webhook integration's `urlN8N`). */
    hookUrl: (id: string) => `${base}/hooks/${seg(id)}`,
    /** The OpenAI-compatible API's base (a prompt's `baseUrl`). */
    openAiBaseUrl: `${base}/openai/v1`,
    /** Azure's endpoint template, `{region}` left in (the functions' AZURE_TTS_URL). */
    azureTtsUrl: `${base}/azure/{region}`,

    health: () => control<{ ok: true; audio: 'ffmpeg' | 'built' }>('GET', 'health'),

    defineTypebot: (slug: string, flow: TypebotFlow) => control('PUT', `typebot/${seg(slug)}`, flow).then(() => undefined),
    typebotCalls: (slug: string) => control<TypebotCall[]>('GET', `typebot/${seg(slug)}/calls`),
    /** Forgets every open session of the slug, as Typebot does when a session expires. */
    expireTypebotSessions: (slug: string) => control<{ expired: number }>('POST', `typebot/${seg(slug)}/expire`).then((r) => r.expired),

    defineHook: (id: string, behaviour: HookBehaviour) => control('PUT', `hooks/${seg(id)}`, behaviour).then(() => undefined),
    hookCalls: (id: string) => control<HookCall[]>('GET', `hooks/${seg(id)}/calls`),

    /** A fresh service account (new RSA key) of `project`, as the JSON text of its key file. */
    serviceAccount: async (project: string) => {
      const res = await fetch(`${base}/__control/google/service-account`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ project }) });
      const text = await res.text();
      if (!res.ok) throw new Error(`outside-services service account for ${project}: ${res.status} ${text}`);
      return text;
    },
    /** Deletes every key of the account: the token endpoint refuses assertions signed with them. */
    revokeServiceAccount: (clientEmail: string) => control<{ revoked: number }>('POST', 'google/revoke', { client_email: clientEmail }).then((r) => r.revoked),
    /** The token exchanges for service accounts of `project` (refused ones included). */
    googleTokenCalls: (project: string) => control<GoogleTokenCall[]>('GET', `google/tokens/${seg(project)}`),
    defineDialogflow: (project: string, script: DialogflowScript) => control('PUT', `dialogflow/${seg(project)}`, script).then(() => undefined),
    dialogflowCalls: (project: string) => control<DialogflowCall[]>('GET', `dialogflow/${seg(project)}/calls`),

    defineOpenAi: (apiKey: string, script: OpenAiScript) => control('PUT', `openai/${seg(apiKey)}`, script).then(() => undefined),
    openAiCalls: (apiKey: string) => control<OpenAiCalls>('GET', `openai/${seg(apiKey)}/calls`),

    /** Registers a valid Speech key (bound to `region` when given: another region answers 401). */
    defineAzureKey: (key: string, region?: string) => control('PUT', `azure/${seg(key)}`, region === undefined ? undefined : { region }).then(() => undefined),
    azureCalls: (key: string) => control<AzureCall[]>('GET', `azure/${seg(key)}/calls`),
  };
}

export type OutsideClient = ReturnType<typeof outsideClient>;

let configured: string | undefined;

/** Points the module-level helpers below at a fake started in this process (unit tests). */
export function useOutsideUrl(url: string | undefined) {
  configured = url;
}

/** The fake's URL: the one set by `useOutsideUrl`, else the stack's (global setup). */
export function outsideUrl(): string {
  const url = configured ?? (inject('outsideUrl' as never) as string | undefined);
  if (!url) throw new Error('the outside-services fake is not running: use the stack project, or useOutsideUrl(url) after startOutsideServices()');
  return url;
}

const client = () => outsideClient(outsideUrl());

export const hookUrl = (id: string) => client().hookUrl(id);
export const openAiBaseUrl = () => client().openAiBaseUrl;
export const typebotUrl = () => client().typebotUrl;

export const defineTypebot = (slug: string, flow: TypebotFlow) => client().defineTypebot(slug, flow);
export const typebotCalls = (slug: string) => client().typebotCalls(slug);
export const expireTypebotSessions = (slug: string) => client().expireTypebotSessions(slug);
export const defineHook = (id: string, behaviour: HookBehaviour) => client().defineHook(id, behaviour);
export const hookCalls = (id: string) => client().hookCalls(id);
export const serviceAccount = (project: string) => client().serviceAccount(project);
export const revokeServiceAccount = (clientEmail: string) => client().revokeServiceAccount(clientEmail);
export const googleTokenCalls = (project: string) => client().googleTokenCalls(project);
export const defineDialogflow = (project: string, script: DialogflowScript) => client().defineDialogflow(project, script);
export const dialogflowCalls = (project: string) => client().dialogflowCalls(project);
export const defineOpenAi = (apiKey: string, script: OpenAiScript) => client().defineOpenAi(apiKey, script);
export const openAiCalls = (apiKey: string) => client().openAiCalls(apiKey);
export const defineAzureKey = (key: string, region?: string) => client().defineAzureKey(key, region);
export const azureCalls = (key: string) => client().azureCalls(key);
