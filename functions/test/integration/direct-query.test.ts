import { beforeAll, describe, expect, it } from 'vitest';
import { QueryCommand, type QueryCommandInput } from '@aws-sdk/lib-dynamodb';
import { applyStackEnv } from './client.js';
import { customer, world } from './tickets-helpers.js';

/**
 * `queryDirect` (core/direct-query.ts) against DynamoDB Local: the same answer as the SDK's
 * QueryCommand for the same request, its calls seen by `watchDynamoCalls`, refusals as the SDK's.
 */
describe('queryDirect against DynamoDB', () => {
  let aws: typeof import('../../src/core/aws.js');
  let table: string;

  beforeAll(async () => {
    applyStackEnv();
    aws = await import('../../src/core/aws.js');
    table = (await import('../../src/core/env.js')).env.tableName;
  });

  const both = async (input: QueryCommandInput) => {
    const sdk = await aws.dynamo().send(new QueryCommand(structuredClone(input)));
    const direct = await aws.queryDirect(structuredClone(input));
    const shape = (o: { Items?: Record<string, unknown>[]; LastEvaluatedKey?: Record<string, unknown>; Count?: number; ScannedCount?: number }) => ({
      Items: o.Items,
      LastEvaluatedKey: o.LastEvaluatedKey,
      Count: o.Count,
      ScannedCount: o.ScannedCount,
    });
    return { sdk: shape(sdk), direct: shape(direct) };
  };

  it('answers what the SDK answers: pages, ranges, projections, nested attributes and null', async () => {
    const w = await world();
    for (let i = 0; i < 5; i++) await customer(w.companyId, w.connectionId, { name: `Cliente ${i} ção`, text: `mensagem ${i}` });
    const pk = `C#${w.companyId}#TKS#pending`;
    const base: QueryCommandInput = {
      TableName: table,
      IndexName: 'GSI1',
      KeyConditionExpression: 'GSI1PK = :pk',
      ExpressionAttributeValues: { ':pk': pk },
      ScanIndexForward: false,
    };

    const all = await both(base);
    expect(all.direct).toEqual(all.sdk);
    expect(all.direct.Items).toHaveLength(5);
    // Nested map, list and null attributes come back in document form.
    expect(all.direct.Items?.[0]).toMatchObject({ contactView: { name: expect.stringMatching(/^Cliente \d ção$/), tagIds: [], profilePicUrl: null }, userId: null });

    // Page by page with the cursor, both ways.
    const first = await both({ ...base, Limit: 2 });
    expect(first.direct).toEqual(first.sdk);
    expect(first.direct.LastEvaluatedKey).toBeDefined();
    const second = await both({ ...base, Limit: 2, ExclusiveStartKey: first.direct.LastEvaluatedKey });
    expect(second.direct).toEqual(second.sdk);
    expect(second.direct.Items?.map((t) => t.id)).toEqual(all.sdk.Items?.slice(2, 4).map((t) => t.id));

    // A key range and a projection with attribute names.
    const sk = (all.sdk.Items?.[1] as { GSI1SK: string }).GSI1SK;
    const ranged = await both({
      ...base,
      KeyConditionExpression: 'GSI1PK = :pk AND GSI1SK < :hi',
      ExpressionAttributeValues: { ':pk': pk, ':hi': sk },
      ProjectionExpression: '#i, #s, contactView',
      ExpressionAttributeNames: { '#i': 'id', '#s': 'status' },
    });
    expect(ranged.direct).toEqual(ranged.sdk);
    expect(ranged.direct.Items).toHaveLength(3);
    expect(Object.keys(ranged.direct.Items![0]).sort()).toEqual(['contactView', 'id', 'status']);

    // An empty partition.
    const none = await both({ ...base, ExpressionAttributeValues: { ':pk': `${pk}-none` } });
    expect(none.direct).toEqual({ Items: [], LastEvaluatedKey: undefined, Count: 0, ScannedCount: 0 });
  });

  it('is seen by watchDynamoCalls with its input and answer', async () => {
    const seen: { commandName: string; input: Record<string, unknown>; output: Record<string, unknown> }[] = [];
    let on = true;
    aws.watchDynamoCalls('directQueryTest', (c) => void (on && seen.push(c)));
    const input = { TableName: table, KeyConditionExpression: 'PK = :pk', ExpressionAttributeValues: { ':pk': 'C#0#NOTHING' } };
    const out = await aws.queryDirect(input);
    on = false;
    expect(seen).toEqual([{ commandName: 'QueryCommand', input, output: out }]);
  });

  it('refuses a bad request as the SDK does, with the same error name', async () => {
    const bad = { TableName: table, KeyConditionExpression: 'nokey = :pk', ExpressionAttributeValues: { ':pk': 'x' } };
    const sdk = await aws.dynamo().send(new QueryCommand(bad)).catch((e: Error) => e);
    const direct = await aws.queryDirect(bad).catch((e: Error) => e);
    expect(sdk).toBeInstanceOf(Error);
    expect(direct).toBeInstanceOf(Error);
    expect((direct as Error).name).toBe((sdk as Error).name);
    expect((direct as Error).name).toBe('ValidationException');
    expect((direct as Error & { $metadata: { httpStatusCode: number } }).$metadata.httpStatusCode).toBe(400);
  });
});
