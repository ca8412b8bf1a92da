import { nowMs, ports } from '../core/ports.js';
import { log } from '../core/observability.js';
import type { TimerQueue } from '../workers/manifest.js';

/**
 * Timed items (a scheduled message, a PROGRAMADA campaign) get a one-time timer with their save
 * (DESIGN §7): it lands their job on its queue a minute before their time, and the worker waits the
 * rest with an SQS delay to the second. The minute sweeper stays the safety net, so a timer that
 * could not be set, was lost, or fires twice costs nothing but a log line.
 */

/** EventBridge Scheduler fires within the minute it names: a minute early, never late. */
export const TIMER_LEAD_MS = 60_000;

/**
 * An item due within the lead is handed over this long after its save, not at once: the save's
 * follow-up calls land first (the schedule dialog uploads the image right after creating it).
 */
export const SAVE_GRACE_S = 5;

export const timerName = (kind: 'campaign' | 'schedule', companyId: number, id: number) => `${kind}-${companyId}-${id}`;

/** The item's timer for `at` (moved if it had one); within the lead, its job is enqueued after SAVE_GRACE_S. */
export async function setItemTimer(name: string, at: string, queue: TimerQueue, body: object): Promise<void> {
  const fireAt = Date.parse(at) - TIMER_LEAD_MS;
  try {
    if (fireAt > nowMs()) return await ports().timers.set(name, fireAt, queue, body);
    if (await ports().jobs.enqueue(queue, [body], SAVE_GRACE_S)) throw new Error('job not enqueued');
  } catch (err) {
    log.warn('item timer not set (the sweeper hands it over)', { err, name });
  }
}

export async function clearItemTimer(name: string): Promise<void> {
  // A timer left behind fires a job that finds nothing to do.
  await ports()
    .timers.clear(name)
    .catch((err) => log.warn('item timer not cleared', { err, name }));
}
