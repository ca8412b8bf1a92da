/**
 * Calls to outside services (Typebot, webhooks, Google, OpenAI-compatible APIs, Azure Speech) from
 * the automation worker: a bounded time per call, and failures told apart so they can be logged
 * with what went wrong (never the secrets sent).
 */
export class OutsideError extends Error {
  constructor(
    readonly service: string,
    readonly reason: 'timeout' | 'network' | 'status' | 'garbage',
    message: string,
    readonly status?: number,
  ) {
    super(`${service}: ${message}`);
  }
}

export const OUTSIDE_TIMEOUT_MS = 15_000;

export interface OutsideAnswer {
  status: number;
  text: string;
  bytes?: Uint8Array;
}

/** One HTTP call; a non-2xx answer throws `OutsideError('status')` with the body's start (for logs). */
export async function callOutside(service: string, url: string, init: RequestInit & { timeoutMs?: number; binary?: boolean }): Promise<OutsideAnswer> {
  let res: Response;
  try {
    res = await fetch(url, { ...init, redirect: 'error', signal: AbortSignal.timeout(init.timeoutMs ?? OUTSIDE_TIMEOUT_MS) });
  } catch (err) {
    const e = err as Error;
    if (e.name === 'TimeoutError' || e.name === 'AbortError') throw new OutsideError(service, 'timeout', `no answer within ${Math.round((init.timeoutMs ?? OUTSIDE_TIMEOUT_MS) / 1000)} s`);
    throw new OutsideError(service, 'network', e.message);
  }
  try {
    if (init.binary && res.ok) {
      const bytes = new Uint8Array(await res.arrayBuffer());
      return { status: res.status, text: '', bytes };
    }
    const text = await res.text();
    if (!res.ok) throw new OutsideError(service, 'status', `HTTP ${res.status}: ${text.slice(0, 300)}`, res.status);
    return { status: res.status, text };
  } catch (err) {
    if (err instanceof OutsideError) throw err;
    const e = err as Error;
    if (e.name === 'TimeoutError' || e.name === 'AbortError') throw new OutsideError(service, 'timeout', 'the answer did not finish in time');
    throw new OutsideError(service, 'network', e.message);
  }
}

/** A JSON answer, or `OutsideError('garbage')`. */
export function jsonOf<T = Record<string, unknown>>(service: string, answer: OutsideAnswer): T {
  try {
    const v = JSON.parse(answer.text) as unknown;
    if (v === null || typeof v !== 'object') throw new Error('not an object');
    return v as T;
  } catch {
    throw new OutsideError(service, 'garbage', `answered something that is not JSON: ${answer.text.slice(0, 120)}`);
  }
}
