import { createHash } from 'node:crypto';
import {
  DisconnectReason,
  WAMessageStubType,
  makeCacheableSignalKeyStore,
  proto,
  type AnyMessageContent,
  type AuthenticationState,
  type BaileysEventMap,
  type CacheStore,
  type Contact,
  type GroupMetadata,
  type MiscMessageGenerationOptions,
  type UserFacingSocketConfig,
  type WACallEvent,
  type WAMessage,
  type WAMessageKey,
  type WAMessageUpdate,
  type MessageUserReceiptUpdate,
} from '@whiskeysockets/baileys';
import { normalizeNumber, type Peer, type SessionStatus } from '@balcao/shared';
import type { ProviderEvent, ProviderSession, SendCommand, SessionContext } from '../../provider.js';
import { loadAuthState, saveCreds } from './auth.js';
import {
  ackOfReceipt,
  ackOfStatus,
  classify,
  groupIdOf,
  idsOfJid,
  isBroadcastJid,
  isJidGroup,
  jidOfPeer,
  peerOfJids,
  textOf,
  timestampMs,
  vcardName,
} from './convert.js';
import { baileysLogger, type BaileysLogger } from './logger.js';

/** The part of Baileys' socket the session uses; tests provide a fake with a real emitter. */
export interface BaileysSocket {
  ev: {
    on<T extends keyof BaileysEventMap>(event: T, listener: (arg: BaileysEventMap[T]) => void): void;
    off<T extends keyof BaileysEventMap>(event: T, listener: (arg: BaileysEventMap[T]) => void): void;
  };
  user?: Contact;
  signalRepository: { lidMapping: { getPNForLID(lid: string): Promise<string | null>; getLIDForPN(pn: string): Promise<string | null> } };
  sendMessage(jid: string, content: AnyMessageContent, options?: MiscMessageGenerationOptions): Promise<WAMessage | undefined>;
  readMessages(keys: WAMessageKey[]): Promise<void>;
  rejectCall(callId: string, callFrom: string): Promise<void>;
  onWhatsApp(...phoneNumber: string[]): Promise<{ jid: string; exists: boolean }[] | undefined>;
  groupMetadata(jid: string): Promise<GroupMetadata>;
  requestPairingCode(phoneNumber: string): Promise<string>;
  profilePictureUrl(jid: string, type?: 'preview' | 'image'): Promise<string | undefined>;
  /** Asks the phone to upload expired media again (used by the media download). */
  updateMediaMessage(message: WAMessage): Promise<WAMessage>;
  logout(msg?: string): Promise<void>;
  end(error: Error | undefined): void | Promise<void>;
}

export type SocketFactory = (config: UserFacingSocketConfig) => BaileysSocket | Promise<BaileysSocket>;

export interface SessionOptions {
  makeSocket: SocketFactory;
  /** Fetches a media message's bytes (Baileys' `downloadMediaMessage` with re-upload by default). */
  downloadMedia: (message: WAMessage, sock: BaileysSocket, logger: BaileysLogger) => Promise<Buffer>;
  /** Voice note to ogg/opus (ffmpeg by default). */
  transcodeVoice: (audio: Buffer) => Promise<Buffer>;
  /** QR codes shown before the session gives up and waits for the user (TIMEOUT). */
  qrLimit: number;
  /** 0 ≤ x < 1, for the backoff's jitter. */
  random: () => number;
  /** A connection open this long resets the backoff. */
  stableAfterMs: number;
  browser: [string, string, string];
  logLevel: 'trace' | 'debug' | 'info' | 'warn' | 'error';
}

export const BACKOFF_BASE_MS = 1_000;
export const BACKOFF_CAP_MS = 60_000;
const GROUP_TTL_MS = 5 * 60_000;
const ADDRESS_BOOK_KEY = 'addressbook';
const HISTORY_KEPT = new Set<number>([
  proto.HistorySync.HistorySyncType.INITIAL_BOOTSTRAP,
  proto.HistorySync.HistorySyncType.PUSH_NAME,
  proto.HistorySync.HistorySyncType.NON_BLOCKING_DATA,
]);
const ADDRESS_BOOK_SAVE_MS = 5_000;

/**
 * Exponential backoff with "equal jitter": half the step is fixed (so delays grow), half random
 * (so many sessions of a task that lost its network do not reconnect in lockstep); capped.
 */
export function backoffDelay(attempt: number, random: () => number = Math.random): number {
  const step = Math.min(BACKOFF_CAP_MS, BACKOFF_BASE_MS * 2 ** Math.max(0, attempt - 1));
  return Math.min(BACKOFF_CAP_MS, Math.round(step / 2 + random() * (step / 2)));
}

const short = (s: string) => createHash('sha1').update(s).digest('hex').slice(0, 16);

function statusCodeOf(err: unknown): number | undefined {
  const code = (err as { output?: { statusCode?: unknown } } | undefined)?.output?.statusCode;
  return typeof code === 'number' ? code : undefined;
}

/**
 * The signal key cache in front of the table: a bounded map, per session and dropped with it (the
 * default cache runs a timer per instance, which would outlive sessions that are wiped and rebuilt).
 */
class KeyCache implements CacheStore {
  private map = new Map<string, unknown>();
  constructor(private readonly max: number) {}
  get<T>(key: string): T | undefined {
    return this.map.get(key) as T | undefined;
  }
  set<T>(key: string, value: T): void {
    this.map.delete(key);
    this.map.set(key, value);
    if (this.map.size > this.max) this.map.delete(this.map.keys().next().value as string);
  }
  del(key: string): void {
    this.map.delete(key);
  }
  flushAll(): void {
    this.map.clear();
  }
}

/** A small set that forgets its oldest entries, for ids seen recently. */
class RecentSet {
  private items = new Set<string>();
  constructor(private readonly max: number) {}
  has(k: string) {
    return this.items.has(k);
  }
  add(k: string) {
    this.items.delete(k);
    this.items.add(k);
    if (this.items.size > this.max) this.items.delete(this.items.values().next().value as string);
  }
  delete(k: string) {
    this.items.delete(k);
  }
}

export class BaileysSession implements ProviderSession {
  private sock?: BaileysSocket;
  /** Bumped for each socket; events of an older socket (ended or replaced) are ignored. */
  private gen = 0;
  /** The user wants this session up (false after stop, logout, TIMEOUT, banned, replaced). */
  private running = false;
  private open = false;
  private auth?: AuthenticationState;
  private credsWrite: Promise<void> = Promise.resolve();
  private qrCount = 0;
  private pairingRequested = false;
  private attempt = 0;
  private reconnectTimer?: NodeJS.Timeout;
  private stableTimer?: NodeJS.Timeout;
  private lastStatus?: SessionStatus;
  /** Inbound events are handled one after another so a chat's order survives media downloads. */
  private inbound: Promise<void> = Promise.resolve();
  private emitted = new RecentSet(5_000);
  private sentIds = new RecentSet(5_000);
  private groups = new Map<string, { meta: GroupMetadata; expires: number }>();
  private lidToNumber = new Map<string, string>();
  private numberToLid = new Map<string, string>();
  private knownContacts = new Map<string, { name?: string; pictureUrl?: string | null }>();
  private callFrom = new Map<string, string>();
  private addressBookMap?: Map<string, string>;
  private addressBookTimer?: NodeJS.Timeout;
  private readonly logger: BaileysLogger;

  constructor(
    private readonly ctx: SessionContext,
    private readonly opts: SessionOptions,
  ) {
    this.logger = baileysLogger(ctx.log, opts.logLevel, { connectionId: ctx.connectionId });
  }

  get connected(): boolean {
    return this.open && !!this.sock;
  }

  // ---------------------------------------------------------------- lifecycle

  async start(): Promise<void> {
    if (this.running && this.sock) return;
    this.running = true;
    this.qrCount = 0;
    this.pairingRequested = false;
    this.attempt = 0;
    clearTimeout(this.reconnectTimer);
    await this.connect();
  }

  async stop(): Promise<void> {
    this.running = false;
    await this.endSocket();
    await this.saveAddressBook();
    // Let what was already received reach the queue before the lease moves to another task.
    await this.inbound;
    await this.credsWrite;
  }

  async logout(): Promise<void> {
    this.running = false;
    const sock = this.sock;
    this.retire();
    if (sock) {
      try {
        await sock.logout();
      } catch (err) {
        this.ctx.log.warn({ err }, 'baileys: logout request failed; wiping the credentials anyway');
      }
      await Promise.resolve(sock.end(undefined)).catch(() => undefined);
    }
    await this.wipe();
    await this.status({ status: 'DISCONNECTED', reason: 'logout' }, true);
  }

  async newQr(): Promise<void> {
    await this.endSocket();
    await this.wipe();
    this.running = true;
    this.qrCount = 0;
    this.pairingRequested = false;
    this.attempt = 0;
    await this.connect();
  }

  /** Forgets the current socket: its later events (the close that `end` causes) are ignored. */
  private retire(): void {
    this.gen++;
    this.sock = undefined;
    this.open = false;
    clearTimeout(this.reconnectTimer);
    clearTimeout(this.stableTimer);
  }

  private async endSocket(): Promise<void> {
    const sock = this.sock;
    this.retire();
    // `end` without an error closes the socket without unlinking the device (no logout).
    if (sock) await Promise.resolve(sock.end(undefined)).catch((err) => this.ctx.log.warn({ err }, 'baileys: end failed'));
  }

  private async wipe(): Promise<void> {
    this.auth = undefined;
    await this.credsWrite;
    await this.ctx.auth.clear();
    this.addressBookMap = new Map();
    clearTimeout(this.addressBookTimer);
  }

  private async connect(): Promise<void> {
    const gen = ++this.gen;
    clearTimeout(this.reconnectTimer);
    if (!this.auth) {
      const raw = await loadAuthState(this.ctx.auth);
      // The cache in front answers Baileys' many repeated reads; writes still go through to the table.
      this.auth = { creds: raw.creds, keys: makeCacheableSignalKeyStore(raw.keys, this.logger, new KeyCache(20_000)) };
    }
    await this.loadAddressBook();
    if (gen !== this.gen || !this.running) return;
    const sock = await this.opts.makeSocket(this.socketConfig(this.auth));
    if (gen !== this.gen || !this.running) {
      await Promise.resolve(sock.end(undefined)).catch(() => undefined);
      return;
    }
    this.sock = sock;
    this.subscribe(sock, gen);
  }

  private socketConfig(auth: AuthenticationState): UserFacingSocketConfig {
    return {
      auth,
      logger: this.logger,
      browser: this.opts.browser,
      markOnlineOnConnect: false,
      // Only new traffic matters: no full history at pairing. The small bootstrap chunks are still
      // processed because Baileys learns the LID↔number mappings from them (without them it warns
      // of unstable sessions); their messages reach only `messaging-history.set`, never the queue.
      syncFullHistory: false,
      shouldSyncHistoryMessage: ({ syncType }) => HISTORY_KEPT.has(syncType ?? -1),
      // Our own sends are reported by `send`; their echo would only download our media again.
      emitOwnEvents: false,
      getMessage: async (key) => {
        if (!key.id) return undefined;
        const stored = await this.ctx.getMessage(key.id);
        return stored ? proto.Message.create({ conversation: stored.body }) : undefined;
      },
      cachedGroupMetadata: async (jid) => this.cachedGroup(jid),
    };
  }

  private subscribe(sock: BaileysSocket, gen: number): void {
    const on = <T extends keyof BaileysEventMap>(event: T, fn: (arg: BaileysEventMap[T]) => unknown) =>
      sock.ev.on(event, (arg) => {
        if (gen !== this.gen) return;
        try {
          const r = fn(arg);
          if (r instanceof Promise) r.catch((err) => this.ctx.log.error({ err, event }, 'baileys: event handler failed'));
        } catch (err) {
          this.ctx.log.error({ err, event }, 'baileys: event handler failed');
        }
      });
    const queued = <T extends keyof BaileysEventMap>(event: T, fn: (arg: BaileysEventMap[T]) => Promise<void>) =>
      on(event, (arg) => this.enqueue(event, () => fn(arg)));

    on('creds.update', (update) => {
      if (!this.auth) return;
      Object.assign(this.auth.creds, update);
      const creds = this.auth.creds;
      // Chained so an older snapshot never lands after a newer one.
      this.credsWrite = this.credsWrite
        .then(() => saveCreds(this.ctx.auth, creds))
        .catch((err) => this.ctx.log.error({ err }, 'baileys: saving credentials failed'));
    });
    on('connection.update', (u) => this.onConnection(u, sock, gen));
    queued('messages.upsert', async ({ messages }) => {
      // `notify` is live traffic; `append` is what arrived while offline and what we typed on the
      // phone: both are conversation. History sync is off, so nothing old comes this way.
      for (const m of messages) await this.onMessage(m, sock);
    });
    queued('messages.update', async (updates) => {
      for (const u of updates) await this.onMessageUpdate(u);
    });
    queued('message-receipt.update', async (receipts) => {
      for (const r of receipts) await this.onReceipt(r);
    });
    queued('messages.reaction', async (reactions) => {
      for (const r of reactions) {
        if (!r.reaction.key || !r.key.id) continue;
        await this.emitReaction(r.reaction.key as WAMessageKey, r.key.id, r.reaction.text ?? '');
      }
    });
    queued('call', async (calls) => {
      for (const c of calls) await this.onCall(c);
    });
    queued('contacts.upsert', async (contacts) => {
      for (const c of contacts) await this.onContact(c, sock);
    });
    queued('contacts.update', async (contacts) => {
      for (const c of contacts) await this.onContact(c, sock);
    });
    on('lid-mapping.update', ({ lid, pn }) => this.rememberPair(peerOfJids(pn, lid)));
    // History is not conversation (never published); only its address book and LID pairs are kept.
    on('messaging-history.set', ({ contacts, lidPnMappings }) => {
      for (const { lid, pn } of lidPnMappings ?? []) this.rememberPair(peerOfJids(pn, lid));
      for (const c of contacts) {
        const ids = peerOfJids(c.id, c.phoneNumber ?? c.lid);
        const number = ids.number ?? (ids.lid ? this.lidToNumber.get(ids.lid) : undefined);
        if (c.name && number) this.addToAddressBook(number, c.name);
      }
    });
    on('groups.upsert', (groups) => {
      for (const g of groups) this.setGroup(g);
    });
    on('groups.update', (updates) => {
      for (const u of updates) {
        const cached = u.id ? this.groups.get(u.id) : undefined;
        if (cached) this.setGroup({ ...cached.meta, ...u } as GroupMetadata);
      }
    });
    // Membership changed: the participant list Baileys encrypts to is stale, fetch it afresh.
    on('group-participants.update', ({ id }) => {
      this.groups.delete(id);
    });
  }

  private enqueue(event: string, fn: () => Promise<void>): void {
    this.inbound = this.inbound.then(fn).catch((err) => this.ctx.log.error({ err, event }, 'baileys: inbound event lost'));
  }

  // ---------------------------------------------------------------- connection

  private async onConnection(u: BaileysEventMap['connection.update'], sock: BaileysSocket, gen: number): Promise<void> {
    if (u.qr) await this.onQr(u.qr, sock, gen);
    if (gen !== this.gen) return;
    if (u.connection === 'connecting') {
      if (this.lastStatus !== 'OPENING') await this.status({ status: 'OPENING' });
    } else if (u.connection === 'open') {
      this.open = true;
      this.qrCount = 0;
      this.pairingRequested = false;
      clearTimeout(this.stableTimer);
      this.stableTimer = setTimeout(() => {
        if (gen === this.gen && this.open) this.attempt = 0;
      }, this.opts.stableAfterMs);
      this.stableTimer.unref?.();
      const me = idsOfJid(sock.user?.id);
      const lid = idsOfJid(sock.user?.lid).lid;
      if (me.number && lid) this.rememberPair({ number: me.number, lid });
      await this.status({ status: 'CONNECTED', number: me.number });
    } else if (u.connection === 'close') {
      await this.onClose(statusCodeOf(u.lastDisconnect?.error), u.lastDisconnect?.error);
    }
  }

  private async onQr(qr: string, sock: BaileysSocket, gen: number): Promise<void> {
    this.qrCount++;
    if (this.qrCount > this.opts.qrLimit) {
      // Nobody scanned: stop showing codes until the user asks again (start / new QR).
      this.running = false;
      await this.endSocket();
      await this.status({ status: 'TIMEOUT', retries: this.qrCount - 1 });
      return;
    }
    const pairingNumber = this.ctx.pairingNumber && normalizeNumber(this.ctx.pairingNumber);
    if (pairingNumber && !this.auth?.creds.registered) {
      // A QR event means the socket is ready to register; the code is asked for once per start.
      if (this.pairingRequested) return;
      this.pairingRequested = true;
      let code: string;
      try {
        code = await sock.requestPairingCode(pairingNumber);
      } catch (err) {
        // Asked again at the next QR event rather than leaving the user without a code.
        this.pairingRequested = false;
        this.ctx.log.warn({ err }, 'baileys: pairing code request failed');
        return;
      }
      if (gen === this.gen) await this.status({ status: 'PAIRING', qrcode: code });
      return;
    }
    await this.status({ status: 'qrcode', qrcode: qr, retries: this.qrCount });
  }

  private async onClose(code: number | undefined, error: unknown): Promise<void> {
    this.sock = undefined;
    this.open = false;
    clearTimeout(this.stableTimer);
    if (!this.running) return;
    this.ctx.log.info({ code, err: error instanceof Error ? error.message : undefined }, 'baileys: connection closed');
    switch (code) {
      case DisconnectReason.restartRequired:
        // Normal right after pairing: WhatsApp wants a fresh login with the new credentials.
        await this.connect();
        return;
      case DisconnectReason.loggedOut:
      case DisconnectReason.multideviceMismatch:
        this.running = false;
        await this.wipe();
        await this.status({ status: 'DISCONNECTED', reason: code === DisconnectReason.loggedOut ? 'loggedOut' : 'multideviceMismatch' }, true);
        return;
      case DisconnectReason.forbidden:
        this.running = false;
        await this.wipe();
        await this.status({ status: 'DISCONNECTED', reason: 'banned' }, true);
        return;
      case DisconnectReason.connectionReplaced:
        // Another socket holds this session now (another task, or a stale lease): reconnecting would
        // only make the two take it from each other. The host checks ownership and decides.
        this.running = false;
        await this.status({ status: 'DISCONNECTED', reason: 'replaced' }, true);
        return;
      default:
        this.scheduleReconnect(code);
    }
  }

  private scheduleReconnect(code: number | undefined): void {
    this.attempt++;
    const delay = backoffDelay(this.attempt, this.opts.random);
    const gen = ++this.gen;
    this.ctx.log.info({ code, attempt: this.attempt, delay }, 'baileys: reconnecting');
    void this.status({ status: 'OPENING', retries: this.attempt, reason: code ? `code ${code}` : 'network' }, true).catch(() => undefined);
    this.reconnectTimer = setTimeout(() => {
      if (gen !== this.gen || !this.running) return;
      this.connect().catch((err) => {
        this.ctx.log.error({ err }, 'baileys: reconnect failed');
        if (gen + 1 === this.gen && this.running) this.scheduleReconnect(undefined);
      });
    }, delay);
  }

  /** Session statuses; consecutive equal statuses without details are not repeated. */
  private async status(e: { status: SessionStatus; qrcode?: string; number?: string; retries?: number; reason?: string }, force = false): Promise<void> {
    if (!force && e.status === this.lastStatus && e.status !== 'qrcode' && e.status !== 'CONNECTED') return;
    this.lastStatus = e.status;
    await this.ctx.emit({ type: 'session', ...e });
  }

  // ---------------------------------------------------------------- inbound

  private async publish(e: ProviderEvent & { eventId: string }): Promise<void> {
    // Baileys reports some things twice (a reaction both in the upsert and in `messages.reaction`,
    // an edit as a protocol message and as an update): the same id goes out once. The id is also
    // the queue's deduplication id, shared by all connections: two of ours in the same WhatsApp
    // group see the same message id, hence the connection in it.
    const event = { ...e, eventId: `b${this.ctx.connectionId}:${e.eventId}` };
    if (this.emitted.has(event.eventId)) return;
    this.emitted.add(event.eventId);
    for (let attempt = 1; ; attempt++) {
      try {
        await this.ctx.emit(event);
        return;
      } catch (err) {
        if (attempt >= 3) {
          this.emitted.delete(event.eventId);
          throw err;
        }
        await new Promise((r) => setTimeout(r, 250 * attempt));
      }
    }
  }

  private rememberPair(peer: Peer): void {
    if (peer.number && peer.lid) {
      this.lidToNumber.set(peer.lid, peer.number);
      this.numberToLid.set(peer.number, peer.lid);
    }
  }

  /** Fills the other half of number/LID from what we learned or Baileys' LID mapping store. */
  private async complete(peer: Peer): Promise<Peer> {
    if (peer.number && peer.lid) {
      this.rememberPair(peer);
      return peer;
    }
    if (peer.lid && !peer.number) {
      let number = this.lidToNumber.get(peer.lid);
      if (!number && this.sock) {
        const pn = await this.sock.signalRepository.lidMapping.getPNForLID(`${peer.lid}@lid`).catch(() => null);
        number = idsOfJid(pn).number;
      }
      if (number) {
        peer = { ...peer, number };
        this.rememberPair(peer);
      }
    } else if (peer.number && !peer.lid) {
      // Only what is already known: asking WhatsApp for a LID per inbound message would be a query each.
      const lid = this.numberToLid.get(peer.number);
      if (lid) peer = { ...peer, lid };
    }
    return peer;
  }

  private async chatOf(key: WAMessageKey, pushName?: string | null): Promise<Peer> {
    const jid = key.remoteJid!;
    if (isJidGroup(jid)) {
      const meta = await this.group(jid);
      return { groupId: groupIdOf(jid), ...(meta?.subject ? { name: meta.subject } : {}) };
    }
    const peer = await this.complete(peerOfJids(jid, key.remoteJidAlt));
    if (pushName && !key.fromMe) peer.name = pushName;
    return peer;
  }

  private async senderOf(key: WAMessageKey, pushName?: string | null): Promise<Peer | undefined> {
    if (!isJidGroup(key.remoteJid ?? '') || key.fromMe || !key.participant) return undefined;
    const peer = await this.complete(peerOfJids(key.participant, key.participantAlt));
    if (pushName) peer.name = pushName;
    return peer;
  }

  private async onMessage(msg: WAMessage, sock: BaileysSocket): Promise<void> {
    const key = msg.key;
    const jid = key?.remoteJid;
    if (!jid || !key.id) return;
    // Status updates and newsletters are not conversations; dropping them here also spares
    // downloading their media (spec §2 step 2).
    if (isBroadcastJid(jid)) return;
    const c = classify(msg.message);
    if (c.kind === 'ignore') {
      this.ctx.log.debug({ id: key.id, why: c.why }, 'baileys: message ignored');
      return;
    }
    if (c.kind === 'reaction') return this.emitReaction(key, c.targetId, c.emoji);
    const chat = await this.chatOf(key, msg.pushName);
    if (c.kind === 'edit') {
      await this.publish({ type: 'edit', eventId: `edit:${c.targetId}:${short(c.body)}`, chat, waMessageId: c.targetId, body: c.body });
      return;
    }
    if (c.kind === 'revoke') {
      await this.publish({ type: 'delete', eventId: `delete:${c.targetId}`, chat, waMessageId: c.targetId });
      return;
    }
    const sender = await this.senderOf(key, msg.pushName);
    const base = {
      type: 'message' as const,
      eventId: `msg:${key.id}`,
      waMessageId: key.id,
      chat,
      ...(sender ? { sender } : {}),
      fromMe: !!key.fromMe,
      timestamp: timestampMs(msg.messageTimestamp),
      ...(c.quotedWaId ? { quotedWaId: c.quotedWaId } : {}),
    };
    if (c.kind === 'media') {
      let media;
      try {
        const data = await this.opts.downloadMedia(msg, sock, this.logger);
        // Stored before the event that names it is published (§2 "media first").
        const stored = await this.ctx.storeMedia(data, c.mimetype, c.fileName);
        media = c.ptt ? { ...stored, ptt: true } : stored;
      } catch (err) {
        // The message still counts; the agent sees it without the file rather than not at all.
        this.ctx.log.warn({ err, id: key.id }, 'baileys: media download failed');
      }
      await this.publish({ ...base, body: c.body, mediaType: c.mediaType, ...(media ? { media } : {}) });
      return;
    }
    const mediaType = c.kind === 'location' ? 'locationMessage' : c.kind === 'contact' ? 'contactMessage' : undefined;
    await this.publish({ ...base, body: c.body, ...(mediaType ? { mediaType } : {}) });
  }

  /** `reactionKey` is the reaction message's own key (its chat and author, our perspective). */
  private async emitReaction(reactionKey: WAMessageKey, targetId: string, emoji: string): Promise<void> {
    if (!reactionKey.remoteJid || isBroadcastJid(reactionKey.remoteJid)) return;
    const chat = await this.chatOf(reactionKey);
    const sender = (await this.senderOf(reactionKey)) ?? (!reactionKey.fromMe && !chat.groupId ? { ...chat, name: undefined } : undefined);
    if (sender) delete sender.name;
    const eventId = reactionKey.id ? `reaction:${reactionKey.id}` : `reaction:${targetId}:${short(`${sender?.number ?? sender?.lid ?? 'me'}:${emoji}`)}`;
    await this.publish({ type: 'reaction', eventId, chat, ...(sender ? { sender } : {}), fromMe: !!reactionKey.fromMe, waMessageId: targetId, emoji });
  }

  private async onMessageUpdate({ key, update }: WAMessageUpdate): Promise<void> {
    if (!key.remoteJid || !key.id || isBroadcastJid(key.remoteJid)) return;
    const ack = ackOfStatus(update.status);
    // Acks are about what we sent; the status of received messages (read on the phone) is not.
    if (ack !== undefined && key.fromMe) {
      await this.publish({ type: 'ack', eventId: `ack:${key.id}:${ack}`, chat: await this.chatOf(key), waMessageIds: [key.id], ack });
    }
    // The same edits and revokes also arrive as protocol messages in the upsert; ids dedupe them.
    if (update.message?.editedMessage) {
      const body = textOf(update.message) ?? '';
      await this.publish({ type: 'edit', eventId: `edit:${key.id}:${short(body)}`, chat: await this.chatOf(key), waMessageId: key.id, body });
    } else if (update.messageStubType === WAMessageStubType.REVOKE && update.message === null) {
      await this.publish({ type: 'delete', eventId: `delete:${key.id}`, chat: await this.chatOf(key), waMessageId: key.id });
    }
  }

  private async onReceipt({ key, receipt }: MessageUserReceiptUpdate): Promise<void> {
    if (!key.remoteJid || !key.id || !key.fromMe || isBroadcastJid(key.remoteJid)) return;
    const ack = ackOfReceipt(receipt);
    if (ack === undefined) return;
    await this.publish({ type: 'ack', eventId: `ack:${key.id}:${ack}`, chat: await this.chatOf(key), waMessageIds: [key.id], ack });
  }

  private async onCall(c: WACallEvent): Promise<void> {
    if (c.status !== 'offer') return;
    this.callFrom.set(c.id, c.from);
    if (this.callFrom.size > 200) this.callFrom.delete(this.callFrom.keys().next().value as string);
    const chat = await this.complete(peerOfJids(c.from, c.callerPn));
    await this.publish({ type: 'call', eventId: `call:${c.id}`, chat, callId: c.id, isVideo: !!c.isVideo, timestamp: c.date ? new Date(c.date).getTime() : Date.now() });
  }

  private async onContact(c: Partial<Contact>, sock: BaileysSocket): Promise<void> {
    if (!c.id || isJidGroup(c.id) || isBroadcastJid(c.id)) return;
    const ids = { ...peerOfJids(c.lid, c.phoneNumber) };
    const own = peerOfJids(c.id);
    const peer = await this.complete({ ...own, ...Object.fromEntries(Object.entries(ids).filter(([, v]) => v)) });
    if (!peer.number && !peer.lid) return;
    // `name` is how the phone's owner saved the contact: that is the address book.
    if (c.name && peer.number) this.addToAddressBook(peer.number, c.name);
    const name = c.name || c.notify || c.verifiedName || undefined;
    let pictureUrl: string | null | undefined;
    if (c.imgUrl === null) pictureUrl = null;
    else if (c.imgUrl === 'changed') pictureUrl = await sock.profilePictureUrl(c.id, 'image').then((u) => u ?? null, () => undefined);
    else if (typeof c.imgUrl === 'string') pictureUrl = c.imgUrl;
    const who = peer.number ?? peer.lid!;
    const known = this.knownContacts.get(who);
    // Every inbound message repeats the push name as a contact update: only changes go out.
    if ((name === undefined || name === known?.name) && (pictureUrl === undefined || pictureUrl === known?.pictureUrl)) return;
    this.knownContacts.set(who, { name: name ?? known?.name, pictureUrl: pictureUrl === undefined ? known?.pictureUrl : pictureUrl });
    await this.publish({
      type: 'contact',
      eventId: `contact:${short(`${who}:${name ?? ''}:${pictureUrl ?? ''}`)}`,
      peer,
      ...(name ? { name } : {}),
      ...(pictureUrl !== undefined ? { pictureUrl } : {}),
    });
  }

  // ---------------------------------------------------------------- groups

  private setGroup(meta: GroupMetadata): void {
    this.groups.set(meta.id, { meta, expires: Date.now() + GROUP_TTL_MS });
  }

  private cachedGroup(jid: string): GroupMetadata | undefined {
    const hit = this.groups.get(jid);
    if (!hit) return undefined;
    if (hit.expires < Date.now()) {
      this.groups.delete(jid);
      return undefined;
    }
    return hit.meta;
  }

  private async group(jid: string): Promise<GroupMetadata | undefined> {
    const cached = this.cachedGroup(jid);
    if (cached || !this.sock) return cached;
    try {
      const meta = await this.sock.groupMetadata(jid);
      this.setGroup(meta);
      return meta;
    } catch (err) {
      this.ctx.log.debug({ err, jid }, 'baileys: group metadata unavailable');
      return undefined;
    }
  }

  // ---------------------------------------------------------------- address book

  private async loadAddressBook(): Promise<void> {
    if (this.addressBookMap) return;
    const text = await this.ctx.auth.get(ADDRESS_BOOK_KEY);
    this.addressBookMap = new Map(text ? (Object.entries(JSON.parse(text)) as [string, string][]) : []);
  }

  private addToAddressBook(number: string, name: string): void {
    const book = (this.addressBookMap ??= new Map());
    if (book.get(number) === name) return;
    book.set(number, name);
    // Contacts arrive in bursts (app state sync): one write per burst.
    if (!this.addressBookTimer) {
      this.addressBookTimer = setTimeout(() => void this.saveAddressBook().catch((err) => this.ctx.log.warn({ err }, 'baileys: address book not saved')), ADDRESS_BOOK_SAVE_MS);
      this.addressBookTimer.unref?.();
    }
  }

  private async saveAddressBook(): Promise<void> {
    if (!this.addressBookTimer) return;
    clearTimeout(this.addressBookTimer);
    this.addressBookTimer = undefined;
    if (this.addressBookMap) await this.ctx.auth.set({ [ADDRESS_BOOK_KEY]: JSON.stringify(Object.fromEntries(this.addressBookMap)) });
  }

  // ---------------------------------------------------------------- commands

  private socket(): BaileysSocket {
    if (!this.open || !this.sock) throw new Error('WhatsApp session is not connected');
    return this.sock;
  }

  /** Whether a message id is ours: sent by this session, else WhatsApp Web's id prefix. */
  private isOurs(id: string): boolean {
    return this.sentIds.has(id) || id.startsWith('3EB0');
  }

  async send(cmd: SendCommand): Promise<{ timestamp: number }> {
    const sock = this.socket();
    const jid = jidOfPeer(cmd.to);
    // Fills the group cache Baileys reads (cachedGroupMetadata) instead of it querying per send.
    if (isJidGroup(jid)) await this.group(jid);
    const options: MiscMessageGenerationOptions = { messageId: cmd.waMessageId };
    if (cmd.quotedWaId) {
      const stored = await this.ctx.getMessage(cmd.quotedWaId);
      // Without the quoted body the reply still goes out, only unquoted.
      if (stored) {
        options.quoted = {
          key: { remoteJid: jid, id: cmd.quotedWaId, fromMe: this.isOurs(cmd.quotedWaId) },
          message: { conversation: stored.body },
        };
      }
    }
    const content = await this.content(cmd);
    const sent = await sock.sendMessage(jid, content, options);
    this.sentIds.add(cmd.waMessageId);
    return { timestamp: sent?.messageTimestamp ? timestampMs(sent.messageTimestamp) : Date.now() };
  }

  private async content(cmd: SendCommand): Promise<AnyMessageContent> {
    if (cmd.vcard) {
      const displayName = vcardName(cmd.vcard) ?? cmd.body ?? '';
      return { contacts: { displayName, contacts: [{ displayName, vcard: cmd.vcard }] } };
    }
    const media = cmd.media;
    if (!media) return { text: cmd.body };
    const data = await this.ctx.readMedia(media.key);
    const caption = cmd.body || undefined;
    switch (media.mediaType) {
      case 'image':
        return { image: data, caption, mimetype: media.mimetype };
      case 'video':
        return { video: data, caption, mimetype: media.mimetype };
      case 'sticker':
        return { sticker: data, mimetype: media.mimetype };
      case 'audio':
        // Voice notes play in WhatsApp only as mono ogg/opus.
        if (media.ptt) return { audio: await this.opts.transcodeVoice(data), ptt: true, mimetype: 'audio/ogg; codecs=opus' };
        return { audio: data, mimetype: media.mimetype };
      default:
        return { document: data, mimetype: media.mimetype, fileName: media.fileName ?? 'file', caption };
    }
  }

  async markRead(to: Peer, waMessageIds: string[]): Promise<void> {
    const sock = this.socket();
    const remoteJid = jidOfPeer(to);
    await sock.readMessages(waMessageIds.map((id) => ({ remoteJid, id, fromMe: false })));
  }

  async edit(to: Peer, waMessageId: string, body: string): Promise<void> {
    const sock = this.socket();
    const remoteJid = jidOfPeer(to);
    await sock.sendMessage(remoteJid, { text: body, edit: { remoteJid, id: waMessageId, fromMe: true } });
  }

  async delete(to: Peer, waMessageId: string): Promise<void> {
    const sock = this.socket();
    const remoteJid = jidOfPeer(to);
    // For everyone (a revoke), not just on this device.
    await sock.sendMessage(remoteJid, { delete: { remoteJid, id: waMessageId, fromMe: true } });
  }

  async react(to: Peer, waMessageId: string, emoji: string): Promise<void> {
    const sock = this.socket();
    const remoteJid = jidOfPeer(to);
    await sock.sendMessage(remoteJid, { react: { text: emoji, key: { remoteJid, id: waMessageId, fromMe: this.isOurs(waMessageId) } } });
  }

  async rejectCall(callId: string, from: Peer): Promise<void> {
    const sock = this.socket();
    // The jid the offer came from (possibly a LID) is the one WhatsApp expects back.
    await sock.rejectCall(callId, this.callFrom.get(callId) ?? jidOfPeer(from));
  }

  async checkNumber(number: string): Promise<{ exists: boolean; number?: string; lid?: string }> {
    const sock = this.socket();
    const digits = normalizeNumber(number);
    const [hit] = (await sock.onWhatsApp(digits)) ?? [];
    if (!hit?.exists) return { exists: false };
    const found = idsOfJid(hit.jid).number ?? digits;
    // An RPC may afford the LID query that inbound messages avoid.
    const lid =
      this.numberToLid.get(found) ?? idsOfJid(await sock.signalRepository.lidMapping.getLIDForPN(`${found}@s.whatsapp.net`).catch(() => null)).lid;
    if (lid) this.rememberPair({ number: found, lid });
    return { exists: true, number: found, ...(lid ? { lid } : {}) };
  }

  async addressBook(): Promise<{ number: string; name: string }[]> {
    await this.loadAddressBook();
    return [...(this.addressBookMap ?? new Map<string, string>())].map(([number, name]) => ({ number, name }));
  }
}
