import { BatchWriteCommand, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { dynamo, keys } from '@balcao/functions/tools';

/* Bulk writing of the benchmark's data: many new items fast, straight into the table. */

type Put = { Put: { TableName: string; Item: Record<string, unknown> } };

/**
 * How the items go in. DynamoDB Local commits a BatchWriteItem item by item and a transaction at
 * once: on a disk, where every commit syncs, 100 Puts per TransactWriteItems write ~2.2x faster than
 * BatchWrites; on tmpfs (no sync cost) plain BatchWrites of 25 in parallel are ~2x faster than the
 * transactions (measured: 1 900 vs 860 items/s on disk, 2 000 vs 4 000 on /dev/shm, 2 cores).
 */
export type WriteMode = 'transact' | 'batch';
const PER_CALL: Record<WriteMode, number> = { transact: 100, batch: 25 };

/** Bounded concurrency for write tasks, with a running count of items and calls. */
export class TableWriter {
  private inFlight = 0;
  private waiters: (() => void)[] = [];
  private buf: Put[] = [];
  private failed: unknown;
  private tasks = new Set<Promise<void>>();
  items = 0;
  calls = 0;
  constructor(
    private table: string,
    private limit: number,
    readonly mode: WriteMode = 'transact',
  ) {}

  /** Runs `fn` when a slot is free (awaits only for the slot, not for `fn`). */
  async run(fn: () => Promise<number>) {
    if (this.failed) throw this.failed;
    while (this.inFlight >= this.limit) await new Promise<void>((r) => this.waiters.push(r));
    this.inFlight++;
    const p = fn()
      .then((n) => {
        this.items += n;
      })
      .catch((e) => {
        this.failed ??= e;
      })
      .finally(() => {
        this.inFlight--;
        this.tasks.delete(p);
        this.waiters.shift()?.();
      });
    this.tasks.add(p);
  }

  async put(item: object) {
    this.buf.push({ Put: { TableName: this.table, Item: item as Record<string, unknown> } });
    const per = PER_CALL[this.mode];
    if (this.buf.length >= per) await this.run(this.batch(this.buf.splice(0, per)));
  }

  private batch(requests: Put[]) {
    return this.mode === 'batch' ? this.batchWrite(requests) : this.transaction(requests);
  }

  /** New keys only: what DynamoDB leaves unprocessed is sent again, with a backoff. */
  private batchWrite(requests: Put[]) {
    return async () => {
      let pending: Record<string, { PutRequest: { Item: Record<string, unknown> } }[]> | undefined = {
        [this.table]: requests.map((r) => ({ PutRequest: { Item: r.Put.Item } })),
      };
      for (let attempt = 0; pending && Object.keys(pending).length; attempt++) {
        if (attempt > 10) throw new Error(`${pending[this.table]?.length ?? 0} items stayed unprocessed after 10 retries`);
        if (attempt) await new Promise((r) => setTimeout(r, 25 * 2 ** Math.min(attempt, 6)));
        this.calls++;
        const out = await dynamo().send(new BatchWriteCommand({ RequestItems: pending }));
        pending = out.UnprocessedItems as typeof pending;
      }
      return requests.length;
    };
  }

  private transaction(requests: Put[]) {
    return async () => {
      // Unconditional Puts of distinct new keys: only a conflict with another write can cancel it.
      for (let attempt = 0; ; attempt++) {
        try {
          this.calls++;
          await dynamo().send(new TransactWriteCommand({ TransactItems: requests }));
          return requests.length;
        } catch (err) {
          if ((err as { name?: string }).name !== 'TransactionCanceledException' || attempt >= 10) throw err;
          await new Promise((r) => setTimeout(r, 25 * 2 ** Math.min(attempt, 6)));
        }
      }
    };
  }

  async drain() {
    if (this.buf.length) await this.run(this.batch(this.buf.splice(0)));
    while (this.tasks.size) await Promise.all([...this.tasks]);
    if (this.failed) throw this.failed;
  }
}

/** Reserves `n` ids of an entity with one `ADD` on the product's counter: ids `first..first+n-1`. */
export async function reserveIds(table: string, companyId: number, entity: string, n: number): Promise<number> {
  const out = await dynamo().send(
    new UpdateCommand({
      TableName: table,
      Key: keys.counter(companyId, entity),
      UpdateExpression: 'ADD #v :n',
      ExpressionAttributeNames: { '#v': 'value' },
      ExpressionAttributeValues: { ':n': n },
      ReturnValues: 'UPDATED_NEW',
    }),
  );
  return Number(out.Attributes?.value) - n + 1;
}
