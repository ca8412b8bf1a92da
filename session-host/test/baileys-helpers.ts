import { afterEach, beforeEach, expect, vi } from 'vitest';
import { makeEventBuffer, proto, type BaileysEventMap, type Contact, type GroupMetadata, type UserFacingSocketConfig, type WAMessage, type WAMessageKey } from '@whiskeysockets/baileys';
import { inboundEventSchema } from '@balcao/shared';
import type { AuthStore, ProviderEvent, ProviderSession, SessionContext, StoredMessageRef } from '../src/provider.js';
import { createBaileysProvider, type BaileysSocket } from '../src/providers/baileys/index.js';
import { baileysLogger } from '../src/providers/baileys/logger.js';

/*
 * The Baileys provider's test bench, shared by the baileys-*.test.ts files: a fake socket with
 * Baileys' own event emitter, an in-memory session context, and builders for proto messages.
 */

const quiet = { debug() {}, info() {}, warn() {}, error() {} };

/** Events that the host's schema (what it publishes) would refuse; checked after every test. */
const invalid: unknown[] = [];

/** Call once per test file: checks every emitted event against the schema, and resets the clock. */
export function useBaileysTestHooks() {
  afterEach(() => {
    expect(invalid).toEqual([]);
    invalid.length = 0;
  });
  beforeEach(() => {
    vi.useRealTimers();
  });
}

/** Baileys' socket as the provider uses it, with Baileys' own event emitter (`makeEventBuffer`). */
export class FakeSocket implements BaileysSocket {
  ev = makeEventBuffer(baileysLogger(quiet, 'error'));
  user?: Contact;
  /** Baileys' WebSocketClient; tests that check back-pressure put a fake `socket` in it. */
  ws?: object;
  ended: (Error | undefined)[] = [];
  signalRepository = {
    lidMapping: {
      getPNForLID: vi.fn(async (lid: string) => (lid.startsWith('77700011122233') ? '5511977776666:0@s.whatsapp.net' : null)),
      getLIDForPN: vi.fn(async (pn: string) => (pn.startsWith('5511955554444') ? '55544433322211@lid' : null)),
    },
  };
  sendMessage = vi.fn(async (jid: string, _content: unknown, options?: { messageId?: string }) => ({
    key: { remoteJid: jid, id: options?.messageId, fromMe: true },
    messageTimestamp: 1_700_000_123,
  }));
  readMessages = vi.fn(async (_keys: WAMessageKey[]) => {});
  rejectCall = vi.fn(async (_id: string, _from: string) => {});
  sendPresenceUpdate = vi.fn(async (_type: string, _jid?: string) => {});
  onWhatsApp = vi.fn(async (n: string) => (n === '5511955554444' ? [{ jid: `${n}@s.whatsapp.net`, exists: true }] : []));
  groupMetadata = vi.fn(async (jid: string) => ({ id: jid, subject: 'Equipe Vendas', participants: [] }) as unknown as GroupMetadata);
  requestPairingCode = vi.fn(async (_n: string) => 'ABCD1234');
  profilePictureUrl = vi.fn(async (_jid: string) => 'https://pps.whatsapp.net/new.jpg');
  updateMediaMessage = vi.fn(async (m: WAMessage) => m);
  logout = vi.fn(async () => {});
  end = vi.fn((error: Error | undefined) => {
    this.ended.push(error);
    this.emit('connection.update', { connection: 'close', lastDisconnect: { error, date: new Date() } });
  });

  constructor(readonly config: UserFacingSocketConfig) {}

  emit<T extends keyof BaileysEventMap>(event: T, arg: BaileysEventMap[T]) {
    this.ev.emit(event, arg);
  }

  open() {
    this.user = { id: '5511999990000:12@s.whatsapp.net', lid: '123456789012345:12@lid', name: 'Loja' };
    this.emit('connection.update', { connection: 'open' });
  }

  close(statusCode?: number) {
    // Boom's shape: Baileys reports the disconnect reason in output.statusCode.
    const error = Object.assign(new Error(statusCode ? `closed ${statusCode}` : 'ECONNRESET'), statusCode ? { output: { statusCode } } : {});
    this.emit('connection.update', { connection: 'close', lastDisconnect: { error, date: new Date() } });
  }
}

function memoryAuth() {
  const data = new Map<string, string>();
  const auth: AuthStore & { clears: number } = {
    clears: 0,
    get: async (k) => data.get(k),
    set: async (entries) => {
      for (const [k, v] of Object.entries(entries)) {
        if (v === null) data.delete(k);
        else data.set(k, v);
      }
    },
    clear: async () => {
      auth.clears++;
      data.clear();
    },
  };
  return { data, auth };
}

export function setup(options: Parameters<typeof createBaileysProvider>[0] = {}, ctxOver: Partial<SessionContext> = {}) {
  const sockets: FakeSocket[] = [];
  const events: ProviderEvent[] = [];
  const journal: string[] = [];
  const { data, auth } = memoryAuth();
  const files = new Map<string, Buffer>();
  /** The chunk sizes each streamed file arrived in (a file never whole in one Buffer shows several). */
  const uploads = new Map<string, number[]>();
  const downloads: string[] = [];
  /** Messages as the table has them (the API stored them), by WhatsApp id. */
  const stored = new Map<string, StoredMessageRef>([['QUOTED1', { body: 'the quoted text', fromMe: false }]]);
  /** The protos the session kept (what it sent, polls). */
  const protos = new Map<string, Uint8Array>();
  let n = 0;
  const ctx: SessionContext = {
    companyId: 1,
    connectionId: 7,
    emit: async (e) => {
      const full = { ...e, v: 1, eventId: e.eventId ?? 'host-id', companyId: 1, connectionId: 7, at: new Date().toISOString() };
      const parsed = inboundEventSchema.safeParse(full);
      if (!parsed.success) invalid.push({ event: e, issues: parsed.error.issues });
      journal.push(`emit:${e.type}`);
      events.push(e);
    },
    storeMedia: async (buf, mimetype, fileName) => {
      journal.push('storeMedia');
      const key = `media/${++n}`;
      files.set(key, buf);
      return { key, mimetype, ...(fileName ? { fileName } : {}), size: buf.length };
    },
    // Like S3 through the host: nothing is stored unless the whole stream was read.
    storeMediaStream: async (stream, mimetype, fileName, opts) => {
      journal.push('storeMedia');
      const chunks: Buffer[] = [];
      for await (const chunk of stream) {
        opts?.signal?.throwIfAborted();
        chunks.push(chunk as Buffer);
      }
      opts?.signal?.throwIfAborted();
      const key = `media/${++n}`;
      const buf = Buffer.concat(chunks);
      files.set(key, buf);
      uploads.set(key, chunks.map((c) => c.length));
      return { key, mimetype, ...(fileName ? { fileName } : {}), size: buf.length };
    },
    readMedia: async (key) => {
      const f = files.get(key);
      if (!f) throw new Error(`no media ${key}`);
      return f;
    },
    auth,
    getMessage: async (id) => stored.get(id),
    protos: { put: async (id, data) => void protos.set(id, data), get: async (id) => protos.get(id) },
    log: quiet,
    ...ctxOver,
  };
  const provider = createBaileysProvider({
    makeSocket: (config) => {
      const s = new FakeSocket(config);
      sockets.push(s);
      return s;
    },
    downloadMedia: async (msg) => {
      downloads.push(msg.key.id!);
      return Buffer.from(`bytes of ${msg.key.id}`);
    },
    transcodeVoice: async (b) => Buffer.concat([Buffer.from('OggS'), b]),
    random: () => 0.5,
    ...options,
  });
  const session = provider.create(ctx) as ProviderSession;
  const last = () => sockets[sockets.length - 1];
  const sessionEvents = () => events.filter((e) => e.type === 'session');
  return { provider, session, ctx, sockets, last, events, sessionEvents, journal, data, auth, files, uploads, downloads, stored, protos };
}

/** Lets the provider's serial inbound queue run (no timers involved). */
export async function settle() {
  for (let i = 0; i < 20; i++) await new Promise((r) => setImmediate(r));
}

export async function connected(options: Parameters<typeof createBaileysProvider>[0] = {}, ctxOver: Partial<SessionContext> = {}) {
  const t = setup(options, ctxOver);
  await t.session.start();
  t.last().open();
  await settle();
  t.events.length = 0;
  t.journal.length = 0;
  return t;
}

export const CUSTOMER = '5511988887777@s.whatsapp.net';
export const CUSTOMER_LID = '99887766554433@lid';
export const GROUP = '120363040000000001@g.us';

/** A real proto message, with Baileys 7's alternate-address fields on the key. */
export function wa(obj: Record<string, unknown>, keyExtra: Partial<WAMessageKey> = {}): WAMessage {
  const m = proto.WebMessageInfo.fromObject({ messageTimestamp: 1_700_000_000, ...obj }) as WAMessage;
  m.key = { ...(m.key as WAMessageKey), ...keyExtra };
  return m;
}

export const upsert = (sock: FakeSocket, messages: WAMessage[], type: 'notify' | 'append' = 'notify') => sock.emit('messages.upsert', { messages, type });
