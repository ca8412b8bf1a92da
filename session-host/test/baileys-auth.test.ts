import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  initAuthCreds,
  makeCacheableSignalKeyStore,
  proto,
  type AuthenticationCreds,
  type SignalDataSet,
  type SignalDataTypeMap,
} from '@whiskeysockets/baileys';
import type { AuthStore } from '../src/provider.js';
import {
  CREDS_FLUSH_MS,
  CREDS_KEY,
  CredsWriter,
  SIGNAL_KEY_TYPES,
  loadCreds,
  saveCreds,
  signalKey,
  tableSignalKeyStore,
} from '../src/providers/baileys/auth.js';
import { setup } from './baileys-helpers.js';

/** The table as the provider sees it: strings only, like DynamoDB items. */
function memoryStore() {
  const data = new Map<string, string>();
  const store: AuthStore = {
    get: async (k) => data.get(k),
    set: async (entries) => {
      for (const [k, v] of Object.entries(entries)) {
        if (v === null) data.delete(k);
        else {
          expect(typeof v).toBe('string');
          data.set(k, v);
        }
      }
    },
    clear: async () => data.clear(),
  };
  return { data, store };
}

const bytes = (n: number, seed: number) => Uint8Array.from({ length: n }, (_, i) => (i * 31 + seed) & 0xff);

/** One value of every key type of Baileys 7's SignalDataTypeMap. */
const samples: { [T in keyof SignalDataTypeMap]: SignalDataTypeMap[T] } = {
  'pre-key': { public: Buffer.from(bytes(32, 1)), private: Buffer.from(bytes(32, 2)) },
  session: Buffer.from(bytes(120, 3)),
  'sender-key': Buffer.from(bytes(64, 4)),
  'sender-key-memory': { '5511988887777@s.whatsapp.net': true, '99887766554433@lid': false },
  'app-state-sync-key': proto.Message.AppStateSyncKeyData.fromObject({
    keyData: Buffer.from(bytes(32, 5)),
    fingerprint: { rawId: 7, currentIndex: 2, deviceIndexes: [0, 1] },
    timestamp: 1700000000,
  }),
  'app-state-sync-version': {
    version: 12,
    hash: Buffer.from(bytes(128, 6)),
    indexValueMap: { 'aW5kZXg=': { valueMac: Buffer.from(bytes(32, 7)) } },
  },
  'lid-mapping': '99887766554433',
  'device-list': ['0', '12', '27'],
  tctoken: { token: Buffer.from(bytes(24, 8)), timestamp: '1700000000', senderTimestamp: 1700000001 },
  'identity-key': Buffer.from(bytes(33, 9)),
};

describe('baileys auth store', () => {
  it('lists every key type of SignalDataTypeMap', () => {
    expect([...SIGNAL_KEY_TYPES].sort()).toEqual(Object.keys(samples).sort());
  });

  it('round-trips every key type through keys.set / keys.get (Buffers survive BufferJSON)', async () => {
    const { data, store } = memoryStore();
    const set: SignalDataSet = {};
    for (const type of SIGNAL_KEY_TYPES) (set as Record<string, unknown>)[type] = { 'id-1': samples[type] };
    await tableSignalKeyStore(store).set(set);

    expect(data.size).toBe(SIGNAL_KEY_TYPES.length);
    for (const type of SIGNAL_KEY_TYPES) expect(data.has(signalKey(type, 'id-1'))).toBe(true);

    // A fresh store over the same table: nothing comes from memory.
    const keys = tableSignalKeyStore(store);
    for (const type of SIGNAL_KEY_TYPES) {
      const got = await keys.get(type, ['id-1', 'absent']);
      expect(Object.keys(got)).toEqual(['id-1']);
      if (type === 'app-state-sync-key') {
        const v = got['id-1'] as proto.Message.IAppStateSyncKeyData;
        expect(v).toBeInstanceOf(proto.Message.AppStateSyncKeyData);
        expect(Buffer.from(v.keyData!)).toEqual(Buffer.from(bytes(32, 5)));
        expect(v.fingerprint?.deviceIndexes).toEqual([0, 1]);
        expect(Number(v.timestamp)).toBe(1700000000);
      } else {
        expect(got['id-1']).toEqual(samples[type]);
      }
    }
    const session = (await keys.get('session', ['id-1']))['id-1'];
    expect(Buffer.isBuffer(session)).toBe(true);
  });

  it('deletes keys set to null', async () => {
    const { data, store } = memoryStore();
    const keys = tableSignalKeyStore(store);
    await keys.set({ 'pre-key': { '1': samples['pre-key'], '2': samples['pre-key'] } });
    await keys.set({ 'pre-key': { '1': null } });
    expect([...data.keys()]).toEqual([signalKey('pre-key', '2')]);
    expect(await keys.get('pre-key', ['1', '2'])).toEqual({ '2': samples['pre-key'] });
  });

  it('keys.set resolves only after the table write (written before acknowledging), also behind the cache', async () => {
    const { store } = memoryStore();
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const slow: AuthStore = { ...store, set: async (e) => (await gate, store.set(e)) };
    const keys = makeCacheableSignalKeyStore(tableSignalKeyStore(slow));
    let done = false;
    const write = Promise.resolve(keys.set({ session: { 'a.0': samples.session } })).then(() => (done = true));
    await new Promise((r) => setTimeout(r, 20));
    expect(done).toBe(false);
    release();
    await write;
    expect(await store.get(signalKey('session', 'a.0'))).toBeDefined();
  });

  it('round-trips the credentials', async () => {
    const { data, store } = memoryStore();
    const creds = initAuthCreds();
    creds.me = { id: '5511999990000:12@s.whatsapp.net', lid: '123456789012345:12@lid', name: 'Loja' };
    creds.registered = true;
    creds.routingInfo = Buffer.from(bytes(10, 10));
    await saveCreds(store, creds);
    expect(typeof data.get(CREDS_KEY)).toBe('string');
    const back = await loadCreds(store);
    expect(back).toEqual(creds);
    expect(Buffer.isBuffer(back.noiseKey.private)).toBe(true);
    expect(Buffer.isBuffer(back.signedIdentityKey.public)).toBe(true);
  });

  it('starts with fresh credentials when the table has none', async () => {
    const { store } = memoryStore();
    const creds = await loadCreds(store);
    expect(creds.registered).toBe(false);
    expect(creds.noiseKey.public).toBeInstanceOf(Uint8Array);
  });
});

describe('credentials writer (creds.update)', () => {
  afterEach(() => vi.useRealTimers());
  const log = () => ({ debug: vi.fn(), info: vi.fn(), warn: vi.fn(), error: vi.fn() });
  const withCounter = (creds: AuthenticationCreds, n: number) => ({ ...creds, accountSyncCounter: n });

  it('retries a failing write with backoff until the credentials are saved', async () => {
    vi.useFakeTimers();
    const { data, store } = memoryStore();
    let failures = 3;
    const attempts: number[] = [];
    const flaky: AuthStore = {
      ...store,
      set: async (e) => {
        attempts.push(Date.now());
        if (failures-- > 0) throw new Error('ProvisionedThroughputExceeded');
        await store.set(e);
      },
    };
    const l = log();
    const writer = new CredsWriter(flaky, l, () => 0.5);
    const creds = initAuthCreds();
    writer.save(creds);
    await vi.advanceTimersByTimeAsync(60_000);
    expect(attempts).toHaveLength(4);
    // 500 ms, 1 s, 2 s steps with equal jitter at 0.5: 375, 750, 1500 ms apart.
    expect(attempts.slice(1).map((t, i) => t - attempts[i]!)).toEqual([375, 750, 1500]);
    expect(l.warn).toHaveBeenCalledTimes(3);
    expect(await loadCreds(store)).toEqual(creds);
    expect(data.size).toBe(1);
  });

  it('coalesces updates: one write at a time, the latest snapshot lands last, never an older one after it', async () => {
    const { store } = memoryStore();
    const landed: number[] = [];
    let release!: () => void;
    const slow: AuthStore = {
      ...store,
      set: async (e) => {
        await new Promise<void>((r) => (release = r));
        landed.push(JSON.parse(e[CREDS_KEY]!).accountSyncCounter);
        await store.set(e);
      },
    };
    const writer = new CredsWriter(slow, log());
    const creds = initAuthCreds();
    writer.save(withCounter(creds, 1));
    await Promise.resolve();
    for (let n = 2; n <= 5; n++) writer.save(withCounter(creds, n));
    release();
    await new Promise((r) => setTimeout(r, 0));
    release();
    await writer.flush();
    expect(landed).toEqual([1, 5]);
    expect((await loadCreds(store)).accountSyncCounter).toBe(5);
  });

  it('stop: flush tries at once and for a bounded time, then gives up; discard drops what is unsaved', async () => {
    vi.useFakeTimers();
    const { store } = memoryStore();
    let calls = 0;
    const down: AuthStore = {
      ...store,
      set: async () => {
        calls++;
        throw new Error('table down');
      },
    };
    const l = log();
    const writer = new CredsWriter(down, l, () => 1);
    writer.save(initAuthCreds());
    await vi.advanceTimersByTimeAsync(40_000); // retrying: 0.5, 1, 2, 4, 8, 16 s…
    const before = calls;
    let done = false;
    const flushed = writer.flush(CREDS_FLUSH_MS).then(() => (done = true));
    await vi.advanceTimersByTimeAsync(0);
    expect(calls).toBe(before + 1); // the backoff is cut short
    await vi.advanceTimersByTimeAsync(CREDS_FLUSH_MS - 1);
    expect(done).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    await flushed;
    expect(l.error).toHaveBeenCalledTimes(1);
    // Nothing is retried after the session stopped.
    const after = calls;
    await vi.advanceTimersByTimeAsync(120_000);
    expect(calls).toBe(after);

    writer.save(initAuthCreds());
    await vi.advanceTimersByTimeAsync(0);
    await writer.discard();
    const dropped = calls;
    await vi.advanceTimersByTimeAsync(120_000);
    expect(calls).toBe(dropped);
  });

  it('the session saves creds.update through a failing table and stop() waits for them', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
    const { data, store } = memoryStore();
    let failures = 2;
    const auth: AuthStore = {
      ...store,
      set: async (e) => {
        if (CREDS_KEY in e && failures-- > 0) throw new Error('table down');
        await store.set(e);
      },
    };
    const t = setup({}, { auth });
    await t.session.start();
    t.last().emit('creds.update', { registered: true, me: { id: '5511999990000:12@s.whatsapp.net', name: 'Loja' } });
    await vi.advanceTimersByTimeAsync(0);
    expect(data.has(CREDS_KEY)).toBe(false);
    // stop() tries at once, waits out the backoff of the next failure, and resolves once saved.
    const savedWhenStopped = t.session.stop().then(() => data.has(CREDS_KEY));
    await vi.advanceTimersByTimeAsync(5_000);
    expect(await savedWhenStopped).toBe(true);
    expect(JSON.parse(data.get(CREDS_KEY)!)).toMatchObject({ registered: true, me: { id: '5511999990000:12@s.whatsapp.net' } });
  });
});
