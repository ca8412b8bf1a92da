import type { Context, SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { count, log } from '../core/observability.js';
import { lambdaHandler } from '../core/lambda.js';
import { contactListImportJobSchema, runContactListImport } from '../services/contact-list-import.js';

/** A chunk is started only with this much time left (a chunk takes seconds; the rest is margin). */
const CHUNK_MS = 60_000;

/**
 * Consumer of the contact-list-imports FIFO queue: each job runs its import's next chunks while
 * there is time, then hands the rest to a next job. A failed job comes back (its chunk is
 * redone without adding anything twice) and goes to the DLQ after maxReceiveCount.
 */
export const handler = lambdaHandler(async function handler(event: SQSEvent, context: Context): Promise<SQSBatchResponse> {
  const hasTime = () => (context?.getRemainingTimeInMillis?.() ?? Number.POSITIVE_INFINITY) > CHUNK_MS;
  const failed: string[] = [];
  for (const record of event.Records) {
    let job;
    try {
      job = contactListImportJobSchema.parse(JSON.parse(record.body));
    } catch {
      log.error('invalid contact-list import job (dropped)', { messageId: record.messageId });
      continue;
    }
    try {
      const outcome = await runContactListImport(job, hasTime);
      log.info('contact-list import job', { companyId: job.companyId, contactListId: job.contactListId, outcome });
    } catch (err) {
      log.error('contact-list import job failed; will be retried', { err, messageId: record.messageId });
      count('Errors');
      failed.push(record.messageId);
    }
  }
  return { batchItemFailures: failed.map((itemIdentifier) => ({ itemIdentifier })) };
});
