import type { Readable } from 'node:stream';
import type { InboundEvent, OutboundCommand, Peer, StoredMedia } from '@balcao/shared';

/**
 * What a WhatsApp provider sees of the session host, and what the session host asks of a provider
 * (DESIGN §6). Two providers implement it: `baileys` (real WhatsApp, provider value `beta`) and
 * `sandbox` (the simulated network). The session host owns leases, queues, S3 and the table; a
 * provider only speaks WhatsApp.
 */

type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;
/** An inbound event as a provider emits it; the host adds v, ids, company, connection and time. */
export type ProviderEvent = DistributiveOmit<InboundEvent, 'v' | 'eventId' | 'companyId' | 'connectionId' | 'at'> & {
  /** Stable id for deduplication when the same WhatsApp event can be seen twice. */
  eventId?: string;
};

export type SendCommand = Extract<OutboundCommand, { type: 'send' }>;

export interface Logger {
  debug(obj: object | string, msg?: string): void;
  info(obj: object | string, msg?: string): void;
  warn(obj: object | string, msg?: string): void;
  error(obj: object | string, msg?: string): void;
}

/** Key/value storage of one connection's credentials (the table, never files: DESIGN §6). */
export interface AuthStore {
  get(key: string): Promise<string | undefined>;
  /**
   * Many keys in one go (absent ones are left out): Baileys asks for a group's sessions together,
   * and a store over a table reads them in batches instead of one by one. Optional.
   */
  getMany?(keys: string[]): Promise<Map<string, string>>;
  /** Resolves only once the value is durable (written before WhatsApp is acknowledged). */
  set(entries: Record<string, string | null>): Promise<void>;
  /** Removes every credential of the connection (logout, banned, 401). */
  clear(): Promise<void>;
}

/** The WhatsApp key of a message, as the provider saw it (published with the message, stored with it). */
export interface WaKey {
  remoteJid: string;
  /** The author in a group. */
  participant?: string;
  fromMe: boolean;
}

export interface StoredMessageRef {
  body: string;
  fromMe: boolean;
  /** Missing for messages stored before keys were kept: rebuilt from the chat and the author then. */
  key?: WaKey;
  /** The group author's number/LID (older messages without a key). */
  participant?: { number?: string; lid?: string };
}

export interface ProtoStore {
  put(waMessageId: string, data: Uint8Array): Promise<void>;
  get(waMessageId: string): Promise<Uint8Array | undefined>;
}

export interface SessionContext {
  companyId: number;
  connectionId: number;
  /** The phone number to pair with a code instead of a QR, when the user asked for it. */
  pairingNumber?: string;
  /** Publishes an event on the inbound queue; resolves once SQS accepted it. */
  emit(event: ProviderEvent): Promise<void>;
  /** Copies media to S3 before the event that names it is emitted (§2 step "media first"). */
  storeMedia(data: Buffer, mimetype: string, fileName?: string): Promise<StoredMedia>;
  /**
   * The same, as the bytes arrive: uploaded part by part (multipart past the first part), so a large
   * file is never whole in memory. Rejects, leaving nothing stored, when `data` fails or `signal`
   * aborts; the caller bounds the size and the time.
   */
  storeMediaStream(data: Readable, mimetype: string, fileName?: string, opts?: { signal?: AbortSignal }): Promise<StoredMedia>;
  readMedia(key: string): Promise<Buffer>;
  auth: AuthStore;
  /** A stored message by WhatsApp id (quotes, reactions, read receipts): its body and WhatsApp key. */
  getMessage(waMessageId: string): Promise<StoredMessageRef | undefined>;
  /**
   * Message protos kept about a week by WhatsApp id: what we sent (WhatsApp's retry requests
   * re-encrypt it) and polls (their votes are encrypted with the poll's secret).
   */
  protos: ProtoStore;
  log: Logger;
}

export interface ProviderSession {
  /** Connects; reports `session` events (OPENING, qrcode with the QR string, PAIRING, CONNECTED…). */
  start(): Promise<void>;
  /** Closes the socket WITHOUT logging out (shutdown, lease handover). */
  stop(): Promise<void>;
  /** Unlinks the device and wipes the credentials; reports DISCONNECTED. */
  logout(): Promise<void>;
  /** Forgets the current credentials and starts again with a new QR (the "New QR" button). */
  newQr(): Promise<void>;
  /** Sends with the given WhatsApp id; throws when it cannot (the host reports sendResult). */
  send(cmd: SendCommand): Promise<{ timestamp: number }>;
  markRead(to: Peer, waMessageIds: string[]): Promise<void>;
  edit(to: Peer, waMessageId: string, body: string): Promise<void>;
  delete(to: Peer, waMessageId: string): Promise<void>;
  react(to: Peer, waMessageId: string, emoji: string): Promise<void>;
  rejectCall(callId: string, from: Peer): Promise<void>;
  /** Shows "typing…" (or recording) in the customer's chat until the next message or `paused`. */
  presence(to: Peer, state: 'composing' | 'recording' | 'paused'): Promise<void>;
  checkNumber(number: string): Promise<{ exists: boolean; number?: string; lid?: string }>;
  /** Each number (digits with country code) and whether it is on WhatsApp, in the order asked. */
  checkNumbers(numbers: string[]): Promise<{ number: string; exists: boolean }[]>;
  addressBook(): Promise<{ number: string; name: string }[]>;
  /** Whether the session can send right now. */
  readonly connected: boolean;
}

export interface Provider {
  readonly name: 'beta' | 'sandbox';
  create(ctx: SessionContext): ProviderSession;
}
