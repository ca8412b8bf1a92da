import {
  DisconnectReason,
  makeCacheableSignalKeyStore,
  proto,
  type AuthenticationState,
  type BaileysEventMap,
  type UserFacingSocketConfig,
  type WAMessageKey,
} from '@whiskeysockets/baileys';
import { normalizeNumber, type Peer, type SessionStatus } from '@balcao/shared';
import type { ProviderSession, SendCommand, SessionContext } from '../../provider.js';
import { AddressBook } from './address-book.js';
import { loadAuthState, saveCreds } from './auth.js';
import { KeyCache } from './caches.js';
import { idsOfJid, peerOfJids } from './convert.js';
import { InboundEvents } from './inbound.js';
import { baileysLogger, type BaileysLogger } from './logger.js';
import { OutboundCommands } from './outbound.js';
import { PeerDirectory } from './peers.js';
import type { BaileysSocket, SessionOptions } from './socket.js';

/*
 * The session's lifecycle: the socket (connect, QR and pairing code, close reasons, reconnects with
 * backoff) and the wiring of Baileys' events to the inbound mapping (`inbound.ts`); the host's
 * commands go to `outbound.ts` once the socket is open.
 */

export const BACKOFF_BASE_MS = 1_000;
export const BACKOFF_CAP_MS = 60_000;
const HISTORY_KEPT = new Set<number>([
  proto.HistorySync.HistorySyncType.INITIAL_BOOTSTRAP,
  proto.HistorySync.HistorySyncType.PUSH_NAME,
  proto.HistorySync.HistorySyncType.NON_BLOCKING_DATA,
]);

/**
 * Exponential backoff with "equal jitter": half the step is fixed (so delays grow), half random
 * (so many sessions of a task that lost its network do not reconnect in lockstep); capped.
 */
export function backoffDelay(attempt: number, random: () => number = Math.random): number {
  const step = Math.min(BACKOFF_CAP_MS, BACKOFF_BASE_MS * 2 ** Math.max(0, attempt - 1));
  return Math.min(BACKOFF_CAP_MS, Math.round(step / 2 + random() * (step / 2)));
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
  private credsWrite: Promise<void> = Promise.resolve();
  private qrCount = 0;
  private pairingRequested = false;
  private attempt = 0;
  private reconnectTimer?: NodeJS.Timeout;
  private stableTimer?: NodeJS.Timeout;
  private lastStatus?: SessionStatus;
  /** Inbound events are handled one after another so a chat's order survives media downloads. */
  private inbound: Promise<void> = Promise.resolve();
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
    this.events = new InboundEvents(ctx, opts, this.logger, this.peers, this.book);
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
    this.pairingRequested = false;
    this.attempt = 0;
    clearTimeout(this.reconnectTimer);
    await this.connect();
  }

  async stop(): Promise<void> {
    this.running = false;
    await this.endSocket();
    await this.book.save();
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
    this.book.reset();
  }

  private async connect(): Promise<void> {
    const gen = ++this.gen;
    clearTimeout(this.reconnectTimer);
    if (!this.auth) {
      const raw = await loadAuthState(this.ctx.auth);
      // The cache in front answers Baileys' many repeated reads; writes still go through to the table.
      this.auth = { creds: raw.creds, keys: makeCacheableSignalKeyStore(raw.keys, this.logger, new KeyCache(20_000)) };
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
      getMessage: async (key) => {
        if (!key.id) return undefined;
        const stored = await this.ctx.getMessage(key.id);
        return stored ? proto.Message.create({ conversation: stored.body }) : undefined;
      },
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
    const queued = <T extends keyof BaileysEventMap>(event: T, fn: (arg: BaileysEventMap[T]) => Promise<void>) =>
      on(event, (arg) => this.enqueue(event, () => fn(arg)));
    const events = this.events;

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
      for (const m of messages) await events.onMessage(m, sock);
    });
    queued('messages.update', async (updates) => {
      for (const u of updates) await events.onMessageUpdate(u);
    });
    queued('message-receipt.update', async (receipts) => {
      for (const r of receipts) await events.onReceipt(r);
    });
    queued('messages.reaction', async (reactions) => {
      for (const r of reactions) {
        if (!r.reaction.key || !r.key.id) continue;
        await events.emitReaction(r.reaction.key as WAMessageKey, r.key.id, r.reaction.text ?? '');
      }
    });
    queued('call', async (calls) => {
      for (const c of calls) await events.onCall(c);
    });
    queued('contacts.upsert', async (contacts) => {
      for (const c of contacts) await events.onContact(c, sock);
    });
    queued('contacts.update', async (contacts) => {
      for (const c of contacts) await events.onContact(c, sock);
    });
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
      if (me.number && lid) this.peers.rememberPair({ number: me.number, lid });
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

  async rejectCall(callId: string, from: Peer): Promise<void> {
    return this.commands.rejectCall(this.socket(), callId, from);
  }

  async checkNumber(number: string): Promise<{ exists: boolean; number?: string; lid?: string }> {
    return this.commands.checkNumber(this.socket(), number);
  }

  async addressBook(): Promise<{ number: string; name: string }[]> {
    return this.book.list();
  }
}
