import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { DeleteMessageCommand, ReceiveMessageCommand, SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { freePort } from '../../local/ports.js';
import { startSqsS3, type SqsS3Handle } from '../../local/sqs-s3.js';

const sqsFor = (endpoint: string) => new SQSClient({ endpoint, region: 'us-east-1', credentials: { accessKeyId: 'x', secretAccessKey: 'x' } });

async function receiveAll(sqs: SQSClient, url: string, visibility = 30) {
  const got: { body: string; group?: string; receipt: string }[] = [];
  for (let empty = 0; empty < 2; ) {
    const r = await sqs.send(
      new ReceiveMessageCommand({ QueueUrl: url, MaxNumberOfMessages: 10, WaitTimeSeconds: 0, VisibilityTimeout: visibility, MessageSystemAttributeNames: ['MessageGroupId'] }),
    );
    if (!r.Messages?.length) {
      empty++;
      continue;
    }
    for (const m of r.Messages) got.push({ body: m.Body!, group: m.Attributes?.MessageGroupId, receipt: m.ReceiptHandle! });
  }
  return got;
}

/**
 * Issue 16 §1: the local queues survive a killed stack. A "kill" here is a second instance started
 * on the same data directory while the first still runs, without any shutdown of the first: it
 * sees only what the first had written when it answered.
 */
describe('local SQS journal', () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'balcao-sqs-'));
  const started: SqsS3Handle[] = [];
  const start = async () => {
    const h = await startSqsS3({ dataDir, port: await freePort(), log: () => {}, allowOrigin: () => false });
    started.push(h);
    return h;
  };
  afterAll(async () => {
    for (const h of started) await h.stop().catch(() => {});
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('gives back every accepted message not deleted, in its FIFO group order, after a kill', async () => {
    const first = await start();
    const sqs = sqsFor(first.endpoint);
    const inbound = first.queues.inbound!.url;
    for (let i = 0; i < 6; i++) {
      await sqs.send(new SendMessageCommand({ QueueUrl: inbound, MessageBody: `a${i}`, MessageGroupId: 'chat-a', MessageDeduplicationId: `a${i}` }));
      await sqs.send(new SendMessageCommand({ QueueUrl: inbound, MessageBody: `b${i}`, MessageGroupId: 'chat-b', MessageDeduplicationId: `b${i}` }));
    }
    // a0 is handled and deleted; b0 is taken by a consumer that dies with the stack.
    const taken = await sqs.send(new ReceiveMessageCommand({ QueueUrl: inbound, MaxNumberOfMessages: 10, VisibilityTimeout: 300 }));
    const a0 = taken.Messages!.find((m) => m.Body === 'a0')!;
    expect(taken.Messages!.map((m) => m.Body).sort()).toEqual(['a0', 'b0']);
    await sqs.send(new DeleteMessageCommand({ QueueUrl: inbound, ReceiptHandle: a0.ReceiptHandle! }));
    // A delayed job and a plain one on a standard queue.
    const timers = first.queues['ticket-timers']!.url;
    await sqs.send(new SendMessageCommand({ QueueUrl: timers, MessageBody: 'now' }));
    // Long enough that the restart below (slow on a loaded CI machine) ends well before it is due.
    const laterDueAt = Date.now() + 8000;
    await sqs.send(new SendMessageCommand({ QueueUrl: timers, MessageBody: 'later', DelaySeconds: 8 }));
    sqs.destroy();
    // The last line of a process killed mid-write is torn: it is skipped, the rest is whole.
    fs.appendFileSync(path.join(dataDir, 'sqs', 'journal.ndjson'), '{"put":"balcao-inbound.fifo","msg":{"messageId"');

    const second = await start();
    const sqs2 = sqsFor(second.endpoint);
    const url2 = second.queues.inbound!.url;
    const order: Record<string, string[]> = {};
    // One at a time per group (FIFO): take and delete until empty.
    for (let rounds = 0; rounds < 20; rounds++) {
      const got = await receiveAll(sqs2, url2);
      if (!got.length) break;
      for (const m of got) {
        (order[m.group!] ??= []).push(m.body);
        await sqs2.send(new DeleteMessageCommand({ QueueUrl: url2, ReceiptHandle: m.receipt }));
      }
    }
    expect(order['chat-a']).toEqual(['a1', 'a2', 'a3', 'a4', 'a5']);
    expect(order['chat-b']).toEqual(['b0', 'b1', 'b2', 'b3', 'b4', 'b5']);
    // A redelivered send inside the five-minute window is still recognised as a duplicate.
    await sqs2.send(new SendMessageCommand({ QueueUrl: url2, MessageBody: 'a3', MessageGroupId: 'chat-a', MessageDeduplicationId: 'a3' }));
    expect(await receiveAll(sqs2, url2)).toEqual([]);

    const timers2 = second.queues['ticket-timers']!.url;
    expect(Date.now()).toBeLessThan(laterDueAt);
    expect((await receiveAll(sqs2, timers2)).map((m) => m.body)).toEqual(['now']);
    await new Promise((r) => setTimeout(r, Math.max(0, laterDueAt - Date.now()) + 300));
    const later = await receiveAll(sqs2, timers2);
    expect(later.map((m) => m.body)).toEqual(['later']);
    sqs2.destroy();

    // What the second instance deleted stays deleted; what it left is there for a third.
    const third = await start();
    const sqs3 = sqsFor(third.endpoint);
    expect((await receiveAll(sqs3, third.queues['ticket-timers']!.url)).map((m) => m.body)).toEqual(['now', 'later']);
    expect(await receiveAll(sqs3, third.queues.inbound!.url)).toEqual([]);
    sqs3.destroy();
  });
});
