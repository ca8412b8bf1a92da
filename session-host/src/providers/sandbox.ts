import { Readable } from 'node:stream';
import { WebSocket } from 'ws';
import type { Peer, SessionStatus } from '@balcao/shared';
import type { Provider, ProviderEvent, ProviderSession, SendCommand, SessionContext } from '../provider.js';
import { CLOSE, DEVICE_PATH, type DeviceRequest, type NetEvent, type ServerFrame } from '../sandbox/protocol.js';
import { toOggOpus } from './baileys/audio.js';

/**
 * The `sandbox` provider: a linked device of the simulated WhatsApp network that runs in the local
 * stack's sandbox server (`SANDBOX_URL`, see `src/sandbox/`). It behaves towards the session host
 * like the Baileys provider: QR codes until the phone scans, credentials (the device token) in the
 * AuthStore so a restart reconnects without a scan, reconnects with backoff when the link drops, and
 * every network event becomes an inbound event with a stable id, acknowledged to the network only
 * after it was published, so nothing is lost while the session host is away.
 */

export interface SandboxProviderOptions {
  /** The network's base URL; defaults to `process.env.SANDBOX_URL` when a session starts. */
  url?: string;
  /** QR codes shown without a scan before the session reports TIMEOUT and waits for the user. */
  qrLimit?: number;
  /** Reconnect backoff: `baseMs * 2^attempt`, capped at `maxMs`, with jitter. */
  reconnect?: { baseMs?: number; maxMs?: number };
  requestTimeoutMs?: number;
  /** Voice notes reach the phone as ogg/opus, as with the Baileys provider (ffmpeg by default). */
  transcodeVoice?: (audio: Buffer) => Promise<Buffer>;
}

export const AUTH_TOKEN = 'sandbox.token';
export const AUTH_NUMBER = 'sandbox.number';
/** Set while a stored token's link is not confirmed by the network yet (a scan in progress). */
export const AUTH_UNCONFIRMED = 'sandbox.unconfirmed';

export function createSandboxProvider(opts: SandboxProviderOptions = {}): Provider {
  return { name: 'sandbox', create: (ctx) => new SandboxSession(ctx, opts) };
}

export const sandboxProvider = createSandboxProvider();

type Pending = { resolve: (v: unknown) => void; reject: (e: Error) => void; timer: NodeJS.Timeout };

const RECEIPT_ACK = { delivered: 3, read: 4, played: 5 } as const;
/** Replays of an event that fails for good before it is dropped; transient failures retry forever. */
const MAX_EVENT_FAILURES = 3;

class PermanentError extends Error {}

/** Failures replaying cannot fix: a rejected event (schema) or media the network no longer has. */
function isPermanent(e: unknown): boolean {
  return e instanceof PermanentError || (e as Error)?.name === 'ZodError';
}

export class SandboxSession implements ProviderSession {
  private ws?: WebSocket;
  private ready = false;
  /** Wanted up: false after stop, logout, TIMEOUT, replaced (no reconnect then). */
  private active = false;
  /** Bumped whenever the current socket is abandoned, so late callbacks of an old one do nothing. */
  private generation = 0;
  private qrCount = 0;
  private attempt = 0;
  private reconnectTimer?: NodeJS.Timeout;
  private rid = 0;
  private requests = new Map<number, Pending>();
  /** Frames are handled one at a time, in order: events are acknowledged only after publishing. */
  private chain: Promise<void> = Promise.resolve();
  /** Last event handled in this process, to acknowledge replays without publishing them again. */
  private handled = { epoch: '', seq: 0 };
  /** Failures of the event at the head of the queue: a poisoned event must not block the chat forever. */
  private failures = { key: '', count: 0 };
  private failedSocket?: WebSocket;
  /** The stored token came from a scan the network has not confirmed yet (AUTH_UNCONFIRMED). */
  private unconfirmed = false;
  private readonly qrLimit: number;
  private readonly baseMs: number;
  private readonly maxMs: number;
  private readonly requestTimeoutMs: number;

  constructor(
    private ctx: SessionContext,
    private opts: SandboxProviderOptions,
  ) {
    this.qrLimit = opts.qrLimit ?? 5;
    this.baseMs = opts.reconnect?.baseMs ?? 1_000;
    this.maxMs = opts.reconnect?.maxMs ?? 60_000;
    this.requestTimeoutMs = opts.requestTimeoutMs ?? 15_000;
  }

  get connected() {
    return this.ready && this.ws?.readyState === WebSocket.OPEN;
  }

  private get baseUrl(): string {
    const url = this.opts.url ?? process.env.SANDBOX_URL;
    if (!url) throw new Error('SANDBOX_URL is not set: the sandbox provider needs the simulated network');
    return url;
  }

  async start() {
    if (this.active) return;
    this.active = true;
    this.qrCount = 0;
    this.attempt = 0;
    await this.session('OPENING');
    void this.connect();
  }

  async stop() {
    this.active = false;
    await this.drop(1000, 'device stopping');
  }

  async logout() {
    const linked = this.connected;
    this.active = false;
    if (linked) {
      // The network revokes the token; a failure here still leaves us logged out locally.
      await this.request({ op: 'logout' }).catch((e: Error) => this.ctx.log.warn({ err: e.message }, 'sandbox: logout request failed'));
    } else {
      // Offline: unlink over HTTP so the phone does not stay linked to a device that forgot it.
      const token = await this.ctx.auth.get(AUTH_TOKEN);
      if (token) {
        await fetch(new URL(`/connections/${this.ctx.connectionId}/disconnect`, this.baseUrl), {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ reason: 'loggedOut', token }),
        }).catch((e: Error) => this.ctx.log.warn({ err: e.message }, 'sandbox: offline logout failed'));
      }
    }
    await this.drop(1000, 'logged out');
    await this.ctx.auth.clear();
    await this.session('DISCONNECTED', { reason: 'loggedOut' });
  }

  async newQr() {
    this.active = false;
    await this.drop(1000, 'new QR requested');
    await this.ctx.auth.clear();
    this.active = true;
    this.qrCount = 0;
    this.attempt = 0;
    await this.session('OPENING');
    void this.connect();
  }

  async send(cmd: SendCommand): Promise<{ timestamp: number }> {
    const to = this.numberOf(cmd.to);
    let media: Extract<DeviceRequest, { op: 'send' }>['media'];
    if (cmd.media) {
      const data = await this.ctx.readMedia(cmd.media.key);
      if (cmd.media.mediaType === 'audio' && cmd.media.ptt) {
        // WhatsApp plays voice notes only as mono ogg/opus; the phone gets what real WhatsApp would.
        const ogg = await (this.opts.transcodeVoice ?? toOggOpus)(data);
        media = { mediaType: 'audio', mimetype: 'audio/ogg; codecs=opus', fileName: cmd.media.fileName, ptt: true, dataBase64: ogg.toString('base64') };
      } else {
        media = { mediaType: cmd.media.mediaType, mimetype: cmd.media.mimetype, fileName: cmd.media.fileName, ptt: cmd.media.ptt, dataBase64: data.toString('base64') };
      }
    }
    const res = (await this.request({ op: 'send', id: cmd.waMessageId, to, body: cmd.body, media, quotedId: cmd.quotedWaId, vcard: cmd.vcard })) as { timestamp: number };
    return { timestamp: res.timestamp };
  }

  async markRead(to: Peer, waMessageIds: string[]) {
    await this.request({ op: 'read', peer: this.numberOf(to), ids: waMessageIds });
  }

  async edit(to: Peer, waMessageId: string, body: string) {
    await this.request({ op: 'edit', peer: this.numberOf(to), id: waMessageId, body });
  }

  async delete(to: Peer, waMessageId: string) {
    await this.request({ op: 'delete', peer: this.numberOf(to), id: waMessageId });
  }

  async react(to: Peer, waMessageId: string, emoji: string) {
    await this.request({ op: 'react', peer: this.numberOf(to), id: waMessageId, emoji });
  }

  async presence(to: Peer, state: 'composing' | 'recording' | 'paused') {
    await this.request({ op: 'presence', peer: this.numberOf(to), state });
  }

  async rejectCall(callId: string, from: Peer) {
    await this.request({ op: 'rejectCall', callId, from: this.numberOf(from) });
  }

  async checkNumber(number: string) {
    return (await this.request({ op: 'checkNumber', number })) as { exists: boolean; number?: string };
  }

  async checkNumbers(numbers: string[]) {
    return (await this.request({ op: 'checkNumbers', numbers })) as { number: string; exists: boolean }[];
  }

  async addressBook() {
    return (await this.request({ op: 'addressBook' })) as { number: string; name: string }[];
  }

  // ---------------------------------------------------------------- socket

  private numberOf(peer: Peer): string {
    if (peer.groupId) throw new Error('sandbox: groups are not simulated');
    if (!peer.number) throw new Error('sandbox: the peer needs a phone number');
    return peer.number;
  }

  private async connect() {
    const gen = ++this.generation;
    let url: URL;
    let token: string | undefined;
    try {
      token = await this.ctx.auth.get(AUTH_TOKEN);
      this.unconfirmed = !!token && !!(await this.ctx.auth.get(AUTH_UNCONFIRMED));
      url = new URL(DEVICE_PATH, this.baseUrl.replace(/^http/, 'ws'));
    } catch (e) {
      this.ctx.log.error({ err: (e as Error).message }, 'sandbox: cannot connect');
      if (gen === this.generation && this.active) this.scheduleReconnect();
      return;
    }
    if (gen !== this.generation || !this.active) return;
    url.searchParams.set('connectionId', String(this.ctx.connectionId));
    if (token) url.searchParams.set('token', token);
    const ws = new WebSocket(url);
    this.ws = ws;
    ws.on('open', () => {
      if (!token && this.ctx.pairingNumber) ws.send(JSON.stringify({ t: 'pair', number: this.ctx.pairingNumber.replace(/\D/g, '') }));
    });
    ws.on('message', (data) => {
      let frame: ServerFrame;
      try {
        frame = JSON.parse(String(data)) as ServerFrame;
      } catch {
        return this.ctx.log.warn('sandbox: a frame that is not JSON');
      }
      // Answers are not queued behind events: a send must not wait for media downloads.
      if (frame.t === 'res') return this.answer(frame);
      this.chain = this.chain.then(() => this.onFrame(ws, frame));
    });
    ws.on('error', (e) => this.ctx.log.debug({ err: e.message }, 'sandbox: socket error'));
    ws.on('close', (code, reason) => {
      this.chain = this.chain.then(() => this.onClose(ws, code, reason.toString()));
    });
  }

  /**
   * Closes the current socket without any status report; resolves once it is closed and (unless
   * called from a frame handler, which runs inside the chain) once queued frames are handled.
   */
  private async drop(code: number, reason: string, fromChain = false) {
    this.generation++;
    clearTimeout(this.reconnectTimer);
    this.reconnectTimer = undefined;
    const ws = this.ws;
    this.ws = undefined;
    this.ready = false;
    this.failRequests('the sandbox session stopped');
    if (ws && ws.readyState !== WebSocket.CLOSED) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(() => (ws.terminate(), resolve()), 2_000);
        ws.once('close', () => (clearTimeout(timer), resolve()));
        if (ws.readyState === WebSocket.CONNECTING) ws.terminate();
        else ws.close(code, reason);
      });
    }
    // Bounded: a publish stuck on a dead queue must not keep a shutdown (SIGTERM) waiting forever.
    if (!fromChain) await Promise.race([this.chain, new Promise((r) => setTimeout(r, 5_000).unref())]);
  }

  private scheduleReconnect() {
    const delay = Math.min(this.maxMs, this.baseMs * 2 ** this.attempt);
    this.attempt = Math.min(this.attempt + 1, 30);
    // Jitter (half to full delay) so many sessions do not reconnect in lockstep after an outage.
    const wait = Math.round(delay / 2 + Math.random() * (delay / 2));
    this.ctx.log.info({ wait }, 'sandbox: reconnecting');
    clearTimeout(this.reconnectTimer);
    this.reconnectTimer = setTimeout(() => void this.connect(), wait);
  }

  private async onClose(ws: WebSocket, code: number, reason: string) {
    if (ws !== this.ws) return; // a socket we abandoned ourselves
    const wasReady = this.ready;
    this.ws = undefined;
    this.ready = false;
    this.failRequests(`the sandbox network closed the connection (${code} ${reason})`);
    if (!this.active) return;
    if (code === CLOSE.LOGGED_OUT && this.unconfirmed) {
      // A token from a scan that never completed (the device stopped before confirming): the phone
      // was not linked, so this is a fresh device that needs a QR, not a logout.
      await this.forgetUnconfirmed();
      this.scheduleReconnect();
    } else if (code === CLOSE.LOGGED_OUT) {
      this.active = false;
      await this.ctx.auth.clear();
      await this.session('DISCONNECTED', { reason: 'loggedOut' });
    } else if (code === CLOSE.REPLACED) {
      // Another device took over: reconnecting would only take it back and flap (440 on WhatsApp).
      this.active = false;
      this.ctx.log.warn('sandbox: replaced by another device; not reconnecting');
      await this.session('DISCONNECTED', { reason: 'replaced' });
    } else if (code === CLOSE.BAD_REQUEST) {
      this.active = false;
      await this.session('DISCONNECTED', { reason });
    } else {
      if (wasReady) await this.session('OPENING', { reason: 'connectionLost' });
      this.scheduleReconnect();
    }
  }

  private async onFrame(ws: WebSocket, frame: ServerFrame) {
    // Frames of an old socket, or behind a failed event, are replayed on the next socket: handling
    // them now would acknowledge past the failed one (acks are cumulative) and lose it.
    if (ws !== this.ws || ws === this.failedSocket) return;
    try {
      switch (frame.t) {
        case 'qr':
          if (++this.qrCount > this.qrLimit) {
            // Nobody is scanning: stop showing codes until the user asks again ("new QR"/"try again").
            this.active = false;
            await this.drop(1000, 'QR limit reached', true);
            await this.session('TIMEOUT', { retries: this.qrCount - 1 });
            return;
          }
          await this.session('qrcode', { qrcode: frame.qr, retries: this.qrCount });
          return;
        case 'pairingCode':
          await this.session('PAIRING', { qrcode: frame.code });
          return;
        case 'linked':
          // Durable before the link counts: the network completes the scan only once we confirm,
          // so a restart never leaves the phone linked to credentials nobody kept.
          await this.ctx.auth.set({ [AUTH_TOKEN]: frame.token, [AUTH_NUMBER]: frame.number, [AUTH_UNCONFIRMED]: '1' });
          this.unconfirmed = true;
          if (ws === this.ws && ws.readyState === WebSocket.OPEN) ws.send(JSON.stringify({ t: 'linked', token: frame.token }));
          // Stopped while storing: the network cannot hear the confirmation, so the phone stays
          // unlinked; a token kept now would only be refused on the next start.
          else await this.forgetUnconfirmed();
          return;
        case 'ready':
          if (this.unconfirmed) {
            await this.ctx.auth.set({ [AUTH_UNCONFIRMED]: null });
            this.unconfirmed = false;
          }
          this.ready = true;
          this.qrCount = 0;
          this.attempt = 0;
          await this.session('CONNECTED', { number: frame.number });
          return;
        case 'event': {
          const seen = this.handled.epoch === frame.epoch && frame.seq <= this.handled.seq;
          if (!seen) {
            const event = await this.toProviderEvent(frame.event, `sandbox-${frame.epoch}-${this.ctx.connectionId}-${frame.seq}`);
            await this.ctx.emit(event);
            this.handled = { epoch: frame.epoch, seq: frame.seq };
          }
          if (ws.readyState === WebSocket.OPEN) ws.send(JSON.stringify({ t: 'ack', seq: frame.seq }));
          return;
        }
      }
    } catch (e) {
      const err = (e as Error).message;
      if (frame.t === 'event' && isPermanent(e)) {
        const key = `${frame.epoch}:${frame.seq}`;
        this.failures = { key, count: this.failures.key === key ? this.failures.count + 1 : 1 };
        if (this.failures.count >= MAX_EVENT_FAILURES) {
          // An event that can never be published (invalid, media gone): the rest of the chat must flow.
          this.ctx.log.error({ err, seq: frame.seq, kind: frame.event.kind }, 'sandbox: event dropped after repeated failures');
          if (ws.readyState === WebSocket.OPEN) ws.send(JSON.stringify({ t: 'ack', seq: frame.seq }));
          return;
        }
      }
      // Not acknowledged: drop the link so the network replays from this event, in order.
      this.ctx.log.error({ err, frame: frame.t }, 'sandbox: handling a network frame failed');
      this.failedSocket = ws;
      ws.close(1011, 'device failed to handle an event');
    }
  }

  private async forgetUnconfirmed() {
    await this.ctx.auth.set({ [AUTH_TOKEN]: null, [AUTH_NUMBER]: null, [AUTH_UNCONFIRMED]: null });
    this.unconfirmed = false;
  }

  private async toProviderEvent(e: NetEvent, eventId: string): Promise<ProviderEvent> {
    switch (e.kind) {
      case 'message': {
        let media;
        if (e.media) {
          // Media first: the message event names a stored object, never the network's copy.
          const r = await fetch(new URL(e.media.path, this.baseUrl));
          if (!r.ok || !r.body) {
            const msg = `media download failed: HTTP ${r.status}`;
            throw r.status >= 400 && r.status < 500 ? new PermanentError(msg) : new Error(msg);
          }
          // Streamed to storage like the Baileys provider's files: a large one never sits in memory whole.
          const stored = await this.ctx.storeMediaStream(Readable.fromWeb(r.body as never), e.media.mimetype, e.media.fileName);
          media = e.media.ptt ? { ...stored, ptt: true } : stored;
        }
        return {
          type: 'message',
          eventId,
          waMessageId: e.id,
          chat: { number: e.from, ...(e.name ? { name: e.name } : {}) },
          fromMe: e.fromMe === true,
          body: e.body,
          ...(e.media ? { mediaType: e.media.mediaType as never, media } : {}),
          ...(e.quotedId ? { quotedWaId: e.quotedId } : {}),
          timestamp: e.timestamp,
        };
      }
      case 'receipt':
        return { type: 'ack', eventId, chat: { number: e.peer }, waMessageIds: e.ids, ack: RECEIPT_ACK[e.status] };
      case 'edit':
        return { type: 'edit', eventId, chat: { number: e.from }, waMessageId: e.targetId, body: e.body };
      case 'delete':
        return { type: 'delete', eventId, chat: { number: e.from }, waMessageId: e.targetId };
      case 'reaction':
        return { type: 'reaction', eventId, chat: { number: e.from }, sender: { number: e.from }, fromMe: false, waMessageId: e.targetId, emoji: e.emoji };
      case 'call':
        return { type: 'call', eventId, chat: { number: e.from }, callId: e.callId, isVideo: e.isVideo, timestamp: e.timestamp };
      case 'contact':
        return { type: 'contact', eventId, peer: { number: e.number }, name: e.name };
    }
  }

  private async session(status: SessionStatus, extra: { qrcode?: string; number?: string; retries?: number; reason?: string } = {}) {
    try {
      await this.ctx.emit({ type: 'session', status, ...extra });
    } catch (e) {
      this.ctx.log.error({ err: (e as Error).message, status }, 'sandbox: publishing the session status failed');
    }
  }

  // ---------------------------------------------------------------- requests

  private request(req: DeviceRequest): Promise<unknown> {
    const ws = this.ws;
    if (!this.connected || !ws) return Promise.reject(new Error('sandbox: the WhatsApp session is not connected'));
    const rid = ++this.rid;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.requests.delete(rid);
        reject(new Error(`sandbox: no answer to ${req.op} within ${this.requestTimeoutMs} ms`));
      }, this.requestTimeoutMs);
      this.requests.set(rid, { resolve, reject, timer });
      ws.send(JSON.stringify({ t: 'req', rid, ...req }));
    });
  }

  private answer(frame: Extract<ServerFrame, { t: 'res' }>) {
    const p = this.requests.get(frame.rid);
    if (!p) return;
    this.requests.delete(frame.rid);
    clearTimeout(p.timer);
    if (frame.ok) p.resolve(frame.data);
    else p.reject(new Error(`sandbox: ${frame.error}`));
  }

  private failRequests(why: string) {
    for (const [rid, p] of this.requests) {
      clearTimeout(p.timer);
      p.reject(new Error(`sandbox: ${why}`));
      this.requests.delete(rid);
    }
  }
}
