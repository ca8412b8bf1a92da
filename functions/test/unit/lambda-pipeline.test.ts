import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { AppError } from '@balcao/shared';
import type { RouteDef } from '../../src/routes.js';
import { emulateLambdaConcurrency, invokeLocally, lambdaContext } from '../../../infra/local/functions-loader.js';

/**
 * The middy chain every handler runs in (core/lambda.ts, core/http.ts): the router's answers stay
 * as they were, every log line carries the invocation's request id, company and user, the metrics
 * go out as one EMF line, and concurrent invocations in one process (the local stack) keep their
 * log keys apart.
 */
type Http = typeof import('../../src/core/http.js');
type Obs = typeof import('../../src/core/observability.js');
let http: Http;
let obs: Obs;
const out: string[] = [];

beforeAll(async () => {
  vi.stubEnv('POWERTOOLS_METRICS_DISABLED', 'false');
  vi.stubEnv('LOG_LEVEL', 'info');
  await emulateLambdaConcurrency();
  // Warnings and errors go to stderr, the rest to stdout: both are the function's log.
  for (const stream of [process.stdout, process.stderr]) {
    vi.spyOn(stream, 'write').mockImplementation((chunk: string | Uint8Array) => {
      out.push(String(chunk));
      return true;
    });
  }
  http = await import('../../src/core/http.js');
  obs = await import('../../src/core/observability.js');
});
afterEach(() => {
  out.length = 0;
});
afterAll(() => {
  vi.restoreAllMocks();
  vi.unstubAllEnvs();
  delete process.env.AWS_LAMBDA_MAX_CONCURRENCY;
});

const lines = () => out.flatMap((c) => c.split('\n')).filter(Boolean).map((l) => JSON.parse(l) as Record<string, unknown>);

const route = (method: RouteDef['method'], path: string): RouteDef => ({ method, path, handler: 'probe', auth: 'public' });
const manifest = [route('GET', '/probe/slow'), route('GET', '/probe/unavailable'), route('GET', '/probe/ok'), route('POST', '/probe/echo'), route('GET', '/probe/invalid'), route('GET', '/probe/broken'), route('DELETE', '/probe/{id}')];

function event(routeKey: string, body?: string, pathParameters?: Record<string, string>) {
  const [method, rawPath] = routeKey.split(' ');
  return {
    version: '2.0',
    routeKey,
    rawPath,
    rawQueryString: '',
    headers: { 'content-type': 'application/json' },
    pathParameters,
    requestContext: { requestId: 'r', http: { method, path: rawPath } },
    body,
    isBase64Encoded: false,
  } as never;
}

function probeRouter() {
  return http.createRouter(
    'probe',
    {
      'GET /probe/ok': async () => {
        obs.logContext({ companyId: 7, userId: 3 });
        obs.log.info('answered');
        obs.count('MessagesOut', 2);
        return { ok: true };
      },
      'POST /probe/echo': async (req) => ({ got: req.body }),
      'GET /probe/invalid': async () => {
        throw new AppError(400, 'ERR_VALIDATION', { message: 'Nome é obrigatório', fields: [{ field: 'name', message: 'Nome é obrigatório' }] });
      },
      'GET /probe/broken': async () => {
        throw new Error('database on fire');
      },
      'DELETE /probe/{id}': async () => undefined,
      'GET /probe/slow': async () => {
        await new Promise((r) => setTimeout(r, 80));
        return { done: true };
      },
      'GET /probe/unavailable': async () => {
        throw new AppError(500, 'ERR_CREATING_MESSAGE');
      },
    },
    manifest,
  );
}

const call = (handler: ReturnType<Http['createRouter']>, ev: unknown, requestId: string) =>
  invokeLocally(lambdaContext('balcao-http-probe', requestId), (ctx) => handler(ev as never, ctx as never));

describe('the Lambda pipeline (middy + Powertools)', () => {
  it('answers as the hand-written router did: 200 JSON, 204, 404 for an unknown route, 400 with the field, 500 without details', async () => {
    const handler = probeRouter();
    expect(await call(handler, event('GET /probe/ok'), 'a')).toMatchObject({ statusCode: 200, body: '{"ok":true}' });
    expect(await call(handler, event('POST /probe/echo', '{"name":"Ana"}'), 'b')).toMatchObject({ statusCode: 200, body: '{"got":{"name":"Ana"}}' });
    expect(await call(handler, event('DELETE /probe/{id}', undefined, { id: '1' }), 'c')).toEqual({ statusCode: 204, headers: {} });
    expect(await call(handler, event('GET /nowhere'), 'd')).toMatchObject({ statusCode: 404, body: '{"error":"ERR_ROUTE_NOT_FOUND"}' });
    const invalid = await call(handler, event('GET /probe/invalid'), 'e');
    expect(invalid.statusCode).toBe(400);
    expect(JSON.parse(invalid.body!)).toMatchObject({ error: 'ERR_VALIDATION', message: 'Nome é obrigatório', field: 'name' });
    const badJson = await call(handler, event('POST /probe/echo', '{nope'), 'f');
    expect(badJson.statusCode).toBe(400);
    const broken = await call(handler, event('GET /probe/broken'), 'g');
    expect(broken).toMatchObject({ statusCode: 500, body: '{"error":"ERR_INTERNAL"}' });
    expect(broken.body).not.toContain('database on fire');
  });

  it('logs with the request id, company and user, flushes the metrics as EMF, and counts a 500 as an error', async () => {
    const handler = probeRouter();
    await call(handler, event('GET /probe/ok'), 'req-ok');
    const answered = lines().find((l) => l.message === 'answered');
    expect(answered).toMatchObject({ level: 'INFO', service: 'balcao', function_request_id: 'req-ok', function_name: 'balcao-http-probe', companyId: 7, userId: 3 });
    const emf = lines().find((l) => l._aws);
    expect(emf).toMatchObject({ MessagesOut: 2, service: 'balcao' });
    expect((emf!._aws as { CloudWatchMetrics: { Namespace: string }[] }).CloudWatchMetrics[0].Namespace).toBe('Balcao');

    out.length = 0;
    await call(handler, event('GET /probe/broken'), 'req-broken');
    const failure = lines().find((l) => l.message === 'unhandled error');
    expect(failure).toMatchObject({ level: 'ERROR', function_request_id: 'req-broken', route: 'GET /probe/broken' });
    expect(JSON.stringify(failure)).toContain('database on fire');
    expect(lines().find((l) => l._aws)).toMatchObject({ Errors: 1 });
    // The keys of one invocation do not reach the next one.
    expect(failure).not.toHaveProperty('companyId');
  });

  it("lets a handler run to Lambda's own timeout (no early 500 while the work goes on)", async () => {
    const handler = probeRouter();
    const ctx = { ...lambdaContext('balcao-http-probe', 'slow'), getRemainingTimeInMillis: () => 20 };
    const out = await invokeLocally(ctx, (c) => handler(event('GET /probe/slow') as never, c as never));
    expect(out).toMatchObject({ statusCode: 200, body: '{"done":true}' });
  });

  it('logs a 5xx refusal with its name, message and stack, and the API request id', async () => {
    await call(probeRouter(), event('GET /probe/unavailable'), 'req-503');
    const line = lines().find((l) => l.message === 'request failed') as { err: Record<string, string>; apiRequestId: string };
    expect(line.err).toMatchObject({ error: 'ERR_CREATING_MESSAGE', message: expect.any(String) });
    expect(line.err.stack).toContain('lambda-pipeline.test.ts');
    expect(line.apiRequestId).toBe('r');
  });

  it('keeps the log keys of concurrent invocations apart', async () => {
    const { lambdaHandler } = await import('../../src/core/lambda.js');
    const handler = lambdaHandler(async (e: { companyId: number; wait: number }) => {
      obs.logContext({ companyId: e.companyId });
      await new Promise((r) => setTimeout(r, e.wait));
      obs.log.info('done');
    });
    await Promise.all([
      invokeLocally(lambdaContext('balcao-worker-probe', 'one'), (ctx) => handler({ companyId: 1, wait: 30 }, ctx as never)),
      invokeLocally(lambdaContext('balcao-worker-probe', 'two'), (ctx) => handler({ companyId: 2, wait: 5 }, ctx as never)),
    ]);
    const done = lines().filter((l) => l.message === 'done');
    expect(done.map((l) => [l.function_request_id, l.companyId]).sort()).toEqual([
      ['one', 1],
      ['two', 2],
    ]);
  });

  it('never writes a password or token to the log', () => {
    obs.log.info('login attempt', { email: 'a@b.c', password: 'Segredo123', nested: { token: 'eyJ.abc' } });
    const line = lines().find((l) => l.message === 'login attempt');
    expect(line).toMatchObject({ email: 'a@b.c', password: '[redacted]', nested: { token: '[redacted]' } });
  });
});
