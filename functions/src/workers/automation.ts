import type { Context, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { count, log } from '../core/observability.js';
import { lambdaHandler } from '../core/lambda.js';
import { ports } from '../core/ports.js';
import { RetryLater, automationJobSchema, runAutomationJob } from '../services/automation/index.js';

/**
 * Consumer of the automation FIFO queue (services/automation): one ticket's messages in order, the
 * tickets of a batch side by side. A message to retry later keeps its group waiting: it and the
 * later messages of its ticket in this batch become visible again after its backoff (SQS FIFO
 * requires them back, or they would overtake it). A record is started only while the run has time
 * for the slowest turn; the rest go back at once for the next run.
 */
export const WORST_TURN_MS = 75_000;

export const handler = lambdaHandler(async function handler(event: SQSEvent, context: Context): Promise<SQSBatchResponse> {
  const groups = new Map<string, SQSRecord[]>();
  for (const record of event.Records) {
    const group = record.attributes.MessageGroupId ?? record.messageId;
    groups.set(group, [...(groups.get(group) ?? []), record]);
  }
  const hasTime = () => (context?.getRemainingTimeInMillis?.() ?? Number.POSITIVE_INFINITY) > WORST_TURN_MS;
  const failed: string[] = [];
  await Promise.all(
    [...groups.values()].map(async (records) => {
      for (const [i, record] of records.entries()) {
        const retryIn = hasTime() ? await handle(record) : 0;
        if (retryIn === undefined) continue;
        const held = records.slice(i);
        failed.push(...held.map((r) => r.messageId));
        await Promise.all(
          held.map((r) =>
            ports()
              .jobs.retryLater('automation', r.receiptHandle, retryIn)
              .catch((err) => log.warn('could not set when to retry (the visibility timeout applies)', { err })),
          ),
        );
        return;
      }
    }),
  );
  return { batchItemFailures: failed.map((itemIdentifier) => ({ itemIdentifier })) };
});

/** Undefined when done; else in how many seconds to try again. */
async function handle(record: SQSRecord): Promise<number | undefined> {
  let job;
  try {
    job = automationJobSchema.parse(JSON.parse(record.body));
  } catch {
    log.error('invalid automation job (dropped)', { messageId: record.messageId });
    return undefined;
  }
  try {
    const outcome = await runAutomationJob(job);
    log.info('automation job', { companyId: job.companyId, ticketId: job.ticketId, outcome, receives: record.attributes.ApproximateReceiveCount });
    return undefined;
  } catch (err) {
    if (err instanceof RetryLater) return err.seconds;
    log.error('automation job failed; will be retried', { err, messageId: record.messageId, ticketId: job.ticketId });
    count('Errors');
    return 10;
  }
}
