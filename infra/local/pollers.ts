import crypto from 'node:crypto';
import { DeleteMessageBatchCommand, ReceiveMessageCommand, SQSClient, type Message, type MessageAttributeValue } from '@aws-sdk/client-sqs';
import type { QueueDef } from '@balcao/functions/manifest';
import type { Log } from './http-util.js';
import { invokeLocally, lambdaContext, MissingModule, moduleLoader, workerModuleFile } from './functions-loader.js';

type WorkerHandler = (event: any, context: any) => Promise<{ batchItemFailures?: { itemIdentifier: string }[] } | void | undefined>;
export type WorkerLoader = (worker: string) => Promise<{ handler: WorkerHandler }>;

export interface PolledQueue {
  /** Only queues with a Lambda worker are polled; the session host consumes the others. */
  def: QueueDef & { worker: string };
  url: string;
  arn: string;
}

const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve) => {
    const t = setTimeout(resolve, ms);
    signal?.addEventListener('abort', () => (clearTimeout(t), resolve()), { once: true });
  });

const lambdaAttr = (v: MessageAttributeValue) => ({
  stringValue: v.StringValue,
  binaryValue: v.BinaryValue ? Buffer.from(v.BinaryValue).toString('base64') : undefined,
  stringListValues: v.StringListValues ?? [],
  binaryListValues: (v.BinaryListValues ?? []).map((b) => Buffer.from(b).toString('base64')),
  dataType: v.DataType,
});

/** The SQSEvent a Lambda event-source mapping would deliver for these messages. */
export function sqsEvent(q: PolledQueue, messages: Message[]) {
  return {
    Records: messages.map((m) => ({
      messageId: m.MessageId!,
      receiptHandle: m.ReceiptHandle!,
      body: m.Body ?? '',
      attributes: m.Attributes ?? {},
      messageAttributes: Object.fromEntries(Object.entries(m.MessageAttributes ?? {}).map(([k, v]) => [k, lambdaAttr(v)])),
      md5OfBody: m.MD5OfBody ?? '',
      ...(m.MD5OfMessageAttributes ? { md5OfMessageAttributes: m.MD5OfMessageAttributes } : {}),
      eventSource: 'aws:sqs',
      eventSourceARN: q.arn,
      awsRegion: 'us-east-1',
    })),
  };
}

/**
 * Feeds each queue to its worker the way a Lambda event-source mapping with ReportBatchItemFailures
 * does: successes are deleted, reported failures and thrown batches stay and come back after the
 * visibility timeout, and the queue's redrive policy moves them to the DLQ after maxReceiveCount.
 */
export function startPollers(opts: {
  sqsEndpoint: string;
  queues: PolledQueue[];
  log: Log;
  loadWorker?: WorkerLoader;
  /** Concurrent receive loops per queue (a mapping polls in parallel too). */
  concurrency?: number;
  waitTimeSeconds?: number;
}) {
  const load: WorkerLoader = opts.loadWorker ?? moduleLoader(workerModuleFile);
  const sqs = new SQSClient({ endpoint: opts.sqsEndpoint, region: 'us-east-1', credentials: { accessKeyId: 'local', secretAccessKey: 'local' } });
  const abort = new AbortController();
  const reportedMissing = new Set<string>();

  async function processBatch(q: PolledQueue, handler: WorkerHandler, messages: Message[]) {
    const event = sqsEvent(q, messages);
    const ids = new Set(messages.map((m) => m.MessageId!));
    let failed: Set<string>;
    try {
      const res = await invokeLocally(lambdaContext(`balcao-worker-${q.def.worker}`, crypto.randomUUID(), q.def.visibilityTimeoutSeconds * 1000), (ctx) => handler(event, ctx));
      const items = (res && typeof res === 'object' && res.batchItemFailures) || [];
      failed = new Set(items.map((f) => f.itemIdentifier));
      // Like Lambda: an unusable failure report fails the whole batch.
      if ([...failed].some((id) => !id || !ids.has(id))) {
        opts.log('workers', `${q.def.worker}: batchItemFailures names unknown ids; whole batch retried`);
        failed = ids;
      }
      if (failed.size) opts.log('workers', `${q.def.worker}: ${failed.size}/${messages.length} record(s) failed, will be retried`);
    } catch (e) {
      opts.log('workers', `!!! ${q.def.worker} threw, batch of ${messages.length} retried: ${(e as Error).stack ?? e}`);
      failed = ids;
    }
    const done = messages.filter((m) => !failed.has(m.MessageId!));
    for (let i = 0; i < done.length; i += 10) {
      const chunk = done.slice(i, i + 10);
      const r = await sqs.send(
        new DeleteMessageBatchCommand({ QueueUrl: q.url, Entries: chunk.map((m, j) => ({ Id: String(j), ReceiptHandle: m.ReceiptHandle! })) }),
      );
      if (r.Failed?.length) opts.log('workers', `${q.def.worker}: could not delete ${r.Failed.length} message(s)`);
    }
  }

  async function loop(q: PolledQueue) {
    while (!abort.signal.aborted) {
      let handler: WorkerHandler;
      try {
        const mod = await load(q.def.worker);
        if (typeof mod.handler !== 'function') throw new MissingModule(`workers/${q.def.worker}.ts exports no handler`);
        handler = mod.handler;
        reportedMissing.delete(q.def.worker);
      } catch (e) {
        // Leave the messages in the queue rather than burn their receive counts.
        if (!reportedMissing.has(q.def.worker)) {
          reportedMissing.add(q.def.worker);
          opts.log('workers', `!!! queue ${q.def.name}: worker "${q.def.worker}" unavailable, not polling: ${(e as Error).message}`);
        }
        await sleep(5000, abort.signal);
        continue;
      }
      let messages: Message[] = [];
      try {
        const r = await sqs.send(
          new ReceiveMessageCommand({
            QueueUrl: q.url,
            MaxNumberOfMessages: Math.min(10, q.def.batchSize),
            WaitTimeSeconds: opts.waitTimeSeconds ?? 20,
            MessageSystemAttributeNames: ['All'],
            MessageAttributeNames: ['All'],
          }),
          { abortSignal: abort.signal },
        );
        messages = r.Messages ?? [];
      } catch (e) {
        if (abort.signal.aborted) break;
        opts.log('workers', `receive from ${q.def.name} failed: ${(e as Error).message}`);
        await sleep(1000, abort.signal);
        continue;
      }
      if (messages.length) await processBatch(q, handler, messages);
    }
  }

  const loops = opts.queues.flatMap((q) => Array.from({ length: opts.concurrency ?? 2 }, () => loop(q)));
  opts.log('workers', `polling ${opts.queues.map((q) => `${q.def.name}→${q.def.worker}`).join(', ')}`);
  return {
    stop: async () => {
      abort.abort();
      await Promise.allSettled(loops);
      sqs.destroy();
    },
  };
}

/** EventBridge "Scheduled Event" every `rateMinutes`; a run still going skips the next tick. */
export function startSweeper(opts: {
  rateMinutes: number;
  worker: string;
  log: Log;
  loadWorker?: WorkerLoader;
  intervalMs?: number;
}) {
  const load: WorkerLoader = opts.loadWorker ?? moduleLoader(workerModuleFile);
  let running: Promise<void> | undefined;
  let missingReported = false;
  const tick = () => {
    if (running) {
      opts.log('sweeper', 'previous run still going; skipping this tick');
      return;
    }
    running = (async () => {
      const started = Date.now();
      try {
        const mod = await load(opts.worker);
        missingReported = false;
        const now = new Date();
        now.setUTCMilliseconds(0);
        const id = crypto.randomUUID();
        const event = {
          version: '0',
          id,
          'detail-type': 'Scheduled Event',
          source: 'aws.events',
          account: '000000000000',
          time: now.toISOString().replace('.000Z', 'Z'),
          region: 'us-east-1',
          resources: ['arn:aws:events:us-east-1:000000000000:rule/balcao-sweeper'],
          detail: {},
        };
        await invokeLocally(lambdaContext(`balcao-${opts.worker}`, id, 60_000), (ctx) => mod.handler(event, ctx));
        opts.log('sweeper', `run done in ${Date.now() - started}ms`);
      } catch (e) {
        if (e instanceof MissingModule) {
          if (!missingReported) opts.log('sweeper', `!!! ${e.message}; will retry every tick`);
          missingReported = true;
        } else opts.log('sweeper', `!!! run failed: ${(e as Error).stack ?? e}`);
      } finally {
        running = undefined;
      }
    })();
  };
  const timer = setInterval(tick, opts.intervalMs ?? opts.rateMinutes * 60_000);
  return {
    tick,
    stop: async () => {
      clearInterval(timer);
      await running;
    },
  };
}
