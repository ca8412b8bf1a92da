import type {
  AnyMessageContent,
  BaileysEventMap,
  Contact,
  GroupMetadata,
  MiscMessageGenerationOptions,
  UserFacingSocketConfig,
  WAMessage,
  WAMessageKey,
} from '@whiskeysockets/baileys';
import type { BaileysLogger } from './logger.js';

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
