import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import type { z } from 'zod';
import { count, log } from '../core/observability.js';

/**
 * Runs a batch's jobs side by side (each job re-reads and claims what it acts on, so order and
 * redelivery do not matter). A failed job comes back (partial batch failure) and goes to the DLQ
 * after the queue's maxReceiveCount; an unreadable one cannot be helped by retrying: `unreadable`
 * says whether it goes to the DLQ for a look or is dropped.
 */
export async function runJobs<S extends z.ZodType>(
  event: SQSEvent,
  what: string,
  schema: S,
  unreadable: 'dlq' | 'drop',
  run: (job: z.infer<S>) => Promise<void>,
): Promise<SQSBatchResponse> {
  const failed = await Promise.all(
    event.Records.map(async (record) => {
      let job: z.infer<S>;
      try {
        job = schema.parse(JSON.parse(record.body));
      } catch {
        log.error(`invalid ${what} job (${unreadable === 'dlq' ? 'goes to the DLQ' : 'dropped'})`, { messageId: record.messageId });
        return unreadable === 'dlq' ? record.messageId : undefined;
      }
      try {
        await run(job);
        return undefined;
      } catch (err) {
        log.error(`${what} job failed; will be retried`, { err, messageId: record.messageId });
        count('Errors');
        return record.messageId;
      }
    }),
  );
  return { batchItemFailures: failed.filter((id): id is string => !!id).map((itemIdentifier) => ({ itemIdentifier })) };
}
