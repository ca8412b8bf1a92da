import fs from 'node:fs';
import path from 'node:path';
import type { Log } from './http-util.js';

/**
 * The slice of a fauxqs queue the journal wraps (fauxqs's `SqsQueue`, typed structurally because
 * fauxqs exports only its top-level API).
 */
export interface JournaledQueue {
  readonly name: string;
  attributes: Record<string, string>;
  inflightMessages: Map<string, { message: QueueMessage }>;
  sequenceCounter: number;
  enqueue(msg: QueueMessage): void;
  deleteMessage(receiptHandle: string): boolean;
  purge(): void;
  recordDeduplication(dedupId: string, messageId: string, sequenceNumber?: string): void;
}

/** fauxqs's `SqsMessage`, as written to the journal. */
export interface QueueMessage {
  messageId: string;
  body: string;
  sentTimestamp: number;
  approximateReceiveCount: number;
  approximateFirstReceiveTimestamp?: number;
  delayUntil?: number;
  messageGroupId?: string;
  messageDeduplicationId?: string;
  sequenceNumber?: string;
  [k: string]: unknown;
}

type Entry = { put: string; msg: QueueMessage } | { del: string } | { purge: string };

/** SQS remembers a FIFO deduplication id for five minutes. */
const DEDUP_WINDOW_MS = 5 * 60_000;
const DEFAULT_RETENTION_SECONDS = 345_600;
/** Appended bytes after which the journal is rewritten with only the messages still queued. */
const COMPACT_AFTER_BYTES = 32 * 1024 * 1024;

/**
 * Makes the local queues durable (issue 16 §1): fauxqs keeps them in memory only, so a killed
 * `npm start` lost every message waiting in them. Each message a queue accepts is appended to
 * `<dir>/journal.ndjson` before SendMessage answers, each delete appends the message's id, and a
 * start replays the journal: the messages not deleted come back in their order (FIFO groups,
 * sequence numbers and deduplication ids kept), visible at once — a message taken by a consumer
 * that died with the stack is handed out again, as SQS does after the visibility timeout. A write
 * reaches the kernel before the answer, so a killed process loses nothing (a power cut could: no
 * fsync, the same trade-off as DynamoDB Local's store). The journal is rewritten on start and
 * whenever it has grown past 32 MB.
 */
export class QueueJournal {
  private readonly file: string;
  private fd = -1;
  /** Messages still queued: id → the journal line that put them, in put order. */
  private readonly live = new Map<string, { queue: string; line: string }>();
  private appended = 0;
  /** While the journal's own messages are put back: they are in it already. */
  private replaying = false;

  constructor(
    dir: string,
    private readonly log: Log,
  ) {
    fs.mkdirSync(dir, { recursive: true });
    this.file = path.join(dir, 'journal.ndjson');
  }

  /** Journals every accepted and deleted message of `queue` from now on. */
  attach(queue: JournaledQueue) {
    const enqueue = queue.enqueue.bind(queue);
    const deleteMessage = queue.deleteMessage.bind(queue);
    const purge = queue.purge.bind(queue);
    // A message moved to the dead-letter queue is put there under the same id: the later put wins.
    queue.enqueue = (msg) => {
      this.append({ put: queue.name, msg: { ...msg, approximateReceiveCount: 0, approximateFirstReceiveTimestamp: undefined } });
      enqueue(msg);
    };
    queue.deleteMessage = (receiptHandle) => {
      const id = queue.inflightMessages.get(receiptHandle)?.message.messageId;
      const deleted = deleteMessage(receiptHandle);
      if (deleted && id) this.append({ del: id });
      return deleted;
    };
    queue.purge = () => {
      purge();
      this.append({ purge: queue.name });
    };
  }

  /**
   * Puts the journal's queued messages back in their queues (created before, by name) and opens the
   * journal for appends. Answers how many messages came back.
   */
  restore(queueByName: (name: string) => JournaledQueue | undefined): number {
    const puts = new Map<string, { queue: string; msg: QueueMessage }>();
    const dedup: { queue: string; msg: QueueMessage }[] = [];
    let lines = 0;
    let torn = 0;
    const text = fs.existsSync(this.file) ? fs.readFileSync(this.file, 'utf8') : '';
    for (const line of text.split('\n')) {
      if (!line) continue;
      let entry: Entry;
      try {
        entry = JSON.parse(line) as Entry;
      } catch {
        // The last line of a process killed mid-write; everything before it is whole.
        torn++;
        continue;
      }
      lines++;
      if ('put' in entry) {
        puts.delete(entry.msg.messageId); // re-inserted: a move keeps the later position
        puts.set(entry.msg.messageId, { queue: entry.put, msg: entry.msg });
        if (entry.msg.messageDeduplicationId) dedup.push({ queue: entry.put, msg: entry.msg });
      } else if ('del' in entry) puts.delete(entry.del);
      else if ('purge' in entry) for (const [id, p] of puts) if (p.queue === entry.purge) puts.delete(id);
    }
    const now = Date.now();
    // A redelivered send within SQS's five-minute window is still recognised after a restart.
    for (const { queue: name, msg } of dedup) {
      const q = queueByName(name);
      if (q && now - msg.sentTimestamp < DEDUP_WINDOW_MS) q.recordDeduplication(msg.messageDeduplicationId!, msg.messageId, msg.sequenceNumber);
    }
    let restored = 0;
    let expired = 0;
    for (const [id, { queue: name, msg }] of puts) {
      const q = queueByName(name);
      if (!q) {
        this.log('sqs/s3', `journal: queue ${name} no longer exists; its message ${id} is dropped`);
        continue;
      }
      const retention = Number(q.attributes.MessageRetentionPeriod ?? DEFAULT_RETENTION_SECONDS) * 1000;
      if (now - msg.sentTimestamp > retention) {
        expired++;
        continue;
      }
      if (msg.sequenceNumber) q.sequenceCounter = Math.max(q.sequenceCounter, Number(msg.sequenceNumber));
      this.replaying = true;
      try {
        q.enqueue({ ...msg, approximateReceiveCount: 0 });
      } finally {
        this.replaying = false;
      }
      this.live.set(id, { queue: name, line: JSON.stringify({ put: name, msg }) });
      restored++;
    }
    this.rewrite();
    if (lines || torn) {
      this.log('sqs/s3', `journal: ${restored} queued message(s) restored${expired ? `, ${expired} past retention dropped` : ''}${torn ? `, ${torn} torn line(s) skipped` : ''}`);
    }
    return restored;
  }

  close() {
    if (this.fd >= 0) fs.closeSync(this.fd);
    this.fd = -1;
  }

  private append(entry: Entry) {
    if (this.replaying) return;
    const line = JSON.stringify(entry);
    if ('put' in entry) {
      this.live.delete(entry.msg.messageId);
      this.live.set(entry.msg.messageId, { queue: entry.put, line });
    } else if ('del' in entry) this.live.delete(entry.del);
    else for (const [id, l] of this.live) if (l.queue === entry.purge) this.live.delete(id);
    // Before the queue answers (the caller is synchronous): what was accepted is on disk.
    if (this.fd < 0) this.fd = fs.openSync(this.file, 'a');
    const data = `${line}\n`;
    fs.writeSync(this.fd, data);
    this.appended += Buffer.byteLength(data);
    if (this.appended > COMPACT_AFTER_BYTES) this.rewrite();
  }

  /** Replaces the journal by the lines of the messages still queued (atomically). */
  private rewrite() {
    this.close();
    const tmp = `${this.file}.tmp`;
    const fd = fs.openSync(tmp, 'w');
    try {
      let chunk = '';
      for (const { line } of this.live.values()) {
        chunk += `${line}\n`;
        if (chunk.length > 1 << 20) {
          fs.writeSync(fd, chunk);
          chunk = '';
        }
      }
      if (chunk) fs.writeSync(fd, chunk);
      fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
    fs.renameSync(tmp, this.file);
    this.fd = fs.openSync(this.file, 'a');
    this.appended = 0;
  }
}
