import {
  BatchGetCommand,
  BatchWriteCommand,
  DeleteCommand,
  GetCommand,
  PutCommand,
  QueryCommand,
  TransactWriteCommand,
} from '@aws-sdk/lib-dynamodb';
import type { AuthTableClient } from './auth-store.js';

/*
 * An in-memory DynamoDB table behind the document client's `send`, for the commands the auth store
 * uses (its unit tests and the Baileys memory bench, infra/bench/baileys-memory.ts; never the
 * product), with DynamoDB's limits enforced as the service does (ValidationException): items of at
 * most 400 KB counting attribute names, BatchWriteItem of 25 requests and 16 MB, BatchGetItem of
 * 100 keys and 16 MB answered, TransactWriteItems of 100 actions and 4 MB with one action per item,
 * Query pages of 1 MB in the sort key's byte order, and the condition expressions the store writes.
 */

type Item = Record<string, unknown>;
export const ITEM_LIMIT = 400 * 1024;
const MB = 1024 * 1024;

/** DynamoDB's item size: attribute names and values (strings in UTF-8; numbers about one byte per two digits). */
export function itemSize(item: Item): number {
  let size = 0;
  for (const [name, value] of Object.entries(item)) {
    size += Buffer.byteLength(name);
    if (typeof value === 'string') size += Buffer.byteLength(value);
    else if (typeof value === 'number') size += Math.ceil(String(value).replace(/[-.]/g, '').length / 2) + 1;
    else if (typeof value === 'boolean' || value === null) size += 1;
    else size += Buffer.byteLength(JSON.stringify(value)) + 3;
  }
  return size;
}

const validation = (message: string) => Object.assign(new Error(message), { name: 'ValidationException' });
const byteOrder = (a: string, b: string) => Buffer.compare(Buffer.from(a), Buffer.from(b));

export type Sent = { name: string; input: Record<string, any> };

type Condition = { ConditionExpression?: string; ExpressionAttributeNames?: Record<string, string>; ExpressionAttributeValues?: Record<string, unknown> };

/** `attribute_not_exists(a)`, `attribute_exists(a)` or `a = :v` (names through `#n`): what the auth store writes. */
function conditionHolds(c: Condition, item: Item | undefined): boolean {
  if (!c.ConditionExpression) return true;
  const name = (n: string) => (n.startsWith('#') ? (c.ExpressionAttributeNames?.[n] ?? '') : n);
  const exists = /^attribute_(not_)?exists\(\s*([#\w]+)\s*\)$/.exec(c.ConditionExpression.trim());
  if (exists) return (item?.[name(exists[2]!)] !== undefined) === !exists[1];
  const equal = /^([#\w]+)\s*=\s*(:\w+)$/.exec(c.ConditionExpression.trim());
  if (equal) return item !== undefined && item[name(equal[1]!)] === c.ExpressionAttributeValues?.[equal[2]!];
  throw validation(`memory table: unsupported condition ${c.ConditionExpression}`);
}

export class MemoryTable {
  /** Items by partition, then sort key. */
  private parts = new Map<string, Map<string, Item>>();
  /** Every command sent, in order (when `record`). */
  sent: Sent[] = [];
  /** Commands sent by name, and items answered by reads (Get, BatchGet, Query). */
  counts: Record<string, number> = {};
  itemsRead = 0;
  /** The largest item ever written. */
  maxItemBytes = 0;
  /** BatchGetItem answers at most this many keys per call, the rest as UnprocessedKeys (throttling). */
  batchGetLimit = 100;
  /**
   * Called before each command: throw to fail it unapplied; return a function to run after it is
   * applied (throw there for a write that landed but whose answer was lost).
   */
  before?: (s: Sent) => void | (() => void | Promise<void>);

  readonly client: AuthTableClient = { send: ((command: unknown) => this.send(command)) as AuthTableClient['send'] };

  /** `record: false` keeps no copy of the commands (the memory bench sends hundreds of MB through it). */
  constructor(private readonly opts: { record?: boolean } = {}) {}

  /** A partition's items in sort key order. */
  partition(pk: string): Item[] {
    const p = this.parts.get(pk);
    return p ? [...p.keys()].sort(byteOrder).map((sk) => p.get(sk)!) : [];
  }

  /** Items and their DynamoDB size, over the whole table. */
  stats(): { items: number; bytes: number } {
    let items = 0;
    let bytes = 0;
    for (const p of this.parts.values()) {
      for (const item of p.values()) {
        items++;
        bytes += itemSize(item);
      }
    }
    return { items, bytes };
  }

  private get(key: Item): Item | undefined {
    return this.parts.get(String(key.PK))?.get(String(key.SK));
  }

  private check(item: Item) {
    const size = itemSize(item);
    if (size > ITEM_LIMIT) throw validation('Item size has exceeded the maximum allowed size');
    this.maxItemBytes = Math.max(this.maxItemBytes, size);
  }

  private put(item: Item) {
    const pk = String(item.PK);
    let p = this.parts.get(pk);
    if (!p) this.parts.set(pk, (p = new Map()));
    p.set(String(item.SK), item);
  }

  private delete(key: Item) {
    const p = this.parts.get(String(key.PK));
    p?.delete(String(key.SK));
    if (p && !p.size) this.parts.delete(String(key.PK));
  }

  private async send(command: unknown): Promise<any> {
    const name = (command as object).constructor.name;
    const input = structuredClone((command as { input: Record<string, any> }).input);
    const s = { name, input };
    if (this.opts.record !== false) this.sent.push(s);
    this.counts[name] = (this.counts[name] ?? 0) + 1;
    const after = this.before?.(s);
    await Promise.resolve(); // answers come later, as over the network
    const out = this.apply(command, input);
    if (after) await after();
    return out;
  }

  private apply(command: unknown, input: Record<string, any>): any {
    if (command instanceof GetCommand) {
      const item = this.get(input.Key);
      if (item) this.itemsRead++;
      return { Item: item && structuredClone(item) };
    }
    if (command instanceof PutCommand) {
      this.check(input.Item);
      if (!conditionHolds(input, this.get(input.Item))) throw Object.assign(new Error('The conditional request failed'), { name: 'ConditionalCheckFailedException' });
      this.put(input.Item);
      return {};
    }
    if (command instanceof DeleteCommand) {
      if (!conditionHolds(input, this.get(input.Key))) throw Object.assign(new Error('The conditional request failed'), { name: 'ConditionalCheckFailedException' });
      this.delete(input.Key);
      return {};
    }
    if (command instanceof QueryCommand) return this.query(input);
    if (command instanceof BatchGetCommand) {
      const [[table, request]] = Object.entries(input.RequestItems as Record<string, { Keys: Item[] }>);
      const keys = request!.Keys;
      if (keys.length > 100) throw validation('Too many items requested for the BatchGetItem call');
      const ids = keys.map((k) => `${String(k.PK)}\u0000${String(k.SK)}`);
      if (new Set(ids).size !== ids.length) throw validation('Provided list of item keys contains duplicates');
      const found: Item[] = [];
      let bytes = 0;
      let i = 0;
      for (; i < keys.length && i < this.batchGetLimit && bytes < 16 * MB; i++) {
        const item = this.get(keys[i]!);
        if (!item) continue;
        bytes += itemSize(item);
        found.push(structuredClone(item));
      }
      this.itemsRead += found.length;
      const rest = keys.slice(i);
      return { Responses: { [table!]: found }, UnprocessedKeys: rest.length ? { [table!]: { ...request, Keys: rest } } : {} };
    }
    if (command instanceof BatchWriteCommand) {
      const [[, requests]] = Object.entries(input.RequestItems as Record<string, any[]>);
      if (requests!.length > 25) throw validation('Too many items requested for the BatchWriteItem call');
      const ids = requests!.map((r) => {
        const k = r.PutRequest?.Item ?? r.DeleteRequest.Key;
        return `${String(k.PK)}\u0000${String(k.SK)}`;
      });
      if (new Set(ids).size !== ids.length) throw validation('Provided list of item keys contains duplicates');
      const puts = requests!.filter((r) => r.PutRequest).map((r) => r.PutRequest.Item as Item);
      if (puts.reduce((n, item) => n + itemSize(item), 0) > 16 * MB) throw validation('Request size exceeded');
      for (const item of puts) this.check(item);
      for (const r of requests!) {
        if (r.PutRequest) this.put(r.PutRequest.Item);
        else this.delete(r.DeleteRequest.Key);
      }
      return { UnprocessedItems: {} };
    }
    if (command instanceof TransactWriteCommand) {
      type Action = Condition & { Item?: Item; Key?: Item };
      const actions = input.TransactItems as { Put?: Action; Delete?: Action }[];
      if (actions.length > 100) throw validation('Member must have length less than or equal to 100');
      const keyOf = (a: { Put?: Action; Delete?: Action }) => (a.Put ? a.Put.Item! : a.Delete!.Key!);
      const ids = actions.map((a) => `${String(keyOf(a).PK)}\u0000${String(keyOf(a).SK)}`);
      if (new Set(ids).size !== ids.length) throw validation('Transaction request cannot include multiple operations on one item');
      const bytes = actions.reduce((n, a) => n + itemSize(keyOf(a)), 0);
      if (bytes > 4 * MB) throw validation('Transaction size exceeded');
      for (const a of actions) if (a.Put) this.check(a.Put.Item!);
      const reasons = actions.map((a) => ({ Code: conditionHolds(a.Put ?? a.Delete!, this.get(keyOf(a))) ? 'None' : 'ConditionalCheckFailed' }));
      if (reasons.some((r) => r.Code !== 'None')) {
        throw Object.assign(new Error(`Transaction cancelled, please refer cancellation reasons for specific reasons [${reasons.map((r) => r.Code).join(', ')}]`), {
          name: 'TransactionCanceledException',
          CancellationReasons: reasons,
        });
      }
      for (const a of actions) {
        if (a.Put) this.put(a.Put.Item!);
        else this.delete(a.Delete!.Key!);
      }
      return {};
    }
    throw new Error(`memory table: ${(command as object).constructor.name} not supported`);
  }

  private query(input: Record<string, any>) {
    const m = /^PK = :pk(?: AND begins_with\(SK, :prefix\))?$/.exec(String(input.KeyConditionExpression));
    if (!m) throw validation('memory table: unsupported key condition');
    const prefix = input.ExpressionAttributeValues[':prefix'] as string | undefined;
    const p = this.parts.get(String(input.ExpressionAttributeValues[':pk']));
    const sks = p ? [...p.keys()].filter((sk) => prefix === undefined || sk.startsWith(prefix)).sort(byteOrder) : [];
    const from = input.ExclusiveStartKey ? sks.findIndex((sk) => sk === input.ExclusiveStartKey.SK) + 1 : 0;
    const page: Item[] = [];
    let read = 0;
    let i = from;
    for (; i < sks.length && read < MB; i++) {
      const item = p!.get(sks[i]!)!;
      read += itemSize(item);
      page.push(item);
    }
    this.itemsRead += page.length;
    const names = (input.ExpressionAttributeNames ?? {}) as Record<string, string>;
    const projected = input.ProjectionExpression
      ? page.map((item) =>
          Object.fromEntries(
            String(input.ProjectionExpression)
              .split(/,\s*/)
              .map((a) => names[a] ?? a)
              .filter((a) => item[a] !== undefined)
              .map((a) => [a, item[a]]),
          ),
        )
      : page;
    return { Items: structuredClone(projected), LastEvaluatedKey: i < sks.length ? { PK: page.at(-1)!.PK, SK: page.at(-1)!.SK } : undefined };
  }
}
