import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { CreateQueueCommand, GetQueueAttributesCommand, SQSClient } from '@aws-sdk/client-sqs';
import { queues, type QueueDef } from '@balcao/functions/manifest';
import type { Log } from './http-util.js';
import { QueueJournal, type JournaledQueue } from './sqs-journal.js';

const require = createRequire(import.meta.url);
// fauxqs exports only its "import" entry, so find the package folder along the resolution paths.
const pkgDir = (require.resolve.paths('fauxqs') ?? []).map((p) => path.join(p, 'fauxqs')).find((p) => fs.existsSync(path.join(p, 'package.json')));
if (!pkgDir) throw new Error('fauxqs is not installed');
const distDir = path.join(pkgDir, 'dist');
// fauxqs only exports its top-level API; the stores are needed to plug in S3 persistence.
const load = (p: string) => import(pathToFileURL(path.join(distDir, p)).href);

export const MEDIA_BUCKET = 'balcao-media';
export const queueName = (q: Pick<QueueDef, 'name' | 'fifo'>, dlq = false) =>
  `balcao-${q.name}${dlq ? '-dlq' : ''}${q.fifo ? '.fifo' : ''}`;

/**
 * CopyObject with `x-amz-metadata-directive: REPLACE` takes the request's Content-Type in S3;
 * fauxqs keeps the source's. The copy's type is noted here by a request hook (`keepCopyTypes`)
 * and applied when the store writes the copy.
 */
const copyContentTypes = new Map<string, string>();

interface StoredObject {
  key: string;
  body: Buffer;
  contentType: string;
  metadata: Record<string, string>;
}

/**
 * fauxqs keeps S3 in memory only; media must survive a restart (DESIGN §8), so every write is
 * mirrored to `<dir>/<bucket>/<sha1(key)>.{bin,json}` and replayed on start.
 */
async function persistentS3Store(dir: string, log: Log) {
  const { S3Store } = await load('s3/s3Store.js');
  const fileOf = (bucket: string, key: string) =>
    path.join(dir, bucket, crypto.createHash('sha1').update(key).digest('hex'));
  class PersistentS3Store extends S3Store {
    loading = false;
    createBucket(name: string) {
      super.createBucket(name);
      fs.mkdirSync(path.join(dir, name), { recursive: true });
    }
    putObject(bucket: string, key: string, body: Buffer, contentType?: string, metadata?: Record<string, string>) {
      const replaced = copyContentTypes.get(`${bucket}/${key}`);
      if (replaced !== undefined) copyContentTypes.delete(`${bucket}/${key}`);
      const obj = super.putObject(bucket, key, body, replaced ?? contentType, metadata);
      if (!this.loading) this.save(bucket, obj);
      return obj;
    }
    completeMultipartUpload(uploadId: string, parts: { partNumber: number; etag: string }[]) {
      const bucket: string | undefined = this.multipartUploads.get(uploadId)?.bucket;
      const obj = super.completeMultipartUpload(uploadId, parts);
      if (bucket) this.save(bucket, obj);
      return obj;
    }
    deleteObject(bucket: string, key: string) {
      super.deleteObject(bucket, key);
      this.remove(bucket, key);
    }
    deleteObjects(bucket: string, keys: string[]) {
      const deleted: string[] = super.deleteObjects(bucket, keys);
      for (const k of keys) this.remove(bucket, k);
      return deleted;
    }
    emptyBucket(name: string) {
      super.emptyBucket(name);
      fs.rmSync(path.join(dir, name), { recursive: true, force: true });
      fs.mkdirSync(path.join(dir, name), { recursive: true });
    }
    save(bucket: string, obj: StoredObject) {
      const f = fileOf(bucket, obj.key);
      fs.mkdirSync(path.dirname(f), { recursive: true });
      fs.writeFileSync(`${f}.bin`, obj.body);
      fs.writeFileSync(`${f}.json`, JSON.stringify({ key: obj.key, contentType: obj.contentType, metadata: obj.metadata }));
    }
    remove(bucket: string, key: string) {
      const f = fileOf(bucket, key);
      fs.rmSync(`${f}.bin`, { force: true });
      fs.rmSync(`${f}.json`, { force: true });
    }
    restore() {
      this.loading = true;
      let count = 0;
      try {
        for (const bucket of fs.existsSync(dir) ? fs.readdirSync(dir) : []) {
          const bdir = path.join(dir, bucket);
          if (!fs.statSync(bdir).isDirectory()) continue;
          super.createBucket(bucket);
          for (const f of fs.readdirSync(bdir)) {
            if (!f.endsWith('.json')) continue;
            try {
              const meta = JSON.parse(fs.readFileSync(path.join(bdir, f), 'utf8'));
              const body = fs.readFileSync(path.join(bdir, f.replace(/\.json$/, '.bin')));
              super.putObject(bucket, meta.key, body, meta.contentType, meta.metadata);
              count++;
            } catch (e) {
              log('sqs/s3', `skipping unreadable stored object ${f}: ${(e as Error).message}`);
            }
          }
        }
      } finally {
        this.loading = false;
      }
      return count;
    }
  }
  return new PersistentS3Store();
}

/** The slice of fauxqs's Fastify app used here (fastify is fauxqs's dependency, not ours). */
interface HookableApp {
  addHook(
    name: 'onRequest',
    hook: (
      req: { method: string; url: string; headers: Record<string, string | string[] | undefined> },
      reply: { header(k: string, v: string): unknown; code(n: number): { send(): unknown } },
    ) => Promise<unknown>,
  ): unknown;
}

/** Notes the Content-Type of a CopyObject that replaces the metadata, as S3 applies it. */
function keepCopyTypes(app: HookableApp) {
  app.addHook('onRequest', async (req) => {
    const h = req.headers;
    if (req.method !== 'PUT' || !h['x-amz-copy-source'] || h['x-amz-metadata-directive'] !== 'REPLACE' || typeof h['content-type'] !== 'string') return;
    const target = decodeURIComponent(req.url.split('?')[0]!.replace(/^\//, ''));
    copyContentTypes.set(target, h['content-type']);
  });
}

/** Browser uploads go straight to S3 with presigned PUT; the console origin must be allowed. */
function addCors(app: HookableApp, allowOrigin: (origin: string) => boolean) {
  app.addHook('onRequest', async (req, reply) => {
    const origin = req.headers.origin;
    if (typeof origin === 'string' && allowOrigin(origin)) {
      reply.header('access-control-allow-origin', origin);
      reply.header('vary', 'Origin');
      reply.header('access-control-expose-headers', 'ETag, x-amz-request-id, x-amz-version-id');
    }
    if (req.method === 'OPTIONS') {
      reply.header('access-control-allow-methods', 'GET, PUT, HEAD, POST, DELETE');
      reply.header('access-control-allow-headers', String(req.headers['access-control-request-headers'] ?? '*'));
      reply.header('access-control-max-age', '3000');
      return reply.code(200).send();
    }
  });
}

export interface SqsS3Handle {
  endpoint: string;
  /** Logical queue name → queue URL / ARN, DLQ URL. */
  queues: Record<string, { url: string; arn: string; dlqUrl: string; def: QueueDef }>;
  stop(): Promise<void>;
}

export async function startSqsS3(opts: {
  dataDir: string;
  port: number;
  log: Log;
  allowOrigin: (origin: string) => boolean;
  extraQueues?: QueueDef[];
}): Promise<SqsS3Handle> {
  const { buildApp } = await import('fauxqs');
  const { SqsStore } = await load('sqs/sqsStore.js');
  const { SnsStore } = await load('sns/snsStore.js');
  const sqsStore = new SqsStore();
  // Empty host: queue URLs become http://127.0.0.1:PORT/000000000000/<name>, which the SDK
  // (useQueueUrlAsEndpoint) reaches without any *.localhost DNS tricks.
  sqsStore.host = '';
  const s3Store = await persistentS3Store(path.resolve(opts.dataDir, 's3'), opts.log);
  const restored = s3Store.restore();
  const app = buildApp({ logger: false, stores: { sqsStore, snsStore: new SnsStore(), s3Store } as never });
  addCors(app as unknown as HookableApp, opts.allowOrigin);
  keepCopyTypes(app as unknown as HookableApp);
  await app.listen({ port: opts.port, host: '127.0.0.1' });
  const endpoint = `http://127.0.0.1:${opts.port}`;
  s3Store.createBucket(MEDIA_BUCKET);
  opts.log('sqs/s3', `S3 bucket ${MEDIA_BUCKET} ready (${restored} stored object(s) restored)`);

  const sqs = new SQSClient({ endpoint, region: 'us-east-1', credentials: { accessKeyId: 'local', secretAccessKey: 'local' } });
  const out: SqsS3Handle['queues'] = {};
  try {
    for (const q of [...queues, ...(opts.extraQueues ?? [])]) {
      const fifoAttrs: Record<string, string> = q.fifo ? { FifoQueue: 'true', ContentBasedDeduplication: 'true' } : {};
      const dlq = await sqs.send(
        new CreateQueueCommand({ QueueName: queueName(q, true), Attributes: { ...fifoAttrs, MessageRetentionPeriod: '1209600' } }),
      );
      const dlqArn = (await sqs.send(new GetQueueAttributesCommand({ QueueUrl: dlq.QueueUrl, AttributeNames: ['QueueArn'] })))
        .Attributes!.QueueArn!;
      const main = await sqs.send(
        new CreateQueueCommand({
          QueueName: queueName(q),
          Attributes: {
            ...fifoAttrs,
            VisibilityTimeout: String(q.visibilityTimeoutSeconds),
            RedrivePolicy: JSON.stringify({ deadLetterTargetArn: dlqArn, maxReceiveCount: q.maxReceiveCount }),
          },
        }),
      );
      const arn = (await sqs.send(new GetQueueAttributesCommand({ QueueUrl: main.QueueUrl, AttributeNames: ['QueueArn'] })))
        .Attributes!.QueueArn!;
      out[q.name] = { url: main.QueueUrl!, arn, dlqUrl: dlq.QueueUrl!, def: q };
    }
  } finally {
    sqs.destroy();
  }
  // Durable queues (issue 16 §1): journaled from now on, and what a killed stack left is queued again.
  const journal = new QueueJournal(path.resolve(opts.dataDir, 'sqs'), opts.log);
  for (const q of sqsStore.listQueues() as JournaledQueue[]) journal.attach(q);
  journal.restore((name) => sqsStore.getQueueByName(name) as JournaledQueue | undefined);
  opts.log('sqs/s3', `SQS queues ready: ${Object.values(out).map((q) => queueName(q.def)).join(', ')}`);
  return {
    endpoint,
    queues: out,
    stop: async () => {
      await app.close();
      journal.close();
    },
  };
}
