import {
  DisconnectReason,
  makeCacheableSignalKeyStore,
  proto,
  type AuthenticationState,
  type BaileysEventMap,
  type Contact,
  type MessageUserReceiptUpdate,
  type WACallEvent,
  type WAMessage,
  type WAMessageUpdate,
  type UserFacingSocketConfig,
  type WAMessageKey,
} from '@whiskeysockets/baileys';
import { normalizeNumber, type Peer, type SessionStatus } from '@balcao/shared';
import { ChatGroups } from '../../chat-groups.js';
import type { ProviderSession, SendCommand, SessionContext } from '../../provider.js';
import { AddressBook } from './address-book.js';
import { CREDS_FLUSH_MS, CredsWriter, loadAuthState } from './auth.js';
import { KeyCache } from './caches.js';
import { idsOfJid, isJidGroup, peerOfJids } from './convert.js';
import { InboundPipeline } from './pipeline.js';
import { InboundEvents } from './inbound.js';
import { baileysLogger, type BaileysLogger } from './logger.js';
import { OutboundCommands } from './outbound.js';
import { PeerDirectory } from './peers.js';
import { setReading, type BaileysSocket, type SessionOptions } from './socket.js';

/*
 * The session's lifecycle: the socket (connect, QR and pairing code, close reasons, reconnects with
 * backoff) and the wiring of Baileys' events to the inbound mapping (`inbound.ts`); the host's
 * commands go to `outbound.ts` once the socket is open.
 */

export const BACKOFF_BASE_MS = 1_000;
export const BACKOFF_CAP_MS = 60_000;
/**
 * History kinds Baileys may process. RECENT must be among them: Baileys runs the first
 * connection's initial sync (the app state with the saved contact names, the LID mappings) only
 * if RECENT history is accepted. FULL and ON_DEMAND (years of chats) are not. What history brings
 * reaches only `messaging-history.set` (names and LID pairs are kept), never a ticket.
 */
export const HISTORY_KEPT = new Set<number>([
  proto.HistorySync.HistorySyncType.INITIAL_BOOTSTRAP,
  proto.HistorySync.HistorySyncType.RECENT,
  proto.HistorySync.HistorySyncType.PUSH_NAME,
  proto.HistorySync.HistorySyncType.NON_BLOCKING_DATA,
]);

/** Consecutive `restartRequired` closes answered at once; past that they back off like any close. */
const RESTARTS_AT_ONCE = 2;
/** A temporary ban (402) without its end: try again after an hour. */
const TEMP_BAN_DEFAULT_MS = 60 * 60_000;
const TEMP_BAN_MAX_MS = 24 * 60 * 60_000;
/** Inbound backlog (events in memory) at which the socket stops reading, and resumes. */
export const BACKLOG_HIGH = 500;
export const BACKLOG_LOW = 100;
/** The longest the socket stops reading at a time (Baileys' keep-alive gives up after 35 s). */
const PAUSE_MAX_MS = 15_000;
/** How long a stop waits for inbound work already under way. */
const STOP_DRAIN_MS = 15_000;

/**
 * Exponential backoff with "equal jitter": half the step is fixed (so delays grow), half random
 * (so many sessions of a task that lost its network do not reconnect in lockstep); capped.
 */
export function backoffDelay(attempt: number, random: () => number = Math.random): number {
  const step = Math.min(BACKOFF_CAP_MS, BACKOFF_BASE_MS * 2 ** Math.max(0, attempt - 1));
  return Math.min(BACKOFF_CAP_MS, Math.round(step / 2 + random() * (step / 2)));
}

/** How long a 402 asks us to stay away: its `expire` (seconds) when WhatsApp gives one. */
function banDelayOf(error: unknown): number {
  const expire = Number((error as { data?: { expire?: unknown } } | undefined)?.data?.expire);
  return Number.isFinite(expire) && expire > 0 ? Math.min(TEMP_BAN_MAX_MS, expire * 1000) : TEMP_BAN_DEFAULT_MS;
}

function statusCodeOf(err: unknown): number | undefined {
  const code = (err as { output?: { statusCode?: unknown } } | undefined)?.output?.statusCode;
  return typeof code === 'number' ? code : undefined;
}

export class BaileysSession implements ProviderSession {
  private sock?: BaileysSocket;
  /** Bumped for each socket; events of an older socket (ended or replaced) are ignored. */
  private gen = 0;
  /** The user wants this session up (false after stop, logout, TIMEOUT, banned, replaced). */
  private running = false;
  private open = false;
  private auth?: AuthenticationState;
  /** Saves `creds.update` snapshots, retried until durable (made with the first update). */
  private credsWrite?: CredsWriter;
  private qrCount = 0;
  private pairingRequested = false;
  /** Pairing codes asked since the user started: limited like QR codes. */
  private pairingCodes = 0;
  private pairingTimer?: NodeJS.Timeout;
  private pauseTimer?: NodeJS.Timeout;
  /** `restartRequired` closes since the last open. */
  private restarts = 0;
  private attempt = 0;
  private reconnectTimer?: NodeJS.Timeout;
  private stableTimer?: NodeJS.Timeout;
  private lastStatus?: SessionStatus;
  /** Inbound events, in order per chat (a slow chat holds only itself), with back-pressure on the socket. */
  private readonly inbound: InboundPipeline;
  /** Each chat's chain key as first used (bounded like the peer directory). */
  private readonly chains = new ChatGroups(20_000);
  /** While stopping: events already received are still published until this time. */
  private publishUntil = 0;
  /** WhatsApp's retry requests per message id (Baileys counts them; bounded per session). */
  private readonly retryCounters = new KeyCache(2_000);
  private readonly logger: BaileysLogger;
  private readonly peers: PeerDirectory;
  private readonly book: AddressBook;
  private readonly events: InboundEvents;
  private readonly commands: OutboundCommands;

  constructor(
    private readonly ctx: SessionContext,
    private readonly opts: SessionOptions,
  ) {
    this.logger = baileysLogger(ctx.log, opts.logLevel, { connectionId: ctx.connectionId });
    this.peers = new PeerDirectory(ctx.log, () => this.sock);
    this.book = new AddressBook(ctx);
    // Publishing keeps retrying while the session runs and, once stopping, while it drains.
    this.events = new InboundEvents(ctx, opts, this.logger, this.peers, this.book, () => this.running || Date.now() < this.publishUntil);
    this.inbound = new InboundPipeline({ high: BACKLOG_HIGH, low: BACKLOG_LOW, log: ctx.log, onPressure: (pressed) => this.pressure(pressed) });
    this.commands = new OutboundCommands(ctx, opts, this.peers);
  }

  get connected(): boolean {
    return this.open && !!this.sock;
  }

  // ---------------------------------------------------------------- lifecycle

  async start(): Promise<void> {
    if (this.running && this.sock) return;
    this.running = true;
    this.qrCount = 0;
    this.pairingCodes = 0;
    this.restarts = 0;
    this.attempt = 0;
    clearTimeout(this.reconnectTimer);
    try {
      await this.connect();
    } catch (err) {
      // The table or the network failed before a socket existed: try again like any lost connection.
      this.ctx.log.warn({ err }, 'baileys: start failed; retrying');
      if (this.running) this.scheduleReconnect(undefined);
    }
  }

  async stop(): Promise<void> {
    this.running = false;
    this.publishUntil = Date.now() + STOP_DRAIN_MS;
    await this.endSocket();
    await this.book.save();
    // Let what was already received reach the queue before the lease moves to another task; a large
    // file under way may take minutes, and the next owner must not wait for it (its event still
    // goes out when done, deduplicated by id).
    await Promise.race([this.inbound.drain(), new Promise((r) => setTimeout(r, STOP_DRAIN_MS).unref?.())]);
    // Credentials not saved yet are tried for a bounded time: the next owner must load the latest.
    await this.credsWrite?.flush(CREDS_FLUSH_MS);
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
    this.pairingCodes = 0;
    this.restarts = 0;
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
    clearTimeout(this.pairingTimer);
  }

  private async endSocket(): Promise<void> {
    const sock = this.sock;
    this.retire();
    // `end` without an error closes the socket without unlinking the device (no logout).
    if (sock) await Promise.resolve(sock.end(undefined)).catch((err) => this.ctx.log.warn({ err }, 'baileys: end failed'));
  }

  private async wipe(): Promise<void> {
    this.auth = undefined;
    // The wiped session's unsaved credentials are dropped; a write under way lands before the wipe.
    await this.credsWrite?.discard();
    // Forgotten before the clear: a pending address-book save must not write the old book back.
    this.book.reset();
    await this.ctx.auth.clear();
  }

  private async connect(): Promise<void> {
    const gen = ++this.gen;
    clearTimeout(this.reconnectTimer);
    clearTimeout(this.pairingTimer);
    // A pairing code lives as long as its socket: each socket asks for its own.
    this.pairingRequested = false;
    if (!this.auth) {
      const raw = await loadAuthState(this.ctx.auth);
      // The cache in front answers Baileys' many repeated reads; writes still go through to the table.
      this.auth = { creds: raw.creds, keys: makeCacheableSignalKeyStore(raw.keys, this.logger, new KeyCache(1_000 /* the keys of the chats and groups of the last minutes; ~5 KB each deserialised (issue 17 §12) */)) };
    }
    await this.book.load();
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
      // WhatsApp's retry requests re-encrypt what we sent: the proto kept at send time (media, cards,
      // quotes intact); only a message older than that store falls back to its text.
      getMessage: async (key) => {
        if (!key.id) return undefined;
        const kept = await this.ctx.protos.get(key.id).catch(() => undefined);
        if (kept) return proto.Message.decode(kept);
        const stored = await this.ctx.getMessage(key.id);
        return stored ? proto.Message.create({ conversation: stored.body }) : undefined;
      },
      msgRetryCounterCache: this.retryCounters,
      cachedGroupMetadata: async (jid) => this.peers.cachedGroup(jid),
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
    /** Each item of a Baileys event goes to its chat's chain. */
    const perChat = <T extends keyof BaileysEventMap>(
      event: T,
      items: (arg: BaileysEventMap[T]) => readonly unknown[],
      chatOf: (item: never) => string,
      fn: (item: never) => Promise<void>,
    ) =>
      on(event, (arg) => {
        for (const item of items(arg)) this.inbound.push(chatOf(item as never), event, () => fn(item as never));
      });
    const events = this.events;
    const byKey = (k: { remoteJid?: string | null; remoteJidAlt?: string | null } | null | undefined) => this.chatKey(k?.remoteJid, k?.remoteJidAlt);

    on('creds.update', (update) => {
      if (!this.auth) return;
      Object.assign(this.auth.creds, update);
      // Coalesced and retried with backoff until durable; never an older snapshot after a newer one.
      (this.credsWrite ??= new CredsWriter(this.ctx.auth, this.ctx.log)).save(this.auth.creds);
    });
    on('connection.update', (u) => this.onConnection(u, sock, gen));
    // `notify` is live traffic; `append` is what arrived while offline and what we typed on the
    // phone: both are conversation. History never comes this way (it goes to messaging-history.set).
    perChat('messages.upsert', (u) => u.messages, (m: WAMessage) => byKey(m.key), (m: WAMessage) => events.onMessage(m, sock));
    perChat('messages.update', (u) => u, (u: WAMessageUpdate) => byKey(u.key), (u: WAMessageUpdate) => events.onMessageUpdate(u));
    perChat('message-receipt.update', (r) => r, (r: MessageUserReceiptUpdate) => byKey(r.key), (r: MessageUserReceiptUpdate) => events.onReceipt(r));
    perChat(
      'messages.reaction',
      (rs) => rs.filter((r) => r.reaction.key && r.key.id),
      (r: BaileysEventMap['messages.reaction'][number]) => byKey(r.key),
      (r: BaileysEventMap['messages.reaction'][number]) => events.emitReaction(r.reaction.key as WAMessageKey, r.key.id!, r.reaction.text ?? ''),
    );
    perChat('call', (cs) => cs, (c: WACallEvent) => this.chatKey(c.chatId || c.from, c.callerPn), (c: WACallEvent) => events.onCall(c));
    for (const event of ['contacts.upsert', 'contacts.update'] as const) {
      perChat(event, (cs) => cs, (c: Partial<Contact>) => this.chatKey(c.id, c.phoneNumber ?? c.lid), (c: Partial<Contact>) => events.onContact(c, sock));
    }
    on('lid-mapping.update', ({ lid, pn }) => this.peers.rememberPair(peerOfJids(pn, lid)));
    on('messaging-history.set', (history) => events.onHistory(history));
    on('groups.upsert', (groups) => {
      for (const g of groups) this.peers.setGroup(g);
    });
    on('groups.update', (updates) => {
      for (const u of updates) this.peers.updateGroup(u);
    });
    // Membership changed: the participant list Baileys encrypts to is stale, fetch it afresh.
    on('group-participants.update', ({ id }) => {
      this.peers.forgetGroup(id);
    });
  }

  /**
   * One chain per chat however WhatsApp names it, and the same chain once one is in use: a chat
   * first seen by number whose LID is learned later keeps its chain (`ChatGroups`), so its events
   * never run in two chains at once.
   */
  private chatKey(jid: string | null | undefined, alt?: string | null): string {
    if (!jid) return 'none';
    if (isJidGroup(jid)) return jid;
    const peer = peerOfJids(jid, alt);
    // The half the event lacks, when the directory knows it, finds a chain the other half started.
    if (!peer.lid && peer.number) {
      const lid = this.peers.lidOfNumber(peer.number);
      if (lid) peer.lid = lid;
    } else if (peer.lid && !peer.number) {
      const number = this.peers.numberOfLid(peer.lid);
      if (number) peer.number = number;
    }
    const key = this.chains.keyOf(peer);
    return key === 'unknown' ? jid : key;
  }

  /** Back-pressure: a socket that does not read leaves WhatsApp holding what we could not take yet. */
  private pressure(pressed: boolean): void {
    this.ctx.log.warn({ backlog: this.inbound.size }, pressed ? 'baileys: inbound backlog full; the socket stops reading' : 'baileys: inbound backlog drained; reading again');
    setReading(this.sock, !pressed);
    // Never paused for long: Baileys ends a socket that heard nothing for 35 s (keep-alive), and
    // query answers wait too. A short pause slows WhatsApp down; a long one would only reconnect.
    clearTimeout(this.pauseTimer);
    if (pressed) {
      this.pauseTimer = setTimeout(() => setReading(this.sock, true), PAUSE_MAX_MS);
      this.pauseTimer.unref?.();
    }
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
      this.pairingCodes = 0;
      this.restarts = 0;
      this.pairingRequested = false;
      clearTimeout(this.pairingTimer);
      // A backlog that built up before this socket: it does not read either until it drains.
      if (this.inbound.pressure) setReading(sock, false);
      clearTimeout(this.stableTimer);
      this.stableTimer = setTimeout(() => {
        if (gen === this.gen && this.open) this.attempt = 0;
      }, this.opts.stableAfterMs);
      this.stableTimer.unref?.();
      const me = idsOfJid(sock.user?.id);
      const lid = idsOfJid(sock.user?.lid).lid;
      this.peers.setOwn({ number: me.number, lid });
      await this.status({ status: 'CONNECTED', number: me.number });
    } else if (u.connection === 'close') {
      await this.onClose(statusCodeOf(u.lastDisconnect?.error), u.lastDisconnect?.error);
    }
  }
  private async onQr(qr: string, sock: BaileysSocket, gen: number): Promise<void> {
    const pairing = !!this.ctx.pairingNumber && this.neverPaired();
    // With a pairing code the QR events only mean "ready to register": codes are what is counted.
    if (!pairing) this.qrCount++;
    if (this.qrCount > this.opts.qrLimit || this.pairingCodes >= this.opts.qrLimit + 1) {
      // Nobody scanned: stop showing codes until the user asks again (start / new QR).
      this.running = false;
      await this.endSocket();
      await this.status({ status: 'TIMEOUT', retries: pairing ? this.pairingCodes : this.qrCount - 1 });
      return;
    }
    const pairingNumber = this.ctx.pairingNumber && normalizeNumber(this.ctx.pairingNumber);
    if (pairingNumber && this.neverPaired()) {
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
      if (gen !== this.gen) return;
      this.pairingCodes++;
      // A code nobody typed in time: a fresh registration with a new code (see onClose).
      clearTimeout(this.pairingTimer);
      this.pairingTimer = setTimeout(() => {
        if (gen === this.gen && this.running && this.neverPaired()) void this.restartPairing('code expired');
      }, this.opts.pairingCodeMs);
      this.pairingTimer.unref?.();
      await this.status({ status: 'PAIRING', qrcode: code, retries: this.pairingCodes });
      return;
    }
    await this.status({ status: 'qrcode', qrcode: qr, retries: this.qrCount });
  }

  private async onClose(code: number | undefined, error: unknown): Promise<void> {
    this.sock = undefined;
    this.open = false;
    clearTimeout(this.stableTimer);
    clearTimeout(this.pairingTimer);
    if (!this.running) return;
    this.ctx.log.info({ code, err: error instanceof Error ? error.message : undefined }, 'baileys: connection closed');
    if (this.ctx.pairingNumber && this.neverPaired() && code !== DisconnectReason.restartRequired) {
      // requestPairingCode saved `me` in the credentials: the next socket would try to log in with
      // them instead of registering, and the phone answers 401 (Baileys #2494). Start clean.
      await this.restartPairing(`code ${code ?? 'network'}`);
      return;
    }
    switch (code) {
      case DisconnectReason.restartRequired:
        // Normal right after pairing: WhatsApp wants a fresh login with the new credentials. Asked
        // again and again it is a loop: back off like any other close.
        if (++this.restarts <= RESTARTS_AT_ONCE) await this.connect();
        else this.scheduleReconnect(code);
        return;
      case 405:
        // WhatsApp refuses the version we announced: ask for the current one before reconnecting.
        this.opts.versionRejected?.();
        this.scheduleReconnect(code);
        return;
      case 402: {
        // A temporary ban: connecting again now only extends it. Shown, and tried after it ends.
        const delay = banDelayOf(error);
        await this.status({ status: 'DISCONNECTED', reason: 'tempBanned', retries: Math.ceil(delay / 60_000) }, true);
        const gen = ++this.gen;
        this.reconnectTimer = setTimeout(() => {
          if (gen === this.gen && this.running) void this.connect().catch(() => this.running && this.scheduleReconnect(undefined));
        }, delay);
        this.reconnectTimer.unref?.();
        return;
      }
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

  /** While registering by code: the credentials are wiped and a new socket asks for a new code. */
  /**
   * Credentials that never linked a phone. `registered` alone is not it: Baileys sets it only in the
   * code flow, so QR-linked credentials keep `registered: false`; `account` is set by both.
   */
  private neverPaired(): boolean {
    return !this.auth?.creds.registered && !this.auth?.creds.account;
  }

  private async restartPairing(why: string): Promise<void> {
    this.ctx.log.info({ why, codes: this.pairingCodes }, 'baileys: pairing code replaced');
    // Ended, not only forgotten: an open socket could still complete the old code (a ghost device).
    await this.endSocket();
    await this.wipe();
    if (!this.running) return;
    this.scheduleReconnect(undefined);
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

  // ---------------------------------------------------------------- commands

  private socket(): BaileysSocket {
    if (!this.open || !this.sock) throw new Error('WhatsApp session is not connected');
    return this.sock;
  }

  async send(cmd: SendCommand): Promise<{ timestamp: number }> {
    return this.commands.send(this.socket(), cmd);
  }

  async markRead(to: Peer, waMessageIds: string[]): Promise<void> {
    return this.commands.markRead(this.socket(), to, waMessageIds);
  }

  async edit(to: Peer, waMessageId: string, body: string): Promise<void> {
    return this.commands.edit(this.socket(), to, waMessageId, body);
  }

  async delete(to: Peer, waMessageId: string): Promise<void> {
    return this.commands.delete(this.socket(), to, waMessageId);
  }

  async react(to: Peer, waMessageId: string, emoji: string): Promise<void> {
    return this.commands.react(this.socket(), to, waMessageId, emoji);
  }

  async presence(to: Peer, state: 'composing' | 'recording' | 'paused'): Promise<void> {
    return this.commands.presence(this.socket(), to, state);
  }

  async rejectCall(callId: string, from: Peer): Promise<void> {
    return this.commands.rejectCall(this.socket(), callId, from);
  }

  async checkNumber(number: string): Promise<{ exists: boolean; number?: string; lid?: string }> {
    return this.commands.checkNumber(this.socket(), number);
  }

  async checkNumbers(numbers: string[]): Promise<{ number: string; exists: boolean }[]> {
    return this.commands.checkNumbers(this.socket(), numbers);
  }

  async addressBook(): Promise<{ number: string; name: string }[]> {
    return this.book.list();
  }
}
