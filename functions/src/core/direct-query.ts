import { SignatureV4 } from '@smithy/signature-v4';
import { marshall, unmarshall } from '@aws-sdk/util-dynamodb';
import type { QueryCommandInput, QueryCommandOutput } from '@aws-sdk/lib-dynamodb';
import type { DynamoDBClientResolvedConfig } from '@aws-sdk/client-dynamodb';

/**
 * A DynamoDB Query sent without the SDK's middleware stack (docs/decisions.md 33): signed with the
 * SDK's signer and credentials, sent by the SDK client's own HTTP handler (same sockets), its items
 * unmarshalled as the document client does. On a ticket list page the SDK's per-call work (schema
 * serde, middleware, a second marshalling layer) was about 40% of the request's CPU.
 *
 * Only reads go this way: a Query has no side effect, so every failed attempt may be sent again.
 * Writes keep the SDK (conditions, transactions, the user-cache watcher).
 */

/** A Query in document form; the legacy `KeyConditions` / `QueryFilter` are not taken. */
export type DirectQueryInput = Omit<QueryCommandInput, 'KeyConditions' | 'QueryFilter'>;

export type DirectQueryOutput = Pick<QueryCommandOutput, 'Items' | 'LastEvaluatedKey' | 'Count' | 'ScannedCount' | 'ConsumedCapacity'>;

/** What the DynamoDB client's resolved configuration lends: credentials, region, handler, hash. */
export type DirectQueryConfig = Pick<
  DynamoDBClientResolvedConfig,
  'credentials' | 'region' | 'requestHandler' | 'sha256' | 'streamCollector' | 'endpointProvider' | 'maxAttempts' | 'systemClockOffset'
>;

/** Sees every call after its answer (the benchmark's capacity and reads recorders, tests). */
export type QueryObserver = (call: { commandName: 'QueryCommand'; input: DirectQueryInput; output: DirectQueryOutput }) => void;

export interface DirectQueryOptions {
  config: DirectQueryConfig;
  /** A local endpoint (DynamoDB Local); otherwise the SDK's endpoint rules for the region. */
  endpoint?: string;
  /** Runs before each call (the benchmark asks for ConsumedCapacity here). */
  prepare?: (input: DirectQueryInput) => void;
  observers?: readonly QueryObserver[];
  sleep?: (ms: number) => Promise<void>;
  random?: () => number;
}

/** DynamoDB's error types that mean "try again later" (the SDK's standard retry list). */
const THROTTLING = new Set([
  'ThrottlingException',
  'ProvisionedThroughputExceededException',
  'RequestLimitExceeded',
  'RequestThrottled',
  'RequestThrottledException',
  'TooManyRequestsException',
  'TransactionInProgressException',
  'LimitExceededException',
]);
const CLOCK_SKEW = new Set(['RequestTimeTooSkewed', 'RequestExpired', 'InvalidSignatureException', 'SignatureDoesNotMatch']);
/** Backoff bases of the SDK's standard strategy: 100 ms, 500 ms when throttled; at most 20 s. */
const BASE_MS = 100;
const THROTTLED_BASE_MS = 500;
const MAX_DELAY_MS = 20_000;
/** A signing clock this far from the server's is corrected (DynamoDB accepts 5 minutes). */
const MAX_SKEW_MS = 4 * 60_000;

/** An error shaped like the SDK's service exceptions (`name`, `$metadata`, `$fault`). */
export class DirectQueryError extends Error {
  $metadata: { httpStatusCode?: number; attempts: number };
  $fault: 'client' | 'server';
  constructor(name: string, message: string, status: number | undefined, attempts: number) {
    super(message);
    this.name = name;
    this.$metadata = { httpStatusCode: status, attempts };
    this.$fault = status !== undefined && status < 500 ? 'client' : 'server';
  }
}

type Attempt = { output: DirectQueryOutput } | { failure: Error; throttled: boolean; retryable: boolean };

const sleepMs = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

export function createDirectQuery(options: DirectQueryOptions) {
  const { config } = options;
  const sleep = options.sleep ?? sleepMs;
  const random = options.random ?? Math.random;
  let target: Promise<{ url: URL; signer: SignatureV4; maxAttempts: number }> | undefined;
  const resolveTarget = async () => {
    const region = await config.region();
    const url = options.endpoint ? new URL(options.endpoint) : new URL(config.endpointProvider({ Region: region, UseFIPS: false, UseDualStack: false }).url.href);
    const signer = new SignatureV4({ credentials: config.credentials, region, service: 'dynamodb', sha256: config.sha256, uriEscapePath: true });
    return { url, signer, maxAttempts: Math.max(1, await config.maxAttempts()) };
  };

  let clockOffset = config.systemClockOffset ?? 0;

  /** One attempt: the answer, or why it failed and whether sending it again may succeed. */
  const attempt = async (url: URL, signer: SignatureV4, body: string, n: number): Promise<Attempt> => {
    try {
      const request = await signer.sign(
        {
          method: 'POST',
          protocol: url.protocol,
          hostname: url.hostname,
          port: url.port ? Number(url.port) : undefined,
          path: url.pathname,
          query: {},
          headers: {
            host: url.host,
            'content-type': 'application/x-amz-json-1.0',
            'x-amz-target': 'DynamoDB_20120810.Query',
            'content-length': String(Buffer.byteLength(body)),
          },
          body,
        },
        { signingDate: new Date(Date.now() + clockOffset) },
      );
      const { response } = await config.requestHandler.handle(request as Parameters<typeof config.requestHandler.handle>[0]);
      const raw = Buffer.from(await config.streamCollector(response.body)).toString('utf8');
      // A cut-off answer fails to parse and is sent again (below); an error's body may be no JSON.
      if (response.statusCode === 200) return { output: readOutput(JSON.parse(raw) as Record<string, unknown>) };
      const parsed = parseError(raw);
      const type = String(parsed.__type ?? response.headers['x-amzn-errortype'] ?? 'UnknownError').split('#').pop()!.split(':')[0];
      const message = String(parsed.message ?? parsed.Message ?? `DynamoDB answered ${response.statusCode}`);
      const failure = new DirectQueryError(type, message, response.statusCode, n);
      const throttled = THROTTLING.has(type) || response.statusCode === 429;
      // A request signed with a skewed clock is sent again with the server's time, as the SDK does.
      const serverTime = Date.parse(String(response.headers.date ?? ''));
      const skewed = CLOCK_SKEW.has(type) && Number.isFinite(serverTime) && Math.abs(serverTime - Date.now() - clockOffset) > MAX_SKEW_MS;
      if (skewed) clockOffset = serverTime - Date.now();
      return { failure, throttled, retryable: throttled || skewed || response.statusCode >= 500 };
    } catch (e) {
      // The connection failed or the answer was cut short: a read can be sent again.
      return { failure: e as Error, throttled: false, retryable: true };
    }
  };

  return async function query(input: DirectQueryInput): Promise<DirectQueryOutput> {
    options.prepare?.(input);
    const { url, signer, maxAttempts } = await (target ??= resolveTarget().catch((e) => ((target = undefined), Promise.reject(e))));
    const body = JSON.stringify(wireInput(input));
    for (let n = 1; ; n++) {
      const r = await attempt(url, signer, body, n);
      if ('output' in r) {
        for (const observe of options.observers ?? []) observe({ commandName: 'QueryCommand', input, output: r.output });
        return r.output;
      }
      if (!r.retryable || n >= maxAttempts) throw r.failure;
      // Full jitter, as the SDK's standard strategy.
      await sleep(random() * Math.min(MAX_DELAY_MS, (r.throttled ? THROTTLED_BASE_MS : BASE_MS) * 2 ** (n - 1)));
    }
  };
}

/** The request as DynamoDB's JSON protocol takes it: attribute values in their typed form. */
function wireInput(input: DirectQueryInput): Record<string, unknown> {
  const { ExpressionAttributeValues, ExclusiveStartKey, ...rest } = input;
  const options = { removeUndefinedValues: true, convertEmptyValues: false };
  return {
    ...rest,
    ...(ExpressionAttributeValues ? { ExpressionAttributeValues: marshall(ExpressionAttributeValues, options) } : {}),
    ...(ExclusiveStartKey ? { ExclusiveStartKey: marshall(ExclusiveStartKey, options) } : {}),
  };
}

function parseError(raw: string): Record<string, unknown> {
  try {
    const v: unknown = JSON.parse(raw);
    return v && typeof v === 'object' ? (v as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

type Wire = Parameters<typeof unmarshall>[0];
function readOutput(o: Record<string, unknown>): DirectQueryOutput {
  return {
    Items: ((o.Items as Wire[] | undefined) ?? []).map((i) => unmarshall(i)),
    LastEvaluatedKey: o.LastEvaluatedKey ? unmarshall(o.LastEvaluatedKey as Wire) : undefined,
    Count: o.Count as number | undefined,
    ScannedCount: o.ScannedCount as number | undefined,
    ConsumedCapacity: o.ConsumedCapacity as DirectQueryOutput['ConsumedCapacity'],
  };
}
