import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { z } from 'zod';
import { log } from '../core/observability.js';
import { runTimerJob, timerJobSchema } from '../services/ticket-timers.js';
import { runSendRecovery, runSendTimeout, sendRecoveryJobSchema, sendTimeoutJobSchema } from '../services/outbound.js';
import { lambdaHandler } from '../core/lambda.js';
import { runJobs } from './batch.js';

const jobSchema = z.union([timerJobSchema, sendTimeoutJobSchema, sendRecoveryJobSchema]);

/**
 * Consumer of the ticket-timers queue: the auto-transfer and inactivity-close jobs the sweeper
 * enqueues, and the recovery and timeout checks of each sent message. Each job re-checks its rule
 * against the current ticket, so redelivery is harmless.
 */
export const handler = lambdaHandler(async function handler(event: SQSEvent): Promise<SQSBatchResponse> {
  return runJobs(event, 'ticket timer', jobSchema, 'dlq', async (job) => {
    if (job.kind === 'sendRecovery') {
      const outcome = await runSendRecovery(job);
      if (outcome === 'redispatched') log.info('send handed over again by its recovery check', { companyId: job.companyId, waMessageId: job.waMessageId });
      return;
    }
    if (job.kind === 'sendTimeout') {
      const outcome = await runSendTimeout(job);
      if (outcome === 'failed') log.warn('send not confirmed in time; shown failed', { companyId: job.companyId, connectionId: job.connectionId, waMessageId: job.waMessageId });
      return;
    }
    const outcome = await runTimerJob(job);
    log.info('ticket timer job', { kind: job.kind, companyId: job.companyId, ticketId: job.ticketId, outcome });
  });
});
