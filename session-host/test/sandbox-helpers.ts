import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { inboundEventSchema } from '@balcao/shared';
import { SandboxServer } from '../../infra/local/sandbox-server.js';
import type { ProviderEvent, SessionContext, ProviderSession } from '../src/provider.js';
import { createSandboxProvider, type SandboxProviderOptions } from '../src/providers/sandbox.js';
import { attachSandboxNetwork, type SandboxNetwork, type NetworkOptions } from '../src/sandbox/index.js';

/** A network on a free port with its state in `dir`. */
export async function startNetwork(dir: string, opts: Partial<NetworkOptions> = {}) {
  const server = new SandboxServer(() => {});
  const network: SandboxNetwork = attachSandboxNetwork(server, { dir, saveDelayMs: 5, ...opts });
  const url = await server.start(0);
  return {
    url,
    network,
    stop: async () => {
      await network.stop();
      await server.stop();
    },
  };
}

export function tempDir() {
  return fs.mkdtempSync(path.join(os.tmpdir(), 'sandbox-test-'));
}

/** An in-memory SessionContext: emitted events, credentials and media stay in maps. */
export function memoryContext(connectionId: number, extra: Partial<SessionContext> = {}) {
  const events: ProviderEvent[] = [];
  const auth = new Map<string, string>();
  const media = new Map<string, { data: Buffer; mimetype: string; fileName?: string }>();
  let n = 0;
  const quiet = () => {};
  const ctx: SessionContext = {
    companyId: 1,
    connectionId,
    emit: async (e) => {
      // What the host will publish must pass the inbound schema (the host validates the same way).
      inboundEventSchema.parse({ ...e, v: 1, eventId: e.eventId ?? 'x', companyId: 1, connectionId, at: new Date().toISOString() });
      events.push(e);
    },
    storeMedia: async (data, mimetype, fileName) => {
      const key = `media/${connectionId}/${++n}`;
      media.set(key, { data, mimetype, fileName });
      return { key, mimetype, fileName, size: data.length };
    },
    storeMediaStream: async (stream, mimetype, fileName) => {
      const chunks: Buffer[] = [];
      for await (const chunk of stream) chunks.push(chunk as Buffer);
      const data = Buffer.concat(chunks);
      const key = `media/${connectionId}/${++n}`;
      media.set(key, { data, mimetype, fileName });
      return { key, mimetype, fileName, size: data.length };
    },
    readMedia: async (key) => {
      const m = media.get(key);
      if (!m) throw new Error(`no media ${key}`);
      return m.data;
    },
    auth: {
      get: async (k) => auth.get(k),
      set: async (entries) => {
        for (const [k, v] of Object.entries(entries)) {
          if (v === null) auth.delete(k);
          else auth.set(k, v);
        }
      },
      clear: async () => auth.clear(),
    },
    getMessage: async () => undefined,
    protos: { put: async () => {}, get: async () => undefined },
    log: { debug: quiet, info: quiet, warn: quiet, error: quiet },
    ...extra,
  };
  return { ctx, events, auth, media };
}

export function session(url: string, ctx: SessionContext, opts: SandboxProviderOptions = {}): ProviderSession {
  return createSandboxProvider({ url, reconnect: { baseMs: 20, maxMs: 100 }, requestTimeoutMs: 3_000, ...opts }).create(ctx);
}

export async function waitFor<T>(fn: () => T | undefined | false | Promise<T | undefined | false>, what = 'condition', ms = 5_000): Promise<T> {
  const until = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

export async function api<T = any>(base: string, method: string, p: string, body?: unknown): Promise<{ status: number; json: T }> {
  const r = await fetch(`${base}${p}`, {
    method,
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
  });
  const text = await r.text();
  return { status: r.status, json: (text ? JSON.parse(text) : null) as T };
}

export function sessions(events: ProviderEvent[]) {
  return events.filter((e): e is Extract<ProviderEvent, { type: 'session' }> => e.type === 'session');
}

export function ofType<T extends ProviderEvent['type']>(events: ProviderEvent[], type: T) {
  return events.filter((e): e is Extract<ProviderEvent, { type: T }> => e.type === type);
}

/** Starts a session, scans its QR over HTTP and waits for CONNECTED. */
export async function linked(url: string, id: number, scanBody: object = {}, opts: SandboxProviderOptions = {}) {
  const mem = memoryContext(id);
  const s = session(url, mem.ctx, opts);
  await s.start();
  await waitFor(() => sessions(mem.events).some((e) => e.status === 'qrcode'), 'a QR code');
  const scan = await api(url, 'POST', `/connections/${id}/scan`, scanBody);
  if (scan.status !== 200) throw new Error(`scan failed: ${JSON.stringify(scan.json)}`);
  await waitFor(() => s.connected, 'CONNECTED');
  return { s, ...mem };
}
