import type http from 'node:http';
import path from 'node:path';
import type { Duplex } from 'node:stream';
import { DeviceLinks, type ConnectionView } from './devices.js';
import { MediaFiles } from './media.js';
import type { NetEvent, ReceiptStatus } from './protocol.js';
import { NetworkStore, type Account, type CallRecord, type ChatMessage } from './state.js';
import { checkNumber, ID_RE, randomId, SandboxError } from './validation.js';

/**
 * The simulated WhatsApp network (issue 3 §3). It lives in the local stack's sandbox server, apart
 * from the session host, the way WhatsApp's servers are apart from a linked device: each connection
 * id is an "account" whose customers' phones are driven over HTTP (or the page), and the session
 * host's `sandbox` provider is the account's linked device over a WebSocket. State is kept in a JSON
 * file (media as files) so a second `npm start` finds the same links and conversations.
 *
 * This class is what the HTTP API calls: the customers' side is here; the linked devices are in
 * `devices.ts`, the state file in `state.ts`, the media files in `media.ts`.
 */

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

const RECEIPT_ACK: Record<ReceiptStatus, number> = { delivered: 3, read: 4, played: 5 };

export class SandboxNetwork {
  private readonly store: NetworkStore;
  private readonly mediaFiles: MediaFiles;
  private readonly devices: DeviceLinks;

  constructor(opts: NetworkOptions) {
    const log = opts.log ?? (() => {});
    this.mediaFiles = new MediaFiles(path.join(opts.dir, 'media'));
    this.store = new NetworkStore(opts.dir, opts.saveDelayMs ?? 200, log);
    this.devices = new DeviceLinks(this.store, this.mediaFiles, { qrIntervalMs: opts.qrIntervalMs ?? 20_000, linkTimeoutMs: opts.linkTimeoutMs ?? 10_000, log });
  }

  /** Writes the state now. */
  flush() {
    this.store.flush();
  }

  /** Resolves once every change so far is stored (answers wait for it, as WhatsApp's servers do). */
  durable(): Promise<void> {
    return this.store.durable();
  }

  async stop() {
    if (this.store.stopped) return;
    this.devices.disconnectAll();
    this.store.close();
    await this.devices.closeServer();
  }

  // ---------------------------------------------------------------- links and devices

  /** For the HTTP server's `upgrade` event on `/device`. */
  handleUpgrade(req: http.IncomingMessage, socket: Duplex, head: Buffer) {
    this.devices.handleUpgrade(req, socket, head);
  }

  view(id: number): ConnectionView {
    return this.devices.view(id);
  }

  list(): ConnectionView[] {
    return this.devices.list();
  }

  /** The phone scans the QR or confirms the pairing code (see `DeviceLinks.scan`). */
  scan(id: number, body?: { number?: unknown; code?: unknown }): Promise<{ number: string }> {
    return this.devices.scan(id, body);
  }

  disconnect(id: number, reason: unknown, token?: unknown) {
    return this.devices.disconnect(id, reason, token);
  }

  // ---------------------------------------------------------------- customers

  customerMessage(
    id: number,
    input: { from?: unknown; name?: unknown; body?: unknown; media?: unknown; id?: unknown; quotedId?: unknown },
  ): { id: string } {
    const from = checkNumber(input.from, 'from');
    const a = this.store.linkedAccount(id);
    if (!this.store.onWhatsApp(from)) throw new SandboxError(400, `${from} is not on WhatsApp (PUT /phones/${from} {"onWhatsApp": true} to change that)`);
    if (input.id !== undefined && (typeof input.id !== 'string' || !ID_RE.test(input.id))) throw new SandboxError(400, 'id must be 1-128 letters, digits or _.:-');
    if (input.id !== undefined) {
      const found = this.store.findMessage(a, input.id as string);
      if (found) {
        if (found.chat.peer !== from || found.message.fromMe) throw new SandboxError(409, `message id ${input.id} already belongs to another sender`);
        // The same WhatsApp event again (a redelivery): same id, same content, a new network event.
        this.devices.push(a, this.messageEvent(a, from, found.chat.name, found.message));
        return { id: found.message.id };
      }
    }
    const name = input.name === undefined || input.name === null ? undefined : String(input.name).trim() || undefined;
    if (input.body !== undefined && input.body !== null && typeof input.body !== 'string') throw new SandboxError(400, 'body must be a string');
    const body = (input.body as string | undefined) ?? '';
    const media = input.media === undefined || input.media === null ? undefined : this.mediaFiles.storeIncoming(id, input.media);
    if (!body && !media) throw new SandboxError(400, 'a message needs a body or media');
    const chat = this.store.chat(a, from);
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
    this.devices.push(a, this.messageEvent(a, from, chat.name, message));
    if (renamed) this.devices.push(a, { kind: 'contact', number: from, name });
    return { id: message.id };
  }

  /**
   * The account owner types on the linked phone (not through us): the device sees it as its own
   * message, like WhatsApp's echo to linked devices. The customer gets it with ack 2.
   */
  phoneMessage(id: number, input: { to?: unknown; body?: unknown }): { id: string } {
    const to = checkNumber(input.to, 'to');
    const a = this.store.linkedAccount(id);
    if (!this.store.onWhatsApp(to)) throw new SandboxError(400, `${to} is not on WhatsApp`);
    if (typeof input.body !== 'string' || !input.body) throw new SandboxError(400, 'body is required');
    const chat = this.store.chat(a, to);
    const message: ChatMessage = { id: randomId('3EB0', 8), fromMe: true, body: input.body, ack: 2, edited: false, deleted: false, reactions: [], timestamp: Date.now() };
    chat.messages.push(message);
    this.devices.push(a, this.messageEvent(a, to, undefined, message));
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

  /** The bytes and type of a media file of a connection, for `GET /media/{id}/{file}`. */
  media(id: number, file: string): { path: string; mimetype: string; fileName?: string } {
    return this.mediaFiles.find(this.store.findAccount(id), id, file);
  }

  conversation(id: number, peerRaw: unknown) {
    const peer = checkNumber(peerRaw, 'peer');
    const chat = this.store.findAccount(id)?.chats[peer];
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

  /**
   * What the connection shows in a chat now: "typing…" lasts until its next message or 25 s (as
   * WhatsApp's clients let it fade).
   */
  presence(id: number, peerRaw: unknown) {
    const chat = this.store.findAccount(id)?.chats[checkNumber(peerRaw, 'peer')];
    const p = chat?.presence;
    const last = chat?.messages.filter((m) => m.fromMe).at(-1);
    const live = !!p && p.state !== 'paused' && Date.now() - p.at < 25_000 && !(last && last.timestamp >= p.at);
    return { state: live ? p!.state : 'paused', at: p?.at ?? null };
  }

  /** The customers' conversations of a connection, most recent first (for the page). */
  chats(id: number) {
    const a = this.store.findAccount(id);
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
    return this.store.findAccount(id)?.calls ?? [];
  }

  receipts(id: number, input: { peer?: unknown; ids?: unknown; status?: unknown }) {
    const a = this.store.linkedAccount(id);
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
    if (raised.length) this.devices.push(a, { kind: 'receipt', peer, ids: raised.map((m) => m.id), status });
    return { raised: raised.map((m) => m.id) };
  }

  customerEvent(id: number, input: { type?: unknown; from?: unknown; targetId?: unknown; body?: unknown; emoji?: unknown; video?: unknown }) {
    const types = ['edit', 'delete', 'reaction', 'call'];
    if (!types.includes(input.type as string)) throw new SandboxError(400, `type must be one of ${types.join(', ')}, got ${JSON.stringify(input.type)}`);
    const from = checkNumber(input.from, 'from');
    const a = this.store.linkedAccount(id);
    if (input.type === 'call') {
      const call: CallRecord = { id: randomId('CALL', 8), from, isVideo: input.video === true, timestamp: Date.now(), status: 'ringing' };
      a.calls.push(call);
      if (a.calls.length > 200) a.calls.splice(0, a.calls.length - 200);
      this.devices.push(a, { kind: 'call', from, callId: call.id, isVideo: call.isVideo, timestamp: call.timestamp });
      return { id: call.id };
    }
    if (typeof input.targetId !== 'string' || !input.targetId) throw new SandboxError(400, 'targetId is required');
    const target = a.chats[from]?.messages.find((m) => m.id === input.targetId);
    if (!target) throw new SandboxError(404, `message ${input.targetId} is not in the conversation with ${from}`);
    if (input.type === 'reaction') {
      if (typeof input.emoji !== 'string') throw new SandboxError(400, 'emoji is required ("" removes the reaction)');
      target.reactions = target.reactions.filter((r) => r.fromMe);
      if (input.emoji) target.reactions.push({ emoji: input.emoji, fromMe: false });
      this.devices.push(a, { kind: 'reaction', from, targetId: target.id, emoji: input.emoji });
      return { ok: true };
    }
    if (target.fromMe) throw new SandboxError(400, `the customer can only ${input.type} their own messages; ${target.id} was sent by the connection`);
    if (target.deleted) throw new SandboxError(409, `message ${target.id} is deleted`);
    if (input.type === 'edit') {
      if (typeof input.body !== 'string' || !input.body) throw new SandboxError(400, 'body is required for an edit');
      target.body = input.body;
      target.edited = true;
      this.devices.push(a, { kind: 'edit', from, targetId: target.id, body: input.body });
    } else {
      target.deleted = true;
      this.devices.push(a, { kind: 'delete', from, targetId: target.id });
    }
    return { ok: true };
  }

  contacts(id: number) {
    return this.store.findAccount(id)?.contacts ?? [];
  }

  setContacts(id: number, list: unknown) {
    if (!Array.isArray(list)) throw new SandboxError(400, 'the address book is an array of {number, name}');
    const seen = new Map<string, string>();
    list.forEach((c: { number?: unknown; name?: unknown }, i) => {
      const number = checkNumber(c?.number, `[${i}].number`);
      if (typeof c.name !== 'string' || !c.name.trim()) throw new SandboxError(400, `[${i}].name is required`);
      seen.set(number, c.name.trim());
    });
    this.store.account(id).contacts = [...seen].map(([number, name]) => ({ number, name }));
    this.store.save();
    return this.store.account(id).contacts;
  }

  phone(numberRaw: string) {
    const number = checkNumber(numberRaw);
    return { number, onWhatsApp: this.store.onWhatsApp(number) };
  }

  setPhone(numberRaw: string, body: { onWhatsApp?: unknown }) {
    const number = checkNumber(numberRaw);
    if (typeof body?.onWhatsApp !== 'boolean') throw new SandboxError(400, 'onWhatsApp (boolean) is required');
    this.store.setOnWhatsApp(number, body.onWhatsApp);
    return { number, onWhatsApp: body.onWhatsApp };
  }
}
