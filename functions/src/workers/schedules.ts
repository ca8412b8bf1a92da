import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { count, log } from '../core/observability.js';
import { runScheduleJob, scheduleJobSchema } from '../services/schedules.js';
import { lambdaHandler } from '../core/lambda.js';

/**
 * Consumer of the schedules queue: the due scheduled messages the sweeper hands off. A job claims
 * its schedule before sending, so a redelivered job does nothing; a failed one comes back (partial
 * batch failure) and goes to the DLQ after maxReceiveCount.
 */
export const handler = lambdaHandler(async function handler(event: SQSEvent): Promise<SQSBatchResponse> {
  const failed = await Promise.all(
    event.Records.map(async (record) => {
      let job;
      try {
        job = scheduleJobSchema.parse(JSON.parse(record.body));
      } catch {
        log.error('invalid schedule job (goes to the DLQ)', { messageId: record.messageId });
        return record.messageId;
      }
      try {
        const outcome = await runScheduleJob(job);
        log.info('schedule job', { companyId: job.companyId, scheduleId: job.scheduleId, outcome });
        return undefined;
      } catch (err) {
        log.error('schedule job failed; will be retried', { err, messageId: record.messageId });
        count('Errors');
        return record.messageId;
      }
    }),
  );
  return { batchItemFailures: failed.filter((id): id is string => !!id).map((itemIdentifier) => ({ itemIdentifier })) };
});
