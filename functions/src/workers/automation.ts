import type { SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { count, log } from '../core/observability.js';
import { lambdaHandler } from '../core/lambda.js';
import { ports } from '../core/ports.js';
import { RetryLater, automationJobSchema, runAutomationJob } from '../services/automation/index.js';

/**
 * Consumer of the automation FIFO queue (services/automation): one ticket's messages in order, the
 * tickets of a batch side by side. A message to retry later keeps its group waiting: it becomes
 * visible again after its backoff, and the later messages of its ticket in this batch are handed
 * back untouched (SQS FIFO requires it, or they would overtake it).
 */
export const handler = lambdaHandler(async function handler(event: SQSEvent): Promise<SQSBatchResponse> {
  const groups = new Map<string, SQSRecord[]>();
  for (const record of event.Records) {
    const group = record.attributes.MessageGroupId ?? record.messageId;
    groups.set(group, [...(groups.get(group) ?? []), record]);
  }
  const failed: string[] = [];
  await Promise.all(
    [...groups.values()].map(async (records) => {
      for (const [i, record] of records.entries()) {
        const ok = await handle(record);
        if (!ok) {
          failed.push(...records.slice(i).map((r) => r.messageId));
          return;
        }
      }
    }),
  );
  return { batchItemFailures: failed.map((itemIdentifier) => ({ itemIdentifier })) };
});

async function handle(record: SQSRecord): Promise<boolean> {
  let job;
  try {
    job = automationJobSchema.parse(JSON.parse(record.body));
  } catch {
    log.error('invalid automation job (dropped)', { messageId: record.messageId });
    return true;
  }
  const attempt = Number(record.attributes.ApproximateReceiveCount) || 1;
  try {
    const outcome = await runAutomationJob(job, attempt);
    log.info('automation job', { companyId: job.companyId, ticketId: job.ticketId, outcome, attempt });
    return true;
  } catch (err) {
    if (err instanceof RetryLater) {
      await ports()
        .jobs.retryLater('automation', record.receiptHandle, err.seconds)
        .catch((e) => log.warn('could not delay the retry (the visibility timeout applies)', { err: e }));
      return false;
    }
    log.error('automation job failed; will be retried', { err, messageId: record.messageId, ticketId: job.ticketId });
    count('Errors');
    return false;
  }
}
