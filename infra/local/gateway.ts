import crypto from 'node:crypto';
import http from 'node:http';
import type { RouteDef } from '@balcao/functions/manifest';
import { BodyTooLarge, closeServer, listen, readBody, sendJson, type Log } from './http-util.js';
import type { JwtAuthorizer } from './jwt.js';
import { httpModuleFile, invokeLocally, lambdaContext, MissingModule, moduleLoader } from './functions-loader.js';

/** Path parameters that must never reach a log line (the reset route carries the new password). */
const SECRET_PARAM = /\{(?:[^}]*password[^}]*|token|email)\}/i;

type Handler = (event: unknown, context: unknown) => Promise<unknown>;
export type HttpModuleLoader = (handler: string) => Promise<{ handler: Handler }>;

interface CompiledRoute {
  route: RouteDef;
  routeKey: string;
  regex: RegExp;
  names: string[];
  /** Per segment: 0 static, 1 {param}, 2 {greedy+}; lower sorts first (more specific wins). */
  rank: number[];
}

function compile(route: RouteDef): CompiledRoute {
  const names: string[] = [];
  const rank: number[] = [];
  const segs = route.path.split('/').filter(Boolean);
  const re = segs
    .map((s) => {
      const greedy = /^\{(.+)\+\}$/.exec(s);
      if (greedy) {
        names.push(greedy[1]);
        rank.push(2);
        return '/(.+)';
      }
      const param = /^\{(.+)\}$/.exec(s);
      if (param) {
        names.push(param[1]);
        rank.push(1);
        return '/([^/]+)';
      }
      rank.push(0);
      return `/${s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`;
    })
    .join('');
  return { route, routeKey: `${route.method} ${route.path}`, regex: new RegExp(`^${re || '/'}$`), names, rank };
}

const byRank = (a: CompiledRoute, b: CompiledRoute) => {
  for (let i = 0; i < Math.max(a.rank.length, b.rank.length); i++) {
    const d = (a.rank[i] ?? -1) - (b.rank[i] ?? -1);
    if (d) return d;
  }
  return 0;
};

export function routeMatcher(routes: RouteDef[]) {
  const compiled = routes.map(compile).sort(byRank);
  return (method: string, rawPath: string) => {
    let p = rawPath;
    if (p.length > 1 && p.endsWith('/')) p = p.slice(0, -1);
    for (const c of compiled) {
      if (c.route.method !== method) continue;
      const m = c.regex.exec(p);
      if (!m) continue;
      const params: Record<string, string> = {};
      c.names.forEach((n, i) => {
        try {
          params[n] = decodeURIComponent(m[i + 1]);
        } catch {
          params[n] = m[i + 1];
        }
      });
      return { ...c, params };
    }
    return undefined;
  };
}

const TEXT_TYPES = /^(text\/|application\/(json|.*\+json|xml|.*\+xml|javascript|x-www-form-urlencoded|graphql))/i;
export const isTextContent = (ct: string | undefined) => !ct || TEXT_TYPES.test(ct.trim());

/** API Gateway hands claims to Lambda as strings (arrays as "[a b]"). */
const claimString = (v: unknown) => (Array.isArray(v) ? `[${v.join(' ')}]` : typeof v === 'string' ? v : JSON.stringify(v));

const clf = (d: Date) => {
  const mon = d.toLocaleString('en-US', { month: 'short', timeZone: 'UTC' });
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${pad(d.getUTCDate())}/${mon}/${d.getUTCFullYear()}:${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())} +0000`;
};

export interface GatewayOptions {
  port: number;
  routes: RouteDef[];
  authorizer: JwtAuthorizer;
  allowOrigin: (origin: string) => boolean;
  log: Log;
  /** Defaults to importing functions/src/http/<handler>/index.ts. */
  loadHandler?: HttpModuleLoader;
  bodyLimit?: number;
  integrationTimeoutMs?: number;
}

export const CORS_ALLOW_HEADERS = 'authorization,content-type';
export const CORS_ALLOW_METHODS = 'DELETE,GET,PATCH,POST,PUT';
export const CORS_MAX_AGE = '600';

export async function startGateway(opts: GatewayOptions) {
  const match = routeMatcher(opts.routes);
  const load: HttpModuleLoader = opts.loadHandler ?? moduleLoader(httpModuleFile);
  const bodyLimit = opts.bodyLimit ?? 10 * 1024 * 1024;
  const integrationTimeoutMs = opts.integrationTimeoutMs ?? 30_000;

  const server = http.createServer(async (req, res) => {
    const started = Date.now();
    const url = new URL(req.url ?? '/', 'http://local');
    const origin = req.headers.origin;
    const requestId = crypto.randomUUID();
    const baseHeaders: Record<string, string> = { 'apigw-requestid': requestId };
    if (origin && opts.allowOrigin(origin)) {
      baseHeaders['access-control-allow-origin'] = origin;
      baseHeaders.vary = 'Origin';
    }
    // What the log names: the path, or the route key when the path carries a secret (issue 16 §5).
    let logged = `${req.method} ${url.pathname}`;
    const reply = (status: number, body: unknown) => {
      sendJson(res, status, body, baseHeaders);
      opts.log('gateway', `${logged} ${status} ${Date.now() - started}ms`);
    };
    // Preflight is answered by API Gateway itself when CORS is configured.
    if (req.method === 'OPTIONS' && req.headers['access-control-request-method']) {
      if (baseHeaders['access-control-allow-origin']) {
        Object.assign(baseHeaders, {
          'access-control-allow-headers': CORS_ALLOW_HEADERS,
          'access-control-allow-methods': CORS_ALLOW_METHODS,
          'access-control-max-age': CORS_MAX_AGE,
        });
      }
      res.writeHead(204, baseHeaders);
      res.end();
      return;
    }
    const m = match(req.method ?? 'GET', url.pathname);
    if (!m) {
      req.resume();
      return reply(404, { message: 'Not Found' });
    }
    if (SECRET_PARAM.test(m.route.path)) logged = m.routeKey;
    let body: Buffer;
    try {
      body = await readBody(req, bodyLimit);
    } catch (e) {
      if (e instanceof BodyTooLarge) return reply(413, { message: 'Request Entity Too Large' });
      return reply(400, { message: 'Bad Request' });
    }

    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(req.headers)) {
      if (v === undefined || k === 'cookie') continue;
      headers[k.toLowerCase()] = Array.isArray(v) ? v.join(',') : v;
    }
    const cookies = (req.headers.cookie ?? '')
      .split(';')
      .map((c) => c.trim())
      .filter(Boolean);

    let authorizer: { jwt: { claims: Record<string, string>; scopes: string[] | null } } | undefined;
    if (m.route.auth === 'user') {
      const auth = req.headers.authorization ?? '';
      const token = /^Bearer\s+(.+)$/i.exec(auth)?.[1]?.trim();
      if (!token) return reply(401, { message: 'Unauthorized' });
      try {
        const claims = await opts.authorizer.verify(token);
        authorizer = {
          jwt: {
            claims: Object.fromEntries(Object.entries(claims).map(([k, v]) => [k, claimString(v)])),
            scopes: typeof claims.scope === 'string' ? claims.scope.split(' ') : null,
          },
        };
      } catch (e) {
        opts.log('gateway', `${logged} refused token: ${(e as Error).message}`);
        return reply(401, { message: 'Unauthorized' });
      }
    }

    const query: Record<string, string> = {};
    for (const [k, v] of url.searchParams) query[k] = k in query ? `${query[k]},${v}` : v;
    const text = isTextContent(headers['content-type']);
    const now = new Date();
    const event = {
      version: '2.0',
      routeKey: m.routeKey,
      rawPath: url.pathname,
      rawQueryString: url.search.replace(/^\?/, ''),
      ...(cookies.length ? { cookies } : {}),
      headers,
      ...(Object.keys(query).length ? { queryStringParameters: query } : {}),
      ...(Object.keys(m.params).length ? { pathParameters: m.params } : {}),
      requestContext: {
        accountId: '000000000000',
        apiId: 'local',
        ...(authorizer ? { authorizer } : {}),
        domainName: headers.host ?? '127.0.0.1',
        domainPrefix: (headers.host ?? '127').split('.')[0],
        http: {
          method: req.method,
          path: url.pathname,
          protocol: `HTTP/${req.httpVersion}`,
          sourceIp: (req.socket.remoteAddress ?? '127.0.0.1').replace(/^::ffff:/, ''),
          userAgent: headers['user-agent'] ?? '',
        },
        requestId,
        routeKey: m.routeKey,
        stage: '$default',
        time: clf(now),
        timeEpoch: now.getTime(),
      },
      ...(body.length ? { body: text ? body.toString('utf8') : body.toString('base64') } : {}),
      isBase64Encoded: body.length > 0 && !text,
    };

    let mod: { handler: Handler };
    try {
      mod = await load(m.route.handler);
      if (typeof mod.handler !== 'function') throw new MissingModule(`http/${m.route.handler} exports no handler`);
    } catch (e) {
      opts.log('gateway', `!!! ${m.routeKey}: cannot load handler module "${m.route.handler}": ${(e as Error).stack ?? e}`);
      return reply(502, { message: 'Bad Gateway' });
    }
    let result: unknown;
    const TIMED_OUT = Symbol('timeout');
    let timer: NodeJS.Timeout | undefined;
    try {
      // HTTP APIs give an integration at most 30 s, then answer 503 while the Lambda runs on.
      result = await Promise.race([
        invokeLocally(lambdaContext(`balcao-http-${m.route.handler}`, requestId, integrationTimeoutMs), (ctx) => mod.handler(event, ctx)),
        new Promise((resolve) => (timer = setTimeout(() => resolve(TIMED_OUT), integrationTimeoutMs))),
      ]);
    } catch (e) {
      opts.log('gateway', `!!! ${m.routeKey} threw: ${(e as Error).stack ?? e}`);
      return reply(500, { message: 'Internal Server Error' });
    } finally {
      clearTimeout(timer);
    }
    if (result === TIMED_OUT) {
      opts.log('gateway', `!!! ${m.routeKey} took longer than ${integrationTimeoutMs} ms`);
      return reply(503, { message: 'Service Unavailable' });
    }
    // Payload format 2.0: a result without statusCode is taken as a 200 JSON body.
    const r =
      result && typeof result === 'object' && 'statusCode' in result
        ? (result as { statusCode: number; headers?: Record<string, unknown>; cookies?: string[]; body?: string; isBase64Encoded?: boolean })
        : { statusCode: 200, headers: { 'content-type': 'application/json' }, body: result === undefined ? '' : typeof result === 'string' ? result : JSON.stringify(result) };
    const outHeaders: Record<string, string | string[]> = {};
    for (const [k, v] of Object.entries(r.headers ?? {})) outHeaders[k.toLowerCase()] = String(v);
    if (!outHeaders['content-type'] && r.body) outHeaders['content-type'] = 'application/json';
    if (r.cookies?.length) outHeaders['set-cookie'] = r.cookies;
    Object.assign(outHeaders, baseHeaders);
    const out = r.body === undefined ? Buffer.alloc(0) : r.isBase64Encoded ? Buffer.from(r.body, 'base64') : Buffer.from(r.body, 'utf8');
    outHeaders['content-length'] = String(out.length);
    res.writeHead(r.statusCode, outHeaders);
    res.end(out);
    opts.log('gateway', `${logged} ${r.statusCode} ${Date.now() - started}ms`);
  });
  server.requestTimeout = 120_000;
  await listen(server, opts.port);
  return { url: `http://127.0.0.1:${opts.port}`, stop: () => closeServer(server) };
}
