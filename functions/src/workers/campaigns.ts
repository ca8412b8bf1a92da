import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { count, log } from '../core/observability.js';
import { lambdaHandler } from '../core/lambda.js';
import { campaignJobSchema, runCampaignJob } from '../services/campaign-dispatch.js';

/**
 * Consumer of the campaigns queue (services/campaign-dispatch.ts): campaign starts and lane steps.
 * Each job re-reads what it acts on and claims before sending, so a redelivered or duplicated job
 * sends nothing twice; a failed one comes back (partial batch failure).
 */
export const handler = lambdaHandler(async function handler(event: SQSEvent): Promise<SQSBatchResponse> {
  const failed = await Promise.all(
    event.Records.map(async (record) => {
      let job;
      try {
        job = campaignJobSchema.parse(JSON.parse(record.body));
      } catch {
        log.error('invalid campaign job (dropped)', { messageId: record.messageId });
        return undefined;
      }
      try {
        const outcome = await runCampaignJob(job);
        log.info('campaign job', { ...job, outcome });
        return undefined;
      } catch (err) {
        log.error('campaign job failed; will be retried', { err, messageId: record.messageId });
        count('Errors');
        return record.messageId;
      }
    }),
  );
  return { batchItemFailures: failed.filter((id): id is string => !!id).map((itemIdentifier) => ({ itemIdentifier })) };
});
