import { BatchWriteCommand, GetCommand, QueryCommand, type BatchWriteCommandInput } from '@aws-sdk/lib-dynamodb';
import { dynamo } from '@balcao/functions';
import { env } from '@balcao/functions';
import type { AuthStore } from '../provider.js';


const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Credentials and signal keys in the table with a write-through cache. Only the task holding the
 * shard's lease runs the session, so the cache can trust itself: the partition is read once (first
 * `get`) and then every miss is known to be absent without another round trip; Baileys asks for
 * many keys that do not exist.
 */
export class DynamoAuthStore implements AuthStore {
  private cache = new Map<string, string>();
  private loaded?: Promise<void>;

  constructor(private readonly pk: string) {}

  private load(): Promise<void> {
    this.loaded ??= (async () => {
      let start: Record<string, unknown> | undefined;
      do {
        const out = await dynamo().send(
          new QueryCommand({
            TableName: env.tableName,
            KeyConditionExpression: 'PK = :pk',
            ExpressionAttributeValues: { ':pk': this.pk },
            ConsistentRead: true,
            ExclusiveStartKey: start,
          }),
        );
        for (const item of out.Items ?? []) if (typeof item.value === 'string') this.cache.set(String(item.SK), item.value);
        start = out.LastEvaluatedKey;
      } while (start);
    })().catch((err) => {
      this.loaded = undefined; // a failed read is retried by the next get, not cached
      throw err;
    });
    return this.loaded;
  }

  async get(key: string): Promise<string | undefined> {
    await this.load();
    return this.cache.get(key);
  }

  async set(entries: Record<string, string | null>): Promise<void> {
    const requests: NonNullable<BatchWriteCommandInput['RequestItems']>[string] = Object.entries(entries).map(([SK, value]) =>
      value === null
        ? { DeleteRequest: { Key: { PK: this.pk, SK } } }
        : { PutRequest: { Item: { PK: this.pk, SK, entity: 'wauth', value } } },
    );
    await this.write(requests);
    // Cached only once durable: a failed write must not look stored to the next reader.
    for (const [k, v] of Object.entries(entries)) {
      if (v === null) this.cache.delete(k);
      else this.cache.set(k, v);
    }
  }

  async clear(): Promise<void> {
    const keys: { PK: string; SK: string }[] = [];
    let start: Record<string, unknown> | undefined;
    do {
      const out = await dynamo().send(
        new QueryCommand({
          TableName: env.tableName,
          KeyConditionExpression: 'PK = :pk',
          ExpressionAttributeValues: { ':pk': this.pk },
          ProjectionExpression: 'PK, SK',
          ConsistentRead: true,
          ExclusiveStartKey: start,
        }),
      );
      keys.push(...((out.Items ?? []) as { PK: string; SK: string }[]));
      start = out.LastEvaluatedKey;
    } while (start);
    await this.write(keys.map((Key) => ({ DeleteRequest: { Key } })));
    this.cache.clear();
    this.loaded = Promise.resolve(); // known empty
  }

  /** BatchWrite in pages of 25, retrying unprocessed items with backoff until all are written. */
  private async write(requests: NonNullable<BatchWriteCommandInput['RequestItems']>[string]): Promise<void> {
    for (let i = 0; i < requests.length; i += 25) {
      let pending = requests.slice(i, i + 25);
      for (let attempt = 0; pending.length; attempt++) {
        if (attempt > 10) throw new Error(`auth store: ${pending.length} write(s) left unprocessed`);
        if (attempt) await sleep(Math.min(50 * 2 ** attempt, 2000));
        const out = await dynamo().send(new BatchWriteCommand({ RequestItems: { [env.tableName]: pending } }));
        pending = out.UnprocessedItems?.[env.tableName] ?? [];
      }
    }
  }
}

/** Reads one credential straight from the table (tests and tools; the store caches). */
export async function readAuthItem(pk: string, key: string): Promise<string | undefined> {
  const out = await dynamo().send(new GetCommand({ TableName: env.tableName, Key: { PK: pk, SK: key }, ConsistentRead: true }));
  return out.Item?.value as string | undefined;
}
