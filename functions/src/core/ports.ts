import { AsyncLocalStorage } from 'node:async_hooks';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { OutboundCommand, RealtimeMessage } from '@balcao/shared';
import type { DirectQueryInput, DirectQueryOutput } from './direct-query.js';
import type { SecretBox } from './secrets.js';
import type { TimerQueue } from '../workers/manifest.js';

/**
 * The domain's ports (docs/decisions.md 42): what the services need from the world, as interfaces.
 * The AWS adapters (core/aws-ports.ts) are the default; a use case runs against other ports (the
 * in-memory ones of the unit tests) inside `withPorts`. Services reach them only through the
 * accessors below, never through an SDK client.
 */
export interface Ports {
  table: TablePort;
  publisher: Publisher;
  commands: CommandQueue;
  jobs: JobQueues;
  timers: Timers;
  media: MediaStore;
  clock: Clock;
  ids: IdSource;
  secrets: SecretBox;
}

/** The single table: the document client's item commands, and Query by the direct path. */
export interface TablePort {
  send: DynamoDBDocumentClient['send'];
  query(input: DirectQueryInput): Promise<DirectQueryOutput>;
}

/** Realtime events to the fan-out (DESIGN §5). Throws when they could not be handed over. */
export interface Publisher {
  publish(messages: RealtimeMessage[]): Promise<void>;
}

/** Commands to the session host that owns the connection (per-connection order, deduplicated by id). */
export interface CommandQueue {
  send(command: OutboundCommand): Promise<void>;
}

/** The workers' job queues (fed by the sweeper, and by sends for their timeout). Answers how many bodies were not enqueued. */
export interface JobQueues {
  /** `delaySeconds` (at most 900, SQS's limit) keeps the jobs invisible that long. */
  enqueue(queue: 'ticket-timers' | 'schedules' | 'campaigns', bodies: object[], delaySeconds?: number): Promise<number>;
  /**
   * One job on a FIFO queue: jobs of one `group` are handled in order, one at a time; a second job
   * with the same `dedupId` within five minutes is dropped.
   */
  enqueueOrdered(queue: OrderedQueue, body: object, group: string, dedupId: string): Promise<void>;
  /** Keeps a received job invisible `seconds` more (a retry later, holding its FIFO group meanwhile). */
  retryLater(queue: OrderedQueue, receiptHandle: string, seconds: number): Promise<void>;
}

/**
 * One-time timers for work due later than SQS can delay (EventBridge Scheduler in AWS, DESIGN §7;
 * a timer in the process on one machine). Named per item: setting a name again moves it.
 */
export interface Timers {
  /** `body` lands on `queue` at `at` (epoch ms), up to a minute late (Scheduler's precision). */
  set(name: string, at: number, queue: TimerQueue, body: object): Promise<void>;
  /** Forgets it; a timer that fired or never existed is fine. */
  clear(name: string): Promise<void>;
}

/** The FIFO job queues (workers/manifest.ts). */
export type OrderedQueue = 'automation' | 'contact-list-imports';

/** Media objects under the company's prefix. */
export interface MediaStore {
  put(key: string, data: Uint8Array, contentType: string): Promise<void>;
  remove(key: string): Promise<void>;
  /** A short-lived URL the browser PUTs one file of this type to. */
  uploadUrl(key: string, contentType: string, expiresIn: number): Promise<string>;
  /** A short-lived URL to read the object. */
  readUrl(key: string, expiresIn: number): Promise<string>;
  /** Size and declared type, or undefined when there is no such object. */
  head(key: string): Promise<{ size: number; contentType: string } | undefined>;
  /** The object's first `bytes` bytes (its signature). */
  readStart(key: string, bytes: number): Promise<Uint8Array>;
  copy(from: string, to: string, contentType: string): Promise<void>;
}

export interface Clock {
  /** Epoch milliseconds. */
  now(): number;
}

export interface IdSource {
  uuid(): string;
}

const scope = new AsyncLocalStorage<Ports>();
let defaults: (() => Ports) | undefined;

/** The adapters used outside `withPorts` (set once by core/aws-ports.ts, imported by every entry point). */
export function setDefaultPorts(make: () => Ports) {
  let made: Ports | undefined;
  defaults = () => (made ??= make());
}

export function ports(): Ports {
  const current = scope.getStore();
  if (current) return current;
  if (!defaults) throw new Error('No ports: import core/aws-ports.js in the entry point, or run inside withPorts');
  return defaults();
}

/** Runs `fn` (and everything it awaits) against `p`. */
export const withPorts = <T>(p: Ports, fn: () => T): T => scope.run(p, fn);

export const table = () => ports().table;
export const nowMs = () => ports().clock.now();
export const nowIso = () => new Date(ports().clock.now()).toISOString();
export const uuid = () => ports().ids.uuid();
export const secrets = () => ports().secrets;
