import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { newLTHashState, type LTHashState } from '@whiskeysockets/baileys';
import { AUTH_CACHE_LIMITS, DynamoAuthStore, MAX_VALUE_BYTES, readAuthItem, splitUtf8 } from '../src/host/auth-store.js';
import { serialize, signalKey, tableSignalKeyStore } from '../src/providers/baileys/auth.js';
import { FakeTable, ITEM_LIMIT, itemSize, type Sent } from './dynamo-fake.js';

const PK = 'C#1#WAPP#7#AUTH';
const TABLE = 'balcao';
const storeOn = (t: FakeTable) => new DynamoAuthStore(PK, { client: t.client, tableName: TABLE });
const read = (t: FakeTable, key: string) => readAuthItem(PK, key, t.client, TABLE);
const chunksOf = (text: string) => Math.ceil(Buffer.byteLength(text) / MAX_VALUE_BYTES);
const READS = ['GetCommand', 'BatchGetCommand', 'QueryCommand'];
const writes = (t: FakeTable) => t.sent.filter((s) => !READS.includes(s.name));
/** The keys a write command touches, in its order. */
const touched = (s: Sent): string[] =>
  s.name === 'TransactWriteCommand'
    ? s.input.TransactItems.map((a: any) => a.Put?.Item.SK ?? a.Delete.Key.SK)
    : s.name === 'BatchWriteCommand'
      ? Object.values(s.input.RequestItems as Record<string, any[]>)[0]!.map((r) => r.PutRequest?.Item.SK ?? r.DeleteRequest.Key.SK)
      : [s.input.Item?.SK ?? s.input.Key.SK];

/** An app-state collection's LT hash state as Baileys keeps it (`newLTHashState()` filled by a sync). */
function ltHashState(entries: number, version = 1): LTHashState {
  const state = newLTHashState();
  state.version = version;
  state.hash = randomBytes(128);
  const pool = randomBytes(entries * 64); // one call: 20 000 small ones take half a second
  for (let i = 0; i < entries; i++) {
    state.indexValueMap[pool.toString('base64', i * 64, i * 64 + 32)] = { valueMac: Buffer.from(pool.subarray(i * 64 + 32, i * 64 + 64)) };
  }
  return state;
}

// Megabytes of JSON on two shared cores: more time than the default 5 s.
describe('DynamoAuthStore: values past the item limit', { timeout: 30_000 }, () => {
  it('stores a 1.2 MB app-state-sync-version (10 000 LT hash entries) in chunks and reads it back; no item passes 400 KB', async () => {
    const t = new FakeTable();
    const state = ltHashState(10_000, 4321);
    expect(serialize(state).length).toBeGreaterThan(1_150_000);

    await tableSignalKeyStore(storeOn(t)).set({ 'app-state-sync-version': { regular_high: state } });

    const items = t.partition(PK);
    const key = signalKey('app-state-sync-version', 'regular_high');
    const head = items.find((i) => i.SK === key)!;
    expect(head).toMatchObject({ entity: 'wauth', chunks: 4 });
    expect(head.value).toBeUndefined();
    expect(items.filter((i) => i.entity === 'wauthpart')).toHaveLength(4);
    expect(t.maxItemBytes).toBeGreaterThan(MAX_VALUE_BYTES);
    expect(t.maxItemBytes).toBeLessThan(ITEM_LIMIT);
    for (const item of items) expect(itemSize(item)).toBeLessThanOrEqual(ITEM_LIMIT);

    // Another task after a takeover: nothing from memory.
    const back = (await tableSignalKeyStore(storeOn(t)).get('app-state-sync-version', ['regular_high'])).regular_high!;
    expect(back.version).toBe(4321);
    expect(Buffer.isBuffer(back.hash)).toBe(true);
    expect(back).toEqual(state);
    expect(Object.keys(back.indexValueMap)).toHaveLength(10_000);
    expect(await read(t, key)).toBe(serialize(state));
  });

  it('a reader between any two writes of a replacement sees the whole old or the whole new value; old chunks are deleted last', async () => {
    const t = new FakeTable();
    const store = storeOn(t);
    const key = signalKey('app-state-sync-version', 'regular');
    const v1 = serialize(ltHashState(10_000, 1));
    const v2 = serialize(ltHashState(11_000, 2));
    await store.set({ [key]: v1 });

    const seen: string[] = [];
    let reading = false;
    t.before = (s) => {
      if (reading || READS.includes(s.name)) return;
      return async () => {
        reading = true;
        const now = await read(t, key);
        // A fresh store reads the head, then its version's chunks with a Query: the other way of reading.
        const loaded = await storeOn(t).get(key);
        reading = false;
        expect(now === v1 || now === v2).toBe(true);
        expect(loaded).toBe(now);
        seen.push(now === v1 ? 'old' : 'new');
      };
    };
    await store.set({ [key]: v2 });
    t.before = undefined;

    // New chunks (invisible), then the head, then the old chunks' deletion.
    expect(seen[0]).toBe('old');
    expect(seen.at(-1)).toBe('new');
    expect(seen.indexOf('new')).toBe(seen.lastIndexOf('old') + 1);
    const names = writes(t).slice(-seen.length).map((s) => s.name);
    expect(names.at(-1)).toBe('BatchWriteCommand');
    expect(names.at(-2)).toBe('PutCommand');
    const parts = t.partition(PK).filter((i) => i.entity === 'wauthpart');
    expect(parts.every((p) => p.ver === t.partition(PK).find((i) => i.SK === key)!.ver)).toBe(true);
    expect(await store.get(key)).toBe(v2);
  });

  it('a value that shrinks, a deleted value and clear() leave no chunk behind; the cache follows', async () => {
    const t = new FakeTable();
    const store = storeOn(t);
    const big = 'é'.repeat(400_000); // 800 KB of UTF-8: two bytes a character, never cut inside one
    await store.set({ addressbook: big, creds: '{"a":1}' });
    expect(t.partition(PK).filter((i) => i.entity === 'wauthpart')).toHaveLength(3);
    expect(await storeOn(t).get('addressbook')).toBe(big);

    await store.set({ addressbook: '{}' });
    expect(t.partition(PK).map((i) => i.SK)).toEqual(['addressbook', 'creds']);
    expect(await store.get('addressbook')).toBe('{}');

    await store.set({ addressbook: big });
    await store.set({ addressbook: null });
    expect(t.partition(PK).map((i) => i.SK)).toEqual(['creds']);
    expect(await store.get('addressbook')).toBeUndefined();

    await store.set({ addressbook: big });
    await store.clear();
    expect(t.partition(PK)).toEqual([]);
    expect(await store.get('addressbook')).toBeUndefined();
    expect(await store.get('creds')).toBeUndefined();
    expect(await storeOn(t).get('creds')).toBeUndefined();
  });

  it('splits UTF-8 between characters only', () => {
    const text = 'a😀é'.repeat(1000);
    const pieces = splitUtf8(text, 7);
    expect(pieces.join('')).toBe(text);
    for (const p of pieces) {
      expect(Buffer.byteLength(p)).toBeLessThanOrEqual(7);
      expect(p).not.toContain('\ufffd');
    }
  });

  it('a write that fails before its head leaves the old value readable; its chunks are collected by a later write', async () => {
    const t = new FakeTable();
    const key = signalKey('app-state-sync-version', 'critical_block');
    const v1 = serialize(ltHashState(8_000, 1));
    const v2 = serialize(ltHashState(8_000, 2));
    await storeOn(t).set({ [key]: v1 });

    const store = storeOn(t);
    t.before = (s) => {
      if (s.name === 'PutCommand') throw Object.assign(new Error('throttled'), { name: 'ProvisionedThroughputExceededException' });
    };
    await expect(store.set({ [key]: v2 })).rejects.toThrow('throttled');
    t.before = undefined;
    expect(await store.get(key)).toBe(v1);
    expect(await read(t, key)).toBe(v1);
    // The orphaned chunks are there until the next write; a new task reads the old value past them.
    expect(t.partition(PK).filter((i) => i.entity === 'wauthpart')).toHaveLength(chunksOf(v1) + chunksOf(v2));
    expect(await storeOn(t).get(key)).toBe(v1);

    await store.set({ creds: '{}' });
    const parts = t.partition(PK).filter((i) => i.entity === 'wauthpart');
    expect(parts).toHaveLength(chunksOf(v1));
    expect(new Set(parts.map((p) => p.ver))).toEqual(new Set([t.partition(PK).find((i) => i.SK === key)!.ver]));
  });

  it('a head write whose answer was lost is read again from the table before it is answered', async () => {
    const t = new FakeTable();
    const store = storeOn(t);
    const key = signalKey('app-state-sync-version', 'regular_low');
    const v1 = serialize(ltHashState(8_000, 1));
    const v2 = serialize(ltHashState(8_000, 2));
    await store.set({ [key]: v1 });
    t.before = (s) => {
      if (s.name === 'PutCommand')
        return () => {
          throw Object.assign(new Error('socket hang up'), { name: 'TimeoutError' });
        };
    };
    await expect(store.set({ [key]: v2 })).rejects.toThrow('socket hang up');
    t.before = undefined;
    // It landed: the store does not answer the old value from its cache.
    expect(await store.get(key)).toBe(v2);
    // The old version's chunks go with the next write.
    expect(t.partition(PK).filter((i) => i.entity === 'wauthpart')).toHaveLength(chunksOf(v1) + chunksOf(v2));
    await store.set({ creds: '{}' });
    expect(t.partition(PK).filter((i) => i.entity === 'wauthpart')).toHaveLength(chunksOf(v2));
  });
});

describe('DynamoAuthStore: sets of keys', () => {
  it('one key is one PutItem; a set that fits is one transaction; a bigger one is transactions of 100 in the order of its entries', async () => {
    const t = new FakeTable();
    const store = storeOn(t);
    await store.set({ creds: '{}' });
    expect(writes(t).map((s) => s.name)).toEqual(['PutCommand']);

    t.sent = [];
    const forty = Object.fromEntries(Array.from({ length: 40 }, (_, i) => [signalKey('pre-key', String(i)), '{}']));
    await store.set({ ...forty, creds: null });
    expect(writes(t).map((s) => s.name)).toEqual(['TransactWriteCommand']);
    expect(touched(writes(t)[0]!)).toEqual([...Object.keys(forty), 'creds']);

    t.sent = [];
    const many = Object.fromEntries(Array.from({ length: 250 }, (_, i) => [signalKey('session', `${i}.0`), '"s"']));
    await store.set(many);
    expect(writes(t).map((s) => s.name)).toEqual(['TransactWriteCommand', 'TransactWriteCommand', 'TransactWriteCommand']);
    expect(writes(t).flatMap(touched)).toEqual(Object.keys(many));
    expect(await storeOn(t).get(signalKey('session', '249.0'))).toBe('"s"');
  });

  it('transactions also stay under 4 MB: twenty values of 300 KB go in two', async () => {
    const t = new FakeTable();
    const big = Object.fromEntries(Array.from({ length: 20 }, (_, i) => [`k${i}`, 'x'.repeat(300_000)]));
    await storeOn(t).set(big);
    expect(writes(t).map((s) => s.name)).toEqual(['TransactWriteCommand', 'TransactWriteCommand']);
    expect(t.partition(PK)).toHaveLength(20);
  });

  it('keys.set writes the progress records (sender-key-memory) after the keys they point to', async () => {
    const t = new FakeTable();
    const sessions = Object.fromEntries(Array.from({ length: 150 }, (_, i) => [`5511${i}:0@s.whatsapp.net`, Buffer.from([i % 256])]));
    await tableSignalKeyStore(storeOn(t)).set({
      'sender-key-memory': { '120363040000000001@g.us': { '5511900000001:0@s.whatsapp.net': true } },
      'sender-key': { '120363040000000001@g.us::5511999990000::0': Buffer.from([1, 2, 3]) },
      session: sessions,
    });
    const order = writes(t).flatMap(touched);
    expect(order).toHaveLength(152);
    expect(order.at(-1)).toBe(signalKey('sender-key-memory', '120363040000000001@g.us'));
    expect(order.at(-2)).toBe(signalKey('sender-key', '120363040000000001@g.us::5511999990000::0'));
    expect(order.slice(0, 150).every((k) => k.startsWith('key:session:'))).toBe(true);
  });

  it('a failed transaction of a big set rejects with the earlier ones written; the same set again completes it', async () => {
    const t = new FakeTable();
    const store = storeOn(t);
    const many = Object.fromEntries(Array.from({ length: 250 }, (_, i) => [signalKey('pre-key', String(i)), `{"i":${i}}`]));
    let transactions = 0;
    t.before = (s) => {
      if (s.name === 'TransactWriteCommand' && ++transactions === 2) throw Object.assign(new Error('unreachable'), { name: 'InternalServerError' });
    };
    await expect(store.set(many)).rejects.toThrow('unreachable');
    t.before = undefined;
    expect(t.partition(PK)).toHaveLength(100);
    // What did not land is not in the cache as if it had.
    expect(await store.get(signalKey('pre-key', '150'))).toBeUndefined();
    await store.set(many);
    expect(t.partition(PK)).toHaveLength(250);
    expect(await storeOn(t).get(signalKey('pre-key', '249'))).toBe('{"i":249}');
  });

  it('retries a transaction cancelled by a conflict', async () => {
    const t = new FakeTable();
    let n = 0;
    t.before = (s) => {
      if (s.name === 'TransactWriteCommand' && n++ < 2)
        throw Object.assign(new Error('cancelled'), { name: 'TransactionCanceledException', CancellationReasons: [{ Code: 'TransactionConflict' }, { Code: 'None' }] });
    };
    await storeOn(t).set({ a: '1', b: '2' });
    expect(t.partition(PK).map((i) => i.value)).toEqual(['1', '2']);
  });

  it('writes of one key land in the order of the calls: the latest set wins, in the table and the cache', async () => {
    const t = new FakeTable();
    const store = storeOn(t);
    await store.get('creds');
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    t.before = (s) => {
      if (s.name === 'PutCommand' && s.input.Item.value === 'first') return () => gate;
    };
    const first = store.set({ creds: 'first' });
    const second = store.set({ creds: 'second' });
    await new Promise((r) => setTimeout(r, 10));
    release();
    await Promise.all([first, second]);
    expect(await read(t, 'creds')).toBe('second');
    expect(await store.get('creds')).toBe('second');
  });
});

describe('DynamoAuthStore: keys read when asked, within bounds (issue 17 §12)', { timeout: 30_000 }, () => {
  /** A busy account's partition written by an earlier owner: creds, 600 sessions, a chunked value. */
  async function busyPartition() {
    const t = new FakeTable();
    const sessions = Object.fromEntries(Array.from({ length: 600 }, (_, i) => [signalKey('session', `5511${9e8 + i}.0`), JSON.stringify('s'.repeat(2_000 + i))]));
    await storeOn(t).set({ creds: '{"me":1}', ...sessions });
    await storeOn(t).set({ addressbook: 'n'.repeat(800_000) });
    t.sent = [];
    t.counts = {};
    t.itemsRead = 0;
    return { t };
  }

  it('the first get reads one item, not the partition; a key set of many ids is BatchGetItems of 100', async () => {
    const { t } = await busyPartition();
    const store = storeOn(t);
    expect(await store.get('creds')).toBe('{"me":1}');
    expect(t.counts).toEqual({ GetCommand: 1 });
    expect(t.itemsRead).toBe(1);

    const ids = Array.from({ length: 250 }, (_, i) => `5511${9e8 + i}.0`);
    const got = await tableSignalKeyStore(store).get('session', [...ids, '5511000000000.0']);
    expect(Object.keys(got)).toHaveLength(250);
    expect(got[ids[7]!]).toBe('s'.repeat(2_007));
    expect(t.counts).toEqual({ GetCommand: 1, BatchGetCommand: 3 });
    expect(t.sent.filter((s) => s.name === 'BatchGetCommand').every((s) => s.input.RequestItems[TABLE].Keys.length <= 100 && s.input.RequestItems[TABLE].ConsistentRead)).toBe(true);
    expect(t.itemsRead).toBe(251);
  });

  it('a chunked value is its head and one Query of its version; keys the table leaves unprocessed are asked again', async () => {
    const { t } = await busyPartition();
    const store = storeOn(t);
    t.batchGetLimit = 30; // throttled: each BatchGetItem answers 30 keys, the rest come back unprocessed
    const keys = ['addressbook', ...Array.from({ length: 120 }, (_, i) => signalKey('session', `5511${9e8 + i}.0`))];
    const got = await store.getMany(keys);
    expect(got.size).toBe(121);
    expect(got.get('addressbook')).toBe('n'.repeat(800_000));
    const queries = t.sent.filter((s) => s.name === 'QueryCommand');
    expect(queries).toHaveLength(1);
    expect(queries[0]!.input.ExpressionAttributeValues[':prefix']).toMatch(/^addressbook#chunk#[0-9a-z]+#$/);
    expect(t.counts.BatchGetCommand).toBeGreaterThanOrEqual(5);
    expect(t.counts.GetCommand).toBeUndefined();
  });

  it('a missing key is asked of the table once, then answered from memory until it is written', async () => {
    const { t } = await busyPartition();
    const store = storeOn(t);
    const key = signalKey('sender-key', '120363040000000001@g.us::5511999990000::0');
    expect(await store.get(key)).toBeUndefined();
    expect(await store.get(key)).toBeUndefined();
    expect((await store.getMany([key, 'creds'])).has(key)).toBe(false);
    expect(t.counts).toEqual({ GetCommand: 2 }); // the key once, then creds
    expect(t.sent.map((s) => s.input.Key.SK)).toEqual([key, 'creds']);

    t.counts = {};
    await store.set({ [key]: '"k1"' });
    expect(await store.get(key)).toBe('"k1"');
    await store.set({ [key]: null });
    expect(await store.get(key)).toBeUndefined();
    expect(t.counts).toEqual({ PutCommand: 1, DeleteCommand: 1 });
  });

  it('what the store remembers stays within its bounds however many keys pass through it', async () => {
    const t = new FakeTable({ record: false });
    const store = storeOn(t);
    // 6 000 sessions of 3 KB (18 MB of text, as a busy account's), written as Baileys does, 100 a set.
    for (let s = 0; s < 60; s++) {
      await store.set(Object.fromEntries(Array.from({ length: 100 }, (_, i) => [signalKey('session', `${s * 100 + i}.0`), String(s * 100 + i).padEnd(3_000, 'x')])));
    }
    // And 10 000 keys asked that do not exist.
    for (let s = 0; s < 100; s++) await store.getMany(Array.from({ length: 100 }, (_, i) => signalKey('pre-key', String(s * 100 + i))));
    const held = store.cacheStats();
    expect(held.values).toBeLessThanOrEqual(AUTH_CACHE_LIMITS.values);
    expect(held.valueChars).toBeLessThanOrEqual(AUTH_CACHE_LIMITS.valueChars);
    expect(held.absent).toBe(AUTH_CACHE_LIMITS.absent);

    // The first ones fell out: asked again, they come from the table (the old store answered from memory).
    t.counts = {};
    expect(await store.get(signalKey('session', '0.0'))).toBe('0'.padEnd(3_000, 'x'));
    expect(await store.get(signalKey('pre-key', '0'))).toBeUndefined();
    expect(t.counts).toEqual({ GetCommand: 2 });
    // The last ones did not.
    expect(await store.get(signalKey('session', '5999.0'))).toBe('5999'.padEnd(3_000, 'x'));
    expect(await store.get(signalKey('pre-key', '9999'))).toBeUndefined();
    expect(t.counts).toEqual({ GetCommand: 2 });
  });

  it('a read never caches a value that a write of the same key replaced meanwhile', async () => {
    const t = new FakeTable();
    await storeOn(t).set({ creds: 'old' });
    const store = storeOn(t);
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    t.before = (s) => {
      if (s.name === 'GetCommand') return () => gate; // the answer (old) arrives late
    };
    const reading = store.get('creds');
    const writing = store.set({ creds: 'new' });
    await new Promise((r) => setTimeout(r, 10));
    release();
    expect(await reading).toBe('old');
    await writing;
    t.before = undefined;
    t.counts = {};
    expect(await store.get('creds')).toBe('new');
    expect(t.counts).toEqual({});
  });

  it('a new owner that writes a chunked key it never read still deletes the chunks the old head named', async () => {
    const t = new FakeTable();
    const key = signalKey('app-state-sync-version', 'regular');
    await storeOn(t).set({ [key]: serialize(ltHashState(8_000, 1)), creds: '{}' });

    // A plain value: the head's "no chunks" condition fails, the head is read, the write tried again.
    const store = storeOn(t);
    t.sent = [];
    await store.set({ [key]: '{"small":true}' });
    // (The Queries between are the search for orphan chunks, once per key and store.)
    const named = () => t.sent.map((s) => s.name).filter((n) => n !== 'QueryCommand');
    expect(named()).toEqual(['PutCommand', 'GetCommand', 'PutCommand', 'BatchWriteCommand']);
    expect(t.partition(PK).map((i) => i.SK)).toEqual(['creds', key]);

    // The same in a transaction: only the entry whose condition failed is read.
    const v2 = serialize(ltHashState(8_000, 2));
    await storeOn(t).set({ [key]: v2 });
    t.sent = [];
    await storeOn(t).set({ [key]: null, creds: '{"me":2}' });
    expect(named()).toEqual(['TransactWriteCommand', 'GetCommand', 'TransactWriteCommand', 'BatchWriteCommand']);
    expect(t.partition(PK).map((i) => i.SK)).toEqual(['creds']);
  });

  it("chunks left by a previous owner that died before its head are found when the key is next written in chunks", async () => {
    const t = new FakeTable();
    const key = signalKey('app-state-sync-version', 'critical_unblock_low');
    const v1 = serialize(ltHashState(8_000, 1));
    await storeOn(t).set({ [key]: v1 });
    const dying = storeOn(t);
    t.before = (s) => {
      if (s.name === 'PutCommand') throw Object.assign(new Error('task killed'), { name: 'TimeoutError' });
    };
    await expect(dying.set({ [key]: serialize(ltHashState(8_000, 2)) })).rejects.toThrow('task killed');
    t.before = undefined;
    // Its memory of the orphans dies with it.
    const versions = () => new Set(t.partition(PK).filter((i) => i.entity === 'wauthpart').map((i) => i.ver));
    expect(versions().size).toBe(2);

    const next = storeOn(t);
    expect(await next.get(key)).toBe(v1);
    const v3 = serialize(ltHashState(9_000, 3));
    await next.set({ [key]: v3 });
    const head = t.partition(PK).find((i) => i.SK === key)!;
    expect(versions()).toEqual(new Set([head.ver]));
    expect(await storeOn(t).get(key)).toBe(v3);
  });
});
