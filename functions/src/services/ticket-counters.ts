import { PutCommand } from '@aws-sdk/lib-dynamodb';
import type { TicketStatusValue } from '@balcao/shared';
import { table } from '../core/ports.js';
import { env } from '../core/env.js';
import { queryAll, queryIndexAll, tx, type TransactItem } from '../core/db.js';
import { count } from '../core/observability.js';
import { ticketCounterSortKey, ticketCountersPartition, ticketsByStatus } from '../table/keys.js';

/**
 * Counters of the working set (docs/data-model.md, "Ticket counters"): how many pending and open
 * tickets each (status, queue, agent) combination holds, one small item per combination under
 * `C#<companyId>#TCNT`. Every write that creates, deletes or moves a ticket between combinations
 * adds its deltas to the same transaction, so the counters change exactly when the tickets do.
 * The tab badges and list counts are then sums over a few dozen items, whatever the ticket count,
 * and every viewer's rules still apply: visibility depends only on these three fields.
 */

export interface CounterFacts {
  companyId: number;
  status: TicketStatusValue;
  queueId: number | null;
  userId: number | null;
}

export interface TicketCounter {
  status: TicketStatusValue;
  queueId: number | null;
  userId: number | null;
  n: number;
}

const COUNTED: readonly TicketStatusValue[] = ['pending', 'open'];

/**
 * Counts a committed ticket change in the metrics: opened (new or reopened) or closed. Called after
 * the write succeeded, so a lost race counts nothing.
 */
export function countTicketChange(before: CounterFacts | null | undefined, after: CounterFacts | null | undefined) {
  const wasOpen = !!before && before.status !== 'closed';
  const isOpen = !!after && after.status !== 'closed';
  if (!wasOpen && isOpen) count('TicketsOpened');
  if (wasOpen && after?.status === 'closed') count('TicketsClosed');
}

/**
 * The counter updates of a ticket going from `before` to `after` (undefined: it did not exist /
 * no longer exists). Nothing when the ticket stays in the same combination or is closed on both sides.
 */
export function counterDeltas(before: CounterFacts | null | undefined, after: CounterFacts | null | undefined): TransactItem[] {
  const deltas = new Map<string, { facts: CounterFacts; d: number }>();
  const add = (f: CounterFacts | null | undefined, d: number) => {
    if (!f || !COUNTED.includes(f.status)) return;
    const sk = ticketCounterSortKey(f);
    const cur = deltas.get(sk);
    deltas.set(sk, { facts: f, d: (cur?.d ?? 0) + d });
  };
  add(before, -1);
  add(after, 1);
  return [...deltas.entries()]
    .filter(([, v]) => v.d !== 0)
    .map(([sk, { facts, d }]) =>
      tx.update(
        { PK: ticketCountersPartition(facts.companyId), SK: sk },
        'ADD n :d SET entity = :e, #s = :s, queueId = :q, userId = :u',
        { ':d': d, ':e': 'ticketCounter', ':s': facts.status, ':q': facts.queueId ?? null, ':u': facts.userId ?? null },
        undefined,
        { '#s': 'status' },
      ),
    );
}

/** A company's counters (a few dozen small items: one Query). */
export async function readTicketCounters(companyId: number): Promise<TicketCounter[]> {
  const items = await queryAll<TicketCounter>(ticketCountersPartition(companyId), undefined, {
    ConsistentRead: true,
    ProjectionExpression: '#s, queueId, userId, n',
    ExpressionAttributeNames: { '#s': 'status' },
  });
  return items.filter((c) => c.n > 0);
}

/** What the counters should say: the working set's tickets read from their status partitions. */
export async function countWorkingSet(companyId: number): Promise<Map<string, TicketCounter>> {
  const out = new Map<string, TicketCounter>();
  for (const status of COUNTED) {
    const tickets = await queryIndexAll<{ status: TicketStatusValue; queueId: number | null; userId: number | null }>('GSI1', ticketsByStatus(companyId, status));
    for (const t of tickets) {
      const sk = ticketCounterSortKey(t);
      const cur = out.get(sk) ?? { status: t.status, queueId: t.queueId ?? null, userId: t.userId ?? null, n: 0 };
      cur.n++;
      out.set(sk, cur);
    }
  }
  return out;
}

/**
 * Rewrites a company's counters from its tickets (the migration that introduced them; a repair).
 * Not for a company taking ticket writes at the same moment: a write between the read and the
 * Put would be lost from the counts.
 */
export async function rebuildTicketCounters(companyId: number): Promise<number> {
  const want = await countWorkingSet(companyId);
  const stored = await queryAll<{ SK: string }>(ticketCountersPartition(companyId), undefined, { ProjectionExpression: 'SK' });
  const put = (sk: string, c: Omit<TicketCounter, 'n'>, n: number) =>
    table().send(new PutCommand({ TableName: env.tableName, Item: { PK: ticketCountersPartition(companyId), SK: sk, entity: 'ticketCounter', ...c, n } }));
  for (const [sk, c] of want) await put(sk, c, c.n);
  for (const s of stored) {
    if (want.has(s.SK)) continue;
    const [status, q, u] = s.SK.split('#');
    await put(s.SK, { status: status as TicketStatusValue, queueId: Number(q) || null, userId: Number(u) || null }, 0);
  }
  return want.size;
}
