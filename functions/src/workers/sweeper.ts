import type { ScheduledEvent } from 'aws-lambda';
import { count, log } from '../core/observability.js';
import { expireStalePresence } from '../services/presence.js';
import { sweepTicketTimers } from '../services/ticket-timers.js';
import { sweepSchedules } from '../services/schedules.js';
import { sweepCampaigns } from '../services/campaign-dispatch.js';
import { sweepInvoices } from '../services/billing.js';
import { lambdaHandler } from '../core/lambda.js';

/**
 * Runs every minute (EventBridge rule; locally a timer) and does what is due (DESIGN §7). Each job
 * is idempotent, so an overlapping or repeated run changes nothing twice.
 */
export const jobs: Record<string, (now: number) => Promise<number>> = {
  presence: (now) => expireStalePresence(now),
  // Auto-transfer and inactivity close: due tickets go to the ticket-timers queue.
  ticketTimers: async (now) => (await sweepTicketTimers(now)).length,
  // Scheduled messages due now go to the schedules queue (server-behaviour §8).
  schedules: async (now) => (await sweepSchedules(now)).length,
  // Campaign starts due soon (enqueued to their second) and lanes whose chain of jobs stopped.
  campaigns: (now) => sweepCampaigns(now),
  // Invoices of companies due within 10 days, and blocking 3 days past due (issue 22 §2; decision 61).
  invoices: (now) => sweepInvoices(now),
};

export const handler = lambdaHandler(async function handler(event?: Partial<ScheduledEvent>): Promise<Record<string, number | string>> {
  const now = event?.time ? Date.parse(event.time) : Date.now();
  const results: Record<string, number | string> = {};
  for (const [name, job] of Object.entries(jobs)) {
    try {
      results[name] = await job(now);
    } catch (err) {
      // One failing job must not stop the others; it is retried on the next tick.
      log.error('sweeper job failed', { err, job: name });
      count('Errors');
      results[name] = 'failed';
    }
  }
  return results;
});
