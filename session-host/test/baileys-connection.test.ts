import { afterEach, describe, expect, it, vi } from 'vitest';
import { DisconnectReason, proto, type GroupMetadata } from '@whiskeysockets/baileys';
import { BACKOFF_CAP_MS, backoffDelay } from '../src/providers/baileys/index.js';
import { signalKey } from '../src/providers/baileys/auth.js';
import { CUSTOMER, GROUP, connected, settle, setup, useBaileysTestHooks } from './baileys-helpers.js';

useBaileysTestHooks();

describe('baileys provider: socket options', () => {
  it('is the beta provider and configures the socket (auth through ctx.auth, no history, getMessage, group cache)', async () => {
    const t = setup();
    expect(t.provider.name).toBe('beta');
    await t.session.start();
    const config = t.last().config;
    expect(config.markOnlineOnConnect).toBe(false);
    expect(config.syncFullHistory).toBe(false);
    const T = proto.HistorySync.HistorySyncType;
    const sync = (syncType: proto.HistorySync.HistorySyncType) => config.shouldSyncHistoryMessage?.({ syncType } as proto.Message.IHistorySyncNotification);
    // No years of chats: only the first connection's sync.
    expect([T.FULL, T.ON_DEMAND].map(sync)).toEqual([false, false]);
    // The bootstrap carries the LID mappings Baileys needs; RECENT must be accepted or Baileys skips
    // the initial sync (the app state with the saved contact names) altogether (issue 17 §6), as its
    // own check at connection time decides:
    expect([T.INITIAL_BOOTSTRAP, T.RECENT, T.PUSH_NAME].map(sync)).toEqual([true, true, true]);
    expect(config.shouldSyncHistoryMessage?.(proto.Message.HistorySyncNotification.create({ syncType: T.RECENT }))).toBe(true);
    expect(config.browser).toEqual(['Balcão', 'Chrome', '1.0.0']);
    expect(typeof config.logger?.child).toBe('function');

    const stored = await config.getMessage!({ remoteJid: CUSTOMER, id: 'QUOTED1' });
    expect(stored).toBeInstanceOf(proto.Message);
    expect(stored?.conversation).toBe('the quoted text');
    expect(await config.getMessage!({ remoteJid: CUSTOMER, id: 'nope' })).toBeUndefined();

    expect(await config.cachedGroupMetadata!(GROUP)).toBeUndefined();
    t.last().emit('groups.upsert', [{ id: GROUP, subject: 'Antes', participants: [] } as unknown as GroupMetadata]);
    expect((await config.cachedGroupMetadata!(GROUP))?.subject).toBe('Antes');
    t.last().emit('groups.update', [{ id: GROUP, subject: 'Depois' }]);
    expect((await config.cachedGroupMetadata!(GROUP))?.subject).toBe('Depois');
    t.last().emit('group-participants.update', { id: GROUP, author: CUSTOMER, participants: [], action: 'add' });
    expect(await config.cachedGroupMetadata!(GROUP)).toBeUndefined();

    // Keys Baileys writes land in the table (behind the cache), creds on creds.update.
    await config.auth.keys.set({ session: { 'x.0': Buffer.from([1, 2, 3]) } });
    expect(t.data.get(signalKey('session', 'x.0'))).toContain('Buffer');
    t.last().emit('creds.update', { registered: true });
    await settle();
    expect(JSON.parse(t.data.get('creds')!).registered).toBe(true);
  });
});

describe('baileys provider: connection updates', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('connecting → OPENING, QR codes → qrcode, open → CONNECTED with the number', async () => {
    const t = setup();
    await t.session.start();
    const s = t.last();
    s.emit('connection.update', { connection: 'connecting' });
    s.emit('connection.update', { qr: 'QR-1' });
    s.emit('connection.update', { qr: 'QR-2' });
    s.open();
    await settle();
    expect(t.sessionEvents()).toEqual([
      { type: 'session', status: 'OPENING' },
      { type: 'session', status: 'qrcode', qrcode: 'QR-1', retries: 1 },
      { type: 'session', status: 'qrcode', qrcode: 'QR-2', retries: 2 },
      { type: 'session', status: 'CONNECTED', number: '5511999990000' },
    ]);
    expect(t.session.connected).toBe(true);
  });

  it('after the QR limit: TIMEOUT, the socket ends, and it waits for the user', async () => {
    const t = setup({ qrLimit: 5 });
    await t.session.start();
    const s = t.last();
    for (let i = 1; i <= 7; i++) s.emit('connection.update', { qr: `QR-${i}` });
    await settle();
    const statuses = t.sessionEvents().map((e) => (e.type === 'session' ? e.status : ''));
    expect(statuses).toEqual(['qrcode', 'qrcode', 'qrcode', 'qrcode', 'qrcode', 'TIMEOUT']);
    expect(s.end).toHaveBeenCalledWith(undefined);
    expect(t.sockets).toHaveLength(1);
    // The user's "try again" starts over with a new socket and a fresh count.
    await t.session.start();
    expect(t.sockets).toHaveLength(2);
    t.last().emit('connection.update', { qr: 'QR-again' });
    await settle();
    expect(t.sessionEvents().at(-1)).toMatchObject({ status: 'qrcode', qrcode: 'QR-again', retries: 1 });
  });

  it('pairing code instead of QR when a number is given', async () => {
    const t = setup({}, { pairingNumber: '(11) 99999-0000' });
    await t.session.start();
    const s = t.last();
    s.emit('connection.update', { qr: 'QR-1' });
    s.emit('connection.update', { qr: 'QR-2' });
    await settle();
    expect(s.requestPairingCode).toHaveBeenCalledTimes(1);
    expect(s.requestPairingCode).toHaveBeenCalledWith('5511999990000');
    expect(t.sessionEvents()).toEqual([{ type: 'session', status: 'PAIRING', qrcode: 'ABCD1234', retries: 1 }]);
  });

  it('a failed pairing code request is retried at the next QR event', async () => {
    const t = setup({}, { pairingNumber: '5511999990000' });
    await t.session.start();
    const s = t.last();
    s.requestPairingCode.mockRejectedValueOnce(new Error('not ready'));
    s.emit('connection.update', { qr: 'QR-1' });
    await settle();
    expect(t.sessionEvents()).toEqual([]);
    s.emit('connection.update', { qr: 'QR-2' });
    await settle();
    expect(s.requestPairingCode).toHaveBeenCalledTimes(2);
    expect(t.sessionEvents()).toEqual([{ type: 'session', status: 'PAIRING', qrcode: 'ABCD1234', retries: 1 }]);
  });

  it('515 restartRequired reconnects at once', async () => {
    const t = setup();
    await t.session.start();
    t.last().close(DisconnectReason.restartRequired);
    await settle();
    expect(t.sockets).toHaveLength(2);
    expect(t.sessionEvents().filter((e) => e.type === 'session' && e.status === 'DISCONNECTED')).toEqual([]);
    // The new socket is live; the old one's events are ignored.
    t.sockets[0].emit('connection.update', { qr: 'stale' });
    t.last().open();
    await settle();
    expect(t.sessionEvents().map((e) => (e.type === 'session' ? e.status : ''))).toEqual(['CONNECTED']);
  });

  it('401 loggedOut wipes the credentials and reports DISCONNECTED; no reconnect', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const t = await connected();
    await t.auth.set({ creds: '{"registered":true}', [signalKey('session', 'a.0')]: '"x"' });
    t.last().close(DisconnectReason.loggedOut);
    await settle();
    expect(t.auth.clears).toBe(1);
    expect(t.data.size).toBe(0);
    expect(t.sessionEvents()).toEqual([{ type: 'session', status: 'DISCONNECTED', reason: 'loggedOut' }]);
    await vi.advanceTimersByTimeAsync(10 * 60_000);
    expect(t.sockets).toHaveLength(1);
    expect(t.session.connected).toBe(false);
  });

  it('403 forbidden (banned) wipes and reports DISCONNECTED banned', async () => {
    const t = await connected();
    await t.auth.set({ creds: '{}' });
    t.last().close(DisconnectReason.forbidden);
    await settle();
    expect(t.auth.clears).toBe(1);
    expect(t.sessionEvents()).toEqual([{ type: 'session', status: 'DISCONNECTED', reason: 'banned' }]);
  });

  it('440 connectionReplaced stops without reconnecting (no flapping) and keeps the credentials', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const t = await connected();
    await t.auth.set({ creds: '{}' });
    t.last().close(DisconnectReason.connectionReplaced);
    await settle();
    await vi.advanceTimersByTimeAsync(30 * 60_000);
    expect(t.sockets).toHaveLength(1);
    expect(t.auth.clears).toBe(0);
    expect(t.sessionEvents()).toEqual([{ type: 'session', status: 'DISCONNECTED', reason: 'replaced' }]);
  });

  it('428/408/503 and network errors back off exponentially with jitter, capped at 60 s; reset after a stable connection', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    let r = 0;
    const randoms = [0, 0.99, 0.5];
    const t = await connected({ random: () => randoms[r++ % randoms.length], stableAfterMs: 60_000 });
    const codes = [DisconnectReason.connectionClosed, DisconnectReason.timedOut, DisconnectReason.unavailableService, undefined, 428, 428, 428, 428, 428, 428];
    const delays: number[] = [];
    for (const code of codes) {
      const before = t.sockets.length;
      t.last().close(code);
      await settle();
      expect(t.sockets).toHaveLength(before); // never at once
      let waited = 0;
      while (t.sockets.length === before) {
        await vi.advanceTimersByTimeAsync(100);
        waited += 100;
        expect(waited).toBeLessThanOrEqual(BACKOFF_CAP_MS);
      }
      delays.push(waited);
    }
    // Each delay lies in [step/2, step] of its attempt, step = min(60 s, 1 s · 2^(n-1)).
    delays.forEach((d, i) => {
      const step = Math.min(BACKOFF_CAP_MS, 1000 * 2 ** i);
      expect(d).toBeGreaterThanOrEqual(step / 2);
      expect(d).toBeLessThanOrEqual(step + 100);
    });
    expect(delays.at(-1)).toBeLessThanOrEqual(BACKOFF_CAP_MS);
    expect(delays[5]).toBeGreaterThan(delays[1]);
    const opening = t.sessionEvents().filter((e) => e.type === 'session' && e.status === 'OPENING');
    expect(opening.map((e) => (e as { retries?: number }).retries)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);

    // A connection that stays up resets the backoff: the next drop waits about a second again.
    t.last().open();
    await vi.advanceTimersByTimeAsync(60_000);
    const before = t.sockets.length;
    t.last().close(428);
    await settle();
    await vi.advanceTimersByTimeAsync(1_000);
    expect(t.sockets).toHaveLength(before + 1);
  });

  it('backoffDelay grows, is jittered within [step/2, step], and never exceeds 60 s', () => {
    expect(backoffDelay(1, () => 0)).toBe(500);
    expect(backoffDelay(1, () => 0.999)).toBeLessThanOrEqual(1000);
    expect(backoffDelay(4, () => 0)).toBe(4000);
    for (let a = 1; a <= 40; a++) {
      for (const x of [0, 0.3, 0.999]) expect(backoffDelay(a, () => x)).toBeLessThanOrEqual(BACKOFF_CAP_MS);
    }
    expect(backoffDelay(30, () => 0)).toBe(30_000);
    expect(new Set([0.1, 0.5, 0.9].map((x) => backoffDelay(5, () => x))).size).toBe(3);
  });

  it('stop() ends the socket without logging out and does not reconnect', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const t = await connected();
    await t.session.stop();
    expect(t.sockets[0].end).toHaveBeenCalledWith(undefined);
    expect(t.sockets[0].logout).not.toHaveBeenCalled();
    await vi.advanceTimersByTimeAsync(10 * 60_000);
    expect(t.sockets).toHaveLength(1);
    expect(t.events).toEqual([]);
    expect(t.auth.clears).toBe(0);
  });

  it('logout() unlinks, wipes and reports DISCONNECTED; newQr() wipes and starts over', async () => {
    const t = await connected();
    await t.auth.set({ creds: '{}' });
    await t.session.logout();
    expect(t.sockets[0].logout).toHaveBeenCalled();
    expect(t.auth.clears).toBe(1);
    expect(t.sessionEvents()).toEqual([{ type: 'session', status: 'DISCONNECTED', reason: 'logout' }]);

    await t.session.newQr();
    expect(t.auth.clears).toBe(2);
    expect(t.sockets).toHaveLength(2);
    expect(t.last().config.auth.creds.registered).toBe(false);
  });
});
