import { spawnSync } from 'node:child_process';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  DisconnectReason,
  WAMessageStubType,
  makeEventBuffer,
  proto,
  type BaileysEventMap,
  type Contact,
  type GroupMetadata,
  type UserFacingSocketConfig,
  type WAMessage,
  type WAMessageKey,
} from '@whiskeysockets/baileys';
import { inboundEventSchema } from '@balcao/shared';
import type { AuthStore, ProviderEvent, ProviderSession, SendCommand, SessionContext } from '../src/provider.js';
import { BACKOFF_CAP_MS, backoffDelay, createBaileysProvider, type BaileysSocket } from '../src/providers/baileys/index.js';
import { baileysLogger } from '../src/providers/baileys/logger.js';
import { signalKey } from '../src/providers/baileys/auth.js';

// ------------------------------------------------------------------ fakes

const quiet = { debug() {}, info() {}, warn() {}, error() {} };

/** Events that the host's schema (what it publishes) would refuse; checked after every test. */
const invalid: unknown[] = [];
afterEach(() => {
  expect(invalid).toEqual([]);
  invalid.length = 0;
});

/** Baileys' socket as the provider uses it, with Baileys' own event emitter (`makeEventBuffer`). */
class FakeSocket implements BaileysSocket {
  ev = makeEventBuffer(baileysLogger(quiet, 'error'));
  user?: Contact;
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

function setup(options: Parameters<typeof createBaileysProvider>[0] = {}, ctxOver: Partial<SessionContext> = {}) {
  const sockets: FakeSocket[] = [];
  const events: ProviderEvent[] = [];
  const journal: string[] = [];
  const { data, auth } = memoryAuth();
  const files = new Map<string, Buffer>();
  const downloads: string[] = [];
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
    readMedia: async (key) => {
      const f = files.get(key);
      if (!f) throw new Error(`no media ${key}`);
      return f;
    },
    auth,
    getMessage: async (id) => (id === 'QUOTED1' ? { body: 'the quoted text' } : undefined),
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
  return { provider, session, ctx, sockets, last, events, sessionEvents, journal, data, auth, files, downloads };
}

/** Lets the provider's serial inbound queue run (no timers involved). */
async function settle() {
  for (let i = 0; i < 20; i++) await new Promise((r) => setImmediate(r));
}

async function connected(options: Parameters<typeof createBaileysProvider>[0] = {}, ctxOver: Partial<SessionContext> = {}) {
  const t = setup(options, ctxOver);
  await t.session.start();
  t.last().open();
  await settle();
  t.events.length = 0;
  t.journal.length = 0;
  return t;
}

const CUSTOMER = '5511988887777@s.whatsapp.net';
const CUSTOMER_LID = '99887766554433@lid';
const GROUP = '120363040000000001@g.us';

/** A real proto message, with Baileys 7's alternate-address fields on the key. */
function wa(obj: Record<string, unknown>, keyExtra: Partial<WAMessageKey> = {}): WAMessage {
  const m = proto.WebMessageInfo.fromObject({ messageTimestamp: 1_700_000_000, ...obj }) as WAMessage;
  m.key = { ...(m.key as WAMessageKey), ...keyExtra };
  return m;
}

const upsert = (sock: FakeSocket, messages: WAMessage[], type: 'notify' | 'append' = 'notify') => sock.emit('messages.upsert', { messages, type });

// ------------------------------------------------------------------ tests

describe('baileys provider: socket options', () => {
  it('is the beta provider and configures the socket (auth through ctx.auth, no history, getMessage, group cache)', async () => {
    const t = setup();
    expect(t.provider.name).toBe('beta');
    await t.session.start();
    const config = t.last().config;
    expect(config.markOnlineOnConnect).toBe(false);
    expect(config.syncFullHistory).toBe(false);
    const T = proto.HistorySync.HistorySyncType;
    const sync = (syncType: proto.HistorySync.HistorySyncType) => config.shouldSyncHistoryMessage?.({ syncType } as proto.Message.IHistorySyncNotification);
    expect([T.FULL, T.RECENT, T.ON_DEMAND].map(sync)).toEqual([false, false, false]);
    // The bootstrap carries the LID mappings Baileys needs.
    expect([T.INITIAL_BOOTSTRAP, T.PUSH_NAME].map(sync)).toEqual([true, true]);
    expect(config.browser).toEqual(['Balcão', 'Chrome', '1.0.0']);
    expect(typeof config.logger?.child).toBe('function');

    const stored = await config.getMessage!({ remoteJid: CUSTOMER, id: 'QUOTED1' });
    expect(stored).toBeInstanceOf(proto.Message);
    expect(stored?.conversation).toBe('the quoted text');
    expect(await config.getMessage!({ remoteJid: CUSTOMER, id: 'nope' })).toBeUndefined();

    expect(await config.cachedGroupMetadata!(GROUP)).toBeUndefined();
    t.last().emit('groups.upsert', [{ id: GROUP, subject: 'Antes', participants: [] } as unknown as GroupMetadata]);
    expect((await config.cachedGroupMetadata!(GROUP))?.subject).toBe('Antes');
    t.last().emit('groups.update', [{ id: GROUP, subject: 'Depois' }]);
    expect((await config.cachedGroupMetadata!(GROUP))?.subject).toBe('Depois');
    t.last().emit('group-participants.update', { id: GROUP, author: CUSTOMER, participants: [], action: 'add' });
    expect(await config.cachedGroupMetadata!(GROUP)).toBeUndefined();

    // Keys Baileys writes land in the table (behind the cache), creds on creds.update.
    await config.auth.keys.set({ session: { 'x.0': Buffer.from([1, 2, 3]) } });
    expect(t.data.get(signalKey('session', 'x.0'))).toContain('Buffer');
    t.last().emit('creds.update', { registered: true });
    await settle();
    expect(JSON.parse(t.data.get('creds')!).registered).toBe(true);
  });
});

describe('baileys provider: inbound messages', () => {
  it('text with LID alternate: message with number and LID, push name, ms timestamp', async () => {
    const t = await connected();
    upsert(t.last(), [wa({ key: { remoteJid: CUSTOMER, id: 'TXT1', fromMe: false }, message: { conversation: 'Olá' }, pushName: 'Ana' }, { remoteJidAlt: CUSTOMER_LID })]);
    await settle();
    expect(t.events).toEqual([
      {
        type: 'message',
        eventId: 'b7:msg:TXT1',
        waMessageId: 'TXT1',
        chat: { number: '5511988887777', lid: '99887766554433', name: 'Ana' },
        fromMe: false,
        body: 'Olá',
        timestamp: 1_700_000_000_000,
      },
    ]);
  });

  it('a chat addressed by LID only gets its number from what was learned or the LID mapping store', async () => {
    const t = await connected();
    const s = t.last();
    upsert(s, [wa({ key: { remoteJid: CUSTOMER, id: 'A1', fromMe: false }, message: { conversation: 'a' } }, { remoteJidAlt: CUSTOMER_LID })]);
    upsert(s, [wa({ key: { remoteJid: CUSTOMER_LID, id: 'A2', fromMe: false }, message: { conversation: 'b' } })]);
    upsert(s, [wa({ key: { remoteJid: '77700011122233@lid', id: 'A3', fromMe: false }, message: { conversation: 'c' } })]);
    await settle();
    const chats = t.events.map((e) => (e.type === 'message' ? e.chat : undefined));
    expect(chats[1]).toEqual({ number: '5511988887777', lid: '99887766554433' });
    expect(chats[2]).toEqual({ number: '5511977776666', lid: '77700011122233' });
    expect(s.signalRepository.lidMapping.getPNForLID).toHaveBeenCalledWith('77700011122233@lid');
  });

  it('extended text with a quote → quotedWaId', async () => {
    const t = await connected();
    upsert(t.last(), [
      wa({
        key: { remoteJid: CUSTOMER, id: 'EXT1', fromMe: false },
        message: { extendedTextMessage: { text: 'respondendo', contextInfo: { stanzaId: 'ORIG1', participant: CUSTOMER, quotedMessage: { conversation: 'orig' } } } },
      }),
    ]);
    await settle();
    expect(t.events[0]).toMatchObject({ type: 'message', waMessageId: 'EXT1', body: 'respondendo', quotedWaId: 'ORIG1' });
  });

  it('image with caption: downloaded and stored before the event is emitted', async () => {
    const t = await connected();
    upsert(t.last(), [
      wa({ key: { remoteJid: CUSTOMER, id: 'IMG1', fromMe: false }, message: { imageMessage: { caption: 'minha foto', mimetype: 'image/jpeg', mediaKey: Buffer.alloc(32), directPath: '/v/x' } } }),
    ]);
    await settle();
    expect(t.journal).toEqual(['storeMedia', 'emit:message']);
    expect(t.events[0]).toMatchObject({
      type: 'message',
      waMessageId: 'IMG1',
      body: 'minha foto',
      mediaType: 'image',
      media: { key: 'media/1', mimetype: 'image/jpeg', size: Buffer.from('bytes of IMG1').length },
    });
    expect(t.files.get('media/1')?.toString()).toBe('bytes of IMG1');
  });

  it('ptt audio, document, sticker: stored with their kind; a voice note is flagged ptt', async () => {
    const t = await connected();
    upsert(t.last(), [
      wa({ key: { remoteJid: CUSTOMER, id: 'PTT1', fromMe: false }, message: { audioMessage: { mimetype: 'audio/ogg; codecs=opus', ptt: true, seconds: 3 } } }),
      wa({ key: { remoteJid: CUSTOMER, id: 'DOC1', fromMe: false }, message: { documentMessage: { mimetype: 'application/pdf', fileName: 'boleto.pdf' } } }),
      wa({
        key: { remoteJid: CUSTOMER, id: 'DOC2', fromMe: false },
        message: { documentWithCaptionMessage: { message: { documentMessage: { mimetype: 'application/pdf', fileName: 'nota.pdf', caption: 'segue a nota' } } } },
      }),
      wa({ key: { remoteJid: CUSTOMER, id: 'STK1', fromMe: false }, message: { stickerMessage: { mimetype: 'image/webp' } } }),
    ]);
    await settle();
    expect(t.journal).toEqual(['storeMedia', 'emit:message', 'storeMedia', 'emit:message', 'storeMedia', 'emit:message', 'storeMedia', 'emit:message']);
    const [ptt, doc, doc2, stk] = t.events as Extract<ProviderEvent, { type: 'message' }>[];
    expect(ptt).toMatchObject({ mediaType: 'audio', body: '', media: { mimetype: 'audio/ogg; codecs=opus', ptt: true } });
    expect(doc).toMatchObject({ mediaType: 'document', body: '', media: { mimetype: 'application/pdf', fileName: 'boleto.pdf' } });
    expect(doc2).toMatchObject({ mediaType: 'document', body: 'segue a nota', media: { fileName: 'nota.pdf' } });
    expect(stk).toMatchObject({ mediaType: 'sticker', media: { mimetype: 'image/webp' } });
    expect(stk.media?.ptt).toBeUndefined();
  });

  it('a failed download still delivers the message, without media', async () => {
    const t = await connected({
      downloadMedia: async () => {
        throw new Error('410 gone');
      },
    });
    upsert(t.last(), [wa({ key: { remoteJid: CUSTOMER, id: 'IMG2', fromMe: false }, message: { imageMessage: { caption: 'x', mimetype: 'image/png' } } })]);
    await settle();
    expect(t.events[0]).toMatchObject({ type: 'message', mediaType: 'image', body: 'x' });
    expect((t.events[0] as { media?: unknown }).media).toBeUndefined();
  });

  it('location (map link) and contact card (vCard)', async () => {
    const t = await connected();
    const vcard = 'BEGIN:VCARD\nVERSION:3.0\nFN:João Silva\nTEL;type=CELL;waid=5511955554444:+55 11 95555-4444\nEND:VCARD';
    upsert(t.last(), [
      wa({ key: { remoteJid: CUSTOMER, id: 'LOC1', fromMe: false }, message: { locationMessage: { degreesLatitude: -23.5505, degreesLongitude: -46.6333, name: 'Sé' } } }),
      wa({ key: { remoteJid: CUSTOMER, id: 'VC1', fromMe: false }, message: { contactMessage: { displayName: 'João Silva', vcard } } }),
    ]);
    await settle();
    expect(t.events[0]).toMatchObject({ waMessageId: 'LOC1', mediaType: 'locationMessage', body: 'https://maps.google.com/maps?q=-23.5505,-46.6333&z=17' });
    expect(t.events[1]).toMatchObject({ waMessageId: 'VC1', mediaType: 'contactMessage', body: vcard });
    expect(t.downloads).toEqual([]);
  });

  it('reaction → one reaction event although Baileys reports it twice (upsert and messages.reaction)', async () => {
    const t = await connected();
    const s = t.last();
    const key = { remoteJid: CUSTOMER, id: 'REACT1', fromMe: false };
    upsert(s, [wa({ key, message: { reactionMessage: { key: { remoteJid: '5511999990000@s.whatsapp.net', id: 'MINE1', fromMe: true }, text: '👍' } } })]);
    s.emit('messages.reaction', [{ key: { remoteJid: CUSTOMER, id: 'MINE1', fromMe: true }, reaction: { key, text: '👍' } }]);
    // A removed reaction: empty emoji.
    upsert(s, [wa({ key: { ...key, id: 'REACT2' }, message: { reactionMessage: { key: { remoteJid: CUSTOMER, id: 'MINE1', fromMe: true }, text: '' } } })]);
    await settle();
    expect(t.events).toEqual([
      { type: 'reaction', eventId: 'b7:reaction:REACT1', chat: { number: '5511988887777' }, sender: { number: '5511988887777' }, fromMe: false, waMessageId: 'MINE1', emoji: '👍' },
      { type: 'reaction', eventId: 'b7:reaction:REACT2', chat: { number: '5511988887777' }, sender: { number: '5511988887777' }, fromMe: false, waMessageId: 'MINE1', emoji: '' },
    ]);
  });

  it('edit (MESSAGE_EDIT) and revoke → edit and delete, once each though updates repeat them', async () => {
    const t = await connected();
    const s = t.last();
    upsert(s, [
      wa({
        key: { remoteJid: CUSTOMER, id: 'P1', fromMe: false },
        message: {
          editedMessage: {
            message: {
              protocolMessage: { key: { remoteJid: CUSTOMER, id: 'TXT9', fromMe: false }, type: proto.Message.ProtocolMessage.Type.MESSAGE_EDIT, editedMessage: { conversation: 'corrigido' } },
            },
          },
        },
      }),
      wa({ key: { remoteJid: CUSTOMER, id: 'P2', fromMe: false }, message: { protocolMessage: { key: { remoteJid: CUSTOMER, id: 'TXT8', fromMe: false }, type: proto.Message.ProtocolMessage.Type.REVOKE } } }),
    ]);
    // What Baileys' processMessage emits for the same two protocol messages.
    s.emit('messages.update', [
      { key: { remoteJid: CUSTOMER, id: 'TXT9', fromMe: false }, update: { message: { editedMessage: { message: { conversation: 'corrigido' } } } } },
      { key: { remoteJid: CUSTOMER, id: 'TXT8', fromMe: false }, update: { message: null, messageStubType: WAMessageStubType.REVOKE } },
    ]);
    await settle();
    expect(t.events.map((e) => e.type)).toEqual(['edit', 'delete']);
    expect(t.events[0]).toMatchObject({ type: 'edit', chat: { number: '5511988887777' }, waMessageId: 'TXT9', body: 'corrigido' });
    expect(t.events[1]).toMatchObject({ type: 'delete', chat: { number: '5511988887777' }, waMessageId: 'TXT8' });
  });

  it('group message: chat is the group (subject from cached metadata), sender is the participant with LID and number', async () => {
    const t = await connected();
    const s = t.last();
    const msg = (id: string) =>
      wa({ key: { remoteJid: GROUP, id, fromMe: false, participant: '44455566677788@lid' }, message: { conversation: `grupo ${id}` }, pushName: 'Bia' }, { participantAlt: '5521977778888@s.whatsapp.net' });
    upsert(s, [msg('G1'), msg('G2')]);
    await settle();
    expect(t.events[0]).toMatchObject({
      type: 'message',
      chat: { groupId: '120363040000000001', name: 'Equipe Vendas' },
      sender: { number: '5521977778888', lid: '44455566677788', name: 'Bia' },
      body: 'grupo G1',
    });
    expect(t.events[1]).toMatchObject({ chat: { groupId: '120363040000000001' }, body: 'grupo G2' });
    expect(s.groupMetadata).toHaveBeenCalledTimes(1);
  });

  it('status broadcasts and newsletters are skipped without downloading their media', async () => {
    const t = await connected();
    upsert(t.last(), [
      wa({ key: { remoteJid: 'status@broadcast', id: 'ST1', fromMe: false, participant: CUSTOMER }, message: { imageMessage: { mimetype: 'image/jpeg' } } }),
      wa({ key: { remoteJid: '120363000000000009@newsletter', id: 'NL1', fromMe: false }, message: { conversation: 'news' } }),
    ]);
    await settle();
    expect(t.events).toEqual([]);
    expect(t.downloads).toEqual([]);
  });

  it('messages typed on the phone (append, fromMe) and offline ones (append) are conversation too', async () => {
    const t = await connected();
    upsert(t.last(), [wa({ key: { remoteJid: CUSTOMER, id: 'ME1', fromMe: true }, message: { conversation: 'digitei no celular' }, pushName: 'Loja' })], 'append');
    upsert(t.last(), [wa({ key: { remoteJid: CUSTOMER, id: 'OFF1', fromMe: false }, message: { conversation: 'enquanto offline' } })], 'append');
    await settle();
    expect(t.events[0]).toMatchObject({ type: 'message', waMessageId: 'ME1', fromMe: true, chat: { number: '5511988887777' } });
    expect((t.events[0] as { chat: { name?: string } }).chat.name).toBeUndefined();
    expect(t.events[1]).toMatchObject({ waMessageId: 'OFF1', fromMe: false });
  });

  it('keeps the order of a chat even when an earlier message waits for its media', async () => {
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const t = await connected({ downloadMedia: async () => (await gate, Buffer.from('late')) });
    upsert(t.last(), [wa({ key: { remoteJid: CUSTOMER, id: 'SLOW', fromMe: false }, message: { imageMessage: { mimetype: 'image/jpeg' } } })]);
    upsert(t.last(), [wa({ key: { remoteJid: CUSTOMER, id: 'FAST', fromMe: false }, message: { conversation: 'depois' } })]);
    await settle();
    expect(t.events).toEqual([]);
    release();
    await settle();
    expect(t.events.map((e) => (e as { waMessageId: string }).waMessageId)).toEqual(['SLOW', 'FAST']);
  });
});

describe('baileys provider: acks, calls, contacts', () => {
  it('messages.update status and receipts → acks of our messages only', async () => {
    const t = await connected();
    const s = t.last();
    s.emit('messages.update', [
      { key: { remoteJid: CUSTOMER, id: 'OUT1', fromMe: true }, update: { status: proto.WebMessageInfo.Status.SERVER_ACK } },
      { key: { remoteJid: CUSTOMER, id: 'OUT1', fromMe: true }, update: { status: proto.WebMessageInfo.Status.DELIVERY_ACK } },
      { key: { remoteJid: CUSTOMER, id: 'IN1', fromMe: false }, update: { status: proto.WebMessageInfo.Status.READ } },
    ]);
    s.emit('message-receipt.update', [
      { key: { remoteJid: CUSTOMER, id: 'OUT1', fromMe: true }, receipt: { userJid: CUSTOMER, readTimestamp: 1_700_000_100 } },
      { key: { remoteJid: CUSTOMER, id: 'OUT2', fromMe: true }, receipt: { userJid: CUSTOMER, readTimestamp: 1_700_000_100, playedTimestamp: 1_700_000_200 } },
    ]);
    await settle();
    expect(t.events).toEqual([
      { type: 'ack', eventId: 'b7:ack:OUT1:2', chat: { number: '5511988887777' }, waMessageIds: ['OUT1'], ack: 2 },
      { type: 'ack', eventId: 'b7:ack:OUT1:3', chat: { number: '5511988887777' }, waMessageIds: ['OUT1'], ack: 3 },
      { type: 'ack', eventId: 'b7:ack:OUT1:4', chat: { number: '5511988887777' }, waMessageIds: ['OUT1'], ack: 4 },
      { type: 'ack', eventId: 'b7:ack:OUT2:5', chat: { number: '5511988887777' }, waMessageIds: ['OUT2'], ack: 5 },
    ]);
  });

  it('call offer → call event; rejectCall answers the jid the offer came from', async () => {
    const t = await connected();
    const s = t.last();
    const date = new Date('2026-11-21T10:00:00Z');
    s.emit('call', [
      { chatId: CUSTOMER_LID, from: CUSTOMER_LID, callerPn: CUSTOMER, id: 'CALL1', date, isVideo: true, status: 'offer', offline: false },
      { chatId: CUSTOMER_LID, from: CUSTOMER_LID, id: 'CALL1', date, status: 'terminate', offline: false },
    ]);
    await settle();
    expect(t.events).toEqual([
      { type: 'call', eventId: 'b7:call:CALL1', chat: { number: '5511988887777', lid: '99887766554433' }, callId: 'CALL1', isVideo: true, timestamp: date.getTime() },
    ]);
    await t.session.rejectCall('CALL1', { number: '5511988887777' });
    expect(s.rejectCall).toHaveBeenCalledWith('CALL1', CUSTOMER_LID);
  });

  it('contacts upsert/update → contact events on change only; saved names form the address book', async () => {
    const t = await connected();
    const s = t.last();
    s.emit('contacts.upsert', [{ id: CUSTOMER_LID, phoneNumber: CUSTOMER, name: 'Ana Cliente', notify: 'Ana' }]);
    s.emit('contacts.update', [{ id: CUSTOMER_LID, phoneNumber: CUSTOMER, name: 'Ana Cliente' }]);
    s.emit('contacts.update', [{ id: CUSTOMER, imgUrl: 'changed' }]);
    s.emit('contacts.update', [{ id: '5511933332222@s.whatsapp.net', notify: 'Só push' }]);
    await settle();
    expect(t.events).toEqual([
      expect.objectContaining({ type: 'contact', peer: { number: '5511988887777', lid: '99887766554433' }, name: 'Ana Cliente' }),
      expect.objectContaining({ type: 'contact', peer: { number: '5511988887777', lid: '99887766554433' }, pictureUrl: 'https://pps.whatsapp.net/new.jpg' }),
      expect.objectContaining({ type: 'contact', peer: { number: '5511933332222' }, name: 'Só push' }),
    ]);
    expect(s.profilePictureUrl).toHaveBeenCalledWith(CUSTOMER, 'image');
    expect(await t.session.addressBook()).toEqual([{ number: '5511988887777', name: 'Ana Cliente' }]);
    // Kept in the table for the next session (saved on stop at the latest).
    await t.session.stop();
    expect(JSON.parse(t.data.get('addressbook')!)).toEqual({ '5511988887777': 'Ana Cliente' });
  });
});

describe('baileys provider: history', () => {
  it('history is never published; its saved names feed the address book', async () => {
    const t = await connected();
    t.last().emit('messaging-history.set', {
      chats: [],
      contacts: [{ id: '5511922223333@s.whatsapp.net', name: 'Carlos' }, { id: '88877766655544@lid', name: 'Dora' }, { id: '5511944445555@s.whatsapp.net', notify: 'só push' }],
      messages: [wa({ key: { remoteJid: CUSTOMER, id: 'OLD1', fromMe: false }, message: { conversation: 'antiga' } })],
      lidPnMappings: [{ lid: '88877766655544@lid', pn: '5511911112222@s.whatsapp.net' }],
      isLatest: true,
    });
    await settle();
    expect(t.events).toEqual([]);
    expect(await t.session.addressBook()).toEqual([
      { number: '5511922223333', name: 'Carlos' },
      { number: '5511911112222', name: 'Dora' },
    ]);
  });
});

describe('baileys provider: connection updates', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('connecting → OPENING, QR codes → qrcode, open → CONNECTED with the number', async () => {
    const t = setup();
    await t.session.start();
    const s = t.last();
    s.emit('connection.update', { connection: 'connecting' });
    s.emit('connection.update', { qr: 'QR-1' });
    s.emit('connection.update', { qr: 'QR-2' });
    s.open();
    await settle();
    expect(t.sessionEvents()).toEqual([
      { type: 'session', status: 'OPENING' },
      { type: 'session', status: 'qrcode', qrcode: 'QR-1', retries: 1 },
      { type: 'session', status: 'qrcode', qrcode: 'QR-2', retries: 2 },
      { type: 'session', status: 'CONNECTED', number: '5511999990000' },
    ]);
    expect(t.session.connected).toBe(true);
  });

  it('after the QR limit: TIMEOUT, the socket ends, and it waits for the user', async () => {
    const t = setup({ qrLimit: 5 });
    await t.session.start();
    const s = t.last();
    for (let i = 1; i <= 7; i++) s.emit('connection.update', { qr: `QR-${i}` });
    await settle();
    const statuses = t.sessionEvents().map((e) => (e.type === 'session' ? e.status : ''));
    expect(statuses).toEqual(['qrcode', 'qrcode', 'qrcode', 'qrcode', 'qrcode', 'TIMEOUT']);
    expect(s.end).toHaveBeenCalledWith(undefined);
    expect(t.sockets).toHaveLength(1);
    // The user's "try again" starts over with a new socket and a fresh count.
    await t.session.start();
    expect(t.sockets).toHaveLength(2);
    t.last().emit('connection.update', { qr: 'QR-again' });
    await settle();
    expect(t.sessionEvents().at(-1)).toMatchObject({ status: 'qrcode', qrcode: 'QR-again', retries: 1 });
  });

  it('pairing code instead of QR when a number is given', async () => {
    const t = setup({}, { pairingNumber: '(11) 99999-0000' });
    await t.session.start();
    const s = t.last();
    s.emit('connection.update', { qr: 'QR-1' });
    s.emit('connection.update', { qr: 'QR-2' });
    await settle();
    expect(s.requestPairingCode).toHaveBeenCalledTimes(1);
    expect(s.requestPairingCode).toHaveBeenCalledWith('5511999990000');
    expect(t.sessionEvents()).toEqual([{ type: 'session', status: 'PAIRING', qrcode: 'ABCD1234' }]);
  });

  it('a failed pairing code request is retried at the next QR event', async () => {
    const t = setup({}, { pairingNumber: '5511999990000' });
    await t.session.start();
    const s = t.last();
    s.requestPairingCode.mockRejectedValueOnce(new Error('not ready'));
    s.emit('connection.update', { qr: 'QR-1' });
    await settle();
    expect(t.sessionEvents()).toEqual([]);
    s.emit('connection.update', { qr: 'QR-2' });
    await settle();
    expect(s.requestPairingCode).toHaveBeenCalledTimes(2);
    expect(t.sessionEvents()).toEqual([{ type: 'session', status: 'PAIRING', qrcode: 'ABCD1234' }]);
  });

  it('515 restartRequired reconnects at once', async () => {
    const t = setup();
    await t.session.start();
    t.last().close(DisconnectReason.restartRequired);
    await settle();
    expect(t.sockets).toHaveLength(2);
    expect(t.sessionEvents().filter((e) => e.type === 'session' && e.status === 'DISCONNECTED')).toEqual([]);
    // The new socket is live; the old one's events are ignored.
    t.sockets[0].emit('connection.update', { qr: 'stale' });
    t.last().open();
    await settle();
    expect(t.sessionEvents().map((e) => (e.type === 'session' ? e.status : ''))).toEqual(['CONNECTED']);
  });

  it('401 loggedOut wipes the credentials and reports DISCONNECTED; no reconnect', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const t = await connected();
    await t.auth.set({ creds: '{"registered":true}', [signalKey('session', 'a.0')]: '"x"' });
    t.last().close(DisconnectReason.loggedOut);
    await settle();
    expect(t.auth.clears).toBe(1);
    expect(t.data.size).toBe(0);
    expect(t.sessionEvents()).toEqual([{ type: 'session', status: 'DISCONNECTED', reason: 'loggedOut' }]);
    await vi.advanceTimersByTimeAsync(10 * 60_000);
    expect(t.sockets).toHaveLength(1);
    expect(t.session.connected).toBe(false);
  });

  it('403 forbidden (banned) wipes and reports DISCONNECTED banned', async () => {
    const t = await connected();
    await t.auth.set({ creds: '{}' });
    t.last().close(DisconnectReason.forbidden);
    await settle();
    expect(t.auth.clears).toBe(1);
    expect(t.sessionEvents()).toEqual([{ type: 'session', status: 'DISCONNECTED', reason: 'banned' }]);
  });

  it('440 connectionReplaced stops without reconnecting (no flapping) and keeps the credentials', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const t = await connected();
    await t.auth.set({ creds: '{}' });
    t.last().close(DisconnectReason.connectionReplaced);
    await settle();
    await vi.advanceTimersByTimeAsync(30 * 60_000);
    expect(t.sockets).toHaveLength(1);
    expect(t.auth.clears).toBe(0);
    expect(t.sessionEvents()).toEqual([{ type: 'session', status: 'DISCONNECTED', reason: 'replaced' }]);
  });

  it('428/408/503 and network errors back off exponentially with jitter, capped at 60 s; reset after a stable connection', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    let r = 0;
    const randoms = [0, 0.99, 0.5];
    const t = await connected({ random: () => randoms[r++ % randoms.length], stableAfterMs: 60_000 });
    const codes = [DisconnectReason.connectionClosed, DisconnectReason.timedOut, DisconnectReason.unavailableService, undefined, 428, 428, 428, 428, 428, 428];
    const delays: number[] = [];
    for (const code of codes) {
      const before = t.sockets.length;
      t.last().close(code);
      await settle();
      expect(t.sockets).toHaveLength(before); // never at once
      let waited = 0;
      while (t.sockets.length === before) {
        await vi.advanceTimersByTimeAsync(100);
        waited += 100;
        expect(waited).toBeLessThanOrEqual(BACKOFF_CAP_MS);
      }
      delays.push(waited);
    }
    // Each delay lies in [step/2, step] of its attempt, step = min(60 s, 1 s · 2^(n-1)).
    delays.forEach((d, i) => {
      const step = Math.min(BACKOFF_CAP_MS, 1000 * 2 ** i);
      expect(d).toBeGreaterThanOrEqual(step / 2);
      expect(d).toBeLessThanOrEqual(step + 100);
    });
    expect(delays.at(-1)).toBeLessThanOrEqual(BACKOFF_CAP_MS);
    expect(delays[5]).toBeGreaterThan(delays[1]);
    const opening = t.sessionEvents().filter((e) => e.type === 'session' && e.status === 'OPENING');
    expect(opening.map((e) => (e as { retries?: number }).retries)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);

    // A connection that stays up resets the backoff: the next drop waits about a second again.
    t.last().open();
    await vi.advanceTimersByTimeAsync(60_000);
    const before = t.sockets.length;
    t.last().close(428);
    await settle();
    await vi.advanceTimersByTimeAsync(1_000);
    expect(t.sockets).toHaveLength(before + 1);
  });

  it('backoffDelay grows, is jittered within [step/2, step], and never exceeds 60 s', () => {
    expect(backoffDelay(1, () => 0)).toBe(500);
    expect(backoffDelay(1, () => 0.999)).toBeLessThanOrEqual(1000);
    expect(backoffDelay(4, () => 0)).toBe(4000);
    for (let a = 1; a <= 40; a++) {
      for (const x of [0, 0.3, 0.999]) expect(backoffDelay(a, () => x)).toBeLessThanOrEqual(BACKOFF_CAP_MS);
    }
    expect(backoffDelay(30, () => 0)).toBe(30_000);
    expect(new Set([0.1, 0.5, 0.9].map((x) => backoffDelay(5, () => x))).size).toBe(3);
  });

  it('stop() ends the socket without logging out and does not reconnect', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const t = await connected();
    await t.session.stop();
    expect(t.sockets[0].end).toHaveBeenCalledWith(undefined);
    expect(t.sockets[0].logout).not.toHaveBeenCalled();
    await vi.advanceTimersByTimeAsync(10 * 60_000);
    expect(t.sockets).toHaveLength(1);
    expect(t.events).toEqual([]);
    expect(t.auth.clears).toBe(0);
  });

  it('logout() unlinks, wipes and reports DISCONNECTED; newQr() wipes and starts over', async () => {
    const t = await connected();
    await t.auth.set({ creds: '{}' });
    await t.session.logout();
    expect(t.sockets[0].logout).toHaveBeenCalled();
    expect(t.auth.clears).toBe(1);
    expect(t.sessionEvents()).toEqual([{ type: 'session', status: 'DISCONNECTED', reason: 'logout' }]);

    await t.session.newQr();
    expect(t.auth.clears).toBe(2);
    expect(t.sockets).toHaveLength(2);
    expect(t.last().config.auth.creds.registered).toBe(false);
  });
});

describe('baileys provider: commands', () => {
  const cmd = (over: Partial<SendCommand>): SendCommand => ({
    v: 1,
    type: 'send',
    commandId: 'c1',
    companyId: 1,
    connectionId: 7,
    ticketId: 3,
    waMessageId: '3EB0AABBCCDDEEFF0011',
    to: { number: '5511988887777', lid: '99887766554433' },
    body: 'Olá, tudo bem?',
    ...over,
  });

  it('throws when not connected', async () => {
    const t = setup();
    await t.session.start();
    await expect(t.session.send(cmd({}))).rejects.toThrow(/not connected/);
  });

  it('text with our WhatsApp id; resolves with the server timestamp', async () => {
    const t = await connected();
    const res = await t.session.send(cmd({}));
    expect(t.last().sendMessage).toHaveBeenCalledWith(CUSTOMER, { text: 'Olá, tudo bem?' }, { messageId: '3EB0AABBCCDDEEFF0011' });
    expect(res).toEqual({ timestamp: 1_700_000_123_000 });
  });

  it('quoted reply carries the quoted message from getMessage', async () => {
    const t = await connected();
    await t.session.send(cmd({ quotedWaId: 'QUOTED1' }));
    const [, , options] = t.last().sendMessage.mock.calls[0];
    expect(options).toEqual({
      messageId: '3EB0AABBCCDDEEFF0011',
      quoted: { key: { remoteJid: CUSTOMER, id: 'QUOTED1', fromMe: false }, message: { conversation: 'the quoted text' } },
    });
  });

  it('media: image with caption, document with name, sticker, group target', async () => {
    const t = await connected();
    t.files.set('out/1.jpg', Buffer.from('jpeg'));
    t.files.set('out/2.pdf', Buffer.from('pdf'));
    await t.session.send(cmd({ media: { key: 'out/1.jpg', mimetype: 'image/jpeg', size: 4, mediaType: 'image' }, body: 'legenda' }));
    await t.session.send(cmd({ media: { key: 'out/2.pdf', mimetype: 'application/pdf', size: 3, mediaType: 'document', fileName: 'a.pdf' }, body: '' }));
    await t.session.send(cmd({ media: { key: 'out/1.jpg', mimetype: 'image/webp', size: 4, mediaType: 'sticker' }, body: '', to: { groupId: '120363040000000001' } }));
    const calls = t.last().sendMessage.mock.calls;
    expect(calls[0]).toEqual([CUSTOMER, { image: Buffer.from('jpeg'), caption: 'legenda', mimetype: 'image/jpeg' }, { messageId: '3EB0AABBCCDDEEFF0011' }]);
    expect(calls[1][1]).toEqual({ document: Buffer.from('pdf'), mimetype: 'application/pdf', fileName: 'a.pdf', caption: undefined });
    expect(calls[2][0]).toBe(GROUP);
    // Group metadata is cached before the send so Baileys finds it in cachedGroupMetadata.
    expect(t.last().groupMetadata).toHaveBeenCalledWith(GROUP);
    expect((await t.last().config.cachedGroupMetadata!(GROUP))?.subject).toBe('Equipe Vendas');
    expect(calls[2][1]).toEqual({ sticker: Buffer.from('jpeg'), mimetype: 'image/webp' });
  });

  it('vCard contact card', async () => {
    const t = await connected();
    const vcard = 'BEGIN:VCARD\nVERSION:3.0\nFN:João Silva\nTEL;waid=5511955554444:+55 11 95555-4444\nEND:VCARD';
    await t.session.send(cmd({ vcard, body: '' }));
    expect(t.last().sendMessage.mock.calls[0][1]).toEqual({ contacts: { displayName: 'João Silva', contacts: [{ displayName: 'João Silva', vcard }] } });
  });

  const hasFfmpeg = spawnSync('ffmpeg', ['-version']).status === 0;

  it('voice note: transcoded to ogg/opus with ffmpeg and sent as ptt', async (testCtx) => {
    if (!hasFfmpeg) {
      testCtx.skip('ffmpeg is not installed: the ogg/opus transcode cannot be checked here (CI installs it)');
      return;
    }
    // The real transcoder (no injected one).
    const t = await connected({ transcodeVoice: undefined });
    t.files.set('out/voice.wav', wav(0.5));
    await t.session.send(cmd({ media: { key: 'out/voice.wav', mimetype: 'audio/wav', size: 1, mediaType: 'audio', ptt: true }, body: '' }));
    const [jid, content, options] = t.last().sendMessage.mock.calls[0] as [string, { audio: Buffer; ptt: boolean; mimetype: string }, object];
    expect(jid).toBe(CUSTOMER);
    expect(options).toEqual({ messageId: '3EB0AABBCCDDEEFF0011' });
    expect(content.ptt).toBe(true);
    expect(content.mimetype).toBe('audio/ogg; codecs=opus');
    expect(content.audio.subarray(0, 4).toString()).toBe('OggS');
    expect(content.audio.includes(Buffer.from('OpusHead'))).toBe(true);
    // Mono, 48 kHz as WhatsApp voice notes are (OpusHead: channel count at +9, input rate at +12).
    const head = content.audio.indexOf(Buffer.from('OpusHead'));
    expect(content.audio[head + 9]).toBe(1);
    expect(content.audio.readUInt32LE(head + 12)).toBe(48_000);
  }, 30_000);

  it('an audio file that is not a voice note goes as it is', async () => {
    const t = await connected();
    t.files.set('out/song.mp3', Buffer.from('mp3'));
    await t.session.send(cmd({ media: { key: 'out/song.mp3', mimetype: 'audio/mpeg', size: 3, mediaType: 'audio' }, body: '' }));
    expect(t.last().sendMessage.mock.calls[0][1]).toEqual({ audio: Buffer.from('mp3'), mimetype: 'audio/mpeg' });
  });

  it('markRead, edit, delete for everyone, react', async () => {
    const t = await connected();
    const to = { number: '5511988887777' };
    await t.session.markRead(to, ['IN1', 'IN2']);
    expect(t.last().readMessages).toHaveBeenCalledWith([
      { remoteJid: CUSTOMER, id: 'IN1', fromMe: false },
      { remoteJid: CUSTOMER, id: 'IN2', fromMe: false },
    ]);
    await t.session.edit(to, '3EB0MINE', 'novo texto');
    await t.session.delete(to, '3EB0MINE');
    await t.session.react(to, 'IN1', '❤️');
    const calls = t.last().sendMessage.mock.calls.map((c) => c.slice(0, 2));
    expect(calls).toEqual([
      [CUSTOMER, { text: 'novo texto', edit: { remoteJid: CUSTOMER, id: '3EB0MINE', fromMe: true } }],
      [CUSTOMER, { delete: { remoteJid: CUSTOMER, id: '3EB0MINE', fromMe: true } }],
      [CUSTOMER, { react: { text: '❤️', key: { remoteJid: CUSTOMER, id: 'IN1', fromMe: false } } }],
    ]);
  });

  it('checkNumber: exists with number and LID; unknown numbers do not exist', async () => {
    const t = await connected();
    expect(await t.session.checkNumber('(11) 95555-4444')).toEqual({ exists: true, number: '5511955554444', lid: '55544433322211' });
    expect(t.last().onWhatsApp).toHaveBeenCalledWith('5511955554444');
    expect(await t.session.checkNumber('5511900000000')).toEqual({ exists: false });
  });
});

/** A mono 16-bit PCM WAV of a 440 Hz tone, built here so the test needs no fixture. */
function wav(seconds: number, rate = 16_000): Buffer {
  const samples = Math.round(seconds * rate);
  const buf = Buffer.alloc(44 + samples * 2);
  buf.write('RIFF', 0);
  buf.writeUInt32LE(36 + samples * 2, 4);
  buf.write('WAVE', 8);
  buf.write('fmt ', 12);
  buf.writeUInt32LE(16, 16);
  buf.writeUInt16LE(1, 20);
  buf.writeUInt16LE(1, 22);
  buf.writeUInt32LE(rate, 24);
  buf.writeUInt32LE(rate * 2, 28);
  buf.writeUInt16LE(2, 32);
  buf.writeUInt16LE(16, 34);
  buf.write('data', 36);
  buf.writeUInt32LE(samples * 2, 40);
  for (let i = 0; i < samples; i++) buf.writeInt16LE(Math.round(Math.sin((2 * Math.PI * 440 * i) / rate) * 12_000), 44 + i * 2);
  return buf;
}

beforeEach(() => {
  vi.useRealTimers();
});
