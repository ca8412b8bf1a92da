import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { BatchGetCommand, DeleteCommand, GetCommand, PutCommand, QueryCommand, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { applyStackEnv } from './client.js';
import { MemoryTable } from '../fakes/memory-table.js';
import type { TablePort } from '../../src/core/ports.js';

/**
 * The unit tests' in-memory table (test/fakes/memory-table.ts) answers as DynamoDB does: the same
 * commands, sent to DynamoDB Local and to the fake, give the same items, pages, returned
 * attributes and errors (conditions, transactions, refused expressions, key order by UTF-8 bytes).
 */
/** A document-client command (its input is what both tables read). */
type Command = object;

function outcome(result: PromiseSettledResult<Record<string, unknown>>) {
  if (result.status === 'rejected') {
    const err = result.reason as { name: string; CancellationReasons?: { Code?: string }[] };
    return { error: err.name, reasons: err.CancellationReasons?.map((r) => r.Code) };
  }
  const { Item, Items, Attributes, Count, LastEvaluatedKey, Responses } = result.value;
  return { Item, Items, Attributes, Count, LastEvaluatedKey, Responses };
}

describe('the in-memory table answers as DynamoDB Local', () => {
  let real: TablePort;
  const fake = new MemoryTable();
  const pk = `TEST#memory#${randomUUID()}`;
  const gsi = `TEST#memory-gsi#${randomUUID()}`;
  const key = (SK: string) => ({ PK: pk, SK });

  beforeAll(async () => {
    applyStackEnv();
    await import('../../src/core/db.js');
    real = (await import('../../src/core/ports.js')).table();
  });

  /** Sends the command built by `make` to both tables; their answers must match. */
  async function both(make: () => Command, label?: string) {
    const [a, b] = await Promise.allSettled([real.send(make() as never), fake.send(make() as never)]);
    const expected = outcome(a as PromiseSettledResult<Record<string, unknown>>);
    expect(outcome(b as PromiseSettledResult<Record<string, unknown>>), label).toEqual(expected);
    return expected;
  }

  it('writes, conditions, updates, transactions, pages and indexes', async () => {
    const table = process.env.TABLE_NAME!;
    const put = (Item: Record<string, unknown>, ConditionExpression?: string, ExpressionAttributeValues?: Record<string, unknown>) => () =>
      new PutCommand({ TableName: table, Item, ConditionExpression, ExpressionAttributeValues });
    const update = (SK: string, UpdateExpression: string, opts: { cond?: string; values?: Record<string, unknown>; names?: Record<string, string>; rv?: 'ALL_NEW' | 'UPDATED_NEW' | 'ALL_OLD' } = {}) => () =>
      new UpdateCommand({ TableName: table, Key: key(SK), UpdateExpression, ConditionExpression: opts.cond, ExpressionAttributeValues: opts.values, ExpressionAttributeNames: opts.names, ReturnValues: opts.rv });

    // Puts: unconditional, unique, a second unique refused; gets.
    await both(put({ ...key('A'), n: 1, s: 'xyz', tags: ['a'], GSI1PK: gsi, GSI1SK: '2', nested: { deep: 1 } }));
    await both(put({ ...key('B'), n: 5, s: 'abc', GSI1PK: gsi, GSI1SK: '1' }, 'attribute_not_exists(PK)'));
    expect((await both(put({ ...key('B'), n: 6 }, 'attribute_not_exists(PK)'))).error).toBe('ConditionalCheckFailedException');
    await both(() => new GetCommand({ TableName: table, Key: key('A') }));
    await both(() => new GetCommand({ TableName: table, Key: key('missing') }));
    await both(() => new GetCommand({ TableName: table, Key: key('A'), ProjectionExpression: 'n, #s, nested.deep', ExpressionAttributeNames: { '#s': 's' } }));

    // Updates: arithmetic, REMOVE, ADD, list_append with if_not_exists, the returned attributes.
    await both(update('A', 'SET n = n + :one, #s = :s REMOVE nested', { cond: 'attribute_exists(PK) AND n = :n', values: { ':one': 1, ':s': 'xy', ':n': 1 }, names: { '#s': 's' }, rv: 'ALL_NEW' }));
    await both(update('A', 'ADD c :one', { values: { ':one': 1 }, rv: 'UPDATED_NEW' }));
    await both(update('A', 'SET tags = list_append(if_not_exists(tags, :empty), :more), fresh = if_not_exists(fresh, :f)', { values: { ':empty': [], ':more': ['b'], ':f': 'first' }, rv: 'ALL_NEW' }));
    await both(update('A', 'SET fresh = if_not_exists(fresh, :f)', { values: { ':f': 'second' }, rv: 'ALL_OLD' }));
    expect((await both(update('missing', 'SET n = :n', { cond: 'attribute_exists(PK)', values: { ':n': 1 } }))).error).toBe('ConditionalCheckFailedException');
    await both(update('upserted', 'SET n = :n ADD c :one', { values: { ':n': 1, ':one': 1 }, rv: 'ALL_NEW' }));

    // Conditions: comparisons, ranges, functions, NOT, OR, IN; a missing attribute compares false.
    const conditions: [string, Record<string, unknown>][] = [
      ['n > :v', { ':v': 1 }],
      ['n < :v', { ':v': 1 }],
      ['s <> :v', { ':v': 'xy' }],
      ['begins_with(s, :v)', { ':v': 'x' }],
      ['n BETWEEN :lo AND :hi', { ':lo': 2, ':hi': 3 }],
      ['attribute_not_exists(zz) OR n < :v', { ':v': 0 }],
      ['NOT (n = :v)', { ':v': 2 }],
      ['size(s) = :v', { ':v': 2 }],
      ['s IN (:a, :b)', { ':a': 'q', ':b': 'xy' }],
      ['zz < :v', { ':v': 1 }],
      ['zz <> :v', { ':v': 1 }],
      ['n = :v', { ':v': '2' }],
      ['contains(tags, :v)', { ':v': 'b' }],
      ['(n = :a OR n = :b) AND attribute_exists(s)', { ':a': 9, ':b': 2 }],
    ];
    for (const [cond, values] of conditions) {
      await both(update('A', 'SET touched = :t', { cond, values: { ...values, ':t': cond } }), cond);
    }

    // Refused requests: an unused value, an undefined name, a key attribute updated.
    expect((await both(update('A', 'SET n = :n', { values: { ':n': 1, ':unused': 2 } }))).error).toBe('ValidationException');
    expect((await both(update('A', 'SET #x = :n', { values: { ':n': 1 } }))).error).toBe('ValidationException');
    expect((await both(update('A', 'SET n = nope + :n', { values: { ':n': 1 } }))).error).toBe('ValidationException');

    // Transactions: all or nothing, with the reason of each item.
    const failing = await both(
      () =>
        new TransactWriteCommand({
          TransactItems: [
            { Put: { TableName: table, Item: { ...key('C'), n: 1 }, ConditionExpression: 'attribute_not_exists(PK)' } },
            { Update: { TableName: table, Key: key('B'), UpdateExpression: 'SET n = :n', ConditionExpression: 'n = :old', ExpressionAttributeValues: { ':n': 7, ':old': 99 } } },
          ],
        }),
    );
    expect(failing).toMatchObject({ error: 'TransactionCanceledException', reasons: ['None', 'ConditionalCheckFailed'] });
    await both(() => new GetCommand({ TableName: table, Key: key('C') }));
    await both(
      () =>
        new TransactWriteCommand({
          TransactItems: [
            { ConditionCheck: { TableName: table, Key: key('A'), ConditionExpression: 'attribute_exists(PK)' } },
            { Delete: { TableName: table, Key: key('upserted') } },
            { Put: { TableName: table, Item: { ...key('C'), n: 3, GSI1PK: gsi, GSI1SK: '3' } } },
          ],
        }),
    );
    await both(() => new DeleteCommand({ TableName: table, Key: key('B'), ConditionExpression: 'n = :n', ExpressionAttributeValues: { ':n': 5 }, ReturnValues: 'ALL_OLD' }));

    // Queries: key order by UTF-8 bytes, ranges, pages, reverse, filters, counts, an index.
    for (const SK of ['k#a', 'k#b', 'k#\uffff', 'k#\u{1d538}', 'k#z']) await both(put({ ...key(SK), v: SK.length }));
    const range = { KeyConditionExpression: 'PK = :pk AND SK BETWEEN :lo AND :hi', ExpressionAttributeValues: { ':pk': pk, ':lo': 'k#', ':hi': 'k#\u{10ffff}' } };
    await both(() => new QueryCommand({ TableName: table, ...range }));
    const first = await both(() => new QueryCommand({ TableName: table, ...range, Limit: 2 }));
    await both(() => new QueryCommand({ TableName: table, ...range, Limit: 2, ExclusiveStartKey: first.LastEvaluatedKey as Record<string, unknown> }));
    await both(() => new QueryCommand({ TableName: table, ...range, ScanIndexForward: false, Limit: 3 }));
    await both(() => new QueryCommand({ TableName: table, ...range, Limit: 5 }));
    await both(() => new QueryCommand({ TableName: table, KeyConditionExpression: 'PK = :pk AND begins_with(SK, :p)', ExpressionAttributeValues: { ':pk': pk, ':p': 'k#' }, Select: 'COUNT' }));
    await both(() => new QueryCommand({ TableName: table, KeyConditionExpression: 'PK = :pk AND SK < :b', FilterExpression: 'attribute_exists(n)', ExpressionAttributeValues: { ':pk': pk, ':b': 'k' }, ProjectionExpression: 'SK, n' }));
    const byIndex = await both(() => new QueryCommand({ TableName: table, IndexName: 'GSI1', KeyConditionExpression: 'GSI1PK = :g', ExpressionAttributeValues: { ':g': gsi } }));
    expect((byIndex.Items as { SK: string }[]).map((i) => i.SK)).toEqual(['A', 'C']);
    const indexPage = await both(() => new QueryCommand({ TableName: table, IndexName: 'GSI1', KeyConditionExpression: 'GSI1PK = :g', ExpressionAttributeValues: { ':g': gsi }, Limit: 1 }));
    await both(() => new QueryCommand({ TableName: table, IndexName: 'GSI1', KeyConditionExpression: 'GSI1PK = :g', ExpressionAttributeValues: { ':g': gsi }, ExclusiveStartKey: indexPage.LastEvaluatedKey as Record<string, unknown> }));

    // Batch reads answer the items found (in any order).
    const batch = await Promise.all(
      [real, fake].map((t) => t.send(new BatchGetCommand({ RequestItems: { [table]: { Keys: [key('A'), key('missing'), key('C')] } } }) as never) as Promise<{ Responses?: Record<string, { SK: string }[]> }>),
    );
    const sks = batch.map((b) => b.Responses![table].map((i) => i.SK).sort());
    expect(sks[1]).toEqual(sks[0]);
    expect(sks[0]).toEqual(['A', 'C']);
  });
});
