import { AppError, CHECK_NUMBERS_BATCH, type RpcAnswer } from '@balcao/shared';
import { getItem, putItem } from './db.js';
import { sendCommand } from './commands.js';
import { keys } from '../table/keys.js';
import { uuid } from './ports.js';
import { log } from './observability.js';

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

/**
 * Whether each number is on WhatsApp, asked through the connection 100 numbers a question (the
 * questions side by side); null where the phone did not answer.
 */
export async function numbersOnWhatsApp(companyId: number, connectionId: number, numbers: string[]): Promise<(boolean | null)[]> {
  const answers: (boolean | null)[] = numbers.map(() => null);
  const starts = Array.from({ length: Math.ceil(numbers.length / CHECK_NUMBERS_BATCH) }, (_, k) => k * CHECK_NUMBERS_BATCH);
  await Promise.all(
    starts.map(async (start) => {
      try {
        const answer = await askSessionHost(companyId, connectionId, { op: 'checkNumbers', numbers: numbers.slice(start, start + CHECK_NUMBERS_BATCH) }, 20_000);
        if (answer.op === 'checkNumbers') answer.results.forEach((result, i) => (answers[start + i] = result.exists));
      } catch (err) {
        log.warn('numbers not checked on WhatsApp', { err, companyId, connectionId });
      }
    }),
  );
  return answers;
}
