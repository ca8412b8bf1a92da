import type { AuthStore, ProtoStore, StoredMessageRef } from '../provider.js';
import type { Readable } from 'node:stream';
import type { InboundEvent, RpcAnswer } from '@balcao/shared';

/**
 * Everything the session host asks of AWS, behind one interface so the host's logic (leases,
 * routing, ordering, shutdown) is unit-tested against in-memory fakes and runs unchanged on
 * DynamoDB/SQS/S3 (`aws-backend.ts`).
 */

export interface Lease {
  shard: number;
  owner: string;
  /** Epoch ms. */
  expiresAt: number;
}

export interface LeaseStore {
  /**
   * Takes the lease when it is free, expired or already ours; undefined when another live task
   * holds it. The epoch grows with every take: what an owner reports carries it, so a report of an
   * older owner (its socket closing after a handover) never overwrites the current one's.
   */
  acquire(shard: number, owner: string, expiresAt: number, now: number): Promise<{ epoch: number } | undefined>;
  /** Extends our lease; false when it is no longer ours (another task took it over). */
  renew(shard: number, owner: string, expiresAt: number): Promise<boolean>;
  /** Gives the lease up at once (only if still ours) so another task takes the shard without waiting; its epoch is kept. */
  release(shard: number, owner: string): Promise<void>;
  /** The current leases of the given shards (missing = never taken or released). */
  read(shards: number[]): Promise<Lease[]>;
  /** Announces a live task (so shards are spread before it holds any) until `expiresAt`. */
  heartbeat(taskId: string, expiresAt: number): Promise<void>;
  /** Tasks whose announcement has not expired. */
  liveTasks(now: number): Promise<string[]>;
  /** Withdraws the announcement (shutdown). */
  leave(taskId: string): Promise<void>;
}

/** What the host needs of a connection item (functions/src/services/connections.ts). */
export interface ConnectionRecord {
  id: number;
  companyId: number;
  provider: 'beta' | 'sandbox';
  status: string;
}

export interface ReceivedCommand {
  body: string;
  receipt: string;
  groupId: string;
  /** How many times SQS has handed this message out (1 = first time). */
  receiveCount: number;
  /** When it was put on the queue (epoch ms). */
  sentAt: number;
}

export type RpcOutcome = { status: 'done'; answer: RpcAnswer } | { status: 'failed'; error: string };

export interface HostBackend {
  leases: LeaseStore;
  connectionsOfShard(shard: number): Promise<ConnectionRecord[]>;
  getConnection(companyId: number, connectionId: number): Promise<ConnectionRecord | undefined>;
  /**
   * Long-polls the shard's command queue. Never aborted: a poll cancelled on our side can still
   * take messages on the queue's side, hiding them for a whole visibility timeout; a stopping
   * shard waits for its last poll and hands what it got straight back. Taken commands stay hidden
   * `visibilitySeconds` (kept short and extended while handled, so a dead host's commands come
   * back soon).
   */
  receiveCommands(shard: number, visibilitySeconds: number): Promise<ReceivedCommand[]>;
  deleteCommand(shard: number, receipt: string): Promise<void>;
  /** Makes a command visible again after `seconds` (retry of a transient failure). */
  retryCommand(shard: number, receipt: string, seconds: number): Promise<void>;
  /** Keeps a command that is still being handled invisible for `seconds` more. */
  extendCommand(shard: number, receipt: string, seconds: number): Promise<void>;
  publishEvent(event: InboundEvent, groupId: string): Promise<void>;
  writeRpcAnswer(rpcId: string, outcome: RpcOutcome): Promise<void>;
  putMedia(key: string, data: Buffer, contentType: string): Promise<void>;
  /**
   * Stores a stream as it is read (S3: one PUT when it fits one part, else a multipart upload).
   * When `body` errors or `signal` aborts it rejects and stores nothing (a started multipart upload
   * is aborted, not left to the bucket's one-day cleanup).
   */
  putMediaStream(key: string, body: Readable, contentType: string, signal?: AbortSignal): Promise<void>;
  getMedia(key: string): Promise<Buffer>;
  authStore(companyId: number, connectionId: number): AuthStore;
  getMessage(companyId: number, connectionId: number, waMessageId: string): Promise<StoredMessageRef | undefined>;
  protoStore(companyId: number, connectionId: number): ProtoStore;
  close?(): void;
}
