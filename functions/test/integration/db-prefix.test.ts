import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { applyStackEnv } from './client.js';

/**
 * `prefixCondition` replaces `begins_with` with a BETWEEN range (core/db.ts): on the real local
 * DynamoDB it must answer exactly the keys that start with the prefix, whatever characters follow
 * (ASCII, the top of the Basic Multilingual Plane, characters beyond it) and none of the neighbours.
 */
describe('prefix key condition', () => {
  let db: typeof import('../../src/core/db.js');
  beforeAll(async () => {
    applyStackEnv();
    db = await import('../../src/core/db.js');
  });

  it('answers exactly the sort keys that start with the prefix', async () => {
    const pk = `TEST#prefix#${randomUUID()}`;
    const inside = ['ab', 'ab#0000000001', 'abz', 'ab\u00e7', 'ab\uffff', 'ab\u{1d538}x', 'ab\u{10fffe}', 'ab~~~'];
    const outside = ['a', 'aa\u{10ffff}', 'aa\uffff', 'ac', 'b', 'Ab', '\u{1d538}'];
    const tx = [...inside, ...outside].map((SK) => ({ Put: { TableName: process.env.TABLE_NAME, Item: { PK: pk, SK, entity: 'test' } } }));
    await db.transact(tx);
    const found = await db.queryAll<{ SK: string }>(pk, 'ab');
    expect(found.map((i) => i.SK).sort()).toEqual([...inside].sort());
    // No prefix: the whole partition.
    expect(await db.queryAll(pk)).toHaveLength(inside.length + outside.length);
    // A prefix of one key only, and one of none.
    expect((await db.queryAll<{ SK: string }>(pk, 'ab#')).map((i) => i.SK)).toEqual(['ab#0000000001']);
    expect(await db.queryAll(pk, 'abc')).toEqual([]);
  });
});
