import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import fs from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { downloadContentFromMessage, encryptedStream, proto, toBuffer, type MediaType, type WAMessage } from '@whiskeysockets/baileys';
import type { ProviderEvent } from '../src/provider.js';
import { CUSTOMER, connected, upsert, useBaileysTestHooks, wa } from './baileys-helpers.js';

/*
 * Inbound media through the provider's own download (issue 17 §1, §7): files encrypted by Baileys'
 * `encryptedStream` (WhatsApp's media scheme: random media key, AES-256-CBC, 10-byte MAC) are served
 * by a local HTTP server standing in for WhatsApp's media host, and named by real proto messages.
 * Messages carry `url` only: Baileys builds `https://<host><directPath>` when there is a direct path,
 * and the stand-in speaks plain HTTP.
 */

useBaileysTestHooks();

const KB = 1024;
const MB = 1024 * KB;
/** The test host's cap (MEDIA_MAX_BYTES) and time floor (MEDIA_TIMEOUT_MS). */
const CAP = 1 * MB;
const TIMEOUT_MS = 1_000;

interface Route {
  status?: number;
  body?: Buffer;
  /** Without Content-Length (chunked), as a host that does not say how much is coming. */
  chunked?: boolean;
  /** Sends this many bytes, then nothing more while keeping the response open. */
  stallAfter?: number;
}

const routes = new Map<string, Route>();
const hits = new Map<string, number>();
/** Responses the client closed before their last byte. */
const cutOff = new Set<string>();
let server: http.Server;
let base = '';

function drainedOrClosed(res: http.ServerResponse) {
  return new Promise<void>((resolve) => {
    const done = () => {
      res.off('drain', done);
      res.off('close', done);
      resolve();
    };
    res.on('drain', done);
    res.on('close', done);
  });
}

async function serve(req: http.IncomingMessage, res: http.ServerResponse) {
  const path = (req.url ?? '').split('?')[0]!;
  hits.set(path, (hits.get(path) ?? 0) + 1);
  const route = routes.get(path);
  if (!route?.body || (route.status ?? 200) !== 200) {
    res.writeHead(route?.status ?? 404).end();
    return;
  }
  const body = route.body;
  res.on('close', () => {
    if (!res.writableFinished) cutOff.add(path);
  });
  res.writeHead(200, { 'content-type': 'application/octet-stream', ...(route.chunked ? {} : { 'content-length': body.length }) });
  // Small writes with a pause between them: the client gets the file in many pieces.
  for (let at = 0; at < body.length; at += 64 * KB) {
    if (res.destroyed) return;
    if (route.stallAfter !== undefined && at >= route.stallAfter) return;
    if (!res.write(body.subarray(at, at + 64 * KB))) await drainedOrClosed(res);
    await new Promise((r) => setImmediate(r));
  }
  res.end();
}

beforeAll(async () => {
  server = http.createServer((req, res) => void serve(req, res).catch(() => res.destroy()));
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  server.close();
});

beforeEach(() => {
  vi.stubEnv('MEDIA_MAX_BYTES', String(CAP));
  vi.stubEnv('MEDIA_TIMEOUT_MS', String(TIMEOUT_MS));
  // Fast enough that every file here gets just the floor.
  vi.stubEnv('MEDIA_MIN_BYTES_PER_SECOND', String(1_000 * MB));
});

afterEach(() => {
  vi.unstubAllEnvs();
  routes.clear();
  hits.clear();
  cutOff.clear();
});

/** A file as WhatsApp stores it: encrypted by Baileys with a fresh media key. */
async function encrypt(plain: Buffer, type: MediaType) {
  const enc = await encryptedStream(plain, type);
  try {
    return { ...enc, encrypted: await fs.readFile(enc.encFilePath) };
  } finally {
    await fs.rm(enc.encFilePath, { force: true });
  }
}

type Encrypted = Awaited<ReturnType<typeof encrypt>>;

/** The proto fields WhatsApp sends for a media file (`fileLength` may be overridden: it can lie). */
const mediaFields = (enc: Encrypted, url: string, fileLength: number = enc.fileLength) => ({
  url,
  mediaKey: enc.mediaKey,
  fileSha256: enc.fileSha256,
  fileEncSha256: enc.fileEncSha256,
  fileLength,
});

const documentMessage = (id: string, enc: Encrypted, url: string, fileLength?: number): WAMessage =>
  wa({
    key: { remoteJid: CUSTOMER, id, fromMe: false },
    message: { documentMessage: proto.Message.DocumentMessage.fromObject({ ...mediaFields(enc, url, fileLength), mimetype: 'application/pdf', fileName: 'contrato.pdf' }) },
  });

/** Real timing (network, timers): waits for the condition rather than a fixed number of turns. */
async function until(cond: () => boolean, ms = 10_000) {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error('timed out waiting');
    await new Promise((r) => setTimeout(r, 10));
  }
}

type MessageEvent = Extract<ProviderEvent, { type: 'message' }>;

/** The provider with its own download (the bench's fake removed). */
async function realDownload() {
  const t = await connected({ downloadMedia: undefined });
  const message = async (n = 1) => {
    await until(() => t.events.length >= n);
    return t.events[n - 1] as MessageEvent;
  };
  return { ...t, message };
}

describe('baileys provider: inbound media, downloaded and stored as a stream', () => {
  it('a document arrives decrypted, byte for byte, streamed to storage in pieces', async () => {
    const plain = randomBytes(600 * KB);
    const enc = await encrypt(plain, 'document');
    routes.set('/ok/doc', { body: enc.encrypted });
    const t = await realDownload();
    upsert(t.last(), [documentMessage('DOC1', enc, `${base}/ok/doc`)]);
    const e = await t.message();
    expect(e).toMatchObject({ type: 'message', waMessageId: 'DOC1', mediaType: 'document', media: { key: 'media/1', mimetype: 'application/pdf', fileName: 'contrato.pdf', size: plain.length } });
    expect(e.mediaError).toBeUndefined();
    expect(t.journal).toEqual(['storeMedia', 'emit:message']);
    expect(t.files.get('media/1')!.equals(plain)).toBe(true);
    // Never the whole file in one Buffer on its way to storage.
    const chunks = t.uploads.get('media/1')!;
    expect(chunks.length).toBeGreaterThan(1);
    expect(Math.max(...chunks)).toBeLessThan(plain.length);
    expect(t.downloads).toEqual([]);
    // The same bytes as Baileys' own decryption of the same file.
    const baileys = await toBuffer(await downloadContentFromMessage({ mediaKey: enc.mediaKey, url: `${base}/ok/doc` }, 'document'));
    expect(baileys.equals(plain)).toBe(true);
  });

  it('an image and a voice note (ptt kept) come through the same way, each with its media key type', async () => {
    const photo = randomBytes(200 * KB);
    const voice = randomBytes(50 * KB);
    const [img, ptt] = await Promise.all([encrypt(photo, 'image'), encrypt(voice, 'audio')]);
    routes.set('/ok/img', { body: img.encrypted });
    routes.set('/ok/ptt', { body: ptt.encrypted });
    const t = await realDownload();
    upsert(t.last(), [
      wa({ key: { remoteJid: CUSTOMER, id: 'IMG1', fromMe: false }, message: { imageMessage: proto.Message.ImageMessage.fromObject({ ...mediaFields(img, `${base}/ok/img`), mimetype: 'image/jpeg', caption: 'foto' }) } }),
      wa({ key: { remoteJid: CUSTOMER, id: 'PTT1', fromMe: false }, message: { audioMessage: proto.Message.AudioMessage.fromObject({ ...mediaFields(ptt, `${base}/ok/ptt`), mimetype: 'audio/ogg; codecs=opus', ptt: true, seconds: 3 }) } }),
    ]);
    await t.message(2);
    expect(t.events[0]).toMatchObject({ waMessageId: 'IMG1', body: 'foto', mediaType: 'image', media: { key: 'media/1', size: photo.length } });
    expect(t.events[1]).toMatchObject({ waMessageId: 'PTT1', mediaType: 'audio', media: { key: 'media/2', ptt: true, size: voice.length } });
    expect(t.files.get('media/1')!.equals(photo)).toBe(true);
    expect(t.files.get('media/2')!.equals(voice)).toBe(true);
  });

  it('a document declared over the limit is never asked for: published without media, with the tooLarge note', async () => {
    const enc = await encrypt(randomBytes(10 * KB), 'document');
    routes.set('/ok/huge', { body: enc.encrypted });
    const t = await realDownload();
    upsert(t.last(), [documentMessage('BIG1', enc, `${base}/ok/huge`, 2_000_000_000)]);
    const e = await t.message();
    expect(e).toMatchObject({ type: 'message', waMessageId: 'BIG1', mediaType: 'document' });
    expect(e.media).toBeUndefined();
    expect(e.mediaError).toEqual({ reason: 'tooLarge', size: 2_000_000_000, limit: CAP, fileName: 'contrato.pdf' });
    expect(hits.get('/ok/huge')).toBeUndefined();
    expect(t.journal).toEqual(['emit:message']);
  });

  it('a file whose bytes go over the limit though fileLength said otherwise is cut off and published with the note', async () => {
    const enc = await encrypt(randomBytes(6 * MB), 'document');
    // Chunked: nothing says how much is coming, so only counting the bytes catches it.
    routes.set('/ok/liar', { body: enc.encrypted, chunked: true });
    const t = await realDownload();
    upsert(t.last(), [documentMessage('LIE1', enc, `${base}/ok/liar`, 300 * KB)]);
    const e = await t.message();
    expect(e.media).toBeUndefined();
    // The declared size proved false: the note gives the limit, not it.
    expect(e.mediaError).toEqual({ reason: 'tooLarge', limit: CAP, fileName: 'contrato.pdf' });
    expect(t.files.size).toBe(0);
    await until(() => cutOff.has('/ok/liar'));
  });

  it('a host that announces more than the limit (Content-Length) is not read at all', async () => {
    const enc = await encrypt(randomBytes(3 * MB), 'document');
    routes.set('/ok/long', { body: enc.encrypted });
    const t = await realDownload();
    upsert(t.last(), [documentMessage('LIE2', enc, `${base}/ok/long`, 300 * KB)]);
    const e = await t.message();
    expect(e.mediaError).toEqual({ reason: 'tooLarge', limit: CAP, fileName: 'contrato.pdf' });
    expect(t.files.size).toBe(0);
    await until(() => cutOff.has('/ok/long'));
  });

  it('a host that stalls hits the time limit: the download stops and the message goes out without media', async () => {
    const enc = await encrypt(randomBytes(500 * KB), 'document');
    routes.set('/ok/slow', { body: enc.encrypted, stallAfter: 128 * KB });
    const t = await realDownload();
    const started = Date.now();
    upsert(t.last(), [documentMessage('SLOW1', enc, `${base}/ok/slow`)]);
    const e = await t.message();
    expect(Date.now() - started).toBeGreaterThanOrEqual(TIMEOUT_MS - 50);
    expect(e.media).toBeUndefined();
    expect(e.mediaError).toEqual({ reason: 'unavailable', size: enc.fileLength, fileName: 'contrato.pdf' });
    expect(t.files.size).toBe(0);
    // The HTTP request itself was aborted, not left open and paused.
    await until(() => cutOff.has('/ok/slow'));
  });

  it.each([404, 410])('an expired file (%i) is asked again from the phone (updateMediaMessage) and downloaded once more', async (status) => {
    const plain = randomBytes(300 * KB);
    const enc = await encrypt(plain, 'document');
    routes.set('/gone/doc', { status });
    routes.set('/fresh/doc', { body: enc.encrypted });
    const t = await realDownload();
    const sock = t.last();
    // As Baileys' updateMediaMessage does: the phone's new upload is written into the message's content.
    sock.updateMediaMessage.mockImplementation(async (m: WAMessage) => {
      m.message!.documentMessage!.url = `${base}/fresh/doc`;
      return m;
    });
    upsert(sock, [documentMessage('OLD1', enc, `${base}/gone/doc`)]);
    const e = await t.message();
    expect(e).toMatchObject({ waMessageId: 'OLD1', media: { key: 'media/1', size: plain.length } });
    expect(t.files.get('media/1')!.equals(plain)).toBe(true);
    expect(sock.updateMediaMessage).toHaveBeenCalledTimes(1);
    expect(sock.updateMediaMessage.mock.calls[0]![0].key.id).toBe('OLD1');
    expect(hits.get('/gone/doc')).toBe(1);
    expect(hits.get('/fresh/doc')).toBe(1);
  });

  it('the re-request is made once: still gone afterwards, or another error, and the note says unavailable', async () => {
    const enc = await encrypt(randomBytes(10 * KB), 'document');
    routes.set('/gone/again', { status: 410 });
    routes.set('/broken', { status: 500 });
    const t = await realDownload();
    const sock = t.last();
    upsert(sock, [documentMessage('GONE2', enc, `${base}/gone/again`), documentMessage('ERR500', enc, `${base}/broken`)]);
    await t.message(2);
    expect(t.events.map((e) => (e as MessageEvent).mediaError?.reason)).toEqual(['unavailable', 'unavailable']);
    // The fake's updateMediaMessage leaves the url as it was: one more try, not a loop.
    expect(hits.get('/gone/again')).toBe(2);
    expect(sock.updateMediaMessage).toHaveBeenCalledTimes(1);
    // A server error is not an expired file: the phone is not asked.
    expect(hits.get('/broken')).toBe(1);
  });

  it('a damaged file (MAC mismatch) is not stored', async () => {
    const enc = await encrypt(randomBytes(100 * KB), 'document');
    const damaged = Buffer.from(enc.encrypted);
    damaged[50 * KB] ^= 0xff;
    routes.set('/ok/damaged', { body: damaged });
    const t = await realDownload();
    upsert(t.last(), [documentMessage('BAD1', enc, `${base}/ok/damaged`)]);
    const e = await t.message();
    expect(e.media).toBeUndefined();
    expect(e.mediaError).toMatchObject({ reason: 'unavailable' });
    expect(t.files.size).toBe(0);
  });
});
