import { outboundCommandSchema, type OutboundCommand } from '@balcao/shared';
import { ports } from './ports.js';

type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;
export type CommandInput = DistributiveOmit<OutboundCommand, 'v' | 'commandId'> & { commandId?: string };

/**
 * Hands a command to the session host that owns the connection's shard: the shard's FIFO queue,
 * grouped by connection so one number's commands run in order, deduplicated by command id.
 */
export async function sendCommand(input: CommandInput): Promise<string> {
  const command = outboundCommandSchema.parse({ v: 1, commandId: input.commandId ?? ports().ids.uuid(), ...input });
  await ports().commands.send(command);
  return command.commandId;
}
