import { AppError, type RpcAnswer } from '@balcao/shared';
import { getItem, putItem } from './db.js';
import { sendCommand } from './commands.js';
import { keys } from '../table/keys.js';
import { uuid } from './ports.js';

type Call = { op: 'checkNumber'; number: string } | { op: 'checkNumbers'; numbers: string[] } | { op: 'addressBook'; after?: string; limit?: number };

/**
 * Asks the session host a question and waits for its answer in the table. Works the same in AWS
 * and locally without any network path from the API to the session host: the question rides the
 * shard's command queue, the answer comes back as an item with a short TTL.
 */
export async function askSessionHost(companyId: number, connectionId: number, call: Call, timeoutMs = 10_000): Promise<RpcAnswer> {
  const rpcId = uuid();
  const key = keys.rpc(rpcId);
  await putItem({ ...key, entity: 'rpc', status: 'pending', ttl: Math.floor(Date.now() / 1000) + 600 });
  await sendCommand({ type: 'rpc', companyId, connectionId, rpcId, call });
  const deadline = Date.now() + timeoutMs;
  let wait = 50;
  while (Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, wait));
    wait = Math.min(wait * 1.5, 400);
    const item = await getItem<{ status: string; answer?: RpcAnswer; error?: string }>(key, true);
    if (item?.status === 'done' && item.answer) return item.answer;
    if (item?.status === 'failed') throw new AppError(400, 'ERR_WAPP_NOT_INITIALIZED', { message: item.error });
  }
  throw new AppError(400, 'ERR_WAPP_NOT_INITIALIZED', { message: 'A conexão não respondeu; verifique se ela está conectada' });
}
