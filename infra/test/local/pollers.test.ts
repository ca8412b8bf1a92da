import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CreateQueueCommand, GetQueueAttributesCommand, ReceiveMessageCommand, SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import type { QueueDef } from '@balcao/functions/manifest';
import { startPollers, startSweeper } from '../../local/pollers.js';
import { stackEnv, uniq } from '../support/index.js';
import * as flaky from './fixtures/flaky-worker.js';

let sqs: SQSClient;
beforeAll(() => {
  const env = stackEnv();
  sqs = new SQSClient({ endpoint: env.SQS_ENDPOINT, region: 'us-east-1', credentials: { accessKeyId: 'x', secretAccessKey: 'x' } });
});
afterAll(() => sqs?.destroy());

async function queueWithDlq(def: QueueDef & { worker: string }) {
  const dlq = await sqs.send(new CreateQueueCommand({ QueueName: `${def.name}-dlq` }));
  const dlqArn = (await sqs.send(new GetQueueAttributesCommand({ QueueUrl: dlq.QueueUrl, AttributeNames: ['QueueArn'] }))).Attributes!.QueueArn!;
  const q = await sqs.send(
    new CreateQueueCommand({
      QueueName: def.name,
      Attributes: { VisibilityTimeout: String(def.visibilityTimeoutSeconds), RedrivePolicy: JSON.stringify({ deadLetterTargetArn: dlqArn, maxReceiveCount: def.maxReceiveCount }) },
    }),
  );
  const arn = (await sqs.send(new GetQueueAttributesCommand({ QueueUrl: q.QueueUrl, AttributeNames: ['QueueArn'] }))).Attributes!.QueueArn!;
  return { def, url: q.QueueUrl!, arn, dlqUrl: dlq.QueueUrl! };
}

const until = async (cond: () => boolean, ms: number) => {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error('timeout');
    await new Promise((r) => setTimeout(r, 50));
  }
};

describe('pollers (event-source mapping)', () => {
  it('deletes successes, redelivers reported failures and thrown batches, and dead-letters after maxReceiveCount', async () => {
    const def: QueueDef & { worker: string } = { name: uniq('test-'), envVar: 'X', fifo: false, worker: 'flaky', batchSize: 10, visibilityTimeoutSeconds: 1, maxReceiveCount: 2 };
    const q = await queueWithDlq(def);
    const pollers = startPollers({
      sqsEndpoint: stackEnv().SQS_ENDPOINT,
      queues: [q],
      log: () => {},
      waitTimeSeconds: 1,
      concurrency: 1,
      loadWorker: async (name) => {
        if (name !== 'flaky') throw new Error(name);
        return flaky;
      },
    });
    try {
      const tag = uniq();
      await sqs.send(new SendMessageCommand({ QueueUrl: q.url, MessageBody: `ok-${tag}`, MessageAttributes: { kind: { DataType: 'String', StringValue: 'k1' } } }));
      await sqs.send(new SendMessageCommand({ QueueUrl: q.url, MessageBody: `fail-${tag}` }));
      await sqs.send(new SendMessageCommand({ QueueUrl: q.url, MessageBody: `throw-${tag}` }));
      const mine = () => flaky.seen.filter((s) => s.body.endsWith(tag));
      // fail/throw are seen twice (receive counts 1 and 2) and then dead-lettered.
      await until(() => mine().filter((s) => !s.body.startsWith('ok')).length >= 4, 20_000);

      const ok = mine().find((s) => s.body.startsWith('ok'))!;
      expect(ok.record).toMatchObject({
        eventSource: 'aws:sqs',
        eventSourceARN: q.arn,
        awsRegion: 'us-east-1',
        messageAttributes: { kind: { stringValue: 'k1', dataType: 'String' } },
      });
      expect(typeof ok.record.messageId).toBe('string');
      expect(typeof ok.record.receiptHandle).toBe('string');
      expect(ok.record.attributes.ApproximateReceiveCount).toBe('1');
      expect(ok.record.attributes.SentTimestamp).toMatch(/^\d+$/);

      const dead = new Set<string>();
      const end = Date.now() + 15_000;
      while (dead.size < 2 && Date.now() < end) {
        const r = await sqs.send(new ReceiveMessageCommand({ QueueUrl: q.dlqUrl, MaxNumberOfMessages: 10, WaitTimeSeconds: 1 }));
        for (const m of r.Messages ?? []) dead.add(m.Body!);
      }
      expect([...dead].sort()).toEqual([`fail-${tag}`, `throw-${tag}`]);
      // ok may have shared a thrown batch (then it is retried too) but never reaches the DLQ.
      for (const body of [`fail-${tag}`, `throw-${tag}`]) {
        expect(mine().filter((s) => s.body === body).map((s) => s.receiveCount)).toEqual([1, 2]);
      }
      const attrs = await sqs.send(new GetQueueAttributesCommand({ QueueUrl: q.url, AttributeNames: ['ApproximateNumberOfMessages', 'ApproximateNumberOfMessagesNotVisible'] }));
      expect(attrs.Attributes).toMatchObject({ ApproximateNumberOfMessages: '0', ApproximateNumberOfMessagesNotVisible: '0' });
    } finally {
      await pollers.stop();
    }
  });

  it('does not consume messages while the worker module is missing', async () => {
    const def: QueueDef & { worker: string } = { name: uniq('test-'), envVar: 'X', fifo: false, worker: 'absent', batchSize: 10, visibilityTimeoutSeconds: 1, maxReceiveCount: 1 };
    const q = await queueWithDlq(def);
    const logs: string[] = [];
    await sqs.send(new SendMessageCommand({ QueueUrl: q.url, MessageBody: 'waiting' }));
    const pollers = startPollers({
      sqsEndpoint: stackEnv().SQS_ENDPOINT,
      queues: [q],
      log: (_p, l) => logs.push(l),
      waitTimeSeconds: 1,
      loadWorker: async () => {
        throw new Error('no such module');
      },
    });
    await new Promise((r) => setTimeout(r, 1500));
    await pollers.stop();
    expect(logs.some((l) => l.includes('unavailable'))).toBe(true);
    const attrs = await sqs.send(new GetQueueAttributesCommand({ QueueUrl: q.url, AttributeNames: ['ApproximateNumberOfMessages'] }));
    expect(attrs.Attributes?.ApproximateNumberOfMessages).toBe('1');
  });
});

describe('sweeper', () => {
  it('sends a Scheduled Event and never runs twice at once', async () => {
    const events: any[] = [];
    let active = 0;
    let maxActive = 0;
    const sweeper = startSweeper({
      rateMinutes: 1,
      worker: 'sweeper',
      intervalMs: 30,
      log: () => {},
      loadWorker: async () => ({
        handler: async (e: unknown) => {
          events.push(e);
          active++;
          maxActive = Math.max(maxActive, active);
          await new Promise((r) => setTimeout(r, 100));
          active--;
        },
      }),
    });
    await new Promise((r) => setTimeout(r, 500));
    await sweeper.stop();
    expect(events.length).toBeGreaterThan(1);
    expect(maxActive).toBe(1);
    expect(events[0]).toMatchObject({ 'detail-type': 'Scheduled Event', source: 'aws.events', detail: {} });
    expect(events[0].time).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
  });
});
