import { randomUUID } from 'node:crypto';
import { SendMessageCommand } from '@aws-sdk/client-sqs';
import { outboundCommandSchema, shardOf, toQueueBody, type OutboundCommand } from '@balcao/shared';
import { sqsClient } from './aws.js';
import { SHARDS } from '../workers/manifest.js';

type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;
export type CommandInput = DistributiveOmit<OutboundCommand, 'v' | 'commandId'> & { commandId?: string };

const queueUrl = (shard: number) => {
  const url = process.env[`OUTBOUND_QUEUE_URL_${shard}`];
  if (!url) throw new Error(`Missing environment variable OUTBOUND_QUEUE_URL_${shard}`);
  return url;
};

/**
 * Hands a command to the session host that owns the connection's shard: the shard's FIFO queue,
 * grouped by connection so one number's commands run in order, deduplicated by command id.
 */
export async function sendCommand(input: CommandInput): Promise<string> {
  const command = outboundCommandSchema.parse({ v: 1, commandId: input.commandId ?? randomUUID(), ...input });
  await sqsClient().send(
    new SendMessageCommand({
      QueueUrl: queueUrl(shardOf(command.connectionId, SHARDS)),
      MessageBody: toQueueBody(command),
      MessageGroupId: `wapp-${command.connectionId}`,
      MessageDeduplicationId: command.commandId,
    }),
  );
  return command.commandId;
}
