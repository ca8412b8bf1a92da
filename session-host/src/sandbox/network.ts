import crypto from 'node:crypto';
import fs from 'node:fs';
import type http from 'node:http';
import path from 'node:path';
import type { Duplex } from 'node:stream';
import { WebSocket, WebSocketServer } from 'ws';
import { CLOSE, mediaTypeOf, type DeviceFrame, type DeviceRequest, type NetEvent, type ReceiptStatus, type SendRequest, type ServerFrame } from './protocol.js';

/**
 * The simulated WhatsApp network (issue 3 §3). It lives in the local stack's sandbox server, apart
 * from the session host, the way WhatsApp's servers are apart from a linked device: each connection
 * id is an "account" whose customers' phones are driven over HTTP (or the page), and the session
 * host's `sandbox` provider is the account's linked device over a WebSocket. State is kept in a JSON
 * file (media as files) so a second `npm start` finds the same links and conversations.
 */

export class SandboxError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

export interface ChatMessage {
  id: string;
  /** true = sent by the connection (our side); false = sent by the customer. */
  fromMe: boolean;
  body: string;
  mediaType?: string;
  fileName?: string;
  mimetype?: string;
  /** File name under `media/<connectionId>/`. */
  mediaFile?: string;
  size?: number;
  ptt?: boolean;
  vcard?: string;
  ack: number;
  edited: boolean;
  deleted: boolean;
  reactions: { emoji: string; fromMe: boolean }[];
  quotedId?: string;
  timestamp: number;
}

interface Chat {
  peer: string;
  /** The customer's push name, as last sent. */
  name?: string;
  messages: ChatMessage[];
}

interface CallRecord {
  id: string;
  from: string;
  isVideo: boolean;
  timestamp: number;
  status: 'ringing' | 'rejected';
}

interface Account {
  id: number;
  linked: boolean;
  number?: string;
  token?: string;
  chats: Record<string, Chat>;
  contacts: { number: string; name: string }[];
  calls: CallRecord[];
  /** Events the device has not acknowledged yet, in order. */
  pending: { seq: number; at: number; event: NetEvent }[];
  seq: number;
}

interface State {
  version: 1;
  epoch: string;
  accounts: Record<string, Account>;
  phones: Record<string, { onWhatsApp: boolean }>;
}

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

export interface NetworkOptions {
  /** Directory for `state.json` and `media/` (the stack uses `<dataDir>/sandbox`). */
  dir: string;
  /** A new QR every this many ms while a device waits (WhatsApp: ~20 s). */
  qrIntervalMs?: number;
  /** How long a scan waits for the device to confirm it kept the credentials. */
  linkTimeoutMs?: number;
  saveDelayMs?: number;
  log?: (line: string) => void;
}

const NUMBER_RE = /^\d{10,15}$/;
const ID_RE = /^[A-Za-z0-9_.:-]{1,128}$/;
const RECEIPT_ACK: Record<ReceiptStatus, number> = { delivered: 3, read: 4, played: 5 };

function randomId(prefix: string, bytes = 10) {
  return `${prefix}${crypto.randomBytes(bytes).toString('hex').toUpperCase()}`;
}

/** Digits only; 400 unless 10-15 digits (numbers carry their country code). */
export function checkNumber(raw: unknown, field = 'number'): string {
  if (typeof raw !== 'string' && typeof raw !== 'number') throw new SandboxError(400, `${field} is required (digits with country code)`);
  const digits = String(raw).replace(/\D/g, '');
  if (!NUMBER_RE.test(digits)) throw new SandboxError(400, `${field} must have 10 to 15 digits with the country code, got "${raw}"`);
  return digits;
}

export function checkConnectionId(raw: string | undefined): number {
  const id = Number(raw);
  if (!raw || !/^\d+$/.test(raw) || !Number.isSafeInteger(id) || id <= 0) throw new SandboxError(400, `connection id must be a positive integer, got "${raw}"`);
  return id;
}

export class SandboxNetwork {
  private state: State;
  private live = new Map<number, Live>();
  private wss = new WebSocketServer({ noServer: true });
  private saveTimer?: NodeJS.Timeout;
  private readonly file: string;
  private readonly mediaDir: string;
  private readonly qrIntervalMs: number;
  private readonly linkTimeoutMs: number;
  private readonly saveDelayMs: number;
  private readonly log: (line: string) => void;
  private stopped = false;

  constructor(opts: NetworkOptions) {
    this.file = path.join(opts.dir, 'state.json');
    this.mediaDir = path.join(opts.dir, 'media');
    this.qrIntervalMs = opts.qrIntervalMs ?? 20_000;
    this.linkTimeoutMs = opts.linkTimeoutMs ?? 10_000;
    this.saveDelayMs = opts.saveDelayMs ?? 200;
    this.log = opts.log ?? (() => {});
    fs.mkdirSync(this.mediaDir, { recursive: true });
    this.state = this.load();
  }

  // ---------------------------------------------------------------- persistence

  private load(): State {
    try {
      const s = JSON.parse(fs.readFileSync(this.file, 'utf8')) as State;
      if (s.version === 1 && s.accounts && s.epoch) return { ...s, phones: s.phones ?? {} };
      this.log(`state file ${this.file} has an unknown shape: starting empty`);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'ENOENT') this.log(`cannot read ${this.file} (${(e as Error).message}): starting empty`);
    }
    return { version: 1, epoch: crypto.randomBytes(4).toString('hex'), accounts: {}, phones: {} };
  }

  /** Debounced: bursts of messages cost one write. */
  private save() {
    if (this.saveTimer || this.stopped) return;
    this.saveTimer = setTimeout(() => this.flush(), this.saveDelayMs);
  }

  /** Writes now (atomically: a crash mid-write leaves the previous file). */
  flush() {
    clearTimeout(this.saveTimer);
    this.saveTimer = undefined;
    const tmp = `${this.file}.${process.pid}.tmp`;
    fs.writeFileSync(tmp, JSON.stringify(this.state));
    fs.renameSync(tmp, this.file);
  }

  async stop() {
    if (this.stopped) return;
    for (const l of this.live.values()) {
      clearInterval(l.qrTimer);
      // 1001 "going away": the device sees a lost connection and reconnects later.
      l.device?.close(1001, 'network stopping');
    }
    this.flush();
    this.stopped = true;
    await new Promise<void>((resolve) => this.wss.close(() => resolve()));
    for (const ws of this.wss.clients) ws.terminate();
  }

  // ---------------------------------------------------------------- accounts

  private account(id: number): Account {
    return (this.state.accounts[id] ??= { id, linked: false, chats: {}, contacts: [], calls: [], pending: [], seq: 0 });
  }

  private liveOf(id: number): Live {
    let l = this.live.get(id);
    if (!l) this.live.set(id, (l = {}));
    return l;
  }

  private linkedAccount(id: number): Account {
    const a = this.state.accounts[id];
    if (!a?.linked) throw new SandboxError(409, `connection ${id} is not linked to a phone number: scan its QR code first`);
    return a;
  }

  view(id: number): ConnectionView {
    const a = this.state.accounts[id];
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
    const ids = new Set([...Object.keys(this.state.accounts).map(Number), ...this.live.keys()]);
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
    const a = this.account(id);
    const number = body.number !== undefined && body.number !== null && body.number !== '' ? checkNumber(body.number) : (l.pairingNumber ?? a.number ?? `55119${String(id).padStart(8, '0')}`);
    const token = crypto.randomBytes(24).toString('base64url');
    const device = l.device;
    clearInterval(l.qrTimer);
    Object.assign(l, { mode: 'linking', qr: undefined, qrTimer: undefined, pairingCode: undefined });
    const stored = await new Promise<boolean>((resolve) => {
      const timer = setTimeout(() => settle(false), this.linkTimeoutMs);
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
      this.log(`connection ${id}: the device went away before the link completed`);
      throw new SandboxError(409, `the device of connection ${id} did not complete the link (it restarted or went away): scan the new QR code`);
    }
    a.linked = true;
    a.number = number;
    a.token = token;
    // Durable before the phone is told it is linked: a stop right now must not forget the link.
    this.flush();
    this.ready(a, l);
    this.log(`connection ${id} linked as ${number}`);
    return { number };
  }

  /** `token`: only revoke if it is still the account's token (a device logging out while offline). */
  disconnect(id: number, reason: unknown, token?: unknown) {
    const l = this.live.get(id);
    const online = l?.device?.readyState === WebSocket.OPEN;
    switch (reason) {
      case 'loggedOut': {
        const a = this.state.accounts[id];
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
    const a = this.state.accounts[id];
    if (a) {
      a.linked = false;
      a.token = undefined;
      this.save();
    }
    const l = this.live.get(id);
    l?.device?.close(CLOSE.LOGGED_OUT, why);
  }

  // ---------------------------------------------------------------- customers

  private chat(a: Account, peer: string): Chat {
    return (a.chats[peer] ??= { peer, messages: [] });
  }

  private findMessage(a: Account, id: string): { chat: Chat; message: ChatMessage } | undefined {
    for (const chat of Object.values(a.chats)) {
      const message = chat.messages.find((m) => m.id === id);
      if (message) return { chat, message };
    }
    return undefined;
  }

  private onWhatsApp(number: string, self?: Account) {
    if (!NUMBER_RE.test(number)) return false;
    if (self?.number === number) return true;
    return this.state.phones[number]?.onWhatsApp !== false;
  }

  /** Queues an event for the device and sends it at once when the device is linked and online. */
  private push(a: Account, event: NetEvent) {
    const entry = { seq: ++a.seq, at: Date.now(), event };
    a.pending.push(entry);
    this.save();
    const l = this.live.get(a.id);
    if (l?.mode === 'linked' && l.device) this.sendFrame(l.device, { t: 'event', seq: entry.seq, epoch: this.state.epoch, at: entry.at, event });
  }

  customerMessage(
    id: number,
    input: { from?: unknown; name?: unknown; body?: unknown; media?: unknown; id?: unknown; quotedId?: unknown },
  ): { id: string } {
    const from = checkNumber(input.from, 'from');
    const a = this.linkedAccount(id);
    if (!this.onWhatsApp(from)) throw new SandboxError(400, `${from} is not on WhatsApp (PUT /phones/${from} {"onWhatsApp": true} to change that)`);
    if (input.id !== undefined && (typeof input.id !== 'string' || !ID_RE.test(input.id))) throw new SandboxError(400, 'id must be 1-128 letters, digits or _.:-');
    if (input.id !== undefined) {
      const found = this.findMessage(a, input.id as string);
      if (found) {
        if (found.chat.peer !== from || found.message.fromMe) throw new SandboxError(409, `message id ${input.id} already belongs to another sender`);
        // The same WhatsApp event again (a redelivery): same id, same content, a new network event.
        this.push(a, this.messageEvent(a, from, found.chat.name, found.message));
        return { id: found.message.id };
      }
    }
    const name = input.name === undefined || input.name === null ? undefined : String(input.name).trim() || undefined;
    if (input.body !== undefined && input.body !== null && typeof input.body !== 'string') throw new SandboxError(400, 'body must be a string');
    const body = (input.body as string | undefined) ?? '';
    const media = input.media === undefined || input.media === null ? undefined : this.storeIncomingMedia(id, input.media);
    if (!body && !media) throw new SandboxError(400, 'a message needs a body or media');
    const chat = this.chat(a, from);
    let quotedId: string | undefined;
    if (input.quotedId !== undefined && input.quotedId !== null && input.quotedId !== '') {
      quotedId = String(input.quotedId);
      if (!chat.messages.some((m) => m.id === quotedId)) throw new SandboxError(404, `quoted message ${quotedId} is not in the conversation with ${from}`);
    }
    const message: ChatMessage = {
      id: (input.id as string | undefined) ?? randomId('3A'),
      fromMe: false,
      body,
      ...media,
      // The customer's own message: delivered to the server; our read receipt raises it.
      ack: 3,
      edited: false,
      deleted: false,
      reactions: [],
      quotedId,
      timestamp: Date.now(),
    };
    const renamed = name && chat.name && chat.name !== name;
    if (name) chat.name = name;
    chat.messages.push(message);
    this.push(a, this.messageEvent(a, from, chat.name, message));
    if (renamed) this.push(a, { kind: 'contact', number: from, name });
    return { id: message.id };
  }

  /**
   * The account owner types on the linked phone (not through us): the device sees it as its own
   * message, like WhatsApp's echo to linked devices. The customer gets it with ack 2.
   */
  phoneMessage(id: number, input: { to?: unknown; body?: unknown }): { id: string } {
    const to = checkNumber(input.to, 'to');
    const a = this.linkedAccount(id);
    if (!this.onWhatsApp(to)) throw new SandboxError(400, `${to} is not on WhatsApp`);
    if (typeof input.body !== 'string' || !input.body) throw new SandboxError(400, 'body is required');
    const chat = this.chat(a, to);
    const message: ChatMessage = { id: randomId('3EB0', 8), fromMe: true, body: input.body, ack: 2, edited: false, deleted: false, reactions: [], timestamp: Date.now() };
    chat.messages.push(message);
    this.push(a, this.messageEvent(a, to, undefined, message));
    return { id: message.id };
  }

  private messageEvent(a: Account, from: string, name: string | undefined, m: ChatMessage): NetEvent {
    return {
      kind: 'message',
      id: m.id,
      from,
      ...(m.fromMe ? { fromMe: true } : {}),
      name,
      body: m.body,
      media: m.mediaFile
        ? { mediaType: m.mediaType!, mimetype: m.mimetype!, fileName: m.fileName, path: `/media/${a.id}/${m.mediaFile}`, size: m.size ?? 0, ptt: m.ptt }
        : undefined,
      quotedId: m.quotedId,
      timestamp: m.timestamp,
    };
  }

  private storeIncomingMedia(id: number, raw: unknown) {
    const m = raw as { fileName?: unknown; mimetype?: unknown; dataBase64?: unknown; mediaType?: unknown; ptt?: unknown };
    if (typeof m !== 'object' || typeof m.mimetype !== 'string' || !/^[\w.+-]+\/[\w.+-]+/.test(m.mimetype)) throw new SandboxError(400, 'media.mimetype is required (e.g. "image/png")');
    if (typeof m.dataBase64 !== 'string' || !m.dataBase64) throw new SandboxError(400, 'media.dataBase64 is required');
    const b64 = m.dataBase64.replace(/^data:[^,]*,/, '').replace(/\s/g, '');
    if (!/^[A-Za-z0-9+/_-]*={0,2}$/.test(b64)) throw new SandboxError(400, 'media.dataBase64 is not base64');
    const data = Buffer.from(b64, 'base64');
    if (!data.length) throw new SandboxError(400, 'media.dataBase64 is empty');
    const fileName = typeof m.fileName === 'string' && m.fileName ? path.basename(m.fileName) : undefined;
    const kinds = ['image', 'video', 'audio', 'document', 'sticker'];
    if (m.mediaType !== undefined && !kinds.includes(m.mediaType as string)) throw new SandboxError(400, `media.mediaType must be one of ${kinds.join(', ')}`);
    const mediaType = (m.mediaType as string | undefined) ?? mediaTypeOf(m.mimetype, fileName);
    return { ...this.writeMedia(id, data, fileName), mediaType, mimetype: m.mimetype, fileName, ptt: m.ptt === true || undefined };
  }

  private writeMedia(id: number, data: Buffer, fileName?: string) {
    const ext = fileName && /\.[A-Za-z0-9]{1,8}$/.exec(fileName)?.[0];
    const mediaFile = `${crypto.randomBytes(12).toString('hex')}${ext ?? ''}`;
    const dir = path.join(this.mediaDir, String(id));
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(path.join(dir, mediaFile), data);
    return { mediaFile, size: data.length };
  }

  /** The bytes and type of a media file of a connection, for `GET /media/{id}/{file}`. */
  media(id: number, file: string): { path: string; mimetype: string; fileName?: string } {
    if (!/^[a-f0-9]{24}(\.[A-Za-z0-9]{1,8})?$/.test(file)) throw new SandboxError(404, `no media ${file}`);
    const a = this.state.accounts[id];
    for (const chat of Object.values(a?.chats ?? {})) {
      const m = chat.messages.find((x) => x.mediaFile === file);
      if (m) return { path: path.join(this.mediaDir, String(id), file), mimetype: m.mimetype ?? 'application/octet-stream', fileName: m.fileName };
    }
    throw new SandboxError(404, `no media ${file} on connection ${id}`);
  }

  conversation(id: number, peerRaw: unknown) {
    const peer = checkNumber(peerRaw, 'peer');
    const chat = this.state.accounts[id]?.chats[peer];
    return (chat?.messages ?? []).map((m) => ({
      id: m.id,
      fromMe: m.fromMe,
      body: m.deleted ? '' : m.body,
      mediaType: m.mediaType ?? null,
      fileName: m.fileName ?? null,
      mimetype: m.mimetype ?? null,
      mediaUrl: m.mediaFile && !m.deleted ? `/media/${id}/${m.mediaFile}` : null,
      ptt: m.ptt === true,
      vcard: m.deleted ? null : (m.vcard ?? null),
      size: m.size ?? null,
      ack: m.ack,
      edited: m.edited,
      deleted: m.deleted,
      reactions: m.reactions,
      quotedId: m.quotedId ?? null,
      timestamp: m.timestamp,
    }));
  }

  /** The customers' conversations of a connection, most recent first (for the page). */
  chats(id: number) {
    const a = this.state.accounts[id];
    return Object.values(a?.chats ?? {})
      .map((c) => {
        const last = c.messages[c.messages.length - 1];
        return {
          peer: c.peer,
          name: c.name ?? a!.contacts.find((x) => x.number === c.peer)?.name ?? null,
          last: last ? { fromMe: last.fromMe, body: last.deleted ? '' : last.body, mediaType: last.mediaType ?? null, timestamp: last.timestamp } : null,
          // Messages of the connection the customer has not read yet.
          unread: c.messages.filter((m) => m.fromMe && !m.deleted && m.ack < 4).length,
          // Messages of the connection the phone has not confirmed as delivered (the page does).
          undelivered: c.messages.filter((m) => m.fromMe && m.ack < 3).map((m) => m.id),
        };
      })
      .sort((x, y) => (y.last?.timestamp ?? 0) - (x.last?.timestamp ?? 0));
  }

  calls(id: number) {
    return this.state.accounts[id]?.calls ?? [];
  }

  receipts(id: number, input: { peer?: unknown; ids?: unknown; status?: unknown }) {
    const a = this.linkedAccount(id);
    const peer = checkNumber(input.peer, 'peer');
    if (!Array.isArray(input.ids) || !input.ids.length || input.ids.some((x) => typeof x !== 'string')) throw new SandboxError(400, 'ids must be a non-empty array of message ids');
    const status = input.status as ReceiptStatus;
    if (!(status in RECEIPT_ACK)) throw new SandboxError(400, `status must be "delivered", "read" or "played", got ${JSON.stringify(input.status)}`);
    const chat = a.chats[peer];
    const ids = input.ids as string[];
    const missing = ids.filter((x) => !chat?.messages.some((m) => m.id === x && m.fromMe));
    if (missing.length) throw new SandboxError(404, `not messages of the connection in the conversation with ${peer}: ${missing.join(', ')}`);
    const ack = RECEIPT_ACK[status];
    // Acks only rise: a late "delivered" after "read" changes nothing and is not reported.
    const raised = chat.messages.filter((m) => ids.includes(m.id) && m.ack < ack);
    for (const m of raised) m.ack = ack;
    if (raised.length) this.push(a, { kind: 'receipt', peer, ids: raised.map((m) => m.id), status });
    return { raised: raised.map((m) => m.id) };
  }

  customerEvent(id: number, input: { type?: unknown; from?: unknown; targetId?: unknown; body?: unknown; emoji?: unknown; video?: unknown }) {
    const types = ['edit', 'delete', 'reaction', 'call'];
    if (!types.includes(input.type as string)) throw new SandboxError(400, `type must be one of ${types.join(', ')}, got ${JSON.stringify(input.type)}`);
    const from = checkNumber(input.from, 'from');
    const a = this.linkedAccount(id);
    if (input.type === 'call') {
      const call: CallRecord = { id: randomId('CALL', 8), from, isVideo: input.video === true, timestamp: Date.now(), status: 'ringing' };
      a.calls.push(call);
      if (a.calls.length > 200) a.calls.splice(0, a.calls.length - 200);
      this.push(a, { kind: 'call', from, callId: call.id, isVideo: call.isVideo, timestamp: call.timestamp });
      return { id: call.id };
    }
    if (typeof input.targetId !== 'string' || !input.targetId) throw new SandboxError(400, 'targetId is required');
    const target = a.chats[from]?.messages.find((m) => m.id === input.targetId);
    if (!target) throw new SandboxError(404, `message ${input.targetId} is not in the conversation with ${from}`);
    if (input.type === 'reaction') {
      if (typeof input.emoji !== 'string') throw new SandboxError(400, 'emoji is required ("" removes the reaction)');
      target.reactions = target.reactions.filter((r) => r.fromMe);
      if (input.emoji) target.reactions.push({ emoji: input.emoji, fromMe: false });
      this.push(a, { kind: 'reaction', from, targetId: target.id, emoji: input.emoji });
      return { ok: true };
    }
    if (target.fromMe) throw new SandboxError(400, `the customer can only ${input.type} their own messages; ${target.id} was sent by the connection`);
    if (target.deleted) throw new SandboxError(409, `message ${target.id} is deleted`);
    if (input.type === 'edit') {
      if (typeof input.body !== 'string' || !input.body) throw new SandboxError(400, 'body is required for an edit');
      target.body = input.body;
      target.edited = true;
      this.push(a, { kind: 'edit', from, targetId: target.id, body: input.body });
    } else {
      target.deleted = true;
      this.push(a, { kind: 'delete', from, targetId: target.id });
    }
    return { ok: true };
  }

  contacts(id: number) {
    return this.state.accounts[id]?.contacts ?? [];
  }

  setContacts(id: number, list: unknown) {
    if (!Array.isArray(list)) throw new SandboxError(400, 'the address book is an array of {number, name}');
    const seen = new Map<string, string>();
    list.forEach((c: { number?: unknown; name?: unknown }, i) => {
      const number = checkNumber(c?.number, `[${i}].number`);
      if (typeof c.name !== 'string' || !c.name.trim()) throw new SandboxError(400, `[${i}].name is required`);
      seen.set(number, c.name.trim());
    });
    this.account(id).contacts = [...seen].map(([number, name]) => ({ number, name }));
    this.save();
    return this.account(id).contacts;
  }

  phone(numberRaw: string) {
    const number = checkNumber(numberRaw);
    return { number, onWhatsApp: this.onWhatsApp(number) };
  }

  setPhone(numberRaw: string, body: { onWhatsApp?: unknown }) {
    const number = checkNumber(numberRaw);
    if (typeof body?.onWhatsApp !== 'boolean') throw new SandboxError(400, 'onWhatsApp (boolean) is required');
    if (body.onWhatsApp) delete this.state.phones[number];
    else this.state.phones[number] = { onWhatsApp: false };
    this.save();
    return { number, onWhatsApp: body.onWhatsApp };
  }

  // ---------------------------------------------------------------- devices

  /** For the HTTP server's `upgrade` event on `/device`. */
  handleUpgrade(req: http.IncomingMessage, socket: Duplex, head: Buffer) {
    if (this.stopped) return socket.destroy();
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
    const a = this.account(id);
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
    ws.on('error', (e) => this.log(`device of connection ${id}: ${e.message}`));
    ws.on('message', (data) => {
      let frame: DeviceFrame;
      try {
        frame = JSON.parse(String(data)) as DeviceFrame;
      } catch {
        return this.log(`device of connection ${id} sent a frame that is not JSON`);
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
      l.qrTimer = setInterval(showQr, this.qrIntervalMs);
    }
  }

  /** The device is the linked device: tell it, then replay what it has not acknowledged. */
  private ready(a: Account, l: Live) {
    l.mode = 'linked';
    const ws = l.device!;
    this.sendFrame(ws, { t: 'ready', number: a.number! });
    for (const p of a.pending) this.sendFrame(ws, { t: 'event', seq: p.seq, epoch: this.state.epoch, at: p.at, event: p.event });
  }

  private async onFrame(id: number, ws: WebSocket, frame: DeviceFrame) {
    const l = this.live.get(id);
    if (l?.device !== ws) return; // a replaced device's late frames
    const a = this.account(id);
    if (frame.t === 'ack') {
      const before = a.pending.length;
      a.pending = a.pending.filter((p) => p.seq > frame.seq);
      if (a.pending.length !== before) this.save();
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
        this.save();
        return null;
      }
      case 'edit': {
        const m = inChat(req.peer, req.id);
        if (!m.fromMe) throw new SandboxError(400, 'only our own messages can be edited');
        if (m.deleted) throw new SandboxError(409, 'the message is deleted');
        Object.assign(m, { body: req.body, edited: true });
        this.save();
        return null;
      }
      case 'delete': {
        const m = inChat(req.peer, req.id);
        if (!m.fromMe) throw new SandboxError(400, 'only our own messages can be deleted for everyone');
        m.deleted = true;
        this.save();
        return null;
      }
      case 'react': {
        const m = inChat(req.peer, req.id);
        m.reactions = m.reactions.filter((r) => !r.fromMe);
        if (req.emoji) m.reactions.push({ emoji: req.emoji, fromMe: true });
        this.save();
        return null;
      }
      case 'rejectCall': {
        const call = a.calls.find((c) => c.id === req.callId);
        if (!call) throw new SandboxError(404, `no call ${req.callId}`);
        call.status = 'rejected';
        this.save();
        return null;
      }
      case 'checkNumber': {
        const digits = String(req.number ?? '').replace(/\D/g, '');
        return this.onWhatsApp(digits, a) ? { exists: true, number: digits } : { exists: false };
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
    if (!this.onWhatsApp(to, a)) throw new SandboxError(400, `${to} is not on WhatsApp`);
    const chat = this.chat(a, to);
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
      media = { ...this.writeMedia(a.id, data, fileName), mediaType: req.media.mediaType || mediaTypeOf(req.media.mimetype, fileName), mimetype: req.media.mimetype, fileName, ptt: req.media.ptt || undefined };
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
    this.save();
    return { timestamp: message.timestamp };
  }
}
