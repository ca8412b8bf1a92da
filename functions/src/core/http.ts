import type { APIGatewayProxyEventV2WithJWTAuthorizer, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import type { MiddlewareObj } from '@middy/core';
import { cleanupMiddlewares } from '@aws-lambda-powertools/commons';
import Busboy from 'busboy';
import { AppError, type ApiAnswers, type ApiRoute } from '@balcao/shared';
import { routes, routeKey, type RouteDef } from '../routes.js';
import { authenticate, type Identity } from './identity.js';
import { lambdaHandler } from './lambda.js';
import { count, log, logContext } from './observability.js';

export interface UploadedFile {
  field: string;
  fileName: string;
  mimeType: string;
  data: Buffer;
}

export interface Request<P = Record<string, string>> {
  route: RouteDef;
  params: P;
  query: Record<string, string | undefined>;
  body: Record<string, unknown>;
  files: UploadedFile[];
  headers: Record<string, string | undefined>;
  /** Set for `auth: 'user'` routes. */
  identity: Identity;
  event: APIGatewayProxyEventV2WithJWTAuthorizer;
}

export interface Reply<T = unknown> {
  status: number;
  body?: T;
  headers?: Record<string, string>;
}

export const reply = <T>(status: number, body?: T, headers?: Record<string, string>): Reply<T> => ({ status, body, headers });
export const noContent = (): Reply<never> => ({ status: 204 });
export const created = <T>(body: T): Reply<T> => ({ status: 201, body });
/** Taken, finished in the background (the body says where it stands). */
export const accepted = <T>(body: T): Reply<T> => ({ status: 202, body });

export type RouteImpl = (req: Request<any>) => Promise<Reply | unknown>;

/**
 * A route's implementation, held to its contract (shared/src/api-routes.ts): it answers the
 * route's answer type, directly or in a reply. Routes without a contract answer anything.
 */
type Answer<K> = K extends ApiRoute ? ApiAnswers[K] | Reply<ApiAnswers[K]> : unknown;
export type RouteImpls<K extends string> = { [P in K]: (req: Request<any>) => Promise<Answer<P>> };

const isReply = (v: unknown): v is Reply =>
  typeof v === 'object' && v !== null && 'status' in v && typeof (v as Reply).status === 'number' && Object.keys(v).every((k) => ['status', 'body', 'headers'].includes(k));

function json(status: number, body: unknown, headers: Record<string, string> = {}): APIGatewayProxyStructuredResultV2 {
  if (status === 204 || body === undefined) return { statusCode: status, headers };
  return { statusCode: status, headers: { 'content-type': 'application/json; charset=utf-8', ...headers }, body: JSON.stringify(body) };
}

const invalidMultipart = () => new AppError(400, 'ERR_VALIDATION', { message: 'Invalid multipart body', fields: [{ field: 'body', message: 'Invalid multipart body' }] });

async function parseMultipart(body: Buffer, contentType: string, maxBytes: number): Promise<{ fields: Record<string, unknown>; files: UploadedFile[] }> {
  return new Promise((resolve, reject) => {
    const fields: Record<string, unknown> = {};
    const files: UploadedFile[] = [];
    let bb: ReturnType<typeof Busboy>;
    try {
      // Browsers and fetch send file names as raw UTF-8 (busboy would read them as latin1).
      bb = Busboy({ headers: { 'content-type': contentType }, defParamCharset: 'utf8', limits: { fileSize: maxBytes, files: 20 } });
    } catch {
      // No boundary, or not a multipart type busboy knows.
      reject(invalidMultipart());
      return;
    }
    bb.on('field', (name, value) => {
      // A part without a name cannot be a field of the body.
      if (!name) return reject(invalidMultipart());
      // Repeated fields (queueIds[] style) become arrays.
      const key = name.replace(/\[\]$/, '');
      if (key in fields) fields[key] = ([] as unknown[]).concat(fields[key], value);
      else fields[key] = name.endsWith('[]') ? [value] : value;
    });
    bb.on('file', (field, stream, info) => {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('limit', () => reject(new AppError(413, 'ERR_PAYLOAD_TOO_LARGE')));
      stream.on('end', () => files.push({ field, fileName: info.filename ?? 'file', mimeType: info.mimeType, data: Buffer.concat(chunks) }));
    });
    bb.on('error', () => reject(invalidMultipart()));
    bb.on('close', () => resolve({ fields, files }));
    bb.end(body);
  });
}

async function parseBody(event: APIGatewayProxyEventV2WithJWTAuthorizer, route: RouteDef) {
  if (!event.body) return { body: {}, files: [] as UploadedFile[] };
  const raw = event.isBase64Encoded ? Buffer.from(event.body, 'base64') : Buffer.from(event.body, 'utf8');
  const limit = route.maxBodyBytes ?? 1024 * 1024;
  if (raw.length > limit) throw new AppError(413, 'ERR_PAYLOAD_TOO_LARGE');
  const contentType = event.headers?.['content-type'] ?? '';
  if (contentType.startsWith('multipart/form-data')) {
    const { fields, files } = await parseMultipart(raw, contentType, limit);
    return { body: fields, files };
  }
  if (contentType.startsWith('application/x-www-form-urlencoded')) {
    return { body: Object.fromEntries(new URLSearchParams(raw.toString('utf8'))), files: [] };
  }
  const text = raw.toString('utf8');
  if (!text.trim()) return { body: {}, files: [] };
  try {
    const parsed = JSON.parse(text);
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
      return { body: { items: parsed }, files: [] };
    }
    return { body: parsed as Record<string, unknown>, files: [] };
  } catch {
    throw new AppError(400, 'ERR_VALIDATION', { message: 'Invalid JSON', fields: [{ field: 'body', message: 'Invalid JSON' }] });
  }
}

/** The route's path parameters, decoded; a malformed escape (`%ZZ`) is the caller's error. */
function pathParams(raw: Record<string, string | undefined> | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(raw ?? {})) {
    try {
      out[k] = v ? decodeURIComponent(v) : '';
    } catch {
      throw new AppError(400, 'ERR_VALIDATION', { message: 'Valor inválido', fields: [{ field: k, message: 'Valor inválido' }] });
    }
  }
  return out;
}

type ApiEvent = APIGatewayProxyEventV2WithJWTAuthorizer;
type ApiResult = APIGatewayProxyStructuredResultV2;
/** What the router's middlewares learn about a request, in the order they run. */
type RoutedEvent = ApiEvent & { balcao?: { route: RouteDef; identity?: Identity; body: Record<string, unknown>; files: UploadedFile[] } };
type RouterMiddleware = MiddlewareObj<RoutedEvent, ApiResult>;

/** Finds the manifest route; an unknown route key answers 404 before anything else runs. */
const routeMatch = (byKey: Map<string, RouteDef>): RouterMiddleware => ({
  name: 'routeMatch',
  before: async (request) => {
    const route = byKey.get(request.event.routeKey);
    if (!route) {
      // An early answer skips the `after` steps: close the tracer's segment and the logger's keys.
      await cleanupMiddlewares(request);
      return json(404, { error: 'ERR_ROUTE_NOT_FOUND' });
    }
    request.event.balcao = { route, body: {}, files: [] };
  },
});

/** Loads the caller of `auth: 'user'` routes and applies the route's gates (core/identity.ts). */
const caller = (): RouterMiddleware => ({
  name: 'caller',
  before: async ({ event }) => {
    const state = event.balcao!;
    if (state.route.auth !== 'user') return;
    state.identity = await authenticate(event.requestContext.authorizer?.jwt?.claims ?? {}, state.route);
    logContext({ companyId: state.identity.companyId, userId: state.identity.userId });
  },
});

/** JSON, form or multipart bodies, within the route's size limit. */
const bodyParsing = (): RouterMiddleware => ({
  name: 'bodyParsing',
  before: async ({ event }) => {
    Object.assign(event.balcao!, await parseBody(event, event.balcao!.route));
  },
});

/** `AppError`s become `{error, message, field}` answers; anything else is a logged 500. */
const errorAnswers = (): RouterMiddleware => ({
  name: 'errorAnswers',
  onError: (request) => {
    const err = request.error;
    const route = request.event.routeKey;
    // API Gateway's id, the one its access log shows, beside the Lambda request id of every line.
    const apiRequestId = request.event.requestContext?.requestId;
    if (err instanceof AppError) {
      if (err.status >= 500) {
        log.error('request failed', { err, route, apiRequestId });
        count('Errors');
      }
      // A rate limit says when to come back (services/rate-limits.ts).
      const retryAfter = err.status === 429 ? err.details?.retryAfter : undefined;
      request.response = json(err.status, err.toJSON(), typeof retryAfter === 'number' ? { 'retry-after': String(retryAfter) } : {});
      return;
    }
    log.error('unhandled error', { err, route, apiRequestId });
    count('Errors');
    request.response = json(500, { error: 'ERR_INTERNAL' });
  },
});

/**
 * Builds the Lambda handler of one domain router. Every manifest route of `handlerName` must have
 * an implementation (checked at load, so a missing one fails fast rather than answering 404).
 */
export function createRouter<K extends string>(handlerName: string, typed: RouteImpls<K>, manifest: readonly RouteDef[] = routes) {
  const impls = typed as unknown as Record<string, RouteImpl>;
  const own = manifest.filter((r) => r.handler === handlerName);
  const byKey = new Map(own.map((r) => [routeKey(r), r]));
  const missing = own.filter((r) => !impls[routeKey(r)]).map(routeKey);
  const extra = Object.keys(impls).filter((k) => !byKey.has(k));
  if (missing.length || extra.length) {
    throw new Error(`Router ${handlerName}: missing ${missing.join(', ') || '-'}; not in manifest ${extra.join(', ') || '-'}`);
  }

  const dispatch = async (event: RoutedEvent): Promise<ApiResult> => {
    const { route, identity, body, files } = event.balcao!;
    const req: Request = {
      route,
      params: pathParams(event.pathParameters),
      query: event.queryStringParameters ?? {},
      body,
      files,
      headers: event.headers ?? {},
      identity: identity as Identity,
      event,
    };
    const result = await impls[event.routeKey](req);
    if (isReply(result)) return json(result.status, result.body, result.headers);
    return json(result === undefined || result === null ? 204 : 200, result ?? undefined);
  };

  // middy runs onError in reverse order of use: errorAnswers, used last, answers first, while the
  // logger still holds the caller's keys and before the metrics are flushed.
  return lambdaHandler<RoutedEvent, ApiResult>(dispatch).use(routeMatch(byKey)).use(caller()).use(bodyParsing()).use(errorAnswers());
}

/** Path ids are numbers in this API; anything else is simply not found. */
export function idParam(value: string | undefined): number {
  const n = Number(value);
  if (!value || !Number.isSafeInteger(n) || n <= 0) throw new AppError(404, 'ERR_NOT_FOUND');
  return n;
}

export function pageParams(query: Record<string, string | undefined>, pageSize = 20) {
  const pageNumber = Math.max(1, Math.floor(Number(query.pageNumber ?? '1')) || 1);
  return { pageNumber, pageSize, offset: (pageNumber - 1) * pageSize };
}
