import {
  GetCommand,
  PutCommand,
  TransactWriteCommand,
  UpdateCommand,
  DeleteCommand,
  BatchGetCommand,
  BatchWriteCommand,
  type TransactWriteCommandInput,
} from '@aws-sdk/lib-dynamodb';
import { TransactionCanceledException, ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
// The AWS adapters are the ports outside `withPorts` (the unit tests run against in-memory ones).
import './aws-ports.js';
import { table as tablePort } from './ports.js';
import type { DirectQueryInput } from './direct-query.js';
import { env } from './env.js';
import { keys } from '../table/keys.js';

export type Item = Record<string, unknown>;
export type Key = { PK: string; SK: string };
export type TransactItem = NonNullable<TransactWriteCommandInput['TransactItems']>[number];

const table = () => env.tableName;

/**
 * "The sort key starts with `prefix`" as a key condition: `BETWEEN prefix AND prefix + U+10FFFF`
 * rather than `begins_with`. The same items: DynamoDB orders strings by their UTF-8 bytes, where
 * U+10FFFF is the greatest character. DynamoDB Local, which `npm start`, the tests and the
 * benchmark run on, answers the range from its index but checks `begins_with` item by item
 * across the whole partition: 200 ms instead of 20 in a partition of 700 000 search tokens
 * (docs/decisions.md, "Prefix queries").
 */
export function prefixCondition(pkName: string, pk: string, skName: string, prefix?: string) {
  if (!prefix) return { KeyConditionExpression: `${pkName} = :pk`, ExpressionAttributeValues: { ':pk': pk } as Record<string, unknown> };
  return {
    KeyConditionExpression: `${pkName} = :pk AND ${skName} BETWEEN :lo AND :hi`,
    ExpressionAttributeValues: { ':pk': pk, ':lo': prefix, ':hi': `${prefix}\u{10FFFF}` } as Record<string, unknown>,
  };
}

export async function getItem<T = Item>(key: Key, consistent = false, projection?: { ProjectionExpression: string; ExpressionAttributeNames?: Record<string, string> }): Promise<T | undefined> {
  const out = await tablePort().send(new GetCommand({ TableName: table(), Key: key, ConsistentRead: consistent, ...projection }));
  return out.Item as T | undefined;
}

/**
 * The items of `keyList` that exist (any order), 100 keys per call, the calls at once. `projection`
 * reads only some attributes (DynamoDB's cost does not change; the transfer and parsing do).
 */
export async function batchGet<T = Item>(keyList: Key[], projection?: { ProjectionExpression: string; ExpressionAttributeNames?: Record<string, string> }): Promise<T[]> {
  const unique = [...new Map(keyList.map((k) => [`${k.PK}|${k.SK}`, k])).values()];
  const chunks: Key[][] = [];
  for (let i = 0; i < unique.length; i += 100) chunks.push(unique.slice(i, i + 100));
  const found = await Promise.all(
    chunks.map(async (chunk) => {
      const items: T[] = [];
      let request: Record<string, { Keys: Key[] }> | undefined = { [table()]: { Keys: chunk, ...projection } };
      for (let attempt = 0; request && Object.keys(request).length && attempt < 8; attempt++) {
        const out = await tablePort().send(new BatchGetCommand({ RequestItems: request }));
        items.push(...((out.Responses?.[table()] ?? []) as T[]));
        request = out.UnprocessedKeys as typeof request;
        if (request && Object.keys(request).length) await new Promise((r) => setTimeout(r, 20 * 2 ** attempt));
      }
      return items;
    }),
  );
  return found.flat();
}

export async function putItem(item: object, condition?: string, names?: Record<string, string>, values?: Record<string, unknown>): Promise<void> {
  await tablePort().send(
    new PutCommand({ TableName: table(), Item: item as Item, ConditionExpression: condition, ExpressionAttributeNames: names, ExpressionAttributeValues: values }),
  );
}

export async function deleteItem(key: Key): Promise<void> {
  await tablePort().send(new DeleteCommand({ TableName: table(), Key: key }));
}

/** Sets the given attributes (undefined values are skipped); returns the new item. */
export async function updateItem<T = Item>(
  key: Key,
  set: Record<string, unknown>,
  opts: { condition?: string; values?: Record<string, unknown>; names?: Record<string, string>; remove?: string[] } = {},
): Promise<T> {
  const names: Record<string, string> = { ...opts.names };
  const values: Record<string, unknown> = { ...opts.values };
  const parts: string[] = [];
  Object.entries(set).forEach(([k, v], i) => {
    if (v === undefined) return;
    names[`#s${i}`] = k;
    values[`:s${i}`] = v;
    parts.push(`#s${i} = :s${i}`);
  });
  const removes = (opts.remove ?? []).map((k, i) => {
    names[`#r${i}`] = k;
    return `#r${i}`;
  });
  let expr = parts.length ? `SET ${parts.join(', ')}` : '';
  if (removes.length) expr += ` REMOVE ${removes.join(', ')}`;
  const out = await tablePort().send(
    new UpdateCommand({
      TableName: table(),
      Key: key,
      UpdateExpression: expr.trim(),
      ConditionExpression: opts.condition ?? 'attribute_exists(PK)',
      ExpressionAttributeNames: Object.keys(names).length ? names : undefined,
      ExpressionAttributeValues: Object.keys(values).length ? values : undefined,
      ReturnValues: 'ALL_NEW',
    }),
  );
  return out.Attributes as T;
}

/**
 * Every item of a partition whose sort key starts with `prefix` (all pages). `extra` adds to the
 * query (a filter with its own names and values, a projection, a consistent read, or a key
 * condition of its own).
 */
export async function queryAll<T = Item>(pk: string, prefix?: string, extra: Partial<DirectQueryInput> = {}): Promise<T[]> {
  const items: T[] = [];
  const key = prefixCondition('PK', pk, 'SK', prefix);
  let start: Record<string, unknown> | undefined;
  do {
    const out = await tablePort().query({
      TableName: table(),
      ...key,
      ...extra,
      // A filter's values join the key's (a caller's own key condition brings its own).
      ExpressionAttributeValues: { ...key.ExpressionAttributeValues, ...extra.ExpressionAttributeValues },
      ExclusiveStartKey: start,
    });
    items.push(...((out.Items ?? []) as T[]));
    start = out.LastEvaluatedKey;
  } while (start);
  return items;
}

/** Every item of a GSI partition (all pages). */
export async function queryIndexAll<T = Item>(index: 'GSI1' | 'GSI2' | 'GSI3', pk: string): Promise<T[]> {
  const items: T[] = [];
  let start: Record<string, unknown> | undefined;
  do {
    const out = await tablePort().query({
      TableName: table(),
      IndexName: index,
      KeyConditionExpression: `${index}PK = :pk`,
      ExpressionAttributeValues: { ':pk': pk },
      ExclusiveStartKey: start,
    });
    items.push(...((out.Items ?? []) as T[]));
    start = out.LastEvaluatedKey;
  } while (start);
  return items;
}

/**
 * Runs a transaction. When it is cancelled by a failed condition, `onConditionFailed(index)` maps
 * the failing item to the domain error (uniqueness, limits, existence).
 */
export async function transact(items: TransactItem[], onConditionFailed?: (index: number) => Error | undefined): Promise<void> {
  try {
    await tablePort().send(new TransactWriteCommand({ TransactItems: items }));
  } catch (err) {
    if (err instanceof TransactionCanceledException && onConditionFailed) {
      const reasons = err.CancellationReasons ?? [];
      const idx = reasons.findIndex((r) => r.Code === 'ConditionalCheckFailed');
      if (idx >= 0) {
        const mapped = onConditionFailed(idx);
        if (mapped) throw mapped;
      }
    }
    throw err;
  }
}

export const isConditionFailure = (err: unknown) => err instanceof ConditionalCheckFailedException;

/** A transaction refused as a whole (a failed condition or a conflict with another one). */
export const isTransactionCanceled = (err: unknown) => err instanceof TransactionCanceledException;

/**
 * A transaction cancelled only because another one held one of its items at that moment (no
 * condition failed): the same transaction may simply run again.
 */
export const isTransactionConflict = (err: unknown) =>
  err instanceof TransactionCanceledException &&
  (err.CancellationReasons ?? []).some((r) => r.Code === 'TransactionConflict') &&
  !(err.CancellationReasons ?? []).some((r) => r.Code === 'ConditionalCheckFailed');

/** A short, growing, jittered pause before running a conflicting transaction again. */
export const conflictPause = (attempt: number) => new Promise((r) => setTimeout(r, 10 * 2 ** attempt * (0.5 + Math.random())));

/**
 * `transact`, run again (up to `attempts` times, with a growing pause) while it is cancelled only by
 * a conflict with another transaction: for writes whose items are shared counters (usage, the
 * dashboard's day items) and that need no fresh read to be retried.
 */
export async function transactRetryingConflicts(items: TransactItem[], onConditionFailed?: (index: number) => Error | undefined, attempts = 6): Promise<void> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await transact(items, onConditionFailed);
    } catch (err) {
      if (!isTransactionConflict(err) || attempt >= attempts - 1) throw err;
      await conflictPause(attempt);
    }
  }
}

/** Allocates the next id of an entity within a company (or globally with companyId 0). */
export const nextId = (companyId: number, entity: string): Promise<number> => reserveIds(companyId, entity, 1);

/** Reserves `n` consecutive ids with one counter update; answers the first. */
export async function reserveIds(companyId: number, entity: string, n: number): Promise<number> {
  const key = companyId === 0 ? keys.globalCounter(entity) : keys.counter(companyId, entity);
  return (await addToCounter(key, 'value', n)) - n + 1;
}

/** Adds `n` to a number attribute (created at 0 with its item); answers the new value. */
export async function addToCounter(key: Key, attribute: string, n = 1): Promise<number> {
  const out = await tablePort().send(
    new UpdateCommand({
      TableName: table(),
      Key: key,
      UpdateExpression: 'ADD #v :n',
      ExpressionAttributeNames: { '#v': attribute },
      ExpressionAttributeValues: { ':n': n },
      ReturnValues: 'UPDATED_NEW',
    }),
  );
  return Number(out.Attributes?.[attribute]);
}

export const tx = {
  put: (item: object, condition?: string, values?: Record<string, unknown>): TransactItem => ({
    Put: { TableName: table(), Item: item as Item, ConditionExpression: condition, ExpressionAttributeValues: values },
  }),
  /** A marker that must not exist yet (uniqueness). */
  putUnique: (item: object): TransactItem => ({
    Put: { TableName: table(), Item: item as Item, ConditionExpression: 'attribute_not_exists(PK)' },
  }),
  delete: (key: Key, condition?: string, values?: Record<string, unknown>): TransactItem => ({
    Delete: { TableName: table(), Key: key, ConditionExpression: condition, ExpressionAttributeValues: values },
  }),
  update: (
    key: Key,
    expression: string,
    values?: Record<string, unknown>,
    condition?: string,
    names?: Record<string, string>,
  ): TransactItem => ({
    Update: {
      TableName: table(),
      Key: key,
      UpdateExpression: expression,
      ExpressionAttributeValues: values,
      ConditionExpression: condition,
      ExpressionAttributeNames: names,
    },
  }),
  conditionCheck: (key: Key, condition: string, values?: Record<string, unknown>, names?: Record<string, string>): TransactItem => ({
    ConditionCheck: {
      TableName: table(),
      Key: key,
      ConditionExpression: condition,
      ExpressionAttributeValues: values,
      ExpressionAttributeNames: names,
    },
  }),
};

/** Strips the storage keys from an item before it leaves the API. */
const STORAGE_ATTRIBUTES = ['PK', 'SK', 'GSI1PK', 'GSI1SK', 'GSI2PK', 'GSI2SK', 'GSI3PK', 'GSI3SK', 'GSI4PK', 'GSI4SK', 'ttl', 'entity'] as const;
const STORAGE = new Set<string>(STORAGE_ATTRIBUTES);
export function clean<T extends object>(item: T): Omit<T, (typeof STORAGE_ATTRIBUTES)[number]> {
  // A copy of the other attributes rather than deletes from a copy: a deleted key turns the object
  // into a slow dictionary for the rest of the request (the answer's JSON included).
  const rest: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(item)) if (!STORAGE.has(k)) rest[k] = v;
  return rest as Omit<T, (typeof STORAGE_ATTRIBUTES)[number]>;
}

export type WriteRequest = { PutRequest: { Item: Record<string, unknown> } } | { DeleteRequest: { Key: Key } };

/** BatchWrite in chunks of 25, retrying what DynamoDB leaves unprocessed. */
export async function batchWrite(requests: WriteRequest[]) {
  for (let i = 0; i < requests.length; i += 25) {
    let pending: WriteRequest[] | undefined = requests.slice(i, i + 25);
    for (let attempt = 0; pending?.length; attempt++) {
      if (attempt >= 8) throw new Error('batch write: items left unprocessed');
      if (attempt) await new Promise((r) => setTimeout(r, 20 * 2 ** attempt));
      const out = await tablePort().send(new BatchWriteCommand({ RequestItems: { [table()]: pending as never } }));
      pending = out.UnprocessedItems?.[table()] as WriteRequest[] | undefined;
    }
  }
}
