import { randomUUID } from 'node:crypto';
import { ChangeMessageVisibilityCommand, SendMessageBatchCommand, SendMessageCommand } from '@aws-sdk/client-sqs';
import { CopyObjectCommand, DeleteObjectCommand, GetObjectCommand, HeadObjectCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { shardOf, storedContentType, toQueueBody } from '@balcao/shared';
import { dynamo, kmsClient, queryDirect, s3Client, schedulerClient, sqsClient } from './aws.js';
import { kmsSecretBox, localSecretBox, type SecretBox } from './secrets.js';
import { env } from './env.js';
import { setDefaultPorts, type JobQueues, type Ports, type Timers } from './ports.js';
import { processTimers, schedulerTimers } from './timers.js';
import { log } from './observability.js';
import { queues, SHARDS, timerQueueArnEnv } from '../workers/manifest.js';

/** The AWS adapters of the domain's ports (core/ports.ts): DynamoDB, SQS, S3, the system clock. */

const requiredEnv = (name: string) => {
  const url = process.env[name];
  if (!url) throw new Error(`Missing environment variable ${name}`);
  return url;
};

/**
 * Up to 10 bodies per SQS batch; answers how many were not accepted. With `keepGoing`, a batch
 * that throws counts as not accepted and the next batches are still sent.
 */
async function sendBatches(queueUrl: string, bodies: string[], keepGoing = false, delaySeconds?: number): Promise<number> {
  let failed = 0;
  for (let i = 0; i < bodies.length; i += 10) {
    const batch = bodies.slice(i, i + 10);
    try {
      const out = await sqsClient().send(
        new SendMessageBatchCommand({ QueueUrl: queueUrl, Entries: batch.map((b, j) => ({ Id: String(j), MessageBody: b, DelaySeconds: delaySeconds })) }),
      );
      failed += out.Failed?.length ?? 0;
    } catch (err) {
      if (!keepGoing) throw err;
      failed += batch.length;
    }
  }
  return failed;
}

const isMissing = (err: unknown) => {
  const e = err as { name?: string; $metadata?: { httpStatusCode?: number } };
  return e?.name === 'NotFound' || e?.name === 'NoSuchKey' || e?.$metadata?.httpStatusCode === 404;
};

let presigner: S3Client | undefined;
/**
 * Presigning uploads only: without flexible checksums, a presigned PUT would carry the checksum of
 * an empty body and S3 would refuse the browser's upload.
 */
function presignClient(): S3Client {
  presigner ??= new S3Client({
    region: env.region,
    endpoint: env.s3Endpoint,
    forcePathStyle: !!env.s3Endpoint,
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
  });
  return presigner;
}

export function awsPorts(): Ports {
  const bucket = () => env.mediaBucket;
  const ports: Ports = {
    table: { send: ((command: never) => dynamo().send(command)) as Ports['table']['send'], query: queryDirect },
    publisher: {
      async publish(messages) {
        const failed = await sendBatches(env.realtimeQueueUrl, messages.map(toQueueBody), true);
        if (failed) throw new Error(`${failed} of ${messages.length} realtime events not enqueued`);
      },
    },
    commands: {
      async send(command) {
        await sqsClient().send(
          new SendMessageCommand({
            QueueUrl: requiredEnv(`OUTBOUND_QUEUE_URL_${shardOf(command.connectionId, SHARDS)}`),
            MessageBody: toQueueBody(command),
            MessageGroupId: `wapp-${command.connectionId}`,
            MessageDeduplicationId: command.commandId,
          }),
        );
      },
    },
    jobs: {
      enqueue: (queue, bodies, delaySeconds) =>
        bodies.length ? sendBatches(requiredEnv(queues.find((q) => q.name === queue)!.envVar), bodies.map(toQueueBody), false, delaySeconds) : Promise.resolve(0),
      async enqueueOrdered(queue, body, group, dedupId) {
        await sqsClient().send(
          new SendMessageCommand({ QueueUrl: requiredEnv(queues.find((q) => q.name === queue)!.envVar), MessageBody: toQueueBody(body), MessageGroupId: group, MessageDeduplicationId: dedupId }),
        );
      },
      async retryLater(queue, receiptHandle, seconds) {
        await sqsClient().send(
          new ChangeMessageVisibilityCommand({ QueueUrl: requiredEnv(queues.find((q) => q.name === queue)!.envVar), ReceiptHandle: receiptHandle, VisibilityTimeout: seconds }),
        );
      },
    },
    media: {
      // Every object is stored with an inert type (shared storedContentType): no script on the media origin.
      async put(key, data, contentType) {
        await s3Client().send(new PutObjectCommand({ Bucket: bucket(), Key: key, Body: data, ContentType: storedContentType(contentType) }));
      },
      async remove(key) {
        await s3Client().send(new DeleteObjectCommand({ Bucket: bucket(), Key: key }));
      },
      uploadUrl: (key, contentType, expiresIn) =>
        getSignedUrl(presignClient(), new PutObjectCommand({ Bucket: bucket(), Key: key, ContentType: contentType }), { expiresIn }),
      readUrl: (key, expiresIn) => getSignedUrl(s3Client(), new GetObjectCommand({ Bucket: bucket(), Key: key }), { expiresIn }),
      async head(key) {
        try {
          const head = await s3Client().send(new HeadObjectCommand({ Bucket: bucket(), Key: key }));
          return { size: head.ContentLength ?? 0, contentType: head.ContentType ?? '' };
        } catch (err) {
          if (isMissing(err)) return undefined;
          throw err;
        }
      },
      async readStart(key, bytes) {
        const part = await s3Client().send(new GetObjectCommand({ Bucket: bucket(), Key: key, Range: `bytes=0-${bytes - 1}` }));
        return part.Body!.transformToByteArray();
      },
      async copy(from, to, contentType) {
        await s3Client().send(
          new CopyObjectCommand({
            Bucket: bucket(),
            Key: to,
            CopySource: `${bucket()}/${from.split('/').map(encodeURIComponent).join('/')}`,
            ContentType: storedContentType(contentType),
            MetadataDirective: 'REPLACE',
          }),
        );
      },
    },
    timers: timers(() => ports.jobs),
    clock: { now: () => Date.now() },
    ids: { uuid: () => randomUUID() },
    secrets: secretBox(),
  };
  return ports;
}

/** EventBridge Scheduler in AWS; the process's own timers on one machine; refuses to guess otherwise. */
function timers(jobs: () => JobQueues): Timers {
  let made: Timers | undefined;
  const get = () => {
    if (made) return made;
    if (env.timerGroup && env.timerRoleArn) {
      return (made = schedulerTimers(schedulerClient(), { group: env.timerGroup, roleArn: env.timerRoleArn, queueArn: (q) => requiredEnv(timerQueueArnEnv(q)) }));
    }
    if (env.localTimers) return (made = processTimers(jobs, (err, name) => log.warn('timer job not enqueued (the sweeper will)', { err, name })));
    throw new Error('No timers: set TIMER_GROUP and TIMER_ROLE_ARN (AWS) or LOCAL_TIMERS=1 (one machine)');
  };
  return { set: (...args) => get().set(...args), clear: (name) => get().clear(name) };
}

/** KMS in AWS; the local key file on one machine; refuses to seal anything without either. */
function secretBox(): SecretBox {
  let box: SecretBox | undefined;
  const get = () => {
    if (box) return box;
    if (env.secretsKmsKeyId) return (box = kmsSecretBox(env.secretsKmsKeyId, kmsClient()));
    if (env.secretsLocalKey) return (box = localSecretBox(Buffer.from(env.secretsLocalKey, 'base64')));
    throw new Error('No secrets key: set SECRETS_KMS_KEY_ID (AWS) or SECRETS_LOCAL_KEY (one machine)');
  };
  return { seal: (plain, context) => get().seal(plain, context), open: (sealed, context) => get().open(sealed, context) };
}

setDefaultPorts(awsPorts);
