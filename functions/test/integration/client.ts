import { randomUUID } from 'node:crypto';
import net from 'node:net';
import { CognitoIdentityProviderClient, InitiateAuthCommand } from '@aws-sdk/client-cognito-identity-provider';
import WebSocket from 'ws';
import { eventsOf } from '@balcao/shared';
import { Agent, fetch as undiciFetch } from 'undici';
import { inject } from 'vitest';

/** What the stack's globalSetup provides (infra/test/local/global-setup.ts). */
export interface Endpoints {
  webUrl: string;
  apiUrl: string;
  wsUrl: string;
  sandboxUrl: string;
  cognito: { region: string; endpoint: string; userPoolId: string; userPoolClientId: string };
  admin: { email: string; password: string };
}

export const endpoints = (): Endpoints => inject('endpoints' as never) as Endpoints;

export interface Res<T = any> {
  status: number;
  body: T;
  headers: Headers;
}

export async function call<T = any>(
  method: string,
  path: string,
  opts: { token?: string; body?: unknown; form?: FormData; headers?: Record<string, string>; from?: ReturnType<typeof fetchFrom> } = {},
): Promise<Res<T>> {
  const headers: Record<string, string> = { ...opts.headers };
  if (opts.token) headers.authorization = `Bearer ${opts.token}`;
  let body: FormData | string | undefined;
  if (opts.form) body = opts.form;
  else if (opts.body !== undefined) {
    headers['content-type'] = 'application/json';
    body = JSON.stringify(opts.body);
  }
  const url = `${endpoints().apiUrl}${path}`;
  // `from`: sent from another loopback address (JSON bodies only).
  const res = opts.from ? await opts.from(url, { method, headers, body: body as string | undefined }) : await fetch(url, { method, headers, body });
  const text = await res.text();
  let parsed: unknown = text;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    /* not JSON */
  }
  return { status: res.status, body: parsed as T, headers: res.headers };
}

export const as = (token?: string) => ({
  get: <T = any>(path: string) => call<T>('GET', path, { token }),
  post: <T = any>(path: string, body?: unknown) => call<T>('POST', path, { token, body }),
  put: <T = any>(path: string, body?: unknown) => call<T>('PUT', path, { token, body }),
  del: <T = any>(path: string) => call<T>('DELETE', path, { token }),
  form: <T = any>(method: 'POST' | 'PUT', path: string, form: FormData) => call<T>(method, path, { token, form }),
});

export async function cognitoSignIn(email: string, password: string) {
  const e = endpoints();
  const client = new CognitoIdentityProviderClient({ region: e.cognito.region, endpoint: e.cognito.endpoint, credentials: { accessKeyId: 'x', secretAccessKey: 'x' } });
  const out = await client.send(
    new InitiateAuthCommand({ AuthFlow: 'USER_PASSWORD_AUTH', ClientId: e.cognito.userPoolClientId, AuthParameters: { USERNAME: email, PASSWORD: password } }),
  );
  return out.AuthenticationResult!;
}

/** Cognito sign-in, then POST /auth/login to register the session (what the console does). */
export async function login(email: string, password: string) {
  const tokens = await cognitoSignIn(email, password);
  const res = await call('POST', '/auth/login', { token: tokens.AccessToken! });
  if (res.status !== 200) throw new Error(`login ${email}: ${res.status} ${JSON.stringify(res.body)}`);
  return { token: tokens.AccessToken!, refreshToken: tokens.RefreshToken!, user: res.body.user };
}

/** Lets tests call functions code directly against the same local services. */
export function applyStackEnv() {
  Object.assign(process.env, inject('env' as never) as Record<string, string>);
}

let superToken: string | undefined;
/**
 * A super user of this test file's own: one session per user, so files running in parallel (and the
 * browser tests) must not share the seeded super user's session.
 */
export async function superUser() {
  if (!superToken) {
    applyStackEnv();
    const { createUser } = await import('../../src/services/users.js');
    const { getItem } = await import('../../src/core/db.js');
    const { keys } = await import('../../src/table/keys.js');
    const seeded = await getItem<{ companyId: number }>(keys.uniqueEmail(endpoints().admin.email));
    const email = `${uniq('super')}@balcao.test`;
    await createUser(seeded!.companyId, { name: 'Super Teste', email, password: PASSWORD, profile: 'admin' }, [], { isSuper: true, skipLimit: true });
    superToken = (await login(email, PASSWORD)).token;
  }
  return as(superToken);
}

/** The super user's bearer token (for requests `as()` cannot make: raw bodies, odd headers). */
export async function superUserToken(): Promise<string> {
  await superUser();
  return superToken!;
}

export const uniq = (prefix = 't') => `${prefix}${randomUUID().slice(0, 8)}`;
export const PASSWORD = 'Senha123';

/** A fresh tenant: its own plan and company, whose admin is signed in. */
export async function tenant(planOverrides: Record<string, unknown> = {}) {
  const sup = await superUser();
  const plan = await sup.post('/plans', { name: uniq('Plano '), users: 5, connections: 5, queues: 5, campaigns: 5, schedules: 5, value: 10, ...planOverrides });
  if (plan.status !== 201) throw new Error(`plan: ${JSON.stringify(plan.body)}`);
  const email = `${uniq('admin')}@empresa.test`;
  const company = await sup.post('/companies', {
    name: uniq('Empresa '),
    email,
    planId: plan.body.id,
    password: PASSWORD,
    dueDate: new Date(Date.now() + 30 * 86_400_000).toISOString(),
  });
  if (company.status !== 201) throw new Error(`company: ${JSON.stringify(company.body)}`);
  const admin = await login(email, PASSWORD);
  return { companyId: company.body.id as number, planId: plan.body.id as number, email, admin: as(admin.token), adminToken: admin.token, adminUser: admin.user };
}

/** Creates a user in the tenant and signs them in. */
export async function member(adminApi: ReturnType<typeof as>, fields: Record<string, unknown> = {}) {
  const email = `${uniq('user')}@empresa.test`;
  const res = await adminApi.post('/users', { name: 'Agente Teste', email, password: PASSWORD, ...fields });
  if (res.status !== 201) throw new Error(`user: ${res.status} ${JSON.stringify(res.body)}`);
  const session = await login(email, PASSWORD);
  return { id: res.body.id as number, email, api: as(session.token), token: session.token, user: res.body };
}

export interface Frame {
  event: string;
  data: any;
}

/** A socket that records frames; `waitFor` resolves with the first matching one. */
export async function socket(token: string) {
  const frames: Frame[] = [];
  const waiters: { pred: (f: Frame) => boolean; resolve: (f: Frame) => void }[] = [];
  const ws = new WebSocket(`${endpoints().wsUrl}?token=${encodeURIComponent(token)}`);
  let received = 0;
  ws.on('message', (raw) => {
    received++;
    // A frame carries one event, or the events of one fan-out batch (issue 23).
    for (const f of eventsOf(JSON.parse(String(raw))) as Frame[]) {
      frames.push(f);
      for (const w of [...waiters]) if (w.pred(f)) {
        waiters.splice(waiters.indexOf(w), 1);
        w.resolve(f);
      }
    }
  });
  await new Promise<void>((resolve, reject) => {
    ws.once('open', () => resolve());
    ws.once('unexpected-response', (_req, res) => reject(new Error(`ws refused ${res.statusCode}`)));
    ws.once('error', reject);
  });
  const api = {
    ws,
    frames,
    /** WebSocket messages received (one may carry several events). */
    get received() {
      return received;
    },
    send: (frame: unknown) => ws.send(JSON.stringify(frame)),
    /** Opens the ticket's conversation: joins its room and waits until the server says it is in. */
    async join(ticketId: number) {
      const after = frames.length;
      ws.send(JSON.stringify({ action: 'joinChatBox', ticketId }));
      await api.waitFor('joined', (d) => d.room === `ticket:${ticketId}`, 20_000, after);
    },
    /** Frames from here on only: `waitFor(..., { after: mark() })` ignores what came before. */
    mark: () => frames.length,
    waitFor(event: string, pred: (data: any) => boolean = () => true, timeoutMs = 20_000, after = 0): Promise<Frame> {
      const found = frames.slice(after).find((f) => f.event === event && pred(f.data));
      if (found) return Promise.resolve(found);
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no ${event} within ${timeoutMs} ms; got ${frames.map((f) => f.event).join(', ')}`)), timeoutMs);
        waiters.push({ pred: (f) => f.event === event && pred(f.data), resolve: (f) => (clearTimeout(timer), resolve(f)) });
      });
    },
    close: () => ws.close(),
  };
  return api;
}

/** The socket refusal status for a token (401 for a bad one). */
export function socketRefusal(token: string): Promise<number> {
  return new Promise((resolve) => {
    const ws = new WebSocket(`${endpoints().wsUrl}?token=${encodeURIComponent(token)}`);
    ws.once('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0));
    ws.once('open', () => (ws.close(), resolve(101)));
    ws.once('error', () => resolve(0));
  });
}

/**
 * A fetch whose requests leave from another loopback address (all of 127.0.0.0/8 is this machine):
 * the API's per-address rate limits count them apart from the rest of the suite's requests.
 */
export function fetchFrom(localAddress = randomLoopback()) {
  // undici's own connect options drop localAddress: connect the socket ourselves.
  const dispatcher = new Agent({
    connect: (opts, done) => {
      const socket = net.connect({ host: opts.hostname, port: Number(opts.port), localAddress });
      socket.once('connect', () => done(null, socket));
      socket.once('error', (err) => done(err, null));
    },
  });
  const send = (url: string, init: { method?: string; headers?: Record<string, string>; body?: string | Uint8Array } = {}) => undiciFetch(url, { ...init, dispatcher });
  return Object.assign(send, { address: localAddress, close: () => dispatcher.close() });
}
const octet = () => 1 + Math.floor(Math.random() * 254);
export const randomLoopback = () => `127.${octet()}.${octet()}.${octet()}`;
