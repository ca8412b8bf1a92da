import type { SQSEvent, SQSBatchResponse } from 'aws-lambda';
import { ApiGatewayManagementApiClient, PostToConnectionCommand, GoneException } from '@aws-sdk/client-apigatewaymanagementapi';
import { canSeeTicket, type RealtimeMessage, type Audience } from '@balcao/shared';
import { batchGet, getItem, queryAll, type Key } from '../core/db.js';
import { keys } from '../table/keys.js';
import { env } from '../core/env.js';
import { nowMs } from '../core/ports.js';
import { count, log, tracer } from '../core/observability.js';
import { dropConnection } from '../services/presence.js';
import { type UserItem } from '../table/items.js';
import { lambdaHandler } from '../core/lambda.js';

interface Target {
  connectionId: string;
  userId: number;
  companyId: number;
}

let client: ApiGatewayManagementApiClient | undefined;
// A post that hangs would hold the whole batch (every other event of it) until the Lambda times out:
// one socket's delivery gets a few seconds, then it is logged and the others go on.
const management = () =>
  (client ??= tracer.captureAWSv3Client(
    new ApiGatewayManagementApiClient({
      region: env.region,
      endpoint: env.wsCallbackUrl,
      maxAttempts: 2,
      requestHandler: { connectionTimeout: 2_000, requestTimeout: 5_000 },
    }),
  ));

type ConnectionRow = { connectionId: string; sessionId: string; userId: number; companyId: number; ttl: number; connectedAt?: string };

/**
 * API Gateway answers Gone to a post for a socket whose $connect has run but whose handshake has not
 * finished yet; events published meanwhile (its own user's presence, the socket a page reload just
 * closed) race that handshake. Dropping such a socket left it open and deaf for good; what it misses
 * now, the console reads again once the socket opens. Sockets that really closed are dropped by
 * $disconnect, by this after the grace, or by their TTL.
 */
export const HANDSHAKE_GRACE_MS = 30_000;
const mayBeHandshaking = (conn: ConnectionRow) => nowMs() - Date.parse(conn.connectedAt ?? '') < HANDSHAKE_GRACE_MS;

/** API Gateway refuses a post over 128 KB; frames are kept under this. */
export const FRAME_LIMIT_BYTES = 120 * 1024;
/** Sockets posted to at once: a company with hundreds of consoles must not open hundreds of requests. */
export const POST_CONCURRENCY = 32;
/** A directory partition kept longer than this is read again even if its version did not move. */
const DIRECTORY_MAX_AGE_MS = 5 * 60_000;

/**
 * The socket directory of this instance (issue 23): a large partition's members (a busy company's
 * sockets, the platform's) with the version they were read at. A batch reads the version (one small
 * read) and queries the partition again only when it moved: connect, disconnect, join and leave move
 * it after they write (services/presence.ts). A partition that fits one read unit is simply queried:
 * its version would cost as much. Both reads are eventually consistent, like the query always was.
 */
const directory = new Map<string, { version: number; rows: Target[]; at: number }>();
/** Partitions this large (~4 KB of rows) are kept with their version. */
export const DIRECTORY_CACHE_MIN_ROWS = 25;
/** Partitions known to be large: the next batch asks their version first. */
const large = new Set<string>();

/**
 * Reads shared by the events of one SQS batch: a busy company's batch names the same socket
 * partition, sockets and users again and again. Promises are memoised, so events resolved side by
 * side share one read.
 */
export class FanoutLookups {
  private partitions = new Map<string, Promise<Target[]>>();
  private connections = new Map<string, Promise<ConnectionRow | undefined>>();
  private users = new Map<string, Promise<UserItem | undefined>>();

  partition(pk: string, companyId: number | null): Promise<Target[]> {
    let p = this.partitions.get(pk);
    if (!p) {
      p = readPartition(pk, companyId);
      this.partitions.set(pk, p);
    }
    return p;
  }

  connectionItems(ids: string[]): Promise<(ConnectionRow | undefined)[]> {
    return this.memoBatch(this.connections, ids, (id) => keys.wsConnection(id), (c) => c.connectionId);
  }

  userItems(pairs: { companyId: number; userId: number }[]): Promise<(UserItem | undefined)[]> {
    return this.memoBatch(
      this.users,
      pairs.map((p) => `${p.companyId}:${p.userId}`),
      (k) => {
        const [c, u] = k.split(':').map(Number);
        return keys.user(c, u);
      },
      (u) => `${u.companyId}:${u.id}`,
    );
  }

  /** One BatchGet for the ids nobody has asked for yet; the others reuse the pending answers. */
  private memoBatch<T>(memo: Map<string, Promise<T | undefined>>, ids: string[], key: (id: string) => Key, idOf: (item: T) => string) {
    const missing = [...new Set(ids.filter((id) => !memo.has(id)))];
    if (missing.length) {
      const loaded = batchGet<T>(missing.map(key)).then((items) => new Map(items.map((i) => [idOf(i), i])));
      for (const id of missing) memo.set(id, loaded.then((m) => m.get(id)));
    }
    return Promise.all(ids.map((id) => memo.get(id)!));
  }
}

async function readPartition(pk: string, companyId: number | null): Promise<Target[]> {
  const query = async () =>
    (await queryAll<{ SK: string; userId: number; companyId: number }>(pk)).map((r) => ({ connectionId: r.SK, userId: r.userId, companyId: r.companyId ?? companyId! }));
  if (!large.has(pk)) {
    const rows = await query();
    if (rows.length >= DIRECTORY_CACHE_MIN_ROWS) large.add(pk);
    return rows;
  }
  const version = Number((await getItem<{ v?: number }>(keys.wsDirectoryVersion(pk)))?.v ?? 0);
  const kept = directory.get(pk);
  if (kept && kept.version === version && Date.now() - kept.at < DIRECTORY_MAX_AGE_MS) return kept.rows;
  const rows = await query();
  if (rows.length >= DIRECTORY_CACHE_MIN_ROWS) directory.set(pk, { version, rows, at: Date.now() });
  else {
    large.delete(pk);
    directory.delete(pk);
  }
  return rows;
}

async function resolveAudience(msg: RealtimeMessage, a: Audience, lookups: FanoutLookups): Promise<Target[]> {
  const cid = msg.companyId;
  switch (a.kind) {
    case 'platform':
      return lookups.partition(keys.wsPlatformPartition(), cid);
    case 'company':
    case 'admins':
      return cid === null ? [] : lookups.partition(keys.wsCompanyPartition(cid), cid);
    case 'user':
      return cid === null ? [] : (await lookups.partition(keys.wsCompanyPartition(cid), cid)).filter((t) => t.userId === a.userId);
    case 'room':
      return cid === null ? [] : lookups.partition(keys.wsRoomPartition(cid, a.room), cid);
    case 'connection': {
      const [conn] = await lookups.connectionItems([a.connectionId]);
      return conn ? [{ connectionId: conn.connectionId, userId: conn.userId, companyId: conn.companyId }] : [];
    }
  }
}

/**
 * The sockets that may receive one published event: tenancy by key, the current session only
 * (except the `auth` event, which is exactly for the old sessions), admins-only audiences, and
 * ticket visibility when the event carries ticket facts.
 */
export async function recipients(msg: RealtimeMessage, lookups: FanoutLookups): Promise<ConnectionRow[]> {
  const targets = new Map<string, Target>();
  for (const a of msg.audience) for (const t of await resolveAudience(msg, a, lookups)) targets.set(t.connectionId, t);
  for (const id of msg.exceptConnectionIds ?? []) targets.delete(id);
  if (!targets.size) return [];

  const nowSeconds = nowMs() / 1000;
  // Items past their TTL may linger until DynamoDB deletes them: those sockets are gone.
  const connections = (await lookups.connectionItems([...targets.keys()])).filter((c): c is ConnectionRow => !!c && c.ttl > nowSeconds);
  const users = new Map(
    (await lookups.userItems(connections.map((c) => ({ companyId: c.companyId, userId: c.userId }))))
      .filter((u): u is UserItem => !!u)
      .map((u) => [`${u.companyId}:${u.id}`, u]),
  );
  const isAuthEvent = msg.event.endsWith('-auth');
  const adminsOnly = msg.audience.every((a) => a.kind === 'admins');
  // A platform audience may keep only super users, or only the others (inactive announcements, decision 58).
  const platformSupers = msg.audience.find((a) => a.kind === 'platform')?.supers;
  return connections.filter((conn) => {
    const user = users.get(`${conn.companyId}:${conn.userId}`);
    if (!user) return false;
    if (msg.companyId !== null && conn.companyId !== msg.companyId) return false;
    if (!isAuthEvent && user.session?.id !== conn.sessionId) return false;
    if (adminsOnly && user.profile !== 'admin' && !user.super) return false;
    if (platformSupers !== undefined && !!user.super !== platformSupers) return false;
    if (msg.ticket && !canSeeTicket({ userId: user.id, profile: user.profile, queueIds: user.queueIds ?? [], allTicket: user.allTicket === 'enabled' }, msg.ticket)) return false;
    return true;
  });
}

/**
 * The frames for one socket: its events in order, each already JSON, as few frames as fit under
 * `maxBytes` (a lone event is sent as itself; an event alone over the limit goes alone).
 */
export function planFrames(events: string[], maxBytes = FRAME_LIMIT_BYTES): string[] {
  if (events.length === 1) return events;
  const frames: string[] = [];
  let group: string[] = [];
  let size = 0;
  const wrap = (g: string[]) => (g.length === 1 ? g[0] : `{"events":[${g.join(',')}]}`);
  for (const e of events) {
    const bytes = Buffer.byteLength(e) + 1;
    if (group.length && size + bytes + 13 > maxBytes) {
      frames.push(wrap(group));
      group = [];
      size = 0;
    }
    group.push(e);
    size += bytes;
  }
  if (group.length) frames.push(wrap(group));
  return frames;
}

async function post(conn: ConnectionRow, frame: string): Promise<boolean> {
  try {
    await management().send(new PostToConnectionCommand({ ConnectionId: conn.connectionId, Data: Buffer.from(frame) }));
    return true;
  } catch (err) {
    if (err instanceof GoneException || (err as { name?: string }).name === 'GoneException') {
      if (!mayBeHandshaking(conn)) await dropConnection(conn.connectionId);
    } else {
      // One slow socket must not make the whole batch redeliver to everyone else.
      log.warn('realtime post failed', { err, connectionId: conn.connectionId });
    }
    return false;
  }
}

/** Runs `work` over `items`, at most `limit` at a time. */
async function eachLimited<T>(items: T[], limit: number, work: (item: T) => Promise<void>) {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(limit, items.length) }, async () => {
      while (next < items.length) await work(items[next++]);
    }),
  );
}

/**
 * Delivers the events of one batch (issue 23): each event's recipients are resolved with the
 * batch's shared reads, then every socket gets its events, in batch order, in as few frames as fit,
 * the sockets posted to concurrently within a bound. Answers the indexes of the events whose
 * recipients could not be resolved (retried by the queue), the frames posted and the deliveries.
 */
export async function fanOut(messages: RealtimeMessage[], lookups = new FanoutLookups()) {
  const resolved = await Promise.allSettled(messages.map((m) => recipients(m, lookups)));
  const bySocket = new Map<string, { conn: ConnectionRow; events: string[] }>();
  const failed: number[] = [];
  resolved.forEach((r, i) => {
    if (r.status === 'rejected') {
      log.error('realtime delivery failed', { err: r.reason, event: messages[i].event });
      failed.push(i);
      return;
    }
    if (!r.value.length) return;
    const json = JSON.stringify({ event: messages[i].event, data: messages[i].data });
    for (const conn of r.value) {
      let entry = bySocket.get(conn.connectionId);
      if (!entry) bySocket.set(conn.connectionId, (entry = { conn, events: [] }));
      entry.events.push(json);
    }
  });
  let posts = 0;
  let deliveries = 0;
  await eachLimited([...bySocket.values()], POST_CONCURRENCY, async ({ conn, events }) => {
    for (const frame of planFrames(events)) {
      posts++;
      if (!(await post(conn, frame))) return; // the rest of this socket's frames would fail the same way
    }
    deliveries += events.length;
  });
  return { failed, posts, deliveries };
}

export const handler = lambdaHandler(async function handler(event: SQSEvent): Promise<SQSBatchResponse> {
  const messages: RealtimeMessage[] = [];
  const ids: string[] = [];
  for (const record of event.Records) {
    try {
      messages.push(JSON.parse(record.body) as RealtimeMessage);
      ids.push(record.messageId);
    } catch {
      log.error('unreadable realtime message dropped', { messageId: record.messageId });
    }
  }
  const { failed, posts, deliveries } = await fanOut(messages);
  count('FanoutDeliveries', deliveries);
  count('FanoutPosts', posts);
  if (failed.length) count('Errors', failed.length);
  return { batchItemFailures: failed.map((i) => ({ itemIdentifier: ids[i] })) };
});
