import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { log } from '../core/observability.js';
import { runScheduleJob, scheduleJobSchema } from '../services/schedules.js';
import { lambdaHandler } from '../core/lambda.js';
import { runJobs } from './batch.js';

/**
 * Consumer of the schedules queue: the due scheduled messages the sweeper hands off. A job claims
 * its schedule before sending, so a redelivered job does nothing.
 */
export const handler = lambdaHandler(async function handler(event: SQSEvent): Promise<SQSBatchResponse> {
  return runJobs(event, 'schedule', scheduleJobSchema, 'dlq', async (job) => {
    const outcome = await runScheduleJob(job);
    log.info('schedule job', { companyId: job.companyId, scheduleId: job.scheduleId, outcome });
  });
});
