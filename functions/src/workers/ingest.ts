import type { SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { inboundEventSchema } from '@balcao/shared';
import { count, log } from '../core/observability.js';
import { receiveInbound } from '../services/inbound.js';
import { lambdaHandler } from '../core/lambda.js';

/**
 * The ingest worker (DESIGN §6): idempotent on the WhatsApp id. The queue is FIFO grouped per chat:
 * once a record fails, the later records of the same group in the batch fail too, so a later
 * message of a chat never overtakes an earlier one, while other chats go on (concurrently). Unreadable or invalid
 * events fail every time, so after `maxReceiveCount` they land in the dead-letter queue (alarmed).
 */
export const handler = lambdaHandler(async function handler(event: SQSEvent): Promise<SQSBatchResponse> {
  // Chats are independent: each chat's records run in order, different chats run side by side.
  const groups = new Map<string, SQSRecord[]>();
  for (const record of event.Records) {
    const group = record.attributes?.MessageGroupId ?? '';
    groups.set(group, [...(groups.get(group) ?? []), record]);
  }
  const failures = await Promise.all([...groups.values()].map(processGroup));
  return { batchItemFailures: failures.flat().map((itemIdentifier) => ({ itemIdentifier })) };
});

async function processGroup(records: SQSRecord[]): Promise<string[]> {
  for (const [index, record] of records.entries()) {
    try {
      let body: unknown;
      try {
        body = JSON.parse(record.body);
      } catch {
        throw new PoisonEvent('unreadable JSON');
      }
      const result = inboundEventSchema.safeParse(body);
      if (!result.success) throw new PoisonEvent(result.error.issues.slice(0, 3).map((i) => `${i.path.join('.')}: ${i.message}`).join('; '));
      await receiveInbound(result.data);
    } catch (err) {
      const receives = Number(record.attributes?.ApproximateReceiveCount ?? 1);
      if (err instanceof PoisonEvent) log.error('invalid inbound event (goes to the DLQ)', { messageId: record.messageId, receives, reason: err.message });
      else log.error('inbound event failed; will be retried', { err, messageId: record.messageId, receives });
      count('Errors');
      // This record and the later ones of its chat come back; earlier ones are done.
      return records.slice(index).map((r) => r.messageId);
    }
  }
  return [];
}

class PoisonEvent extends Error {}

