import { Readable } from 'node:stream';
import { createHash, createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createDirectQuery, type DirectQueryConfig, type QueryObserver } from '../../src/core/direct-query.js';

/** The SDK's hash interface over node:crypto. */
class Sha256 {
  private h;
  constructor(secret?: string | Uint8Array) {
    this.h = secret ? createHmac('sha256', secret) : createHash('sha256');
  }
  update(d: string | Uint8Array) {
    this.h.update(d);
  }
  async digest() {
    return new Uint8Array(this.h.digest());
  }
}

interface Sent {
  headers: Record<string, string>;
  body: Record<string, unknown>;
  url: string;
}
type Answer = { status: number; body: unknown; headers?: Record<string, string>; raw?: boolean } | Error;

/** A DynamoDB endpoint that answers from a script and records what it was sent. */
function fakeDynamo(answers: Answer[], extra: Partial<DirectQueryConfig> = {}) {
  const sent: Sent[] = [];
  const config = {
    credentials: async () => ({ accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'secret', sessionToken: 'token-1' }),
    region: async () => 'sa-east-1',
    sha256: Sha256,
    maxAttempts: async () => 5,
    systemClockOffset: 0,
    endpointProvider: ({ Region }: { Region?: string }) => ({ url: new URL(`https://dynamodb.${Region}.amazonaws.com/`) }),
    streamCollector: async (body: Readable) => {
      const chunks: Buffer[] = [];
      for await (const c of body) chunks.push(c as Buffer);
      return new Uint8Array(Buffer.concat(chunks));
    },
    requestHandler: {
      handle: async (req: { headers: Record<string, string>; body: string; protocol: string; hostname: string; path: string }) => {
        sent.push({ headers: req.headers, body: JSON.parse(req.body), url: `${req.protocol}//${req.hostname}${req.path}` });
        const a = answers.shift();
        if (!a) throw new Error('no answer scripted');
        if (a instanceof Error) throw a;
        return { response: { statusCode: a.status, headers: a.headers ?? {}, body: Readable.from([Buffer.from(a.raw ? String(a.body) : JSON.stringify(a.body))]) } };
      },
    },
    ...extra,
  } as unknown as DirectQueryConfig;
  return { config, sent };
}

const input = () => ({
  TableName: 'balcao',
  IndexName: 'GSI3',
  KeyConditionExpression: 'GSI3PK = :pk',
  ExpressionAttributeValues: { ':pk': 'C#2#TKQ#1#pending', ':n': 3 },
  ExclusiveStartKey: { PK: 'C#2#TK#0000000007', SK: 'TICKET', GSI3PK: 'C#2#TKQ#1#pending', GSI3SK: '2026-11-21T10:00:00.000Z#0000000007' },
  Limit: 22,
  ScanIndexForward: false,
});
const ok = {
  status: 200,
  body: {
    Items: [{ id: { N: '7' }, contactView: { M: { name: { S: 'Ana' }, tagIds: { L: [{ N: '1' }] }, profilePicUrl: { NULL: true } } }, isGroup: { BOOL: false } }],
    Count: 1,
    ScannedCount: 1,
    LastEvaluatedKey: { PK: { S: 'C#2#TK#0000000007' }, SK: { S: 'TICKET' } },
  },
};
const noWait = { sleep: async () => {}, random: () => 0.5 };

describe('queryDirect (a Query without the SDK middleware)', () => {
  it('sends the typed request to the region endpoint, signed, and answers the items in document form', async () => {
    const { config, sent } = fakeDynamo([ok]);
    const seen: Parameters<QueryObserver>[0][] = [];
    const query = createDirectQuery({ config, observers: [(c) => seen.push(c)], ...noWait });
    const out = await query(input());

    expect(out).toEqual({
      Items: [{ id: 7, contactView: { name: 'Ana', tagIds: [1], profilePicUrl: null }, isGroup: false }],
      Count: 1,
      ScannedCount: 1,
      LastEvaluatedKey: { PK: 'C#2#TK#0000000007', SK: 'TICKET' },
      ConsumedCapacity: undefined,
    });
    expect(sent).toHaveLength(1);
    expect(sent[0].url).toBe('https://dynamodb.sa-east-1.amazonaws.com/');
    expect(sent[0].headers['x-amz-target']).toBe('DynamoDB_20120810.Query');
    expect(sent[0].headers['x-amz-security-token']).toBe('token-1');
    expect(sent[0].headers.authorization).toMatch(/^AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE\/\d{8}\/sa-east-1\/dynamodb\/aws4_request, SignedHeaders=.*x-amz-target.*, Signature=[0-9a-f]{64}$/);
    expect(sent[0].body).toMatchObject({
      ExpressionAttributeValues: { ':pk': { S: 'C#2#TKQ#1#pending' }, ':n': { N: '3' } },
      ExclusiveStartKey: { PK: { S: 'C#2#TK#0000000007' }, GSI3SK: { S: '2026-11-21T10:00:00.000Z#0000000007' } },
      Limit: 22,
      ScanIndexForward: false,
    });
    expect(seen).toEqual([{ commandName: 'QueryCommand', input: input(), output: out }]);
  });

  it('uses a local endpoint when given one and lets `prepare` change the request', async () => {
    const { config, sent } = fakeDynamo([ok]);
    const query = createDirectQuery({ config, endpoint: 'http://127.0.0.1:8000', prepare: (i) => void (i.ReturnConsumedCapacity = 'INDEXES'), ...noWait });
    await query(input());
    expect(sent[0].url).toBe('http://127.0.0.1/');
    expect(sent[0].headers.host).toBe('127.0.0.1:8000');
    expect(sent[0].body.ReturnConsumedCapacity).toBe('INDEXES');
  });

  it('sends a throttled, failed or cut-off request again with growing waits, then answers', async () => {
    const { config, sent } = fakeDynamo([
      { status: 400, body: { __type: 'com.amazonaws.dynamodb.v20120810#ProvisionedThroughputExceededException', message: 'slow down' } },
      { status: 500, body: { __type: 'com.amazon.coral.service#InternalFailure' } },
      Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' }),
      ok,
    ]);
    const waits: number[] = [];
    const query = createDirectQuery({ config, sleep: async (ms) => void waits.push(ms), random: () => 1 });
    const out = await query(input());
    expect(out.Items).toHaveLength(1);
    expect(sent).toHaveLength(4);
    // Throttled: base 500 ms; other failures: base 100 ms; doubling per attempt (full jitter at its top here).
    expect(waits).toEqual([500, 200, 400]);
  });

  it('gives up after maxAttempts with the last error, shaped like the SDK exceptions', async () => {
    const throttled = { status: 400, body: { __type: 'com.amazonaws.dynamodb.v20120810#ThrottlingException', message: 'Rate exceeded' } };
    const { config, sent } = fakeDynamo([throttled, throttled, throttled], { maxAttempts: async () => 3 });
    const query = createDirectQuery({ config, ...noWait });
    const err = await query(input()).catch((e) => e);
    expect(sent).toHaveLength(3);
    expect(err).toMatchObject({ name: 'ThrottlingException', message: 'Rate exceeded', $fault: 'client', $metadata: { httpStatusCode: 400, attempts: 3 } });
  });

  it('does not send a request DynamoDB refused again', async () => {
    const { config, sent } = fakeDynamo([
      { status: 400, body: { __type: 'com.amazon.coral.validate#ValidationException', message: 'Query condition missed key schema element' } },
    ]);
    const seen: unknown[] = [];
    const query = createDirectQuery({ config, observers: [(c) => seen.push(c)], ...noWait });
    await expect(query(input())).rejects.toMatchObject({ name: 'ValidationException', message: 'Query condition missed key schema element' });
    expect(sent).toHaveLength(1);
    expect(seen).toEqual([]);
  });

  it('reads an error answer that is not JSON: sent again when the server failed, refused at once otherwise', async () => {
    const html = (status: number) => ({ status, body: '<html><body>Bad gateway</body></html>', raw: true });
    const retried = fakeDynamo([html(502), { status: 200, body: '{"Items": [{"id": {"N": "1"}}], "Count": 1, "ScannedCount"', raw: true }, ok]);
    const out = await createDirectQuery({ config: retried.config, ...noWait })(input());
    // The 502 and the cut-off answer were both sent again.
    expect(retried.sent).toHaveLength(3);
    expect(out.Items).toHaveLength(1);

    const refused = fakeDynamo([html(403)]);
    const err = await createDirectQuery({ config: refused.config, ...noWait })(input()).catch((e) => e);
    expect(refused.sent).toHaveLength(1);
    expect(err).toMatchObject({ name: 'UnknownError', $metadata: { httpStatusCode: 403, attempts: 1 } });
  });

  it('signs again with the server clock after a skewed-clock refusal', async () => {
    const server = new Date(Date.now() + 3_600_000);
    const { config, sent } = fakeDynamo([
      { status: 400, body: { __type: 'com.amazon.coral.service#InvalidSignatureException', message: 'Signature expired' }, headers: { date: server.toUTCString() } },
      ok,
    ]);
    const query = createDirectQuery({ config, ...noWait });
    await query(input());
    expect(sent).toHaveLength(2);
    const signedAt = (s: Sent) => Date.parse(s.headers['x-amz-date'].replace(/^(\d{4})(\d\d)(\d\d)T(\d\d)(\d\d)(\d\d)Z$/, '$1-$2-$3T$4:$5:$6Z'));
    expect(Math.abs(signedAt(sent[0]) - Date.now())).toBeLessThan(60_000);
    expect(Math.abs(signedAt(sent[1]) - server.getTime())).toBeLessThan(60_000);
  });
});
