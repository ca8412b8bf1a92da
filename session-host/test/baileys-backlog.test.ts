import { describe, expect, it, vi } from 'vitest';
import { BACKLOG_HIGH, BACKLOG_LOW } from '../src/providers/baileys/session.js';
import { PeerDirectory } from '../src/providers/baileys/peers.js';
import { CUSTOMER, connected, settle, upsert, useBaileysTestHooks, wa } from './baileys-helpers.js';

useBaileysTestHooks();

/**
 * Issue 17 §10 and §12: what Baileys already acknowledged to WhatsApp is published whatever the
 * queue does meanwhile; one slow chat holds only itself; a backlog stops the socket reading.
 */

const OTHER = '5511933332222@s.whatsapp.net';
const text = (jid: string, id: string, body = id) => wa({ key: { remoteJid: jid, id, fromMe: false }, message: { conversation: body } });
const bodies = (t: Awaited<ReturnType<typeof connected>>) => t.events.flatMap((e) => (e.type === 'message' ? [e.body] : []));

/** A session whose download of message `id` (a document from `jid`) waits until `release()`. */
async function withSlowDownload(id: string, jid = CUSTOMER) {
  let release!: () => void;
  const slow = new Promise<void>((r) => (release = r));
  const t = await connected({
    downloadMedia: async (msg) => {
      if (msg.key.id === id) await slow;
      return Buffer.from('bytes');
    },
  });
  upsert(t.last(), [wa({ key: { remoteJid: jid, id, fromMe: false }, message: { documentMessage: { mimetype: 'application/pdf', fileName: 'grande.pdf', fileLength: 1000, url: 'https://mmg.whatsapp.net/d', mediaKey: new Uint8Array(32) } } })]);
  return { t, s: t.last(), release };
}

describe('baileys provider: inbound backlog', () => {
  it('an event the queue refuses is retried with backoff until it is taken, once', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    let refusals = 8;
    const t = await connected();
    const emit = t.ctx.emit;
    t.ctx.emit = async (e) => {
      if (e.type === 'message' && refusals-- > 0) throw new Error('SQS unavailable');
      return emit(e);
    };
    upsert(t.last(), [text(CUSTOMER, 'R1', 'não se perde')]);
    // Eight refusals, far beyond the former three tries (0.75 s).
    await vi.advanceTimersByTimeAsync(5 * 60_000);
    expect(bodies(t)).toEqual(['não se perde']);
  });

  it('keeps retrying while a stop drains (what was received still goes out), gives up after; an invalid event is not retried', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
    const t = await connected();
    let down = true;
    const emit = t.ctx.emit;
    t.ctx.emit = async (e) => {
      if (down && e.type === 'message') throw new Error('SQS unavailable');
      return emit(e);
    };
    upsert(t.last(), [text(CUSTOMER, 'D1', 'chegou antes da parada')]);
    await vi.advanceTimersByTimeAsync(5_000);
    const stopping = t.session.stop();
    await vi.advanceTimersByTimeAsync(3_000);
    down = false; // the queue is back while the stop drains
    await vi.advanceTimersByTimeAsync(12_000);
    await stopping;
    expect(bodies(t)).toEqual(['chegou antes da parada']);

    const v = await connected();
    let tries = 0;
    v.ctx.emit = async () => {
      tries++;
      throw new Error('SQS unavailable');
    };
    upsert(v.last(), [text(CUSTOMER, 'S1')]);
    await vi.advanceTimersByTimeAsync(10_000);
    const stopped = v.session.stop();
    await vi.advanceTimersByTimeAsync(20_000);
    await stopped;
    const atDeadline = tries;
    await vi.advanceTimersByTimeAsync(5 * 60_000);
    expect(tries).toBeLessThanOrEqual(atDeadline + 1);

    const u = await connected();
    let invalid = 0;
    u.ctx.emit = async () => {
      invalid++;
      throw Object.assign(new Error('bad event'), { name: 'ZodError' });
    };
    upsert(u.last(), [text(CUSTOMER, 'Z1')]);
    await vi.advanceTimersByTimeAsync(60_000);
    expect(invalid).toBe(1);
  });

  it('a slow download holds its own chat only: another chat and the acks flow meanwhile', async () => {
    const { t, s, release } = await withSlowDownload('BIG');
    upsert(s, [text(CUSTOMER, 'AFTER', 'depois do arquivo')]);
    upsert(s, [text(OTHER, 'ELSE', 'outro cliente')]);
    s.emit('messages.update', [{ key: { remoteJid: OTHER, id: '3EB0MINE', fromMe: true }, update: { status: 3 } }]);
    await settle();
    expect(bodies(t)).toEqual(['outro cliente']);
    expect(t.events.some((e) => e.type === 'ack')).toBe(true);
    release();
    await settle();
    // The slow chat keeps its own order.
    expect(t.events.flatMap((e) => (e.type === 'message' && e.chat.number === '5511988887777' ? [e.waMessageId] : []))).toEqual(['BIG', 'AFTER']);
  });

  it('a chat keeps its one chain when its LID is learned midway (never two chains at once)', async () => {
    const { t, s, release } = await withSlowDownload('BYNUMBER');
    const LID = '201234567890123@lid';
    await settle();
    s.emit('lid-mapping.update', { lid: LID, pn: CUSTOMER });
    upsert(s, [wa({ key: { remoteJid: LID, remoteJidAlt: CUSTOMER, id: 'BYLID', fromMe: false }, message: { conversation: 'agora pelo LID' } })]);
    await settle();
    expect(bodies(t)).toEqual([]);
    release();
    await settle();
    expect(t.events.flatMap((e) => (e.type === 'message' ? [e.waMessageId] : []))).toEqual(['BYNUMBER', 'BYLID']);
  });

  it(`past ${BACKLOG_HIGH} waiting events the socket stops reading, and reads again at ${BACKLOG_LOW}`, async () => {
    const t = await connected();
    const s = t.last();
    const ws = { socket: { pause: vi.fn(), resume: vi.fn() } };
    s.ws = ws;
    let open!: () => void;
    const gate = new Promise<void>((r) => (open = r));
    const emit = t.ctx.emit;
    t.ctx.emit = async (e) => {
      await gate;
      return emit(e);
    };
    for (let i = 0; i < BACKLOG_HIGH + 50; i++) upsert(s, [text(`55119000${String(i).padStart(5, '0')}@s.whatsapp.net`, `B${i}`)]);
    await settle();
    expect(ws.socket.pause).toHaveBeenCalledTimes(1);
    expect(ws.socket.resume).not.toHaveBeenCalled();
    open();
    for (let i = 0; i < 50 && !ws.socket.resume.mock.calls.length; i++) await settle();
    expect(ws.socket.resume).toHaveBeenCalledTimes(1);
    await settle();
    expect(bodies(t)).toHaveLength(BACKLOG_HIGH + 50);
  });
});

describe('baileys provider: our own number', () => {
  it('is never paired with someone else’s LID, nor our LID with another number', async () => {
    const quiet = { debug() {}, info() {}, warn() {}, error() {} };
    const peers = new PeerDirectory(quiet, () => undefined);
    peers.setOwn({ number: '5511999990000', lid: '123456789012345' });
    peers.rememberPair({ number: '5511999990000', lid: '999999999999999' });
    peers.rememberPair({ number: '5511977770000', lid: '123456789012345' });
    expect(peers.lidOfNumber('5511999990000')).toBe('123456789012345');
    expect(peers.numberOfLid('123456789012345')).toBe('5511999990000');
    expect(peers.numberOfLid('999999999999999')).toBeUndefined();
    peers.rememberPair({ number: '5511977770000', lid: '555555555555555' });
    expect(peers.numberOfLid('555555555555555')).toBe('5511977770000');
  });
});
