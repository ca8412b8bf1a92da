import crypto from 'node:crypto';
import type http from 'node:http';
import path from 'node:path';
import type { Duplex } from 'node:stream';
import { WebSocket, WebSocketServer } from 'ws';
import type { MediaFiles } from './media.js';
import { CLOSE, mediaTypeOf, type DeviceFrame, type DeviceRequest, type NetEvent, type SendRequest, type ServerFrame } from './protocol.js';
import type { Account, ChatMessage, NetworkStore } from './state.js';
import { checkConnectionId, checkNumber, ID_RE, SandboxError } from './validation.js';

/**
 * The linked devices: the session host's `sandbox` provider on the `/device` WebSocket, its QR and
 * pairing code, the link the phone makes by scanning, the events delivered to it in order until it
 * acknowledges them, and the requests it makes (send, read, edit, delete, react, ...).
 */

/** What only exists while the process runs: the device socket and its QR. */
interface Live {
  device?: WebSocket;
  /** `linking`: the phone scanned and the device is storing its credentials (`linked` frame, not yet confirmed). */
  mode?: 'qr' | 'pairing' | 'linking' | 'linked';
  /** Settles the scan waiting for the device to confirm it kept the credentials (true) or to go away (false). */
  linkWaiter?: { token: string; settle: (stored: boolean) => void };
  qr?: string;
  qrTimer?: NodeJS.Timeout;
  pairingCode?: string;
  pairingNumber?: string;
}

export type LinkStatus = 'none' | 'qr' | 'pairing' | 'linked';

export interface ConnectionView {
  id: number;
  /** `none` no link and no device waiting; `qr`/`pairing` a device is waiting for the phone; `linked`. */
  status: LinkStatus;
  /** Whether a device (session host) is connected to the network right now. */
  online: boolean;
  qr: string | null;
  pairingCode: string | null;
  number: string | null;
  /** Events waiting for the device to acknowledge them. */
  pending: number;
}

export interface DeviceOptions {
  qrIntervalMs: number;
  linkTimeoutMs: number;
  log: (line: string) => void;
}

export class DeviceLinks {
  private live = new Map<number, Live>();
  private wss = new WebSocketServer({ noServer: true });

  constructor(
    private readonly store: NetworkStore,
    private readonly media: MediaFiles,
    private readonly opts: DeviceOptions,
  ) {}

  /** Tells every device the network is going away (it reconnects later). */
  disconnectAll() {
    for (const l of this.live.values()) {
      clearInterval(l.qrTimer);
      // 1001 "going away": the device sees a lost connection and reconnects later.
      l.device?.close(1001, 'network stopping');
    }
  }

  async closeServer() {
    await new Promise<void>((resolve) => this.wss.close(() => resolve()));
    for (const ws of this.wss.clients) ws.terminate();
  }

  private liveOf(id: number): Live {
    let l = this.live.get(id);
    if (!l) this.live.set(id, (l = {}));
    return l;
  }

  // ---------------------------------------------------------------- links

  view(id: number): ConnectionView {
    const a = this.store.findAccount(id);
    const l = this.live.get(id);
    const online = !!l?.device && l.device.readyState === WebSocket.OPEN;
    const waiting = online && (l?.mode === 'qr' || l?.mode === 'pairing');
    const status: LinkStatus = waiting ? (l!.mode as 'qr' | 'pairing') : a?.linked ? 'linked' : 'none';
    return {
      id,
      status,
      online,
      qr: status === 'qr' ? (l?.qr ?? null) : null,
      pairingCode: status === 'pairing' ? (l?.pairingCode ?? null) : null,
      number: a?.number ?? null,
      pending: a?.pending.length ?? 0,
    };
  }

  list(): ConnectionView[] {
    const ids = new Set([...this.store.accountIds(), ...this.live.keys()]);
    return [...ids].sort((x, y) => x - y).map((id) => this.view(id));
  }

  /**
   * The phone scans the QR (or confirms the pairing code). As on WhatsApp, the link counts only once
   * the device has kept its credentials: the network sends `linked` with the token and waits for the
   * device to confirm it; a device that goes away first (a restart at that moment) leaves the phone
   * unlinked and the scan answers 409, so the phone and the device never disagree about the link.
   */
  async scan(id: number, body: { number?: unknown; code?: unknown } = {}): Promise<{ number: string }> {
    const l = this.live.get(id);
    if (!l?.device || (l.mode !== 'qr' && l.mode !== 'pairing')) throw new SandboxError(409, `no QR code is showing for connection ${id} (is the session host running and the connection waiting for a scan?)`);
    if (l.mode === 'pairing' && body.code !== undefined && String(body.code).replace(/\W/g, '').toUpperCase() !== l.pairingCode) {
      throw new SandboxError(400, `pairing code "${body.code}" does not match the one showing`);
    }
    const a = this.store.account(id);
    const number = body.number !== undefined && body.number !== null && body.number !== '' ? checkNumber(body.number) : (l.pairingNumber ?? a.number ?? `55119${String(id).padStart(8, '0')}`);
    const token = crypto.randomBytes(24).toString('base64url');
    const device = l.device;
    clearInterval(l.qrTimer);
    Object.assign(l, { mode: 'linking', qr: undefined, qrTimer: undefined, pairingCode: undefined });
    const stored = await new Promise<boolean>((resolve) => {
      const timer = setTimeout(() => settle(false), this.opts.linkTimeoutMs);
      const onClose = () => settle(false);
      const settle = (ok: boolean) => {
        clearTimeout(timer);
        device.off('close', onClose);
        if (l.linkWaiter?.token === token) l.linkWaiter = undefined;
        resolve(ok);
      };
      l.linkWaiter = { token, settle };
      device.once('close', onClose);
      this.sendFrame(device, { t: 'linked', number, token });
    });
    if (!stored || l.device !== device) {
      // The device did not keep the link: it must start over with a new QR (a silent device is closed).
      if (l.device === device && device.readyState === WebSocket.OPEN) device.close(1011, 'the link was not confirmed');
      this.opts.log(`connection ${id}: the device went away before the link completed`);
      throw new SandboxError(409, `the device of connection ${id} did not complete the link (it restarted or went away): scan the new QR code`);
    }
    a.linked = true;
    a.number = number;
    a.token = token;
    // Durable before the phone is told it is linked: a stop right now must not forget the link.
    this.store.flush();
    this.ready(a, l);
    this.opts.log(`connection ${id} linked as ${number}`);
    return { number };
  }

  /** `token`: only revoke if it is still the account's token (a device logging out while offline). */
  disconnect(id: number, reason: unknown, token?: unknown) {
    const l = this.live.get(id);
    const online = l?.device?.readyState === WebSocket.OPEN;
    switch (reason) {
      case 'loggedOut': {
        const a = this.store.findAccount(id);
        if (token !== undefined && a?.token !== token) return { ok: true, revoked: false };
        if (!a?.linked && !online) throw new SandboxError(409, `connection ${id} is neither linked nor connected`);
        this.revoke(id, 'logged out on the phone');
        return { ok: true };
      }
      case 'connectionLost':
        if (!online) throw new SandboxError(409, `no device is connected for connection ${id}`);
        // No close frame, like a network that drops: the device only sees the socket die.
        l!.device!.terminate();
        return { ok: true };
      case 'replaced':
        if (!online) throw new SandboxError(409, `no device is connected for connection ${id}`);
        l!.device!.close(CLOSE.REPLACED, 'replaced by another device');
        return { ok: true };
      default:
        throw new SandboxError(400, `reason must be "loggedOut", "connectionLost" or "replaced", got ${JSON.stringify(reason)}`);
    }
  }

  private revoke(id: number, why: string) {
    const a = this.store.findAccount(id);
    if (a) {
      a.linked = false;
      a.token = undefined;
      this.store.save();
    }
    const l = this.live.get(id);
    l?.device?.close(CLOSE.LOGGED_OUT, why);
  }

  // ---------------------------------------------------------------- delivery

  /** Queues an event for the device and sends it at once when the device is linked and online. */
  push(a: Account, event: NetEvent) {
    const entry = { seq: ++a.seq, at: Date.now(), event };
    a.pending.push(entry);
    this.store.save();
    const l = this.live.get(a.id);
    if (l?.mode === 'linked' && l.device) this.sendFrame(l.device, { t: 'event', seq: entry.seq, epoch: this.store.epoch, at: entry.at, event });
  }

  // ---------------------------------------------------------------- devices

  /** For the HTTP server's `upgrade` event on `/device`. */
  handleUpgrade(req: http.IncomingMessage, socket: Duplex, head: Buffer) {
    if (this.store.stopped) return socket.destroy();
    this.wss.handleUpgrade(req, socket, head, (ws) => this.onDevice(ws, new URL(req.url ?? '/', 'http://local')));
  }

  private sendFrame(ws: WebSocket, frame: ServerFrame) {
    if (ws.readyState === WebSocket.OPEN) ws.send(JSON.stringify(frame));
  }

  private onDevice(ws: WebSocket, url: URL) {
    let id: number;
    try {
      id = checkConnectionId(url.searchParams.get('connectionId') ?? undefined);
    } catch (e) {
      return ws.close(CLOSE.BAD_REQUEST, (e as Error).message.slice(0, 120));
    }
    const token = url.searchParams.get('token');
    const a = this.store.account(id);
    if (token && (!a.linked || a.token !== token)) return ws.close(CLOSE.LOGGED_OUT, 'device token revoked or unknown');
    const l = this.liveOf(id);
    // One linked device per account: the newcomer takes over, as on WhatsApp.
    if (l.device && l.device !== ws) l.device.close(CLOSE.REPLACED, 'replaced by another device');
    clearInterval(l.qrTimer);
    Object.assign(l, { device: ws, mode: undefined, qr: undefined, qrTimer: undefined, pairingCode: undefined, pairingNumber: undefined });
    ws.on('close', () => {
      if (l.device !== ws) return;
      clearInterval(l.qrTimer);
      Object.assign(l, { device: undefined, mode: undefined, qr: undefined, qrTimer: undefined, pairingCode: undefined });
    });
    ws.on('error', (e) => this.opts.log(`device of connection ${id}: ${e.message}`));
    ws.on('message', (data) => {
      let frame: DeviceFrame;
      try {
        frame = JSON.parse(String(data)) as DeviceFrame;
      } catch {
        return this.opts.log(`device of connection ${id} sent a frame that is not JSON`);
      }
      void this.onFrame(id, ws, frame);
    });
    if (token) {
      this.ready(a, l);
    } else {
      l.mode = 'qr';
      const showQr = () => {
        l.qr = `2@${crypto.randomBytes(24).toString('base64')},${crypto.randomBytes(16).toString('base64')},sandbox-${id}`;
        this.sendFrame(ws, { t: 'qr', qr: l.qr });
      };
      showQr();
      l.qrTimer = setInterval(showQr, this.opts.qrIntervalMs);
    }
  }

  /** The device is the linked device: tell it, then replay what it has not acknowledged. */
  private ready(a: Account, l: Live) {
    l.mode = 'linked';
    const ws = l.device!;
    this.sendFrame(ws, { t: 'ready', number: a.number! });
    for (const p of a.pending) this.sendFrame(ws, { t: 'event', seq: p.seq, epoch: this.store.epoch, at: p.at, event: p.event });
  }

  private async onFrame(id: number, ws: WebSocket, frame: DeviceFrame) {
    const l = this.live.get(id);
    if (l?.device !== ws) return; // a replaced device's late frames
    const a = this.store.account(id);
    if (frame.t === 'ack') {
      const before = a.pending.length;
      a.pending = a.pending.filter((p) => p.seq > frame.seq);
      if (a.pending.length !== before) this.store.save();
      return;
    }
    if (frame.t === 'linked') {
      // The device kept the credentials of the link the phone is making.
      if (l.mode === 'linking' && l.linkWaiter?.token === frame.token) l.linkWaiter.settle(true);
      return;
    }
    if (frame.t === 'pair') {
      if (l.mode !== 'qr') return;
      clearInterval(l.qrTimer);
      let number: string;
      try {
        number = checkNumber(frame.number);
      } catch {
        return ws.close(CLOSE.BAD_REQUEST, 'pairing number must have 10 to 15 digits');
      }
      Object.assign(l, { mode: 'pairing', qr: undefined, qrTimer: undefined, pairingNumber: number });
      l.pairingCode = Array.from(crypto.randomBytes(8), (b) => 'ABCDEFGHJKLMNPQRSTUVWXYZ23456789'[b % 32]).join('');
      this.sendFrame(ws, { t: 'pairingCode', code: l.pairingCode });
      return;
    }
    if (frame.t !== 'req') return;
    const { rid, t: _t, ...req } = frame;
    try {
      if (l.mode !== 'linked' || !a.linked) throw new SandboxError(409, 'the device is not linked');
      const data = await this.request(a, req as DeviceRequest);
      // Like WhatsApp's server ack: a sent message is stored before the device hears "sent".
      await this.store.durable();
      this.sendFrame(ws, { t: 'res', rid, ok: true, data });
    } catch (e) {
      this.sendFrame(ws, { t: 'res', rid, ok: false, error: (e as Error).message });
    }
  }

  private async request(a: Account, req: DeviceRequest): Promise<unknown> {
    const inChat = (peer: string, msgId: string) => {
      const m = a.chats[checkNumber(peer, 'peer')]?.messages.find((x) => x.id === msgId);
      if (!m) throw new SandboxError(404, `message ${msgId} is not in the conversation with ${peer}`);
      return m;
    };
    switch (req.op) {
      case 'send':
        return this.deviceSend(a, req);
      case 'read': {
        const chat = a.chats[checkNumber(req.peer, 'peer')];
        for (const m of chat?.messages ?? []) if (!m.fromMe && req.ids.includes(m.id) && m.ack < 4) m.ack = 4;
        this.store.save();
        return null;
      }
      case 'edit': {
        const m = inChat(req.peer, req.id);
        if (!m.fromMe) throw new SandboxError(400, 'only our own messages can be edited');
        if (m.deleted) throw new SandboxError(409, 'the message is deleted');
        Object.assign(m, { body: req.body, edited: true });
        this.store.save();
        return null;
      }
      case 'delete': {
        const m = inChat(req.peer, req.id);
        if (!m.fromMe) throw new SandboxError(400, 'only our own messages can be deleted for everyone');
        m.deleted = true;
        this.store.save();
        return null;
      }
      case 'react': {
        const m = inChat(req.peer, req.id);
        m.reactions = m.reactions.filter((r) => !r.fromMe);
        if (req.emoji) m.reactions.push({ emoji: req.emoji, fromMe: true });
        this.store.save();
        return null;
      }
      case 'presence': {
        const chat = a.chats[checkNumber(req.peer, 'peer')];
        if (chat) chat.presence = { state: req.state === 'recording' ? 'recording' : req.state === 'paused' ? 'paused' : 'composing', at: Date.now() };
        return null;
      }
      case 'rejectCall': {
        const call = a.calls.find((c) => c.id === req.callId);
        if (!call) throw new SandboxError(404, `no call ${req.callId}`);
        call.status = 'rejected';
        this.store.save();
        return null;
      }
      case 'checkNumber': {
        const digits = String(req.number ?? '').replace(/\D/g, '');
        return this.store.onWhatsApp(digits, a) ? { exists: true, number: digits } : { exists: false };
      }
      case 'checkNumbers': {
        if (!Array.isArray(req.numbers) || req.numbers.length > 100) throw new SandboxError(400, 'numbers: at most 100');
        return req.numbers.map((raw) => {
          const number = String(raw ?? '').replace(/\D/g, '');
          return { number, exists: this.store.onWhatsApp(number, a) };
        });
      }
      case 'addressBook':
        return a.contacts;
      case 'logout':
        // Answered first so the device knows it was its own request, then the link ends.
        setImmediate(() => this.revoke(a.id, 'logged out by the device'));
        return null;
      default:
        throw new SandboxError(400, `unknown operation ${(req as { op: string }).op}`);
    }
  }

  private async deviceSend(a: Account, req: SendRequest) {
    if (typeof req.id !== 'string' || !ID_RE.test(req.id)) throw new SandboxError(400, 'a message id is required');
    const to = checkNumber(req.to, 'to');
    if (!this.store.onWhatsApp(to, a)) throw new SandboxError(400, `${to} is not on WhatsApp`);
    const chat = this.store.chat(a, to);
    // A retried command: the message is already on the phone, nothing is sent twice.
    const existing = chat.messages.find((m) => m.id === req.id);
    if (existing) return { timestamp: existing.timestamp };
    let media: Partial<ChatMessage> | undefined;
    if (req.media) {
      let data: Buffer;
      if (req.media.dataBase64) data = Buffer.from(req.media.dataBase64, 'base64');
      else if (req.media.url) {
        const r = await fetch(req.media.url);
        if (!r.ok) throw new SandboxError(400, `media download failed: HTTP ${r.status}`);
        data = Buffer.from(await r.arrayBuffer());
      } else throw new SandboxError(400, 'media needs dataBase64 or url');
      const fileName = req.media.fileName ? path.basename(req.media.fileName) : undefined;
      media = { ...this.media.write(a.id, data, fileName), mediaType: req.media.mediaType || mediaTypeOf(req.media.mimetype, fileName), mimetype: req.media.mimetype, fileName, ptt: req.media.ptt || undefined };
    }
    const message: ChatMessage = {
      id: req.id,
      fromMe: true,
      body: req.body ?? '',
      ...media,
      vcard: req.vcard,
      ack: 2,
      edited: false,
      deleted: false,
      reactions: [],
      quotedId: req.quotedId,
      timestamp: Date.now(),
    };
    chat.messages.push(message);
    this.store.save();
    return { timestamp: message.timestamp };
  }
}

