import type {
  AnyMessageContent,
  BaileysEventMap,
  Contact,
  GroupMetadata,
  MiscMessageGenerationOptions,
  UserFacingSocketConfig,
  WAMessage,
  WAPresence,
  WAMessageKey,
} from '@whiskeysockets/baileys';
import type { Readable } from 'node:stream';
import type { BaileysLogger } from './logger.js';
import type { MediaDownloadOptions } from './media.js';

/** The part of Baileys' socket the session uses; tests provide a fake with a real emitter. */
export interface BaileysSocket {
  ev: {
    on<T extends keyof BaileysEventMap>(event: T, listener: (arg: BaileysEventMap[T]) => void): void;
    off<T extends keyof BaileysEventMap>(event: T, listener: (arg: BaileysEventMap[T]) => void): void;
  };
  user?: Contact;
  /** Baileys' websocket client (`WebSocketClient`); see `setReading`. */
  ws?: object;
  signalRepository: { lidMapping: { getPNForLID(lid: string): Promise<string | null>; getLIDForPN(pn: string): Promise<string | null> } };
  sendMessage(jid: string, content: AnyMessageContent, options?: MiscMessageGenerationOptions): Promise<WAMessage | undefined>;
  readMessages(keys: WAMessageKey[]): Promise<void>;
  rejectCall(callId: string, callFrom: string): Promise<void>;
  sendPresenceUpdate(type: WAPresence, toJid?: string): Promise<void>;
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
  /**
   * A media message's bytes: by default (`media.ts`) a stream decrypted as it downloads, which stops
   * when `opts.signal` aborts and asks the phone again for an expired file; a Buffer will do for
   * fakes. The caller caps the bytes and the time, and streams them to storage.
   */
  downloadMedia: (message: WAMessage, sock: BaileysSocket, logger: BaileysLogger, opts: MediaDownloadOptions) => Promise<Readable | Buffer>;
  /** Voice note to ogg/opus (ffmpeg by default). */
  transcodeVoice: (audio: Buffer) => Promise<Buffer>;
  /** QR codes (or pairing codes) shown before the session gives up and waits for the user (TIMEOUT). */
  qrLimit: number;
  /** How long a pairing code may wait to be typed on the phone before a new one is asked. */
  pairingCodeMs: number;
  /** WhatsApp refused the announced version (405): the next socket must use a freshly fetched one. */
  versionRejected?: () => void;
  /** 0 ≤ x < 1, for the backoff's jitter. */
  random: () => number;
  /** A connection open this long resets the backoff. */
  stableAfterMs: number;
  browser: [string, string, string];
  logLevel: 'trace' | 'debug' | 'info' | 'warn' | 'error';
}

/**
 * Stops or resumes reading from WhatsApp (back-pressure). Baileys' WebSocketClient keeps its `ws`
 * socket in a protected field, and `ws`'s pause/resume is the only way to stop reading without
 * closing: WhatsApp then keeps what it could not deliver. Does nothing on a socket without one.
 */
export function setReading(sock: BaileysSocket | undefined, reading: boolean): void {
  const ws = (sock?.ws as { socket?: { pause?(): void; resume?(): void } | null } | undefined)?.socket;
  if (reading) ws?.resume?.();
  else ws?.pause?.();
}
