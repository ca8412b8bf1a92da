import { lookup as dnsLookup } from 'node:dns';
import { BlockList, isIP, type LookupFunction } from 'node:net';
import { Agent, fetch, type RequestInit as UndiciRequestInit } from 'undici';
import { env } from '../../core/env.js';

/**
 * Calls to outside services (Typebot, webhooks, Google, OpenAI-compatible APIs, Azure Speech) from
 * the automation worker: a bounded time and size per call, failures told apart so they can be
 * logged with what went wrong (never the secrets sent), and never to a private address: the URLs
 * are a tenant admin's, and on one machine loopback is the platform itself (the simulator's and the
 * session host's control routes), in AWS the VPC's neighbours. Addresses are checked as the
 * connection is made (no window between a check and a second DNS answer).
 */
export class OutsideError extends Error {
  constructor(
    readonly service: string,
    readonly reason: 'timeout' | 'network' | 'status' | 'garbage' | 'blocked',
    message: string,
    readonly status?: number,
  ) {
    super(`${service}: ${message}`);
  }
}

export const OUTSIDE_TIMEOUT_MS = 15_000;
/** The most an answer may weigh: texts are small; a spoken answer is an Ogg file of a few hundred KB. */
const MAX_TEXT_BYTES = 1024 * 1024;
const MAX_BINARY_BYTES = 8 * 1024 * 1024;

const privateRanges = new BlockList();
for (const [net, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['224.0.0.0', 3],
] as const)
  privateRanges.addSubnet(net, prefix, 'ipv4');
for (const [net, prefix] of [
  ['::', 128],
  ['::1', 128],
  ['fc00::', 7],
  ['fe80::', 10],
  ['ff00::', 8],
] as const)
  privateRanges.addSubnet(net, prefix, 'ipv6');

/** Loopback, private, link-local (cloud metadata), shared, multicast or unspecified. */
export function isPrivateAddress(address: string): boolean {
  const family = isIP(address);
  if (!family) return true;
  const mapped = family === 6 && /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) return privateRanges.check(mapped[1]!, 'ipv4');
  return privateRanges.check(address, family === 4 ? 'ipv4' : 'ipv6');
}

const blockedHost = (host: string) => new OutsideError('outside', 'blocked', `${host} is a private address`);

/** DNS answers checked before the socket connects. */
const guardedLookup: LookupFunction = (hostname, options, callback) => {
  dnsLookup(hostname, { ...options, all: true }, (err, addresses) => {
    if (err) return callback(err, '', 0);
    const list = addresses as unknown as { address: string; family: number }[];
    const bad = !env.outsideAllowPrivate && list.find((a) => isPrivateAddress(a.address));
    if (bad || !list.length) return callback(blockedHost(hostname) as unknown as NodeJS.ErrnoException, '', 0);
    if ((options as { all?: boolean }).all) return (callback as unknown as (e: null, a: typeof list) => void)(null, list);
    callback(null, list[0]!.address, list[0]!.family);
  });
};

let agent: Agent | undefined;
const dispatcher = () => (agent ??= new Agent({ connect: { lookup: guardedLookup }, connections: 64 }));

export interface OutsideAnswer {
  status: number;
  text: string;
  bytes?: Uint8Array;
}

/** The body, up to `max` bytes (a longer one is refused as garbage: a service does not answer megabytes). */
async function readCapped(service: string, res: Awaited<ReturnType<typeof fetch>>, max: number): Promise<Uint8Array> {
  const declared = Number(res.headers.get('content-length'));
  if (declared > max) throw new OutsideError(service, 'garbage', `the answer is too large (${declared} bytes)`);
  const chunks: Uint8Array[] = [];
  let size = 0;
  if (res.body) {
    for await (const chunk of res.body) {
      size += (chunk as Uint8Array).length;
      if (size > max) throw new OutsideError(service, 'garbage', `the answer is larger than ${max} bytes`);
      chunks.push(chunk as Uint8Array);
    }
  }
  return Buffer.concat(chunks);
}

/** One HTTP call; a non-2xx answer throws `OutsideError('status')` with the body's start (for logs only). */
export async function callOutside(
  service: string,
  url: string,
  init: Omit<UndiciRequestInit, 'dispatcher' | 'signal'> & { timeoutMs?: number; binary?: boolean },
): Promise<OutsideAnswer> {
  const timeoutMs = init.timeoutMs ?? OUTSIDE_TIMEOUT_MS;
  let host: string;
  try {
    host = new URL(url).hostname.replace(/^\[|\]$/g, '');
  } catch {
    throw new OutsideError(service, 'blocked', 'not a valid URL');
  }
  // An address written in the URL is not looked up: checked here.
  if (isIP(host) && isPrivateAddress(host) && !env.outsideAllowPrivate) throw blockedHost(host);
  const signal = AbortSignal.timeout(timeoutMs);
  try {
    const res = await fetch(url, { ...init, redirect: 'error', signal, dispatcher: dispatcher() });
    const body = await readCapped(service, res, init.binary && res.ok ? MAX_BINARY_BYTES : MAX_TEXT_BYTES);
    if (!res.ok) throw new OutsideError(service, 'status', `HTTP ${res.status}: ${Buffer.from(body.subarray(0, 300)).toString('utf8')}`, res.status);
    if (init.binary) return { status: res.status, text: '', bytes: body };
    return { status: res.status, text: Buffer.from(body).toString('utf8') };
  } catch (err) {
    if (err instanceof OutsideError) throw err;
    const e = err as Error & { cause?: unknown };
    if (e.cause instanceof OutsideError) throw new OutsideError(service, e.cause.reason, e.cause.message.replace(/^outside: /, ''));
    if (signal.aborted || e.name === 'TimeoutError' || e.name === 'AbortError') throw new OutsideError(service, 'timeout', `no answer within ${Math.round(timeoutMs / 1000)} s`);
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
