/**
 * Queues and their consumers, read by the CDK workers stack and by the local pollers (so both wire
 * the same event-source mappings). Every queue has a dead-letter queue after `maxReceiveCount`.
 */
export interface QueueDef {
  /** Logical name; the queue URL reaches functions as the environment variable `envVar`. */
  name: string;
  envVar: string;
  fifo: boolean;
  /**
   * Worker module `functions/src/workers/<worker>.ts` exporting `handler(SQSEvent): SQSBatchResponse`,
   * or `null` for queues the session host consumes itself (its outbound command queues).
   */
  worker: string | null;
  batchSize: number;
  visibilityTimeoutSeconds: number;
  maxReceiveCount: number;
}

/** Session-host shards (DESIGN §6): one outbound FIFO command queue each. */
export const SHARDS = 2;

export const queues: QueueDef[] = [
  {
    name: 'realtime',
    envVar: 'REALTIME_QUEUE_URL',
    fifo: false,
    worker: 'realtime-fanout',
    batchSize: 10,
    visibilityTimeoutSeconds: 30,
    maxReceiveCount: 5,
  },
  {
    // WhatsApp events from the session host; FIFO grouped per chat keeps each customer in order.
    name: 'inbound',
    envVar: 'INBOUND_QUEUE_URL',
    fifo: true,
    worker: 'ingest',
    batchSize: 10,
    visibilityTimeoutSeconds: 60,
    maxReceiveCount: 5,
  },
  {
    // Auto-transfer and inactivity-close jobs from the sweeper (services/ticket-timers.ts) and the
    // delayed timeout check of each send (services/outbound.ts); each re-checks what it acts on,
    // so order and duplicates do not matter.
    name: 'ticket-timers',
    envVar: 'TICKET_TIMERS_QUEUE_URL',
    fifo: false,
    worker: 'ticket-timers',
    batchSize: 10,
    visibilityTimeoutSeconds: 60,
    maxReceiveCount: 5,
  },
  {
    // Due scheduled messages from the sweeper (services/schedules.ts); each job claims its schedule
    // before sending, so duplicates do nothing.
    name: 'schedules',
    envVar: 'SCHEDULES_QUEUE_URL',
    fifo: false,
    worker: 'schedules',
    batchSize: 10,
    visibilityTimeoutSeconds: 120,
    maxReceiveCount: 5,
  },
  {
    // Customer messages for a ticket's integration or AI prompt (server-behaviour §9): grouped per
    // ticket so one conversation is answered in order, deduplicated by the message. An outside
    // service's failure holds only its ticket's group (retried later, then the ticket falls back to
    // an agent); visibility covers the slowest call (Typebot replies paced by their delay).
    name: 'automation',
    envVar: 'AUTOMATION_QUEUE_URL',
    fifo: true,
    worker: 'automation',
    batchSize: 10,
    // The worker (a third of this: 2 minutes) starts a message only with 75 s left, the slowest
    // turn: a voice note transcribed, answered and spoken (15 + 20 + 15 s at most) and sent, or a
    // Typebot call and its paced parts (at most 20 s of pauses).
    visibilityTimeoutSeconds: 360,
    maxReceiveCount: 8,
  },
  {
    // Campaign starts and lane steps (services/campaign-dispatch.ts): delayed to their second, each
    // idempotent (claims in the table), so a standard queue's duplicates and order do not matter.
    name: 'campaigns',
    envVar: 'CAMPAIGNS_QUEUE_URL',
    fifo: false,
    worker: 'campaigns',
    batchSize: 10,
    // A lane step sends one recipient's messages (a few media parts at most).
    visibilityTimeoutSeconds: 120,
    maxReceiveCount: 5,
  },
  {
    // Contact-list spreadsheet imports (services/contact-list-import.ts): one list's import steps in
    // order, each a run of chunks that hands the rest to a next step before its time ends.
    name: 'contact-list-imports',
    envVar: 'CONTACT_LIST_IMPORTS_QUEUE_URL',
    fifo: true,
    worker: 'contact-list-imports',
    batchSize: 1,
    // The worker (a third of this: 2 minutes) starts a chunk only with a minute left; a chunk of
    // 500 rows is 5 WhatsApp questions and 16 transactions.
    visibilityTimeoutSeconds: 360,
    maxReceiveCount: 5,
  },
  ...Array.from({ length: SHARDS }, (_, shard): QueueDef => ({
    // Commands for the session host that owns the shard, grouped per connection. Short visibility,
    // renewed while a command is handled: a dead host's commands come back within seconds.
    name: `outbound-${shard}`,
    envVar: `OUTBOUND_QUEUE_URL_${shard}`,
    fifo: true,
    worker: null,
    batchSize: 10,
    visibilityTimeoutSeconds: 10,
    maxReceiveCount: 5,
  })),
];

/**
 * Queues a one-time timer may land a job on (core/timers.ts): in AWS an EventBridge Scheduler
 * schedule targets the queue by its ARN, given to the function as `<QUEUE>_QUEUE_ARN`.
 */
export const TIMER_QUEUES = ['schedules', 'campaigns'] as const;
export type TimerQueue = (typeof TIMER_QUEUES)[number];
export const timerQueueArnEnv = (queue: TimerQueue) => `${queue.toUpperCase()}_QUEUE_ARN`;

/** Time-driven work: one sweeper every minute (DESIGN §7), module `functions/src/workers/sweeper.ts`. */
export const SWEEPER = { worker: 'sweeper', rateMinutes: 1 } as const;
