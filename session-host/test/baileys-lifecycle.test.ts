import { describe, expect, it, vi } from 'vitest';
import { DisconnectReason, jidEncode, type WAVersion } from '@whiskeysockets/baileys';
import { WaVersionSource, VERSION_MAX_AGE_MS } from '../src/providers/baileys/version.js';
import { FakeSocket, connected, settle, setup, useBaileysTestHooks } from './baileys-helpers.js';

useBaileysTestHooks();

/** Baileys' own requestPairingCode writes `me` into the credentials and emits creds.update. */
function realPairingCode(s: FakeSocket, code: string) {
  s.requestPairingCode.mockImplementation(async (phoneNumber: string) => {
    const creds = s.config.auth.creds;
    creds.pairingCode = code;
    creds.me = { id: jidEncode(phoneNumber, 's.whatsapp.net'), name: '~' };
    s.emit('creds.update', creds);
    return code;
  });
}

const statuses = (t: ReturnType<typeof setup>) => t.sessionEvents().map((e) => (e.type === 'session' ? `${e.status}${e.reason ? `:${e.reason}` : ''}` : ''));

describe('baileys provider: pairing by code (issue 17 §4)', () => {
  it('a close before the phone registered wipes the half-made credentials and shows a new code', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const t = setup({}, { pairingNumber: '5511999990000' });
    await t.session.start();
    realPairingCode(t.last(), 'CODE0001');
    t.last().emit('connection.update', { qr: 'ref-1' });
    await settle();
    expect(t.sessionEvents().at(-1)).toMatchObject({ status: 'PAIRING', qrcode: 'CODE0001' });
    expect(t.last().config.auth.creds.me?.id).toBe('5511999990000@s.whatsapp.net');

    // The connection drops (428) before the code was typed: the next socket must register again.
    t.last().close(428);
    await settle();
    expect(t.auth.clears).toBe(1);
    await vi.advanceTimersByTimeAsync(2_000);
    expect(t.sockets).toHaveLength(2);
    const second = t.last();
    expect(second.config.auth.creds.me).toBeUndefined();
    expect(second.config.auth.creds.registered).toBe(false);
    realPairingCode(second, 'CODE0002');
    second.emit('connection.update', { qr: 'ref-1' });
    await settle();
    expect(second.requestPairingCode).toHaveBeenCalledTimes(1);
    expect(t.sessionEvents().at(-1)).toMatchObject({ status: 'PAIRING', qrcode: 'CODE0002', retries: 2 });
  });

  it('a code nobody typed in time is replaced; after the limit it waits for the user (TIMEOUT)', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const t = setup({ pairingCodeMs: 60_000, qrLimit: 2 }, { pairingNumber: '5511999990000' });
    await t.session.start();
    for (let n = 1; n <= 3; n++) {
      realPairingCode(t.last(), `CODE000${n}`);
      t.last().emit('connection.update', { qr: 'ref-1' });
      await settle();
      expect(t.sessionEvents().at(-1)).toMatchObject({ status: 'PAIRING', qrcode: `CODE000${n}` });
      await vi.advanceTimersByTimeAsync(60_000 + 5_000);
    }
    expect(t.auth.clears).toBe(3);
    // Each replaced code's socket was ended, not left open to complete an old code.
    expect(t.sockets.slice(0, 3).every((s) => s.end.mock.calls.length > 0)).toBe(true);
    t.last().emit('connection.update', { qr: 'ref-1' });
    await settle();
    expect(statuses(t).at(-1)).toBe('TIMEOUT');
    expect(t.sockets).toHaveLength(4);
  });

  it('credentials linked by QR are never wiped by a pairing request: only never-paired ones are', async () => {
    const t = setup({}, { pairingNumber: '5511999990000' });
    await t.session.start();
    // What a QR link leaves: an account, and `registered` still false (Baileys sets it only for codes).
    t.last().config.auth.creds.account = { details: new Uint8Array(1) } as never;
    t.last().close(428);
    await settle();
    expect(t.auth.clears).toBe(0);
  });

  it('registered: restartRequired keeps the credentials (the normal end of pairing)', async () => {
    const t = setup({}, { pairingNumber: '5511999990000' });
    await t.session.start();
    t.last().config.auth.creds.registered = true;
    t.last().close(DisconnectReason.restartRequired);
    await settle();
    expect(t.auth.clears).toBe(0);
    expect(t.sockets).toHaveLength(2);
  });
});

describe('baileys provider: reconnect gaps (issue 17 §9)', () => {
  it('405 (version refused) asks for the version again before reconnecting', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const rejected = vi.fn();
    const t = await connected({ versionRejected: rejected });
    t.last().close(405);
    await settle();
    expect(rejected).toHaveBeenCalledTimes(1);
    await vi.advanceTimersByTimeAsync(2_000);
    expect(t.sockets).toHaveLength(2);
  });

  it('the version is fetched once a day, and again right after WhatsApp refused it', async () => {
    let now = 0;
    const versions: WAVersion[] = [
      [2, 3000, 1],
      [2, 3000, 2],
      [2, 3000, 3],
    ];
    const fetch = vi.fn(async () => versions[fetch.mock.calls.length - 1]);
    const source = new WaVersionSource(fetch, () => now);
    expect(await source.current()).toEqual([2, 3000, 1]);
    expect(await source.current()).toEqual([2, 3000, 1]);
    source.invalidate();
    expect(await source.current()).toEqual([2, 3000, 2]);
    now += VERSION_MAX_AGE_MS + 1;
    expect(await source.current()).toEqual([2, 3000, 3]);
    expect(fetch).toHaveBeenCalledTimes(3);
  });

  it('402 (temporary ban): shown, no reconnect during the ban, tried again when it ends', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const t = await connected();
    // Baileys' shape for a `failure` stanza: Boom with the stanza's attributes as data.
    const error = Object.assign(new Error('Connection Failure'), { output: { statusCode: 402 }, data: { reason: '402', expire: '600' } });
    t.last().emit('connection.update', { connection: 'close', lastDisconnect: { error, date: new Date() } });
    await settle();
    expect(t.sessionEvents().at(-1)).toMatchObject({ status: 'DISCONNECTED', reason: 'tempBanned', retries: 10 });
    await vi.advanceTimersByTimeAsync(599_000);
    expect(t.sockets).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(2_000);
    expect(t.sockets).toHaveLength(2);
  });

  it('restartRequired again and again backs off instead of looping', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const t = setup();
    await t.session.start();
    t.last().close(DisconnectReason.restartRequired);
    await settle();
    t.last().close(DisconnectReason.restartRequired);
    await settle();
    expect(t.sockets).toHaveLength(3); // at once, twice
    t.last().close(DisconnectReason.restartRequired);
    await settle();
    expect(t.sockets).toHaveLength(3); // the third waits
    await vi.advanceTimersByTimeAsync(2_000);
    expect(t.sockets).toHaveLength(4);
  });

  it('a start that fails (the table is down) is retried', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    let fail = true;
    const t = setup();
    const get = t.auth.get;
    t.auth.get = async (k) => {
      if (fail) throw new Error('table unreachable');
      return get(k);
    };
    await t.session.start();
    expect(t.sockets).toHaveLength(0);
    fail = false;
    await vi.advanceTimersByTimeAsync(2_000);
    expect(t.sockets).toHaveLength(1);
  });
});
