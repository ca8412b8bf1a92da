import { randomBytes } from 'node:crypto';
import {
  BatchGetCommand,
  BatchWriteCommand,
  DeleteCommand,
  GetCommand,
  PutCommand,
  QueryCommand,
  TransactWriteCommand,
  type BatchWriteCommandInput,
  type DynamoDBDocumentClient,
  type TransactWriteCommandInput,
} from '@aws-sdk/lib-dynamodb';
import { dynamo } from '@balcao/functions';
import { env } from '@balcao/functions';
import type { AuthStore } from '../provider.js';

/*
 * Items of a connection's auth partition (docs/data-model.md, "Baileys credentials"):
 *
 * - a value up to MAX_VALUE_BYTES: one item `{ SK: <key>, entity: 'wauth', value }`;
 * - a larger one (app-state-sync-version's LT hash maps, a big address book): a head
 *   `{ SK: <key>, entity: 'wauth', ver, chunks }` and `chunks` items
 *   `{ SK: <key>#chunk#<ver>#<n>, entity: 'wauthpart', of: <key>, ver, n, part }`.
 *
 * A new value's chunks are written under a new version first, the head that names them last, and
 * only then the old version's chunks are deleted: a reader following the head never meets a mix of
 * old and new chunks, and a write that fails half-way leaves chunks no head names (collected later).
 * Chunks are told from keys by `entity`; their sort key carries a random version, so it is no key's.
 *
 * Keys are read when asked (issue 17 §12): a busy account's partition is thousands of sessions and
 * sender keys, tens of MB, and a session uses a small part of it at a time. So the store no longer
 * reads the partition at start; it remembers a few recent values, the keys it found absent, and the
 * layout (version, chunk count) of the few values kept in chunks, each in a bounded LRU.
 *
 * Old chunks are still deleted without reading the partition: a head is written with a condition on
 * the layout the store believes (`ver = <known>` for a chunked head, else no `chunks` at all); a head
 * that turns out to be chunked fails it, is read (a small item), and the write is tried again knowing
 * which chunks it replaces. Chunks no head names (a write of ours that failed: remembered; one of a
 * previous owner that died mid-write: not) are found when their key is next written in chunks or
 * replaces chunks: its `<key>#chunk#` prefix is searched once per store. Keys never written big again
 * keep such orphans until the wipe; only values over 350 KB (which keep growing) ever leave them.
 */

/**
 * DynamoDB's item limit is 400 KB (409 600 bytes) counting attribute names and values: a value of
 * up to this many UTF-8 bytes fits one item with its key and names (a sort key is at most 1 KB).
 */
export const MAX_VALUE_BYTES = 350_000;
/** TransactWriteItems takes at most 100 items and 4 MB. */
const TX_ITEMS = 100;
const TX_BYTES = 3_500_000;
/** BatchGetItem takes at most 100 keys. */
const BATCH_GET_KEYS = 100;
/** Attempts of one write whose layout condition failed (each failure reads the head it met). */
const CONDITION_ATTEMPTS = 4;

/**
 * Bounds of what one store keeps in memory (issue 17 §12). Every session has its own store, so they
 * count once per connection.
 * - `values`, `valueChars`: the session's object cache in front (`makeCacheableSignalKeyStore` with a
 *   `KeyCache`) already holds the hot keys deserialised, and `creds` and the address book live in
 *   their owners; what reaches this store is a first read or a key that cache let go, so a small
 *   cache of text suffices (a value read or written again shortly). 256 values, 512 K characters
 *   (0.5–1 MB); a value over 1/8 of that (a chunked one always) is not kept.
 * - `absent`: Baileys asks again and again for keys that do not exist (sessions of devices we never
 *   talked to, sender keys, identity keys, used pre-keys, device lists) and the cache in front
 *   remembers only hits: without this each ask is a GetItem. 4 096 keys of ~60 characters ≈ 0.5 MB.
 * - `layouts`: the version of each chunked value seen; each stands for ≥ 350 KB in the table, so a
 *   partition has a handful. One forgotten is learned again from the failed write condition.
 */
export const AUTH_CACHE_LIMITS = { values: 256, valueChars: 512 * 1024, absent: 4_096, layouts: 256 };

/** The document client calls the store makes (tests give it an in-memory table). */
export type AuthTableClient = Pick<DynamoDBDocumentClient, 'send'>;

type Item = Record<string, unknown>;
type Chunked = { ver: string; n: number };
/**
 * One entry of a `set`: the head or value item it puts, or the key it deletes; `old` is the layout
 * it was last tried against (the chunked head it replaces, if any).
 */
type Op = { key: string; value: string | null; item?: Item; chunked?: Chunked; old?: Chunked; bytes: number };

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const partKey = (key: string, ver: string, n: number) => `${key}#chunk#${ver}#${n}`;
const partKeys = (key: string, c?: Chunked) => (c ? Array.from({ length: c.n }, (_, i) => partKey(key, c.ver, i)) : []);
/** Unique per write of a key, so a new value's chunks never overwrite the ones a head still names. */
const newVersion = () => `${Date.now().toString(36)}${randomBytes(4).toString('hex')}`;
const layoutOf = (head: Item | undefined): Chunked | undefined =>
  head && typeof head.value !== 'string' && head.chunks !== undefined ? { ver: String(head.ver), n: Number(head.chunks) } : undefined;

/** Splits text into pieces of at most `max` UTF-8 bytes, never inside a character. */
export function splitUtf8(text: string, max: number): string[] {
  const buf = Buffer.from(text, 'utf8');
  const out: string[] = [];
  for (let start = 0; start < buf.length; ) {
    let end = Math.min(start + max, buf.length);
    // Back off continuation bytes (10xxxxxx) so the cut falls between characters.
    while (end < buf.length && (buf[end]! & 0xc0) === 0x80) end--;
    out.push(buf.toString('utf8', start, end));
    start = end;
  }
  return out;
}

/** Joins a head's chunks, or fails when one is missing (a write under way elsewhere, or damage). */
function assemble(key: string, head: Item, parts: Item[]): string {
  const n = Number(head.chunks);
  const byN = new Map(parts.filter((p) => p.ver === head.ver).map((p) => [Number(p.n), String(p.part)]));
  const pieces = Array.from({ length: n }, (_, i) => byN.get(i));
  if (pieces.some((p) => p === undefined)) throw new Error(`auth store: ${key} misses chunks of version ${String(head.ver)}`);
  return pieces.join('');
}

/** A cancelled transaction worth trying again: only conflicts and throttling, never a bad request. */
function retryable(err: unknown): boolean {
  const e = err as { name?: string; CancellationReasons?: { Code?: string }[] };
  if (e?.name === 'TransactionConflictException' || e?.name === 'TransactionInProgressException') return true;
  if (e?.name !== 'TransactionCanceledException') return false;
  const ok = new Set(['None', 'TransactionConflict', 'ThrottlingError', 'ProvisionedThroughputExceeded']);
  return (e.CancellationReasons ?? []).every((r) => ok.has(r.Code ?? 'None'));
}

/** The entries of a write whose layout condition failed (the head is not what the store believed). */
function conditionFailures(err: unknown, group: Op[]): Op[] {
  const e = err as { name?: string; CancellationReasons?: { Code?: string }[] };
  if (e?.name === 'ConditionalCheckFailedException') return group.length === 1 ? group : [];
  if (e?.name !== 'TransactionCanceledException') return [];
  return group.filter((_, i) => e.CancellationReasons?.[i]?.Code === 'ConditionalCheckFailed');
}

/** A map that forgets its least recently used entries past `maxEntries` or `maxWeight`. */
class Lru<V> {
  private map = new Map<string, V>();
  private used = 0;
  constructor(
    private readonly maxEntries: number,
    private readonly maxWeight = Infinity,
    private readonly weigh: (v: V) => number = () => 0,
  ) {}
  get size() {
    return this.map.size;
  }
  get weight() {
    return this.used;
  }
  get(k: string): V | undefined {
    const v = this.map.get(k);
    if (v !== undefined) {
      this.map.delete(k);
      this.map.set(k, v);
    }
    return v;
  }
  /** Keeps `v` unless it alone would take more than an eighth of the weight allowed. */
  set(k: string, v: V): void {
    this.delete(k);
    const w = this.weigh(v);
    if (w > this.maxWeight / 8) return;
    this.map.set(k, v);
    this.used += w;
    while (this.map.size > this.maxEntries || this.used > this.maxWeight) this.delete(this.map.keys().next().value as string);
  }
  delete(k: string): void {
    const v = this.map.get(k);
    if (v === undefined) return;
    this.map.delete(k);
    this.used -= this.weigh(v);
  }
  clear(): void {
    this.map.clear();
    this.used = 0;
  }
}

/**
 * Credentials and signal keys in the table, read when asked. Only the task holding the shard's lease
 * runs the session, so what the store remembers can be trusted: a value it read or wrote, a key it
 * found absent (until it writes it), a chunked value's layout.
 *
 * `set` resolves once every entry is durable. Its entries go in one transaction when they fit
 * (≤ 100 items, ≤ 3.5 MB): all or nothing. A bigger set is written as consecutive transactions in
 * the order of its entries, so the caller orders them (auth.ts writes the records other keys point
 * to first); a failure then leaves a prefix written and `set` rejects, and writing the same set
 * again completes it. Reads and writes of one key run one after another, so the latest `set` of a
 * key wins and a read never caches a value a later write replaced.
 */
export class DynamoAuthStore implements AuthStore {
  private values = new Lru<string>(AUTH_CACHE_LIMITS.values, AUTH_CACHE_LIMITS.valueChars, (v) => v.length);
  /** Keys known absent from the table. */
  private absent = new Lru<true>(AUTH_CACHE_LIMITS.absent);
  /** Version and chunk count of values stored in chunks, as last read or written. */
  private layouts = new Lru<Chunked>(AUTH_CACHE_LIMITS.layouts);
  /** Chunked keys whose `#chunk#` prefix was searched for orphans (once per store). */
  private swept = new Lru<true>(AUTH_CACHE_LIMITS.layouts);
  /** Chunk items no head names any more (replaced, or left by a failed write): deleted after a later write. */
  private garbage = new Set<string>();
  /**
   * Keys whose last write failed without telling whether it landed (a timeout, a lost answer): the
   * next `get` or `set` reads them from the table first. Each keeps the chunk items it may be using.
   */
  private unsure = new Map<string, string[]>();
  /** The last operation of each key still under way. */
  private tails = new Map<string, Promise<void>>();
  /** Bumped by `clear()`: a read or write that straddles a wipe does not touch the caches. */
  private generation = 0;
  private client?: AuthTableClient;
  private table?: string;

  constructor(
    private readonly pk: string,
    deps: { client?: AuthTableClient; tableName?: string } = {},
  ) {
    this.client = deps.client;
    this.table = deps.tableName;
  }

  private get db(): AuthTableClient {
    return (this.client ??= dynamo());
  }

  private get tableName(): string {
    return (this.table ??= env.tableName);
  }

  /** What the store holds in memory (tests and the memory bench check it stays within AUTH_CACHE_LIMITS). */
  cacheStats() {
    return { values: this.values.size, valueChars: this.values.weight, absent: this.absent.size, layouts: this.layouts.size, garbage: this.garbage.size, unsure: this.unsure.size };
  }

  async get(key: string): Promise<string | undefined> {
    return (await this.getMany([key])).get(key);
  }

  /** Many keys at once (Baileys asks for a group's sessions together): misses in BatchGetItems of 100. */
  async getMany(keys: string[]): Promise<Map<string, string>> {
    const out = new Map<string, string>();
    const misses: string[] = [];
    for (const key of new Set(keys)) if (!this.cached(key, out)) misses.push(key);
    if (!misses.length) return out;
    await this.serial(misses, async () => {
      // Looked up again: a write or read of these keys may have finished while this one waited.
      const generation = this.generation;
      const toRead = misses.filter((key) => !this.cached(key, out));
      if (!toRead.length) return;
      const heads = await this.readHeads(toRead);
      for (const key of toRead) {
        const head = heads.get(key);
        const chunked = layoutOf(head);
        const value = head === undefined ? undefined : chunked ? await this.readChunked(key, head) : String(head.value);
        if (value !== undefined) out.set(key, value);
        if (generation === this.generation) this.learned(key, value, chunked);
      }
    });
    return out;
  }

  /** Answers `key` from memory into `out`; false when the table must be asked. */
  private cached(key: string, out: Map<string, string>): boolean {
    if (this.unsure.has(key)) return false;
    const value = this.values.get(key);
    if (value !== undefined) out.set(key, value);
    return value !== undefined || this.absent.get(key) !== undefined;
  }

  /** What the table holds for `key` (read or durably written), remembered within the bounds. */
  private learned(key: string, value: string | undefined, chunked: Chunked | undefined): void {
    // A key the store was unsure of: the chunk items the table does not use are garbage.
    const live = new Set(partKeys(key, chunked));
    for (const sk of this.unsure.get(key) ?? []) if (!live.has(sk)) this.garbage.add(sk);
    this.unsure.delete(key);
    if (value === undefined) {
      this.values.delete(key);
      this.absent.set(key, true);
    } else {
      this.absent.delete(key);
      this.values.set(key, value);
    }
    if (chunked) this.layouts.set(key, chunked);
    else this.layouts.delete(key);
  }

  async set(entries: Record<string, string | null>): Promise<void> {
    const keys = Object.keys(entries);
    if (!keys.length) return;
    await this.serial(keys, () => this.write(entries));
  }

  async clear(): Promise<void> {
    // Operations already under way land first, so none of them brings a key back after the wipe or
    // caches what is deleted; one that starts meanwhile does not cache either.
    this.generation++;
    await Promise.allSettled([...this.tails.values()]);
    try {
      const keys = (await this.query({ projection: ['PK', 'SK'] })).map((i) => ({ PK: i.PK, SK: i.SK }));
      await this.batchWrite(keys.map((Key) => ({ DeleteRequest: { Key } })));
    } finally {
      this.generation++;
      this.values.clear();
      this.absent.clear();
      this.layouts.clear();
      this.swept.clear();
      this.garbage.clear();
      this.unsure.clear();
    }
  }

  /** Runs `fn` after the operations under way on any of `keys`, and before the ones that come later. */
  private serial(keys: string[], fn: () => Promise<void>): Promise<void> {
    const before = [...new Set(keys.map((k) => this.tails.get(k)).filter((p) => p !== undefined))];
    const run = (before.length ? Promise.allSettled(before) : Promise.resolve()).then(fn);
    const tail = run.then(
      () => undefined,
      () => undefined,
    );
    for (const k of keys) this.tails.set(k, tail);
    void tail.then(() => {
      for (const k of keys) if (this.tails.get(k) === tail) this.tails.delete(k);
    });
    return run;
  }

  private async write(entries: Record<string, string | null>): Promise<void> {
    const generation = this.generation;
    // Keys whose last write may or may not have landed: their heads say which chunks they use now.
    const unsure = Object.keys(entries).filter((key) => this.unsure.has(key));
    if (unsure.length) await this.learnLayouts(unsure);

    const parts: Item[] = [];
    const ops: Op[] = [];
    for (const [key, value] of Object.entries(entries)) {
      const keyBytes = Buffer.byteLength(key) + Buffer.byteLength(this.pk) + 64;
      if (value === null) {
        ops.push({ key, value, bytes: keyBytes });
        continue;
      }
      const size = Buffer.byteLength(value, 'utf8');
      if (size <= MAX_VALUE_BYTES) {
        ops.push({ key, value, item: { PK: this.pk, SK: key, entity: 'wauth', value }, bytes: keyBytes + size });
        continue;
      }
      const ver = newVersion();
      const pieces = splitUtf8(value, MAX_VALUE_BYTES);
      pieces.forEach((part, n) => parts.push({ PK: this.pk, SK: partKey(key, ver, n), entity: 'wauthpart', of: key, ver, n, part }));
      const chunked = { ver, n: pieces.length };
      ops.push({ key, value, item: { PK: this.pk, SK: key, entity: 'wauth', ver, chunks: pieces.length }, chunked, bytes: keyBytes + 64 });
    }

    // 1. The new chunks, under versions no head names yet: no reader sees them before step 2.
    try {
      await this.batchWrite(parts.map((Item) => ({ PutRequest: { Item } })));
    } catch (err) {
      for (const p of parts) this.garbage.add(String(p.SK));
      throw err;
    }

    // 2. Values and heads, in transactions, in the order of the entries.
    const sweep: Op[] = [];
    const groups = this.groups(ops);
    for (let g = 0; g < groups.length; g++) {
      const group = groups[g]!;
      try {
        await this.commit(group);
      } catch (err) {
        // This transaction may or may not have landed: its keys are read again before they are used.
        for (const op of group) {
          const maybe = [...(this.unsure.get(op.key) ?? []), ...partKeys(op.key, this.layouts.get(op.key)), ...partKeys(op.key, op.chunked)];
          this.unsure.set(op.key, maybe);
          this.values.delete(op.key);
          this.absent.delete(op.key);
        }
        // The later ones were not tried: their chunks are named by no head.
        for (const op of groups.slice(g + 1).flat()) for (const sk of partKeys(op.key, op.chunked)) this.garbage.add(sk);
        throw err;
      }
      // Remembered only once durable: a failed write must not look stored to the next reader.
      for (const op of group) {
        for (const sk of partKeys(op.key, op.old)) this.garbage.add(sk);
        if ((op.chunked || op.old) && !this.swept.get(op.key)) sweep.push(op);
        if (generation === this.generation) this.learned(op.key, op.value ?? undefined, op.chunked);
      }
    }

    // 3. Chunks no head names any more. The set is already durable; what is left is tried after the next write.
    // The replaced chunks go before the search for orphans, which then does not read them.
    try {
      await this.collectGarbage();
      for (const op of sweep) await this.sweep(op.key, op.chunked);
      await this.collectGarbage();
    } catch {
      /* tried again after the next write */
    }
  }

  /** Consecutive runs of entries that fit one transaction each. */
  private groups(ops: Op[]): Op[][] {
    const out: Op[][] = [];
    let current: Op[] = [];
    let bytes = 0;
    for (const op of ops) {
      if (current.length && (current.length === TX_ITEMS || bytes + op.bytes > TX_BYTES)) {
        out.push(current);
        current = [];
        bytes = 0;
      }
      current.push(op);
      bytes += op.bytes;
    }
    if (current.length) out.push(current);
    return out;
  }

  /**
   * The head's layout condition: still the chunked version the store knows, or no chunks at all. The
   * condition costs nothing; a head that fails it is read and the write tried again.
   */
  private condition(op: Op): { ConditionExpression: string; ExpressionAttributeNames: Record<string, string>; ExpressionAttributeValues?: Record<string, string> } {
    op.old = this.layouts.get(op.key);
    return op.old
      ? { ConditionExpression: '#ver = :ver', ExpressionAttributeNames: { '#ver': 'ver' }, ExpressionAttributeValues: { ':ver': op.old.ver } }
      : { ConditionExpression: 'attribute_not_exists(#chunks)', ExpressionAttributeNames: { '#chunks': 'chunks' } };
  }

  private async commit(group: Op[]): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      try {
        await this.send(group);
        return;
      } catch (err) {
        const failed = conditionFailures(err, group);
        if (!failed.length || attempt >= CONDITION_ATTEMPTS) throw err;
        await this.learnLayouts(failed.map((op) => op.key));
      }
    }
  }

  private async send(group: Op[]): Promise<void> {
    const TableName = this.tableName;
    const Key = (op: Op) => ({ PK: this.pk, SK: op.key });
    // One item is atomic by itself, at half a transaction's write units (a session update per message).
    if (group.length === 1) {
      const op = group[0]!;
      if (op.item) await this.db.send(new PutCommand({ TableName, Item: op.item, ...this.condition(op) }));
      else await this.db.send(new DeleteCommand({ TableName, Key: Key(op), ...this.condition(op) }));
      return;
    }
    const TransactItems: NonNullable<TransactWriteCommandInput['TransactItems']> = group.map((op) =>
      op.item ? { Put: { TableName, Item: op.item, ...this.condition(op) } } : { Delete: { TableName, Key: Key(op), ...this.condition(op) } },
    );
    for (let attempt = 0; ; attempt++) {
      try {
        // The SDK adds a ClientRequestToken, so its own retries of one call apply the transaction once.
        await this.db.send(new TransactWriteCommand({ TransactItems }));
        return;
      } catch (err) {
        if (!retryable(err) || attempt >= 6) throw err;
        await sleep(Math.min(50 * 2 ** attempt, 2000) * (0.5 + Math.random() / 2));
      }
    }
  }

  /** Reads heads (small items when chunked) to know the chunks they use; drops what was remembered of their values. */
  private async learnLayouts(keys: string[]): Promise<void> {
    const heads = await this.readHeads(keys);
    for (const key of keys) {
      const chunked = layoutOf(heads.get(key));
      const live = new Set(partKeys(key, chunked));
      for (const sk of this.unsure.get(key) ?? []) if (!live.has(sk)) this.garbage.add(sk);
      this.unsure.delete(key);
      this.values.delete(key);
      this.absent.delete(key);
      if (chunked) this.layouts.set(key, chunked);
      else this.layouts.delete(key);
    }
  }

  /** Finds chunk items of `key` that no head names (a write that died before its head, ours or a previous owner's). */
  private async sweep(key: string, live: Chunked | undefined): Promise<void> {
    for (const p of await this.query({ prefix: `${key}#chunk#`, projection: ['SK', 'ver'] })) if (p.ver !== live?.ver) this.garbage.add(String(p.SK));
    this.swept.set(key, true);
  }

  private async collectGarbage(): Promise<void> {
    const keys = [...this.garbage];
    if (!keys.length) return;
    await this.batchWrite(keys.map((SK) => ({ DeleteRequest: { Key: { PK: this.pk, SK } } })));
    for (const sk of keys) this.garbage.delete(sk);
  }

  /** Heads of `keys` by consistent reads: one GetItem, or BatchGetItems of 100 retrying unprocessed keys. */
  private async readHeads(keys: string[]): Promise<Map<string, Item>> {
    const out = new Map<string, Item>();
    if (keys.length === 1) {
      const item = (await this.db.send(new GetCommand({ TableName: this.tableName, Key: { PK: this.pk, SK: keys[0] }, ConsistentRead: true }))).Item;
      if (item) out.set(keys[0]!, item);
      return out;
    }
    for (let i = 0; i < keys.length; i += BATCH_GET_KEYS) {
      let pending = keys.slice(i, i + BATCH_GET_KEYS).map((SK) => ({ PK: this.pk, SK }));
      for (let attempt = 0; pending.length; attempt++) {
        if (attempt > 10) throw new Error(`auth store: ${pending.length} read(s) left unprocessed`);
        if (attempt) await sleep(Math.min(50 * 2 ** attempt, 2000));
        const res = await this.db.send(new BatchGetCommand({ RequestItems: { [this.tableName]: { Keys: pending, ConsistentRead: true } } }));
        for (const item of res.Responses?.[this.tableName] ?? []) out.set(String(item.SK), item);
        pending = (res.UnprocessedKeys?.[this.tableName]?.Keys ?? []) as typeof pending;
      }
    }
    return out;
  }

  private async readChunked(key: string, head: Item): Promise<string> {
    return assemble(key, head, await this.query({ prefix: `${key}#chunk#${String(head.ver)}#` }));
  }

  /** A consistent Query of the partition, or of the sort keys starting with `prefix`, every page. */
  private query(opts: { prefix?: string; projection?: string[] }): Promise<Item[]> {
    return queryPartition(this.db, this.tableName, this.pk, opts);
  }

  /**
   * BatchWrite in pages of 25, retrying unprocessed items with backoff until all are written. Only
   * for writes whose order and atomicity do not matter: unnamed chunks, garbage, the wipe.
   */
  private async batchWrite(requests: NonNullable<BatchWriteCommandInput['RequestItems']>[string]): Promise<void> {
    for (let i = 0; i < requests.length; i += 25) {
      let pending = requests.slice(i, i + 25);
      for (let attempt = 0; pending.length; attempt++) {
        if (attempt > 10) throw new Error(`auth store: ${pending.length} write(s) left unprocessed`);
        if (attempt) await sleep(Math.min(50 * 2 ** attempt, 2000));
        const out = await this.db.send(new BatchWriteCommand({ RequestItems: { [this.tableName]: pending } }));
        pending = out.UnprocessedItems?.[this.tableName] ?? [];
      }
    }
  }
}

async function queryPartition(db: AuthTableClient, TableName: string, pk: string, opts: { prefix?: string; projection?: string[] }): Promise<Item[]> {
  const items: Item[] = [];
  const names = opts.projection && Object.fromEntries(opts.projection.map((a, i) => [`#p${i}`, a]));
  let start: Record<string, unknown> | undefined;
  do {
    const out = await db.send(
      new QueryCommand({
        TableName,
        KeyConditionExpression: opts.prefix === undefined ? 'PK = :pk' : 'PK = :pk AND begins_with(SK, :prefix)',
        ExpressionAttributeValues: { ':pk': pk, ...(opts.prefix === undefined ? {} : { ':prefix': opts.prefix }) },
        ...(names ? { ProjectionExpression: Object.keys(names).join(', '), ExpressionAttributeNames: names } : {}),
        ConsistentRead: true,
        ExclusiveStartKey: start,
      }),
    );
    items.push(...(out.Items ?? []));
    start = out.LastEvaluatedKey;
  } while (start);
  return items;
}

/** Reads one credential straight from the table (tests and tools; the store caches). */
export async function readAuthItem(pk: string, key: string, db: AuthTableClient = dynamo(), tableName = env.tableName): Promise<string | undefined> {
  const head = (await db.send(new GetCommand({ TableName: tableName, Key: { PK: pk, SK: key }, ConsistentRead: true }))).Item;
  if (!head) return undefined;
  if (typeof head.value === 'string') return head.value;
  return assemble(key, head, await queryPartition(db, tableName, pk, { prefix: `${key}#chunk#${String(head.ver)}#` }));
}
