import { randomUUID } from 'node:crypto';
import WebSocket from 'ws';
import { inject } from 'vitest';
import type { Endpoints } from '../../local/stack.js';

/*
 * Helpers for tests in the `stack` project (the stack itself is started by
 * infra/test/local/global-setup.ts). Every helper talks to the stack over its public endpoints,
 * the way the console does; `stackEnv()` additionally lets a test call functions code directly.
 */

export type { Endpoints };
export const endpoints = (): Endpoints => inject('endpoints');

/** Applies the stack's function environment to this worker's process.env and returns it. */
export function stackEnv(): Record<string, string> {
  const env = inject('env');
  Object.assign(process.env, env);
  return env;
}

export const uniq = (prefix = 't') => `${prefix}${randomUUID().replaceAll('-', '').slice(0, 10)}`;
export const uniqueEmail = (prefix = 'user', domain = 'balcao.test') => `${uniq(prefix)}@${domain}`;
/** Meets the pool's policy (8+, upper, lower, digit). */
export const PASSWORD = 'Senha1234';

async function cognito<T = any>(target: string, body: unknown): Promise<T> {
  const res = await fetch(endpoints().cognito.endpoint, {
    method: 'POST',
    headers: { 'content-type': 'application/x-amz-json-1.1', 'x-amz-target': `AWSCognitoIdentityProviderService.${target}` },
    body: JSON.stringify(body),
  });
  const json = (await res.json()) as any;
  if (!res.ok) throw Object.assign(new Error(`${target}: ${json.__type ?? res.status} ${json.message ?? ''}`), { type: json.__type, status: res.status });
  return json as T;
}
export const cognitoCall = cognito;

export interface Tokens {
  accessToken: string;
  idToken: string;
  refreshToken: string;
  expiresIn: number;
}

/** Cognito InitiateAuth USER_PASSWORD_AUTH on the local endpoint (what Amplify does locally). */
export async function signIn(email: string, password: string): Promise<Tokens> {
  const out = await cognito('InitiateAuth', {
    AuthFlow: 'USER_PASSWORD_AUTH',
    ClientId: endpoints().cognito.userPoolClientId,
    AuthParameters: { USERNAME: email, PASSWORD: password },
  });
  const r = out.AuthenticationResult;
  if (!r?.AccessToken) throw new Error(`signIn ${email}: no tokens (challenge ${out.ChallengeName ?? 'none'})`);
  return { accessToken: r.AccessToken, idToken: r.IdToken, refreshToken: r.RefreshToken, expiresIn: r.ExpiresIn };
}

export interface ApiResponse<T = any> {
  status: number;
  body: T;
  headers: Headers;
}
export interface RequestOptions {
  body?: unknown;
  /** Sent as multipart/form-data (user photos). */
  form?: FormData;
  headers?: Record<string, string>;
}

/** fetch against the API with an optional bearer token; JSON bodies in and out. */
export function api(token?: string) {
  const request = async <T = any>(method: string, path: string, opts: RequestOptions = {}): Promise<ApiResponse<T>> => {
    const headers: Record<string, string> = { ...opts.headers };
    if (token) headers.authorization = `Bearer ${token}`;
    let body: RequestInit["body"];
    if (opts.form) body = opts.form;
    else if (opts.body !== undefined) {
      headers['content-type'] ??= 'application/json';
      body = typeof opts.body === 'string' ? opts.body : JSON.stringify(opts.body);
    }
    const res = await fetch(`${endpoints().apiUrl}${path}`, { method, headers, body });
    const text = await res.text();
    let parsed: unknown = text;
    if ((res.headers.get('content-type') ?? '').includes('json') && text) {
      try {
        parsed = JSON.parse(text);
      } catch {
        /* keep the text */
      }
    }
    return { status: res.status, body: parsed as T, headers: res.headers };
  };
  return {
    token,
    request,
    get: <T = any>(path: string, opts?: RequestOptions) => request<T>('GET', path, opts),
    post: <T = any>(path: string, body?: unknown, opts?: RequestOptions) => request<T>('POST', path, { ...opts, body }),
    put: <T = any>(path: string, body?: unknown, opts?: RequestOptions) => request<T>('PUT', path, { ...opts, body }),
    patch: <T = any>(path: string, body?: unknown, opts?: RequestOptions) => request<T>('PATCH', path, { ...opts, body }),
    delete: <T = any>(path: string, opts?: RequestOptions) => request<T>('DELETE', path, opts),
    form: <T = any>(method: 'POST' | 'PUT', path: string, form: FormData) => request<T>(method, path, { form }),
  };
}
export type Api = ReturnType<typeof api>;

/** Cognito sign-in, then `POST /auth/login` with the bearer (registers the session, as the console does). */
export async function login(email: string, password: string) {
  const tokens = await signIn(email, password);
  const res = await api(tokens.accessToken).post('/auth/login');
  if (res.status !== 200) throw new Error(`POST /auth/login for ${email}: ${res.status} ${JSON.stringify(res.body)}`);
  return { ...tokens, token: tokens.accessToken, user: (res.body as any)?.user, api: api(tokens.accessToken) };
}

/**
 * The seeded super user, signed in. One session per user (server-behaviour §14): each call starts a
 * new session and ends the previous one, so tests running in parallel should create their own
 * super users (see functions/test/integration/client.ts) rather than share this one.
 */
export async function superLogin() {
  const { email, password } = endpoints().admin;
  return { email, password, ...(await login(email, password)) };
}

export interface TenantOptions {
  planOverrides?: Record<string, unknown>;
  /** Defaults to the seeded super user. */
  superApi?: Api;
}

/** A fresh plan and company (its admin created by POST /companies), the admin signed in. */
export async function createTenant(opts: TenantOptions = {}) {
  const sup = opts.superApi ?? (await superLogin()).api;
  const plan = await sup.post('/plans', {
    name: uniq('Plano '),
    users: 10,
    connections: 10,
    queues: 10,
    value: 10,
    useCampaigns: true,
    useSchedules: true,
    useInternalChat: true,
    useExternalApi: true,
    useKanban: true,
    useOpenAi: true,
    useIntegrations: true,
    ...opts.planOverrides,
  });
  if (plan.status !== 200 && plan.status !== 201) throw new Error(`POST /plans: ${plan.status} ${JSON.stringify(plan.body)}`);
  const email = uniqueEmail('admin', 'empresa.test');
  const company = await sup.post('/companies', { name: uniq('Empresa '), email, planId: plan.body.id, password: PASSWORD });
  if (company.status !== 200 && company.status !== 201) throw new Error(`POST /companies: ${company.status} ${JSON.stringify(company.body)}`);
  const admin = await login(email, PASSWORD);
  return {
    companyId: company.body.id as number,
    planId: plan.body.id as number,
    company: company.body,
    admin: { email, password: PASSWORD, token: admin.token, refreshToken: admin.refreshToken, user: admin.user, api: admin.api },
  };
}

export interface NewUser {
  profile?: 'admin' | 'Nível 1' | 'Nível 2' | 'Nível 3';
  queueIds?: number[];
  name?: string;
  [field: string]: unknown;
}

/** POST /users as the tenant admin, then signs the new user in. */
export async function createUser(adminToken: string, fields: NewUser = {}) {
  const email = uniqueEmail('user', 'empresa.test');
  const res = await api(adminToken).post('/users', { name: 'Agente Teste', email, password: PASSWORD, ...fields });
  if (res.status !== 200 && res.status !== 201) throw new Error(`POST /users: ${res.status} ${JSON.stringify(res.body)}`);
  const session = await login(email, PASSWORD);
  return { id: res.body.id as number, email, password: PASSWORD, user: res.body, token: session.token, refreshToken: session.refreshToken, api: session.api };
}

export interface MailItem {
  to: string;
  code: string;
  subject: string;
  at: string;
}

/** The local mailbox: codes Cognito would have e-mailed, newest first. */
export async function mailbox(email: string): Promise<MailItem[]> {
  const res = await fetch(`${endpoints().sandboxUrl}/mailbox/${encodeURIComponent(email)}`);
  return (await res.json()) as MailItem[];
}

/** Waits for a mail to `email` newer than `since` (ms epoch) and returns it. */
export async function waitForMail(email: string, since: number, timeoutMs = 10_000): Promise<MailItem> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const m = (await mailbox(email)).find((x) => Date.parse(x.at) >= since);
    if (m) return m;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`no mail to ${email} within ${timeoutMs} ms`);
}

export interface Frame {
  event: string;
  data: any;
}

/** A realtime connection that records frames; `waitFor` resolves with the first matching one. */
export async function wsClient(token: string) {
  const frames: Frame[] = [];
  const waiters: { pred: (f: Frame) => boolean; resolve: (f: Frame) => void }[] = [];
  const ws = new WebSocket(`${endpoints().wsUrl}?token=${encodeURIComponent(token)}`);
  ws.on('message', (raw) => {
    let f: Frame;
    try {
      f = JSON.parse(String(raw)) as Frame;
    } catch {
      f = { event: '', data: String(raw) };
    }
    frames.push(f);
    for (const w of [...waiters]) {
      if (w.pred(f)) {
        waiters.splice(waiters.indexOf(w), 1);
        w.resolve(f);
      }
    }
  });
  await new Promise<void>((resolve, reject) => {
    ws.once('open', () => resolve());
    ws.once('unexpected-response', (_req, res) =>
      reject(Object.assign(new Error(`WebSocket refused with ${res.statusCode}`), { status: res.statusCode })),
    );
    ws.once('error', reject);
  });
  const closed = new Promise<number>((resolve) => ws.once('close', (code) => resolve(code)));
  return {
    ws,
    frames,
    closed,
    send: (frame: unknown) => ws.send(typeof frame === 'string' ? frame : JSON.stringify(frame)),
    waitFor(event: string, predicate: (data: any) => boolean = () => true, timeoutMs = 10_000): Promise<Frame> {
      const match = (f: Frame) => f.event === event && predicate(f.data);
      const found = frames.find(match);
      if (found) return Promise.resolve(found);
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => {
          const i = waiters.findIndex((w) => w.resolve === done);
          if (i >= 0) waiters.splice(i, 1);
          reject(new Error(`no "${event}" frame within ${timeoutMs} ms; got: ${frames.map((f) => f.event).join(', ') || 'nothing'}`));
        }, timeoutMs);
        const done = (f: Frame) => {
          clearTimeout(timer);
          resolve(f);
        };
        waiters.push({ pred: match, resolve: done });
      });
    },
    close: async () => {
      if (ws.readyState === WebSocket.CLOSED) return;
      ws.close();
      await closed;
    },
  };
}

/** The HTTP status the WebSocket upgrade is refused with (101 if it was accepted). */
export function wsRefusal(token: string | undefined): Promise<number> {
  return new Promise((resolve) => {
    const q = token === undefined ? '' : `?token=${encodeURIComponent(token)}`;
    const ws = new WebSocket(`${endpoints().wsUrl}${q}`);
    ws.once('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0));
    ws.once('open', () => (ws.close(), resolve(101)));
    ws.once('error', () => resolve(0));
  });
}
