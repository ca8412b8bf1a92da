import { fetchAuthSession } from 'aws-amplify/auth';
import { config } from '../config';

export interface ApiErrorBody {
  error?: string;
  message?: string;
  field?: string;
  fields?: { field: string; message: string }[];
}

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly body: ApiErrorBody,
  ) {
    super(body.message ?? body.error ?? `HTTP ${status}`);
  }
  get code() {
    return this.body.error;
  }
}

type Handler = (code: string | undefined) => void;
let onUnauthorized: Handler = () => {};
/** The auth layer decides what a 401 means for the page (clear the session, go to /login); `code` says why. */
export function setUnauthorizedHandler(h: Handler) {
  onUnauthorized = h;
}

export async function accessToken(forceRefresh = false): Promise<string | undefined> {
  try {
    const s = await fetchAuthSession({ forceRefresh });
    return s.tokens?.accessToken?.toString();
  } catch {
    return undefined;
  }
}

export interface RequestOptions {
  body?: unknown;
  query?: Record<string, string | number | undefined>;
  /** Public routes are called without a token (spec 000 §7: the plan list uses a second client). */
  auth?: boolean;
  /** 401 here is an answer for the caller, not a lost session (e.g. the sign-in call itself). */
  quiet401?: boolean;
  /** A bearer token of the caller's own instead of the session's (the external API's connection token); implies `auth: false`. */
  bearer?: string;
}

const REFRESHABLE = new Set(['ERR_SESSION_EXPIRED', 'ERR_INVALID_TOKEN']);

export async function request<T>(method: string, path: string, opts: RequestOptions = {}): Promise<T> {
  // Someone else's token: its 401 or 403 is an answer for the caller, never the session's.
  if (opts.bearer !== undefined) opts = { ...opts, auth: false };
  const url = new URL(config().apiUrl + path);
  for (const [k, v] of Object.entries(opts.query ?? {})) if (v !== undefined) url.searchParams.set(k, String(v));

  const send = async (force: boolean) => {
    const headers: Record<string, string> = {};
    if (opts.bearer !== undefined) headers.Authorization = `Bearer ${opts.bearer}`;
    else if (opts.auth !== false) {
      const token = await accessToken(force);
      if (token) headers.Authorization = `Bearer ${token}`;
    }
    let body: BodyInit | undefined;
    if (opts.body instanceof FormData) body = opts.body;
    else if (opts.body !== undefined) {
      headers['Content-Type'] = 'application/json';
      body = JSON.stringify(opts.body);
    }
    return fetch(url, { method, headers, body });
  };

  let res = await send(false);
  if (res.status === 403 && opts.auth !== false) {
    // Spec 000 §4: a 403 for an expired session gets exactly one refresh and one retry.
    const peek = (await res.clone().json().catch(() => ({}))) as ApiErrorBody;
    if (peek.error && REFRESHABLE.has(peek.error)) res = await send(true);
  }
  if (res.status === 204) return undefined as T;
  const text = await res.text();
  let data: unknown = undefined;
  try {
    data = text ? JSON.parse(text) : undefined;
  } catch {
    data = { message: text };
  }
  if (!res.ok) {
    if (res.status === 401 && opts.auth !== false && !opts.quiet401) onUnauthorized((data as ApiErrorBody | undefined)?.error);
    throw new ApiError(res.status, (data ?? {}) as ApiErrorBody);
  }
  return data as T;
}

export const api = {
  get: <T>(path: string, opts?: RequestOptions) => request<T>('GET', path, opts),
  post: <T>(path: string, body?: unknown, opts?: RequestOptions) => request<T>('POST', path, { ...opts, body }),
  put: <T>(path: string, body?: unknown, opts?: RequestOptions) => request<T>('PUT', path, { ...opts, body }),
  del: <T = void>(path: string, opts?: RequestOptions) => request<T>('DELETE', path, opts),
};
