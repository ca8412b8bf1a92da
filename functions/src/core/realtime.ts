import { SendMessageBatchCommand } from '@aws-sdk/client-sqs';
import { toQueueBody, type RealtimeMessage } from '@balcao/shared';
import { sqsClient } from './aws.js';
import { env } from './env.js';
import { log } from './observability.js';

/**
 * Domain code publishes events here; the fan-out worker delivers them to the sockets that may see
 * them (DESIGN §5). A failed publish is logged, never fails the request that already committed:
 * clients reload what they show after a reconnect, so a lost event is not a lost message.
 */
export async function publish(messages: RealtimeMessage | RealtimeMessage[]): Promise<void> {
  const list = Array.isArray(messages) ? messages : [messages];
  for (let i = 0; i < list.length; i += 10) {
    const batch = list.slice(i, i + 10);
    try {
      const out = await sqsClient().send(
        new SendMessageBatchCommand({
          QueueUrl: env.realtimeQueueUrl,
          Entries: batch.map((m, j) => ({ Id: String(j), MessageBody: toQueueBody(m) })),
        }),
      );
      if (out.Failed?.length) log.warn('realtime publish partially failed', { failed: out.Failed });
    } catch (err) {
      log.warn('realtime publish failed', { err, events: batch.map((m) => m.event) });
    }
  }
}
