/**
 * What one API request reads from DynamoDB: every call of the in-process functions is recorded
 * (command, index, whether it was projected, read units from ConsumedCapacity, items read), so a
 * serial request's calls can be summed. Items read are what DynamoDB evaluated and charged for:
 * `ScannedCount` of a Query, the items answered by a BatchGet or a Get.
 */
import { watchDynamoCalls } from '@balcao/functions/tools';

export interface DbCall {
  label: string;
  read: number;
  itemsRead: number;
  /** Items of the ticket counters (one per status × queue × agent: a company-wide aggregate, not tickets). */
  counterItems: number;
}

const calls: DbCall[] = [];
let recording = false;
let installed = false;

type Capacity = { CapacityUnits?: number; ReadCapacityUnits?: number };

/** Adds the recorder to the functions' DynamoDB client (the stack's handlers share it in this process). */
export function installRecorder() {
  if (installed) return;
  installed = true;
  // The capacity recorder (functions/src/core/aws.ts) asks for ConsumedCapacity on every call.
  watchDynamoCalls('benchItemsRead', ({ commandName, input, output }) => {
    if (!recording) return;
    const name = commandName.replace(/Command$/, '');
    if (!/^(Query|GetItem|BatchGetItem|Scan)$/.test(name)) return;
    const i = input as { IndexName?: string; ProjectionExpression?: string; ExpressionAttributeValues?: Record<string, unknown> };
    const counters = name === 'Query' && /#TCNT$/.test(String(i.ExpressionAttributeValues?.[':pk'] ?? ''));
    const o = output as { ScannedCount?: number; Item?: unknown; Responses?: Record<string, unknown[]>; ConsumedCapacity?: Capacity | Capacity[] };
    const itemsRead =
      name === 'Query' || name === 'Scan'
        ? (o.ScannedCount ?? 0)
        : name === 'GetItem'
          ? o.Item
            ? 1
            : 0
          : Object.values(o.Responses ?? {}).reduce((a, l) => a + l.length, 0);
    const read = ([o.ConsumedCapacity].flat().filter(Boolean) as Capacity[]).reduce((a, c) => a + (c.ReadCapacityUnits ?? c.CapacityUnits ?? 0), 0);
    const label = `${name}${i.IndexName ? ` ${i.IndexName}` : ''}${counters ? ' counters' : ''}${i.ProjectionExpression ? ' (projected)' : ''}`;
    calls.push({ label, read, itemsRead, counterItems: counters ? itemsRead : 0 });
  });
}

/** Runs `fn` (one request, nothing else running) and answers the DynamoDB reads it caused. */
export async function readsOf<T>(fn: () => Promise<T>): Promise<{ value: T; calls: DbCall[] }> {
  calls.length = 0;
  recording = true;
  try {
    const value = await fn();
    return { value, calls: calls.splice(0) };
  } finally {
    recording = false;
  }
}

export function sumCalls(list: DbCall[]) {
  const by: Record<string, { calls: number; itemsRead: number; read: number }> = {};
  let read = 0;
  let itemsRead = 0;
  let counterItems = 0;
  for (const c of list) {
    read += c.read;
    itemsRead += c.itemsRead;
    counterItems += c.counterItems;
    const b = (by[c.label] ??= { calls: 0, itemsRead: 0, read: 0 });
    b.calls++;
    b.itemsRead += c.itemsRead;
    b.read = Math.round((b.read + c.read) * 100) / 100;
  }
  return { read: Math.round(read * 100) / 100, itemsRead, counterItems, calls: list.length, byCommand: by };
}
