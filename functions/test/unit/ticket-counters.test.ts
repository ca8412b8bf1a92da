import { describe, expect, it } from 'vitest';

// Transaction items name their table.
process.env.TABLE_NAME ??= 'balcao-unit';
import { counterDeltas, type CounterFacts } from '../../src/services/ticket-counters.js';

const facts = (status: CounterFacts['status'], queueId: number | null, userId: number | null): CounterFacts => ({ companyId: 7, status, queueId, userId });
const summary = (items: ReturnType<typeof counterDeltas>) => items.map((i) => `${i.Update!.Key!.SK}:${i.Update!.ExpressionAttributeValues![':d']}`).sort();

describe('ticket counter deltas', () => {
  it('a new pending or open ticket adds one to its combination; a closed one changes nothing', () => {
    expect(summary(counterDeltas(null, facts('pending', null, null)))).toEqual(['pending#0000000000#0000000000:1']);
    expect(summary(counterDeltas(undefined, facts('open', 3, 12)))).toEqual(['open#0000000003#0000000012:1']);
    expect(counterDeltas(null, facts('closed', 3, 12))).toEqual([]);
  });

  it('a move takes one from the old combination and adds one to the new; staying put writes nothing', () => {
    expect(summary(counterDeltas(facts('pending', 2, null), facts('open', 2, 5)))).toEqual(['open#0000000002#0000000005:1', 'pending#0000000002#0000000000:-1']);
    expect(summary(counterDeltas(facts('open', 2, 5), facts('open', 4, 5)))).toEqual(['open#0000000002#0000000005:-1', 'open#0000000004#0000000005:1']);
    expect(counterDeltas(facts('open', 2, 5), facts('open', 2, 5))).toEqual([]);
    expect(summary(counterDeltas(facts('open', 2, 5), facts('closed', 2, 5)))).toEqual(['open#0000000002#0000000005:-1']);
    expect(summary(counterDeltas(facts('closed', null, 5), facts('pending', null, null)))).toEqual(['pending#0000000000#0000000000:1']);
  });

  it('a deleted ticket leaves its combination; each update is keyed by company and keeps the fields the rules read', () => {
    const [u] = counterDeltas(facts('open', null, 9), null);
    expect(u.Update!.Key).toEqual({ PK: 'C#7#TCNT', SK: 'open#0000000000#0000000009' });
    expect(u.Update!.ExpressionAttributeValues).toMatchObject({ ':d': -1, ':s': 'open', ':q': null, ':u': 9 });
    expect(u.Update!.ConditionExpression).toBeUndefined();
  });
});
