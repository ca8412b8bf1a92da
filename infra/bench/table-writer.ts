import { TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { dynamo, keys } from '@balcao/functions/tools';

/* Bulk writing of the benchmark's data: many new items fast, straight into the table. */

type Put = { Put: { TableName: string; Item: Record<string, unknown> } };
/** Items per write call (the TransactWriteItems maximum). */
const PER_CALL = 100;

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
    if (this.buf.length >= PER_CALL) await this.run(this.batch(this.buf.splice(0, PER_CALL)));
  }

  private batch(requests: Put[]) {
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
