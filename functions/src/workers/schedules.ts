import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { log } from '../core/log.js';
import { runScheduleJob, scheduleJobSchema } from '../services/schedules.js';

/**
 * Consumer of the schedules queue: the due scheduled messages the sweeper hands off. A job claims
 * its schedule before sending, so a redelivered job does nothing; a failed one comes back (partial
 * batch failure) and goes to the DLQ after maxReceiveCount.
 */
export async function handler(event: SQSEvent): Promise<SQSBatchResponse> {
  const failed = await Promise.all(
    event.Records.map(async (record) => {
      let job;
      try {
        job = scheduleJobSchema.parse(JSON.parse(record.body));
      } catch {
        log.error({ messageId: record.messageId }, 'invalid schedule job (goes to the DLQ)');
        return record.messageId;
      }
      try {
        const outcome = await runScheduleJob(job);
        log.info({ companyId: job.companyId, scheduleId: job.scheduleId, outcome }, 'schedule job');
        return undefined;
      } catch (err) {
        log.error({ err, messageId: record.messageId }, 'schedule job failed; will be retried');
        return record.messageId;
      }
    }),
  );
  return { batchItemFailures: failed.filter((id): id is string => !!id).map((itemIdentifier) => ({ itemIdentifier })) };
}
