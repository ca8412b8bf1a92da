import { TRANSFER_NOTICE, fillVariables } from '@balcao/shared';
import { z } from 'zod';
import { nowMs, ports, table } from '../core/ports.js';
import { env } from '../core/env.js';
import { getItem, tx, type TransactItem } from '../core/db.js';
import {
  connectionKey,
  contactKey,
  currentMarker,
  keys,
  ticketKey,
  type TicketTimerKind,
  ticketTimerPartition,
  TIMER_CONNECTIONS,
} from '../table/keys.js';
import { log } from '../core/observability.js';
import { settingValue } from './settings.js';
import { Raced, commit, laterThan, publishTicketChange, sendAutomated, timeZone } from './ticket-lifecycle.js';
import { type ConnectionItem, type ContactItem, type QueueItem, type TicketItem } from '../table/items.js';

/**
 * Time-driven ticket work (server-behaviour §6, DESIGN §7): the auto-transfer of a pending ticket
 * without a queue and the inactivity close of an open ticket whose last message was ours. The
 * sweeper reads, for each connection listed in the `TIMERS` partition, the due range of its timer
 * partitions (GSI4, kept by every ticket write) and enqueues one job per ticket; the job re-reads
 * the ticket and the connection, re-checks the rule and writes conditionally on the version read,
 * so a repeated job or a ticket that changed meanwhile changes nothing.
 */

/** Tickets enqueued per connection and kind in one sweep; the rest are due again a minute later. */
const PER_PARTITION = 500;
const MINUTE = 60_000;

export const timerJobSchema = z.object({
  v: z.literal(1),
  kind: z.enum(['transfer', 'expire']),
  companyId: z.number().int().positive(),
  ticketId: z.number().int().positive(),
  /** The sweep's instant: the job acts only if the ticket had no activity since the due time then. */
  now: z.number().int().positive(),
});
export type TimerJob = z.infer<typeof timerJobSchema>;

/** The minutes after which a kind is due on this connection, or undefined when it is off. */
export function timerMinutes(conn: ConnectionItem, kind: TicketTimerKind): number | undefined {
  if (kind === 'transfer') return conn.timeToTransfer > 0 && conn.transferQueueId ? conn.timeToTransfer : undefined;
  return conn.expiresTicket > 0 ? conn.expiresTicket : undefined;
}

async function timerConnections(): Promise<ConnectionItem[]> {
  const found: ConnectionItem[] = [];
  let start: Record<string, unknown> | undefined;
  do {
    const out = await table().query({
      TableName: env.tableName,
      IndexName: 'GSI2',
      KeyConditionExpression: 'GSI2PK = :p',
      ExpressionAttributeValues: { ':p': TIMER_CONNECTIONS },
      ExclusiveStartKey: start,
    });
    found.push(...((out.Items ?? []) as ConnectionItem[]));
    start = out.LastEvaluatedKey;
  } while (start);
  return found;
}

/** Ticket ids of a connection's timer partition whose last activity is at or before `cutoff`. */
async function dueTickets(conn: ConnectionItem, kind: TicketTimerKind, cutoff: number): Promise<number[]> {
  // Sort keys are `<updatedAt ISO>#<id padded>`; '~' sorts after every digit.
  const out = await table().query({
    TableName: env.tableName,
    IndexName: 'GSI4',
    KeyConditionExpression: 'GSI4PK = :p AND GSI4SK < :c',
    ExpressionAttributeValues: { ':p': ticketTimerPartition(conn.companyId, conn.id, kind), ':c': `${new Date(cutoff).toISOString()}#~` },
    ProjectionExpression: 'id',
    Limit: PER_PARTITION,
  });
  return (out.Items ?? []).map((i) => Number(i.id));
}

/**
 * The sweeper's part: enqueues a job for every ticket due at `now`. Answers the jobs enqueued
 * (a test can call it with a later `now` instead of waiting).
 */
export async function sweepTicketTimers(now = nowMs()): Promise<TimerJob[]> {
  const jobs: TimerJob[] = [];
  for (const conn of await timerConnections()) {
    for (const kind of ['transfer', 'expire'] as const) {
      const minutes = timerMinutes(conn, kind);
      if (!minutes) continue;
      // A deleted transfer queue would make every due ticket a job that can only be skipped.
      if (kind === 'transfer' && !(await getItem(keys.queue(conn.companyId, conn.transferQueueId!)))) continue;
      for (const ticketId of await dueTickets(conn, kind, now - minutes * MINUTE)) {
        jobs.push({ v: 1, kind, companyId: conn.companyId, ticketId, now });
      }
    }
  }
  const failed = await ports().jobs.enqueue('ticket-timers', jobs);
  // Not enqueued now: still due, so the next sweep enqueues it again.
  if (failed) log.warn('ticket timer jobs not enqueued', { failed: failed });
  return jobs;
}

export type TimerOutcome = 'transferred' | 'closed' | 'skipped';

/**
 * Runs one job: re-reads the ticket and its connection, applies the rule if it still holds at the
 * sweep's instant, and writes conditionally on the version read (a lost race re-reads and decides
 * again). Answers what it did.
 */
export async function runTimerJob(job: TimerJob): Promise<TimerOutcome> {
  for (let attempt = 0; attempt < 5; attempt++) {
    const t = await getItem<TicketItem>(ticketKey(job.companyId, job.ticketId), true);
    if (!t) return 'skipped';
    const conn = await getItem<ConnectionItem>(connectionKey(t.companyId, t.whatsappId));
    const minutes = conn && timerMinutes(conn, job.kind);
    // Activity after the due time of the sweep (or settings changed): not due any more.
    if (!conn || !minutes || Date.parse(t.updatedAt) > job.now - minutes * MINUTE) return 'skipped';
    try {
      if (job.kind === 'transfer') return await autoTransfer(t, conn);
      return await inactivityClose(t, conn);
    } catch (err) {
      if (err instanceof Raced) continue;
      throw err;
    }
  }
  // The ticket kept changing: it is active, and a later sweep decides again.
  return 'skipped';
}

/** Moves a pending ticket without a queue to the connection's transfer queue, like a manual transfer. */
async function autoTransfer(t: TicketItem, conn: ConnectionItem): Promise<TimerOutcome> {
  if (t.status !== 'pending' || t.queueId !== null || !conn.transferQueueId) return 'skipped';
  const queue = await getItem<QueueItem>(keys.queue(t.companyId, conn.transferQueueId));
  if (!queue) {
    log.warn('auto-transfer queue no longer exists', { companyId: t.companyId, connectionId: conn.id });
    return 'skipped';
  }
  // A transfer stops the bot, an integration or a prompt, as an agent's transfer does (§6).
  const next: TicketItem = { ...t, queueId: queue.id, chatbot: false, useIntegration: false, integrationId: null, promptId: null, updatedAt: laterThan(t.updatedAt) };
  const saved = await commit(t, next);
  await publishTicketChange(saved, 'update', t);
  if ((await settingValue(t.companyId, 'sendMsgTransfTicket')) === 'enabled') {
    const contact = await getItem<ContactItem>(contactKey(t.companyId, t.contactId));
    await sendAutomated(saved, fillVariables(TRANSFER_NOTICE, { name: contact?.name, queue: queue.name, agent: null, timeZone: await timeZone(t.companyId) }));
  }
  return 'transferred';
}

/** Closes an open ticket whose last message was ours, then sends the connection's inactivity text. */
async function inactivityClose(t: TicketItem, conn: ConnectionItem): Promise<TimerOutcome> {
  if (t.status !== 'open' || t.lastFromMe !== true) return 'skipped';
  const now = laterThan(t.updatedAt);
  const next: TicketItem = { ...t, status: 'closed', finishedAt: now, unreadMessages: 0, awaitingRatingUntil: null, chatbot: false, useIntegration: false, integrationId: null, promptId: null, updatedAt: now };
  const marker = currentMarker(t.companyId, t.whatsappId, t.contactId);
  const cur = await getItem<{ ticketId: number }>(marker, true);
  const extra: TransactItem[] = [];
  // The chat's marker remembers the close (the 2-hour reopen rule) in the same transaction.
  if (cur?.ticketId === t.id) {
    extra.push(tx.update(marker, 'SET #s = :c, closedAt = :at', { ':c': 'closed', ':at': now, ':t': t.id }, 'ticketId = :t', { '#s': 'status' }));
  }
  const saved = await commit(t, next, extra, () => new Raced());
  await publishTicketChange(saved, 'update', t);
  if (conn.expiresInactiveMessage?.trim()) {
    const contact = await getItem<ContactItem>(contactKey(t.companyId, t.contactId));
    await sendAutomated(saved, fillVariables(conn.expiresInactiveMessage, { name: contact?.name, timeZone: await timeZone(t.companyId) }));
  }
  return 'closed';
}
