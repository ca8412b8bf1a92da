import type { SQSEvent, SQSBatchResponse } from 'aws-lambda';
import { ApiGatewayManagementApiClient, PostToConnectionCommand, GoneException } from '@aws-sdk/client-apigatewaymanagementapi';
import { canSeeTicket, type RealtimeMessage, type Audience } from '@balcao/shared';
import { batchGet, queryAll, type Key } from '../core/db.js';
import { keys } from '../table/keys.js';
import { env } from '../core/env.js';
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
const mayBeHandshaking = (conn: ConnectionRow) => Date.now() - Date.parse(conn.connectedAt ?? '') < HANDSHAKE_GRACE_MS;

/**
 * Reads shared by the events of one SQS batch: a busy company's batch names the same socket
 * partition, sockets and users again and again, and each was a DynamoDB read per event.
 * Promises are memoised, so events delivered side by side share one read.
 */
export class FanoutLookups {
  private partitions = new Map<string, Promise<Target[]>>();
  private connections = new Map<string, Promise<ConnectionRow | undefined>>();
  private users = new Map<string, Promise<UserItem | undefined>>();

  partition(pk: string, companyId: number | null): Promise<Target[]> {
    let p = this.partitions.get(pk);
    if (!p) {
      p = queryAll<{ SK: string; userId: number; companyId: number }>(pk).then((rows) =>
        rows.map((r) => ({ connectionId: r.SK, userId: r.userId, companyId: r.companyId ?? companyId! })),
      );
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
 * Delivers one published event to the sockets that may see it: tenancy by key, the current
 * session only (except the `auth` event, which is exactly for the old sessions), admins-only
 * audiences, and ticket visibility when the event carries ticket facts.
 */
export async function deliver(msg: RealtimeMessage, lookups = new FanoutLookups()): Promise<number> {
  const targets = new Map<string, Target>();
  for (const a of msg.audience) for (const t of await resolveAudience(msg, a, lookups)) targets.set(t.connectionId, t);
  for (const id of msg.exceptConnectionIds ?? []) targets.delete(id);
  if (!targets.size) return 0;

  const nowSeconds = Date.now() / 1000;
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
  const frame = JSON.stringify({ event: msg.event, data: msg.data });
  let sent = 0;
  await Promise.all(
    connections.map(async (conn) => {
      const user = users.get(`${conn.companyId}:${conn.userId}`);
      if (!user) return;
      if (msg.companyId !== null && conn.companyId !== msg.companyId) return;
      if (!isAuthEvent && user.session?.id !== conn.sessionId) return;
      if (adminsOnly && user.profile !== 'admin' && !user.super) return;
      if (platformSupers !== undefined && !!user.super !== platformSupers) return;
      if (msg.ticket && !canSeeTicket({ userId: user.id, profile: user.profile, queueIds: user.queueIds ?? [], allTicket: user.allTicket === 'enabled' }, msg.ticket)) return;
      try {
        await management().send(new PostToConnectionCommand({ ConnectionId: conn.connectionId, Data: new TextEncoder().encode(frame) }));
        sent++;
      } catch (err) {
        if (err instanceof GoneException || (err as { name?: string }).name === 'GoneException') {
          if (!mayBeHandshaking(conn)) await dropConnection(conn.connectionId);
        } else {
          // One slow socket must not make the whole event redeliver to everyone else.
          log.warn('realtime post failed', { err, connectionId: conn.connectionId });
        }
      }
    }),
  );
  return sent;
}

export const handler = lambdaHandler(async function handler(event: SQSEvent): Promise<SQSBatchResponse> {
  // Events of a batch go out side by side: the queue is a standard one (no order to keep) and the
  // consoles compare versions, so one slow delivery must not hold up the others.
  const lookups = new FanoutLookups();
  const outcomes = await Promise.all(
    event.Records.map(async (record) => {
      let msg: RealtimeMessage;
      try {
        msg = JSON.parse(record.body) as RealtimeMessage;
      } catch {
        log.error('unreadable realtime message dropped', { messageId: record.messageId });
        return undefined;
      }
      try {
        count('FanoutDeliveries', await deliver(msg, lookups));
        return undefined;
      } catch (err) {
        log.error('realtime delivery failed', { err, event: msg.event });
        count('Errors');
        return record.messageId;
      }
    }),
  );
  return { batchItemFailures: outcomes.filter((id): id is string => !!id).map((itemIdentifier) => ({ itemIdentifier })) };
});
