import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { log } from '../core/log.js';
import { runTimerJob, timerJobSchema } from '../services/ticket-timers.js';

/**
 * Consumer of the ticket-timers queue: the auto-transfer and inactivity-close jobs the sweeper
 * enqueues. Each job re-checks its rule against the current ticket, so redelivery is harmless;
 * a failed job comes back (partial batch failure) and goes to the DLQ after maxReceiveCount.
 */
export async function handler(event: SQSEvent): Promise<SQSBatchResponse> {
  const failed = await Promise.all(
    event.Records.map(async (record) => {
      let job;
      try {
        job = timerJobSchema.parse(JSON.parse(record.body));
      } catch {
        // Unreadable: retrying cannot help; the DLQ keeps it for a look.
        log.error({ messageId: record.messageId }, 'invalid ticket timer job (goes to the DLQ)');
        return record.messageId;
      }
      try {
        const outcome = await runTimerJob(job);
        log.info({ kind: job.kind, companyId: job.companyId, ticketId: job.ticketId, outcome }, 'ticket timer job');
        return undefined;
      } catch (err) {
        log.error({ err, messageId: record.messageId }, 'ticket timer job failed; will be retried');
        return record.messageId;
      }
    }),
  );
  return { batchItemFailures: failed.filter((id): id is string => !!id).map((itemIdentifier) => ({ itemIdentifier })) };
}
