import { BatchGetCommand, DeleteCommand, GetCommand, PutCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { ChangeMessageVisibilityCommand, DeleteMessageCommand, ReceiveMessageCommand, SendMessageCommand } from '@aws-sdk/client-sqs';
import type { Readable } from 'node:stream';
import { GetObjectCommand, PutObjectCommand } from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import { dynamo, s3Client, sqsClient } from '@balcao/functions';
import { queryIndexAll } from '@balcao/functions';
import { env } from '@balcao/functions';
import { connectionAuthPartition, connectionKey, keys, messageProtoKey, shardPartition } from '@balcao/functions';
import { findMessage } from '@balcao/functions';
import { toQueueBody, type InboundEvent } from '@balcao/shared';
import { DynamoAuthStore } from './auth-store.js';
import { sqsId } from './events.js';
import type { ConnectionRecord, HostBackend, Lease, LeaseStore, ReceivedCommand, RpcOutcome } from './backend.js';
import type { ProtoStore, StoredMessageRef } from '../provider.js';

const required = (name: string) => {
  const v = process.env[name];
  if (!v) throw new Error(`Missing environment variable ${name}`);
  return v;
};

export interface AwsBackendOptions {
  /** Long-poll wait of the command queues (default 5 s): it bounds how long a stopping shard waits. */
  waitSeconds?: number;
  /**
   * Prefix of the lease and task items (`LEASE#<ns><shard>`, `SESSION_HOSTS<ns>`): integration tests
   * run hosts beside the stack's own without touching its leases. Empty in production.
   */
  namespace?: string;
  /** Queue URLs; by default from INBOUND_QUEUE_URL and OUTBOUND_QUEUE_URL_<n>. */
  queues?: { inbound: string; outbound: string[] };
}
const ttlOf = (epochMs: number) => Math.ceil(epochMs / 1000) + 3600;
/** S3's smallest multipart part (the last may be smaller). */
const MEDIA_PART_BYTES = 5 * 1024 * 1024;
/** WhatsApp asks for a retry within days; a week covers a phone that was off over a weekend. */
const PROTO_TTL_SECONDS = 7 * 24 * 3600;

const ignoreConditionFailure = (err: unknown) => {
  if (!(err instanceof ConditionalCheckFailedException)) throw err;
};

export class DynamoLeaseStore implements LeaseStore {
  constructor(private readonly ns = '') {}

  private get table() {
    return env.tableName;
  }

  private key(shard: number) {
    return keys.lease(this.ns, shard);
  }

  /** Live session-host tasks (one item each), so a new task gets its share before holding any lease. */
  private get tasksPk() {
    return keys.sessionHostsPartition(this.ns);
  }

  async acquire(shard: number, owner: string, expiresAt: number, now: number): Promise<{ epoch: number } | undefined> {
    try {
      // Lease items are never deleted (no ttl, a release only expires them): the epoch only grows.
      // Should one be lost anyway, its epoch starts again from the clock, above any count it had,
      // so the connections' stored status epochs never refuse the new owner.
      const out = await dynamo().send(
        new UpdateCommand({
          TableName: this.table,
          Key: this.key(shard),
          UpdateExpression: 'SET #ent = :lease, #sh = :shard, #o = :me, #x = :e, #ep = if_not_exists(#ep, :now) + :one REMOVE #t',
          ConditionExpression: 'attribute_not_exists(PK) OR #x < :now OR #o = :me',
          ExpressionAttributeNames: { '#o': 'owner', '#t': 'ttl', '#ent': 'entity', '#sh': 'shard', '#x': 'expiresAt', '#ep': 'epoch' },
          ExpressionAttributeValues: { ':now': now, ':me': owner, ':lease': 'lease', ':shard': shard, ':e': expiresAt, ':one': 1 },
          ReturnValues: 'UPDATED_NEW',
        }),
      );
      return { epoch: Number(out.Attributes?.epoch ?? 0) };
    } catch (err) {
      ignoreConditionFailure(err);
      return undefined;
    }
  }

  async renew(shard: number, owner: string, expiresAt: number): Promise<boolean> {
    try {
      await dynamo().send(
        new UpdateCommand({
          TableName: this.table,
          Key: this.key(shard),
          UpdateExpression: 'SET expiresAt = :e',
          ConditionExpression: '#o = :me',
          ExpressionAttributeNames: { '#o': 'owner' },
          ExpressionAttributeValues: { ':e': expiresAt, ':me': owner },
        }),
      );
      return true;
    } catch (err) {
      ignoreConditionFailure(err);
      return false;
    }
  }

  async release(shard: number, owner: string): Promise<void> {
    try {
      await dynamo().send(
        new UpdateCommand({
          TableName: this.table,
          Key: this.key(shard),
          // No owner any more: a renewal still in flight (owner = me) cannot bring the lease back.
          UpdateExpression: 'SET expiresAt = :zero, #o = :nobody',
          ConditionExpression: '#o = :me',
          ExpressionAttributeNames: { '#o': 'owner' },
          ExpressionAttributeValues: { ':me': owner, ':zero': 0, ':nobody': '' },
        }),
      );
    } catch (err) {
      ignoreConditionFailure(err); // already someone else's: nothing to give up
    }
  }

  async read(shards: number[]): Promise<Lease[]> {
    if (!shards.length) return [];
    let request: Record<string, { Keys: Record<string, unknown>[]; ConsistentRead: boolean }> | undefined = {
      [this.table]: { Keys: shards.map((s) => this.key(s)), ConsistentRead: true },
    };
    const found: Lease[] = [];
    for (let attempt = 0; request && Object.keys(request).length; attempt++) {
      if (attempt > 8) throw new Error('lease read: keys left unprocessed');
      if (attempt) await new Promise((r) => setTimeout(r, 20 * 2 ** attempt));
      const out = await dynamo().send(new BatchGetCommand({ RequestItems: request }));
      for (const item of out.Responses?.[this.table] ?? []) {
        found.push({ shard: Number(item.shard), owner: String(item.owner), expiresAt: Number(item.expiresAt) });
      }
      request = out.UnprocessedKeys as typeof request;
    }
    return found;
  }

  async heartbeat(taskId: string, expiresAt: number): Promise<void> {
    await dynamo().send(
      new PutCommand({ TableName: this.table, Item: { PK: this.tasksPk, SK: taskId, entity: 'sessionHost', expiresAt, ttl: ttlOf(expiresAt) } }),
    );
  }

  async liveTasks(now: number): Promise<string[]> {
    const out = await dynamo().send(
      new QueryCommand({
        TableName: this.table,
        KeyConditionExpression: 'PK = :pk',
        FilterExpression: 'expiresAt > :now',
        ExpressionAttributeValues: { ':pk': this.tasksPk, ':now': now },
        ConsistentRead: true,
      }),
    );
    return (out.Items ?? []).map((i) => String(i.SK));
  }

  async leave(taskId: string): Promise<void> {
    await dynamo().send(new DeleteCommand({ TableName: this.table, Key: { PK: this.tasksPk, SK: taskId } }));
  }
}

const toRecord = (item: Record<string, unknown>): ConnectionRecord => ({
  id: Number(item.id),
  companyId: Number(item.companyId),
  provider: item.provider === 'sandbox' ? 'sandbox' : 'beta',
  status: String(item.status ?? ''),
});

/** The session host on DynamoDB, SQS and S3, configured by the functions' environment contract. */
export class AwsBackend implements HostBackend {
  readonly leases: DynamoLeaseStore;
  constructor(private readonly opts: AwsBackendOptions = {}) {
    this.leases = new DynamoLeaseStore(opts.namespace);
  }

  private queueUrl(shard: number) {
    return this.opts.queues?.outbound[shard] ?? required(`OUTBOUND_QUEUE_URL_${shard}`);
  }

  async connectionsOfShard(shard: number): Promise<ConnectionRecord[]> {
    const items = await queryIndexAll<Record<string, unknown>>('GSI1', shardPartition(shard));
    return items.filter((i) => i.entity === 'connection').map(toRecord);
  }

  async getConnection(companyId: number, connectionId: number): Promise<ConnectionRecord | undefined> {
    const out = await dynamo().send(
      new GetCommand({ TableName: env.tableName, Key: connectionKey(companyId, connectionId), ConsistentRead: true }),
    );
    return out.Item?.entity === 'connection' ? toRecord(out.Item) : undefined;
  }

  async receiveCommands(shard: number, visibilitySeconds: number): Promise<ReceivedCommand[]> {
    const out = await sqsClient().send(
      new ReceiveMessageCommand({
        QueueUrl: this.queueUrl(shard),
        MaxNumberOfMessages: 10,
        VisibilityTimeout: visibilitySeconds,
        WaitTimeSeconds: this.opts.waitSeconds ?? 5,
        MessageSystemAttributeNames: ['MessageGroupId', 'ApproximateReceiveCount', 'SentTimestamp'],
      }),
    );
    return (out.Messages ?? []).map((m) => ({
      body: m.Body ?? '',
      receipt: m.ReceiptHandle!,
      groupId: m.Attributes?.MessageGroupId ?? '',
      receiveCount: Number(m.Attributes?.ApproximateReceiveCount ?? 1),
      sentAt: Number(m.Attributes?.SentTimestamp ?? 0),
    }));
  }

  async deleteCommand(shard: number, receipt: string): Promise<void> {
    await sqsClient().send(new DeleteMessageCommand({ QueueUrl: this.queueUrl(shard), ReceiptHandle: receipt }));
  }

  async retryCommand(shard: number, receipt: string, seconds: number): Promise<void> {
    await sqsClient().send(
      new ChangeMessageVisibilityCommand({ QueueUrl: this.queueUrl(shard), ReceiptHandle: receipt, VisibilityTimeout: Math.round(seconds) }),
    );
  }

  extendCommand(shard: number, receipt: string, seconds: number): Promise<void> {
    return this.retryCommand(shard, receipt, seconds);
  }

  async publishEvent(event: InboundEvent, groupId: string): Promise<void> {
    await sqsClient().send(
      new SendMessageCommand({
        QueueUrl: this.opts.queues?.inbound ?? required('INBOUND_QUEUE_URL'),
        // ASCII-escaped JSON: SQS refuses some characters (emoji in the local stand-in, lone surrogates in AWS).
        MessageBody: toQueueBody(event),
        MessageGroupId: groupId,
        MessageDeduplicationId: sqsId(event.eventId),
      }),
    );
  }

  async writeRpcAnswer(rpcId: string, outcome: RpcOutcome): Promise<void> {
    await dynamo().send(
      new PutCommand({
        TableName: env.tableName,
        Item: { ...keys.rpc(rpcId), entity: 'rpc', ...outcome, ttl: Math.floor(Date.now() / 1000) + 600 },
      }),
    );
  }

  async putMedia(key: string, data: Buffer, contentType: string): Promise<void> {
    await s3Client().send(new PutObjectCommand({ Bucket: env.mediaBucket, Key: key, Body: data, ContentType: contentType }));
  }

  async putMediaStream(key: string, body: Readable, contentType: string, signal?: AbortSignal): Promise<void> {
    const upload = new Upload({
      client: s3Client(),
      params: { Bucket: env.mediaBucket, Key: key, Body: body, ContentType: contentType },
      // One part in flight beside the one being filled: about 10 MB held per file, whatever its size.
      partSize: MEDIA_PART_BYTES,
      queueSize: 1,
      leavePartsOnError: false,
    });
    const abort = () => {
      void upload.abort();
      // Unblocks the part reader too: lib-storage aborts the multipart upload once it stops.
      body.destroy(signal?.reason instanceof Error ? signal.reason : new Error('media upload aborted'));
    };
    if (signal?.aborted) abort();
    signal?.addEventListener('abort', abort, { once: true });
    try {
      await upload.done();
    } finally {
      signal?.removeEventListener('abort', abort);
    }
  }

  async getMedia(key: string): Promise<Buffer> {
    const out = await s3Client().send(new GetObjectCommand({ Bucket: env.mediaBucket, Key: key }));
    return Buffer.from(await out.Body!.transformToByteArray());
  }

  authStore(companyId: number, connectionId: number) {
    return new DynamoAuthStore(connectionAuthPartition(companyId, connectionId));
  }

  async getMessage(companyId: number, connectionId: number, waMessageId: string): Promise<StoredMessageRef | undefined> {
    const m = await findMessage(companyId, waMessageId, connectionId);
    if (!m) return undefined;
    const participant = m.participant ? { number: m.participant.number ?? undefined, lid: m.participant.lid ?? undefined } : undefined;
    return { body: m.body, fromMe: m.fromMe, ...(m.waKey ? { key: m.waKey } : {}), ...(participant ? { participant } : {}) };
  }

  protoStore(companyId: number, connectionId: number): ProtoStore {
    const table = env.tableName;
    return {
      async put(waMessageId, data) {
        await dynamo().send(
          new PutCommand({
            TableName: table,
            Item: { ...messageProtoKey(companyId, connectionId, waMessageId), entity: 'waProto', data: Buffer.from(data), ttl: Math.floor(Date.now() / 1000) + PROTO_TTL_SECONDS },
          }),
        );
      },
      async get(waMessageId) {
        const out = await dynamo().send(new GetCommand({ TableName: table, Key: messageProtoKey(companyId, connectionId, waMessageId) }));
        const data = out.Item?.data as Uint8Array | undefined;
        return data ? new Uint8Array(data) : undefined;
      },
    };
  }
}
