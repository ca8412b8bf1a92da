/** HTTP, Cognito and WebSocket helpers for the benchmark (the same calls the console and the e2e tests make). */
import { randomUUID } from 'node:crypto';
import { CognitoIdentityProviderClient, InitiateAuthCommand } from '@aws-sdk/client-cognito-identity-provider';
import WebSocket from 'ws';
import { eventsOf } from '@balcao/shared';
import type { Endpoints } from '../local/stack.js';

export const PASSWORD = 'Senha123';
export const uniq = (prefix = 't') => `${prefix}${randomUUID().slice(0, 8)}`;
export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export interface Res<T = any> {
  status: number;
  body: T;
}

async function request<T>(base: string, method: string, path: string, body?: unknown, token?: string, timeoutMs = 30_000): Promise<Res<T>> {
  const headers: Record<string, string> = {};
  if (token) headers.authorization = `Bearer ${token}`;
  if (body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(`${base}${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body), signal: AbortSignal.timeout(timeoutMs) });
  const text = await res.text();
  let parsed: unknown = text;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    /* not JSON */
  }
  return { status: res.status, body: parsed as T };
}

export function apiAs(e: Endpoints, token: string) {
  return {
    token,
    get: <T = any>(path: string) => request<T>(e.apiUrl, 'GET', path, undefined, token),
    post: <T = any>(path: string, body?: unknown) => request<T>(e.apiUrl, 'POST', path, body, token),
    put: <T = any>(path: string, body?: unknown) => request<T>(e.apiUrl, 'PUT', path, body, token),
  };
}
export type Api = ReturnType<typeof apiAs>;

/** The customer side of the sandbox network (session-host/src/sandbox/README.md). */
export const sandbox = <T = any>(e: Endpoints, method: string, path: string, body?: unknown) => request<T>(e.sandboxUrl, method, path, body);

/** Cognito sign-in, then POST /auth/login (what the console does). */
export async function login(e: Endpoints, email: string, password: string): Promise<Api> {
  const client = new CognitoIdentityProviderClient({ region: e.cognito.region, endpoint: e.cognito.endpoint, credentials: { accessKeyId: 'x', secretAccessKey: 'x' } });
  const out = await client.send(
    new InitiateAuthCommand({ AuthFlow: 'USER_PASSWORD_AUTH', ClientId: e.cognito.userPoolClientId, AuthParameters: { USERNAME: email, PASSWORD: password } }),
  );
  const token = out.AuthenticationResult!.AccessToken!;
  const res = await request(e.apiUrl, 'POST', '/auth/login', undefined, token);
  if (res.status !== 200) throw new Error(`login ${email}: ${res.status} ${JSON.stringify(res.body)}`);
  return apiAs(e, token);
}

export function must<T>(res: Res<T>, what: string, ok = (s: number) => s >= 200 && s < 300): T {
  if (!ok(res.status)) throw new Error(`${what}: HTTP ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}

/** A fresh tenant (own plan and company) whose admin is signed in; `sup` is the seeded super user. */
export async function tenant(e: Endpoints, sup: Api, plan: Record<string, unknown> = {}) {
  const p = must(await sup.post('/plans', { name: uniq('Plano '), users: 5, connections: 5, queues: 5, campaigns: 5, schedules: 5, value: 10, ...plan }), 'create plan');
  const email = `${uniq('admin')}@bench.test`;
  const company = must(
    await sup.post('/companies', { name: uniq('Empresa '), email, planId: p.id, password: PASSWORD, dueDate: new Date(Date.now() + 30 * 86_400_000).toISOString() }),
    'create company',
  );
  const admin = await login(e, email, PASSWORD);
  return { companyId: company.id as number, admin };
}

export interface Frame {
  event: string;
  data: any;
  /** performance.now() when the frame arrived. */
  at: number;
}

/** An agent's socket: every frame is kept with its arrival time; `onFrame` sees them as they come. */
export async function agentSocket(e: Endpoints, token: string) {
  const frames: Frame[] = [];
  const listeners = new Set<(f: Frame) => void>();
  const ws = new WebSocket(`${e.wsUrl}?token=${encodeURIComponent(token)}`);
  let received = 0;
  ws.on('message', (raw) => {
    const at = performance.now();
    received++;
    // A frame carries one event, or several of one fan-out batch (`{ events: [...] }`).
    for (const ev of eventsOf(JSON.parse(String(raw)))) {
      const f = { event: ev.event, data: ev.data as any, at };
      frames.push(f);
      for (const l of listeners) l(f);
    }
  });
  await new Promise<void>((resolve, reject) => {
    ws.once('open', () => resolve());
    ws.once('unexpected-response', (_req, res) => reject(new Error(`ws refused ${res.statusCode}`)));
    ws.once('error', reject);
  });
  let closed = false;
  ws.once('close', () => (closed = true));
  return {
    frames,
    /** WebSocket messages received (a message may carry several events). */
    get received() {
      return received;
    },
    send: (frame: Record<string, unknown>) => ws.send(JSON.stringify(frame)),
    get closed() {
      return closed;
    },
    onFrame(l: (f: Frame) => void) {
      listeners.add(l);
      return () => listeners.delete(l);
    },
    waitFor(pred: (f: Frame) => boolean, what: string, timeoutMs = 20_000): Promise<Frame> {
      const found = frames.find(pred);
      if (found) return Promise.resolve(found);
      return new Promise((resolve, reject) => {
        const l = (f: Frame) => {
          if (!pred(f)) return;
          listeners.delete(l);
          clearTimeout(timer);
          resolve(f);
        };
        const timer = setTimeout(() => (listeners.delete(l), reject(new Error(`timed out after ${timeoutMs} ms waiting for ${what}`))), timeoutMs);
        listeners.add(l);
      });
    },
    close: () => ws.close(),
  };
}
export type AgentSocket = Awaited<ReturnType<typeof agentSocket>>;

export async function until<T>(fn: () => Promise<T | undefined | false>, what: string, timeoutMs = 30_000, everyMs = 250): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v !== undefined && v !== false) return v as T;
    if (Date.now() > end) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(everyMs);
  }
}

/** Creates a sandbox connection, waits for its QR, scans it and waits for CONNECTED. */
export async function connectedSandbox(e: Endpoints, t: { companyId: number; admin: Api }, ws: AgentSocket) {
  const created = must(await t.admin.post('/whatsapp', { name: uniq('Loja '), provider: 'sandbox' }), 'create connection');
  const id = created.id as number;
  const session = `company-${t.companyId}-whatsappSession`;
  await ws.waitFor((f) => f.event === session && f.data.session?.id === id && f.data.session.status === 'qrcode' && !!f.data.session.qrcode, `the QR of connection ${id}`);
  must(await sandbox(e, 'POST', `/connections/${id}/scan`), `scan connection ${id}`);
  await ws.waitFor((f) => f.event === session && f.data.session?.id === id && f.data.session.status === 'CONNECTED', `connection ${id} CONNECTED`);
  return id;
}

/** Percentiles by nearest rank. */
export function summarize(values: number[]) {
  const s = [...values].sort((a, b) => a - b);
  const q = (p: number) => (s.length ? s[Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1))] : NaN);
  const r = (v: number) => Math.round(v * 10) / 10;
  return { count: s.length, min: r(s[0] ?? NaN), p50: r(q(50)), p95: r(q(95)), p99: r(q(99)), max: r(s.at(-1) ?? NaN), mean: r(s.reduce((a, b) => a + b, 0) / (s.length || 1)) };
}
