import { createDecipheriv, createHmac, timingSafeEqual } from 'node:crypto';
import { Readable, Transform, pipeline } from 'node:stream';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';
import {
  DEFAULT_ORIGIN,
  extractMessageContent,
  getContentType,
  getMediaKeys,
  getUrlFromDirectPath,
  toNumber,
  type MediaType as WAMediaType,
  type WAMessage,
} from '@whiskeysockets/baileys';
import { MEDIA_LIMITS, type InboundMediaError, type StoredMedia } from '@balcao/shared';
import type { SessionContext } from '../../provider.js';
import type { BaileysLogger } from './logger.js';
import type { BaileysSocket, SessionOptions } from './socket.js';

/*
 * Inbound media (issue 17 §1 and §7): a file is checked against the size limit before it is asked
 * for, then decrypted as it downloads and streamed to storage with a byte cap and a time limit, so
 * one customer's 2 GB document can neither fill the task's memory nor hold its chat forever. A file
 * that is too large or cannot be had is published without `media`, with a note for the agent.
 *
 * The download is ours, with Baileys' key derivation and URL rules: rc11's `getHttpStream` calls
 * fetch without an abort signal, so destroying its decrypting stream leaves the HTTP body open and
 * paused; and its `downloadMediaMessage` re-upload never runs, because it tests `error.status` while
 * its fetch errors are Boom errors carrying `output.statusCode` (upstream #2767).
 */

/** What the default download honours: the caller's abort (its time limit) and the byte cap. */
export interface MediaDownloadOptions {
  signal: AbortSignal;
  maxBytes: number;
}

export interface MediaLimits {
  /** Largest file stored; larger ones reach the agent as a note. */
  maxBytes: number;
  /** Time every file gets, download and upload together, however small. */
  minTimeoutMs: number;
  /** Slowest transfer accepted beyond that, in bytes per second. */
  minBytesPerSecond: number;
}

/** The console's own largest upload (documents): what agents can send, customers can send us. */
export const DEFAULT_MEDIA_MAX_BYTES = MEDIA_LIMITS.document;
export const DEFAULT_MEDIA_MIN_TIMEOUT_MS = 60_000;
/** 256 KB/s: 100 MB get 400 s. */
export const DEFAULT_MEDIA_MIN_BYTES_PER_SECOND = 256 * 1024;

const positive = (raw: string | undefined, fallback: number) => {
  const n = Number(raw);
  return raw && Number.isFinite(n) && n > 0 ? Math.floor(n) : fallback;
};

/** Session-host settings: MEDIA_MAX_BYTES, MEDIA_TIMEOUT_MS (the floor), MEDIA_MIN_BYTES_PER_SECOND. */
export function mediaLimits(env: NodeJS.ProcessEnv = process.env): MediaLimits {
  return {
    maxBytes: positive(env.MEDIA_MAX_BYTES, DEFAULT_MEDIA_MAX_BYTES),
    minTimeoutMs: positive(env.MEDIA_TIMEOUT_MS, DEFAULT_MEDIA_MIN_TIMEOUT_MS),
    minBytesPerSecond: positive(env.MEDIA_MIN_BYTES_PER_SECOND, DEFAULT_MEDIA_MIN_BYTES_PER_SECOND),
  };
}

/** Proportional to the size (the limit's when WhatsApp did not declare one), never under the floor. */
export function mediaTimeoutMs(limits: MediaLimits, declaredBytes?: number): number {
  const bytes = Math.min(declaredBytes ?? limits.maxBytes, limits.maxBytes);
  return Math.max(limits.minTimeoutMs, Math.ceil((bytes / limits.minBytesPerSecond) * 1000));
}

export class MediaTooLargeError extends Error {
  constructor(readonly limit: number) {
    super(`media over the ${limit}-byte limit`);
    this.name = 'MediaTooLargeError';
  }
}

export class MediaTimeoutError extends Error {
  constructor(readonly ms: number) {
    super(`media not received within ${ms} ms`);
    this.name = 'MediaTimeoutError';
  }
}

/** A media host's answer other than 2xx; `status` as fetch-style errors have it. */
export class MediaHttpError extends Error {
  constructor(readonly status: number) {
    super(`media host answered ${status}`);
    this.name = 'MediaHttpError';
  }
}

/** The HTTP status an error carries, however it was raised: Boom (Baileys), fetch- or axios-style. */
export function httpStatusOf(err: unknown): number | undefined {
  const e = err as { output?: { statusCode?: unknown }; status?: unknown; statusCode?: unknown; response?: { status?: unknown } } | undefined;
  for (const v of [e?.output?.statusCode, e?.status, e?.statusCode, e?.response?.status]) if (typeof v === 'number') return v;
  return undefined;
}

/** Gone from WhatsApp's media servers (expired): the phone can upload it again. */
const REUPLOAD_STATUSES = new Set([404, 410]);
/** AES-CBC padding (up to a block) and the 10-byte MAC on top of the plain file. */
const ENCRYPTION_OVERHEAD = 16 + 10;
const MAC_BYTES = 10;

type DownloadableContent = {
  mediaKey?: Uint8Array | null;
  directPath?: string | null;
  url?: string | null;
  fileLength?: number | { low: number; high: number; unsigned: boolean } | null;
};

/** The media node of a message (inside view-once, document-with-caption… wrappers) and its key type. */
function mediaContent(message: WAMessage): { node: DownloadableContent; type: WAMediaType } | undefined {
  const content = extractMessageContent(message.message);
  const field = content ? getContentType(content) : undefined;
  const node = field ? (content?.[field] as DownloadableContent | null | undefined) : undefined;
  if (!field || !node || typeof node !== 'object') return undefined;
  return { node, type: field.replace(/Message$/, '') as WAMediaType };
}

/** The size WhatsApp declared (`fileLength`), when it did. */
export function declaredSize(message: WAMessage): number | undefined {
  const length = mediaContent(message)?.node.fileLength;
  if (length === null || length === undefined) return undefined;
  const n = toNumber(length as number);
  return Number.isFinite(n) && n > 0 ? n : undefined;
}

/**
 * WhatsApp's media decryption (AES-256-CBC, then a 10-byte HMAC-SHA256 of iv + ciphertext), as
 * Baileys' `downloadEncryptedContent` does it, plus the MAC check it skips: a cut or damaged
 * download fails instead of being stored.
 */
class DecryptMedia extends Transform {
  private readonly decipher;
  private readonly hmac;
  /** The last bytes seen: at the end they are the MAC, not ciphertext. */
  private tail = Buffer.alloc(0);

  constructor(keys: { cipherKey: Uint8Array; iv: Uint8Array; macKey: Uint8Array }) {
    super();
    this.decipher = createDecipheriv('aes-256-cbc', keys.cipherKey, keys.iv);
    this.hmac = createHmac('sha256', keys.macKey).update(keys.iv);
  }

  override _transform(chunk: Buffer, _enc: BufferEncoding, done: (err?: Error | null, data?: Buffer) => void) {
    try {
      const data = this.tail.length ? Buffer.concat([this.tail, chunk]) : chunk;
      const cut = Math.max(0, data.length - MAC_BYTES);
      this.tail = Buffer.from(data.subarray(cut));
      const cipher = data.subarray(0, cut);
      this.hmac.update(cipher);
      const plain = this.decipher.update(cipher);
      done(null, plain.length ? plain : undefined);
    } catch (err) {
      done(err as Error);
    }
  }

  override _flush(done: (err?: Error | null, data?: Buffer) => void) {
    try {
      const mac = this.hmac.digest().subarray(0, MAC_BYTES);
      if (this.tail.length !== MAC_BYTES || !timingSafeEqual(mac, this.tail)) throw new Error('media MAC mismatch: the file is damaged or incomplete');
      done(null, this.decipher.final());
    } catch (err) {
      done(err as Error);
    }
  }
}

const hostOf = (url: string | null | undefined) => {
  if (!url) return undefined;
  try {
    return new URL(url).host;
  } catch {
    return undefined;
  }
};

/** One GET of the message's file, decrypting as it comes; rejects with MediaHttpError on a non-2xx. */
async function openMedia(message: WAMessage, { signal, maxBytes }: MediaDownloadOptions): Promise<Readable> {
  const found = mediaContent(message);
  const { node, type } = found ?? { node: undefined, type: undefined };
  if (!node?.mediaKey || !type || !(node.directPath || node.url)) throw new Error('media message without key or address');
  // Baileys' rule (downloadContentFromMessage): the direct path on the url's host, else the url.
  const url = node.directPath ? getUrlFromDirectPath(node.directPath, hostOf(node.url)) : node.url!;
  const { cipherKey, iv, macKey } = await getMediaKeys(node.mediaKey, type);
  if (!macKey) throw new Error(`no media MAC key for ${type}`);
  const res = await fetch(url, { headers: { Origin: DEFAULT_ORIGIN }, signal });
  if (!res.ok || !res.body) {
    await res.body?.cancel().catch(() => undefined);
    throw new MediaHttpError(res.status);
  }
  const length = Number(res.headers.get('content-length'));
  if (length > maxBytes + ENCRYPTION_OVERHEAD) {
    // Declared small, served large: not a byte more is read.
    await res.body.cancel().catch(() => undefined);
    throw new MediaTooLargeError(maxBytes);
  }
  return pipeline(Readable.fromWeb(res.body as WebReadableStream<Uint8Array>), new DecryptMedia({ cipherKey, iv, macKey }), () => undefined);
}

/**
 * Settles with `promise`, or rejects with the signal's reason as soon as it aborts; what the promise
 * still yields after that is handed to `discard` (a stream nobody will read is closed).
 */
function abortable<T>(promise: Promise<T>, signal: AbortSignal, discard?: (late: T) => void): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    if (signal.aborted) onAbort();
    else signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        if (signal.aborted) discard?.(value);
        else resolve(value);
      },
      (err) => {
        signal.removeEventListener('abort', onAbort);
        reject(err);
      },
    );
  });
}

/**
 * The default `downloadMedia`: the decrypting stream of the message's file. An expired file (404 or
 * 410 from the media host) is asked from the phone again (`updateMediaMessage`) and fetched once more.
 */
export async function downloadMedia(message: WAMessage, sock: BaileysSocket, logger: BaileysLogger, opts: MediaDownloadOptions): Promise<Readable> {
  try {
    return await openMedia(message, opts);
  } catch (err) {
    const status = httpStatusOf(err);
    if (opts.signal.aborted || status === undefined || !REUPLOAD_STATUSES.has(status)) throw err;
    logger.info({ key: message.key, status }, 'media expired on the media host; asking the phone to upload it again');
    // The phone may never answer: the caller's time limit covers this wait too.
    // Baileys' re-request accepts only the classic media kinds: a video note asks as the video it is.
    const ptv = message.message?.ptvMessage;
    const asked = ptv ? { ...message, message: { videoMessage: ptv } } : message;
    const refreshed = await abortable(sock.updateMediaMessage(asked), opts.signal);
    return openMedia(refreshed, opts);
  }
}

/** Passes bytes through until more than `maxBytes` went by, then fails (fileLength can lie). */
function byteCap(maxBytes: number, onOver: () => void): Transform {
  let seen = 0;
  return new Transform({
    transform(chunk: Buffer, _enc, done) {
      seen += chunk.length;
      if (seen > maxBytes) {
        onOver();
        done(new MediaTooLargeError(maxBytes));
      } else done(null, chunk);
    },
  });
}

/** A counting semaphore: callers past the count wait their turn, in order. */
class Slots {
  private readonly waiting: (() => void)[] = [];
  constructor(private free: number) {}
  async take(): Promise<void> {
    if (this.free > 0) {
      this.free--;
      return;
    }
    await new Promise<void>((resolve) => this.waiting.push(resolve));
  }
  give(): void {
    const next = this.waiting.shift();
    if (next) next();
    else this.free++;
  }
}

/**
 * Files in transfer at once in the process (MEDIA_CONCURRENCY, default 8). Each holds up to about
 * two 5 MB parts; chats now download side by side, and a burst of large files from many of them
 * must stay well inside the task's memory. A chat waiting here holds only itself.
 */
const transfers = new Slots(positive(process.env.MEDIA_CONCURRENCY, 8));

export interface ReceivedMedia {
  media?: StoredMedia;
  mediaError?: InboundMediaError;
}

/**
 * A media message's file, stored: within the size limit (declared, then counted) and the time
 * limit, or a note saying why not. Never throws for the file's sake; the message goes out either way.
 */
export async function receiveMedia(args: {
  message: WAMessage;
  sock: BaileysSocket;
  logger: BaileysLogger;
  ctx: SessionContext;
  download: SessionOptions['downloadMedia'];
  mimetype: string;
  fileName?: string;
  limits?: MediaLimits;
}): Promise<ReceivedMedia> {
  const { message, ctx, fileName } = args;
  const limits = args.limits ?? mediaLimits();
  const id = message.key.id;
  const declared = declaredSize(message);
  const note = (reason: InboundMediaError['reason'], size?: number): ReceivedMedia => ({
    mediaError: {
      reason,
      ...(size !== undefined ? { size } : {}),
      ...(reason === 'tooLarge' ? { limit: limits.maxBytes } : {}),
      ...(fileName ? { fileName } : {}),
    },
  });
  if (declared !== undefined && declared > limits.maxBytes) {
    ctx.log.info({ id, size: declared, limit: limits.maxBytes }, 'baileys: media over the size limit, not downloaded');
    return note('tooLarge', declared);
  }

  await transfers.take();
  try {
    return await transfer(args, limits, declared, note);
  } finally {
    transfers.give();
  }
}

async function transfer(
  args: Parameters<typeof receiveMedia>[0],
  limits: MediaLimits,
  declared: number | undefined,
  note: (reason: InboundMediaError['reason'], size?: number) => ReceivedMedia,
): Promise<ReceivedMedia> {
  const { message, ctx, mimetype, fileName } = args;
  const id = message.key.id;
  // The clock starts with the transfer, not while waiting for a slot.
  const timeoutMs = mediaTimeoutMs(limits, declared);
  const control = new AbortController();
  const timer = setTimeout(() => control.abort(new MediaTimeoutError(timeoutMs)), timeoutMs);
  let over = false;
  let source: Readable | undefined;
  try {
    const data = await abortable(args.download(message, args.sock, args.logger, { signal: control.signal, maxBytes: limits.maxBytes }), control.signal, (late) => {
      if (!Buffer.isBuffer(late)) late.destroy();
    });
    source = Buffer.isBuffer(data) ? Readable.from([data]) : data;
    const capped = pipeline(source, byteCap(limits.maxBytes, () => (over = true)), () => undefined);
    // Stored before the event that names it is published (§2 "media first").
    return { media: await abortable(ctx.storeMediaStream(capped, mimetype, fileName, { signal: control.signal }), control.signal) };
  } catch (err) {
    // Whatever still runs (download, upload) stops here: no open body, no multipart left behind.
    if (!control.signal.aborted) control.abort(err);
    source?.destroy();
    if (over || err instanceof MediaTooLargeError) {
      ctx.log.info({ id, declared, limit: limits.maxBytes }, 'baileys: media over the size limit, download stopped');
      // A declared size that fit was false: the note does not repeat it.
      return note('tooLarge');
    }
    const timedOut = control.signal.reason instanceof MediaTimeoutError;
    ctx.log.warn({ err, id, timedOut, timeoutMs }, 'baileys: media download failed');
    return note('unavailable', declared);
  } finally {
    clearTimeout(timer);
  }
}
