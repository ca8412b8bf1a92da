import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { log } from '../core/observability.js';
import { lambdaHandler } from '../core/lambda.js';
import { campaignJobSchema, runCampaignJob } from '../services/campaign-dispatch.js';
import { runJobs } from './batch.js';

/**
 * Consumer of the campaigns queue (services/campaign-dispatch.ts): campaign starts and lane steps.
 * Each job re-reads what it acts on and claims before sending, so a redelivered or duplicated job
 * sends nothing twice.
 */
export const handler = lambdaHandler(async function handler(event: SQSEvent): Promise<SQSBatchResponse> {
  return runJobs(event, 'campaign', campaignJobSchema, 'drop', async (job) => {
    log.info('campaign job', { ...job, outcome: await runCampaignJob(job) });
  });
});
