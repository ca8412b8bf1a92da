import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { z } from 'zod';
import { count, log } from '../core/observability.js';
import { runTimerJob, timerJobSchema } from '../services/ticket-timers.js';
import { runSendRecovery, runSendTimeout, sendRecoveryJobSchema, sendTimeoutJobSchema } from '../services/outbound.js';
import { lambdaHandler } from '../core/lambda.js';

const jobSchema = z.union([timerJobSchema, sendTimeoutJobSchema, sendRecoveryJobSchema]);

/**
 * Consumer of the ticket-timers queue: the auto-transfer and inactivity-close jobs the sweeper
 * enqueues, and the recovery and timeout checks of each sent message. Each job re-checks its rule against the current ticket, so redelivery is harmless;
 * a failed job comes back (partial batch failure) and goes to the DLQ after maxReceiveCount.
 */
export const handler = lambdaHandler(async function handler(event: SQSEvent): Promise<SQSBatchResponse> {
  const failed = await Promise.all(
    event.Records.map(async (record) => {
      let job;
      try {
        job = jobSchema.parse(JSON.parse(record.body));
      } catch {
        // Unreadable: retrying cannot help; the DLQ keeps it for a look.
        log.error('invalid ticket timer job (goes to the DLQ)', { messageId: record.messageId });
        return record.messageId;
      }
      try {
        if (job.kind === 'sendRecovery') {
          const outcome = await runSendRecovery(job);
          if (outcome === 'redispatched') log.info('send handed over again by its recovery check', { companyId: job.companyId, waMessageId: job.waMessageId });
          return undefined;
        }
        if (job.kind === 'sendTimeout') {
          const outcome = await runSendTimeout(job);
          if (outcome === 'failed') log.warn('send not confirmed in time; shown failed', { companyId: job.companyId, connectionId: job.connectionId, waMessageId: job.waMessageId });
          return undefined;
        }
        const outcome = await runTimerJob(job);
        log.info('ticket timer job', { kind: job.kind, companyId: job.companyId, ticketId: job.ticketId, outcome });
        return undefined;
      } catch (err) {
        log.error('ticket timer job failed; will be retried', { err, messageId: record.messageId });
        count('Errors');
        return record.messageId;
      }
    }),
  );
  return { batchItemFailures: failed.filter((id): id is string => !!id).map((itemIdentifier) => ({ itemIdentifier })) };
});
