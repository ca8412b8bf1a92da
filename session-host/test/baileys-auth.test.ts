import { describe, expect, it } from 'vitest';
import { initAuthCreds, makeCacheableSignalKeyStore, proto, type SignalDataSet, type SignalDataTypeMap } from '@whiskeysockets/baileys';
import type { AuthStore } from '../src/provider.js';
import { CREDS_KEY, SIGNAL_KEY_TYPES, loadCreds, saveCreds, signalKey, tableSignalKeyStore } from '../src/providers/baileys/auth.js';

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
