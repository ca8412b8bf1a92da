import { randomUUID } from 'node:crypto';
import { SQSClient, SendMessageBatchCommand } from '@aws-sdk/client-sqs';
import { expect } from 'vitest';
import { toQueueBody, type InboundEvent } from '@balcao/shared';
import { applyStackEnv, tenant } from './client.js';

/** Puts events on the stack's real inbound FIFO queue and reads what the ingest worker stored. */
export type Ev = InboundEvent;

export function sqs() {
  applyStackEnv();
  return new SQSClient({ region: 'us-east-1', endpoint: process.env.SQS_ENDPOINT });
}

/** Puts events on the real inbound FIFO queue, grouped per chat like the session host does. */
export async function emit(events: Ev[]) {
  const client = sqs();
  for (let i = 0; i < events.length; i += 10) {
    const out = await client.send(
      new SendMessageBatchCommand({
        QueueUrl: process.env.INBOUND_QUEUE_URL,
        Entries: events.slice(i, i + 10).map((e, j) => ({
          Id: String(j),
          MessageBody: toQueueBody(e),
          MessageGroupId: `${e.connectionId}:${'chat' in e ? (e.chat.number ?? e.chat.groupId ?? e.chat.lid) : 'session'}`,
          MessageDeduplicationId: e.eventId,
        })),
      }),
    );
    if (out.Failed?.length) throw new Error(`queue refused events: ${JSON.stringify(out.Failed)}`);
  }
}

export const base = (companyId: number, connectionId: number) => ({ v: 1 as const, companyId, connectionId, at: new Date().toISOString() });
export const msg = (companyId: number, connectionId: number, from: string, body: string, extra: Partial<Extract<Ev, { type: 'message' }>> = {}): Ev => ({
  ...base(companyId, connectionId),
  type: 'message',
  eventId: randomUUID(),
  waMessageId: `W${randomUUID().replace(/-/g, '').slice(0, 18).toUpperCase()}`,
  chat: { number: from, name: `Cliente ${from.slice(-4)}` },
  fromMe: false,
  body,
  timestamp: Date.now(),
  ...extra,
});

export async function until<T>(fn: () => Promise<T | undefined>, what: string, ms = 15_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (v !== undefined) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 150));
  }
}

export async function setup() {
  const t = await tenant();
  const conn = await t.admin.post('/whatsapp', { name: 'Loja', provider: 'sandbox' });
  expect(conn.status).toBe(201);
  return { ...t, connectionId: conn.body.id as number };
}

export async function ticketsOf(companyId: number) {
  applyStackEnv();
  const { dynamo } = await import('../../src/core/aws.js');
  const { QueryCommand } = await import('@aws-sdk/lib-dynamodb');
  const out = await dynamo().send(
    new QueryCommand({ TableName: process.env.TABLE_NAME, IndexName: 'GSI1', KeyConditionExpression: 'GSI1PK = :p', ExpressionAttributeValues: { ':p': `C#${companyId}#TKS#pending` } }),
  );
  return (out.Items ?? []) as { id: number; contactId: number; unreadMessages: number; lastMessage: string; status: string; lastSeq: number }[];
}

