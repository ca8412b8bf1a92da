import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { SQSClient } from '@aws-sdk/client-sqs';
import { S3Client } from '@aws-sdk/client-s3';
import { KMSClient } from '@aws-sdk/client-kms';
import { SchedulerClient } from '@aws-sdk/client-scheduler';
import { CognitoIdentityProviderClient } from '@aws-sdk/client-cognito-identity-provider';
import { env } from './env.js';
import { tracer } from './observability.js';
import type { Subsegment } from 'aws-xray-sdk-core';
import { createDirectQuery, type DirectQueryInput, type DirectQueryOutput, type QueryObserver } from './direct-query.js';

/** Clients are created once per process; local endpoints come from the environment. */
let ddb: DynamoDBDocumentClient | undefined;
let sqs: SQSClient | undefined;
let s3: S3Client | undefined;
let cognito: CognitoIdentityProviderClient | undefined;
let kms: KMSClient | undefined;
let scheduler: SchedulerClient | undefined;

export function schedulerClient(): SchedulerClient {
  scheduler ??= tracer.captureAWSv3Client(new SchedulerClient({ region: env.region, requestHandler: { requestTimeout: 5000 } }));
  return scheduler;
}

export function kmsClient(): KMSClient {
  kms ??= tracer.captureAWSv3Client(new KMSClient({ region: env.region, requestHandler: { requestTimeout: 5000 } }));
  return kms;
}

export function dynamo(): DynamoDBDocumentClient {
  if (!ddb) {
    const client = new DynamoDBClient({ region: env.region, endpoint: env.dynamoEndpoint, maxAttempts: 5 });
    // The SDK's logger middleware copies every input and output through its sensitive-data filter
    // for a logger that discards them (we log through core/observability.ts): about a tenth of the CPU of a
    // ticket list page went there.
    client.middlewareStack.remove('loggerMiddleware');
    if (measuringCapacity()) measureCapacity(client);
    tracer.captureAWSv3Client(client);
    ddb = DynamoDBDocumentClient.from(client, { marshallOptions: { removeUndefinedValues: true, convertEmptyValues: false } });
  }
  return ddb;
}

/** Who sees the calls of `queryDirect` (the SDK client's calls are seen through its middleware). */
const directObservers: QueryObserver[] = [];
let direct: ((input: DirectQueryInput) => Promise<DirectQueryOutput>) | undefined;

/**
 * Every Query of the functions: without the SDK's middleware (core/direct-query.ts, docs/decisions.md
 * 33); same client configuration, sockets and answer as `dynamo().send(new QueryCommand(...))`.
 */
export function queryDirect(input: DirectQueryInput): Promise<DirectQueryOutput> {
  direct ??= createDirectQuery({
    config: dynamo().config,
    endpoint: env.dynamoEndpoint,
    prepare: measuringCapacity() ? (i) => void (i.ReturnConsumedCapacity ??= 'INDEXES') : undefined,
    observers: directObservers,
  });
  if (!tracer.isTracingEnabled()) return direct(input);
  // Not an SDK call, so the tracer's client capture does not see it: its own subsegment.
  return tracer.provider.captureAsyncFunc('DynamoDB.Query', async (subsegment?: Subsegment) => {
    subsegment?.addAnnotation('table', String(input.TableName));
    try {
      return await direct!(input);
    } catch (err) {
      subsegment?.addError(err as Error);
      throw err;
    } finally {
      subsegment?.close();
    }
  }) as Promise<DirectQueryOutput>;
}

export interface DynamoCall {
  commandName: string;
  input: Record<string, unknown>;
  output: Record<string, unknown>;
}

/**
 * Sees every DynamoDB call of this process after its answer, by the SDK client or `queryDirect`
 * (input and output in the document form). For the benchmark's recorders and tests.
 */
export function watchDynamoCalls(name: string, observer: (call: DynamoCall) => void) {
  dynamo().middlewareStack.add(
    (next, context) => async (args) => {
      const out = await next(args);
      observer({ commandName: context.commandName ?? '?', input: args.input as Record<string, unknown>, output: out.output as Record<string, unknown> });
      return out;
    },
    { step: 'initialize', name },
  );
  directObservers.push((call) => observer(call as unknown as DynamoCall));
}

/**
 * Benchmark only (`npm run bench`, infra/bench): with BALCAO_MEASURE_CAPACITY=1 every DynamoDB call
 * asks for its ConsumedCapacity (INDEXES) and the units are added to `globalThis[CAPACITY]` of this
 * process, in total and per command; with BALCAO_MEASURE_CAPACITY_DIR set too, they are also
 * written to `<dir>/<pid>.json`.
 */
export const CAPACITY = Symbol.for('balcao.consumedCapacity');
const measuringCapacity = () => process.env.BALCAO_MEASURE_CAPACITY === '1';
type Units = { read: number; write: number; calls: number; items: number };
const WRITES = /^(PutItem|UpdateItem|DeleteItem|BatchWriteItem|TransactWriteItems)Command$/;
function measureCapacity(client: DynamoDBClient) {
  const g = globalThis as { [CAPACITY]?: Units & { byCommand: Record<string, Units> } };
  const all = (g[CAPACITY] ??= { read: 0, write: 0, calls: 0, items: 0, byCommand: {} });
  const dir = process.env.BALCAO_MEASURE_CAPACITY_DIR;
  let dump: NodeJS.Timeout | undefined;
  const count = (name: string, input: { TransactItems?: unknown[] }, output: { ConsumedCapacity?: unknown }) => {
    const write = WRITES.test(name);
    const cmd = (all.byCommand[name.replace(/Command$/, '')] ??= { read: 0, write: 0, calls: 0, items: 0 });
    for (const u of [all, cmd]) {
      for (const c of [output.ConsumedCapacity].flat() as ({ CapacityUnits?: number; ReadCapacityUnits?: number; WriteCapacityUnits?: number } | undefined)[]) {
        if (!c) continue;
        u.read += c.ReadCapacityUnits ?? (write ? 0 : (c.CapacityUnits ?? 0));
        u.write += c.WriteCapacityUnits ?? (write ? (c.CapacityUnits ?? 0) : 0);
      }
      u.calls++;
      u.items += input.TransactItems?.length ?? 1;
    }
    if (dir) dump ??= setTimeout(() => {
      dump = undefined;
      void import('node:fs').then((fs) => fs.writeFileSync(`${dir}/${process.pid}.json`, JSON.stringify(all)));
    }, 200).unref();
  };
  client.middlewareStack.add(
    (next, context) => async (args) => {
      const name = context.commandName ?? '?';
      const input = args.input as { ReturnConsumedCapacity?: string; TransactItems?: unknown[] };
      if (/Item|Items|Query|Scan/.test(name)) input.ReturnConsumedCapacity ??= 'INDEXES';
      const out = await next(args);
      count(name, input, out.output as { ConsumedCapacity?: unknown });
      return out;
    },
    { step: 'initialize', name: 'balcaoMeasureCapacity' },
  );
  // queryDirect asks for the units itself (its `prepare`).
  directObservers.push(({ commandName, input, output }) => count(commandName, input as { TransactItems?: unknown[] }, output));
}

export function sqsClient(): SQSClient {
  sqs ??= tracer.captureAWSv3Client(new SQSClient({ region: env.region, endpoint: env.sqsEndpoint }));
  return sqs;
}

export function s3Client(): S3Client {
  s3 ??= tracer.captureAWSv3Client(new S3Client({ region: env.region, endpoint: env.s3Endpoint, forcePathStyle: !!env.s3Endpoint }));
  return s3;
}

export function cognitoClient(): CognitoIdentityProviderClient {
  cognito ??= tracer.captureAWSv3Client(new CognitoIdentityProviderClient({ region: env.region, endpoint: env.cognitoEndpoint }));
  return cognito;
}
