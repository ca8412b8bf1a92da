import { PRESENCE_TTL_SECONDS, WS_CONNECTION_TTL_SECONDS, companyEvent } from '@balcao/shared';
import { nowIso, nowMs, table } from '../core/ports.js';
import { env } from '../core/env.js';
import { addToCounter, deleteItem, getItem, putItem, queryAll, updateItem, isConditionFailure } from '../core/db.js';
import { keys } from '../table/keys.js';
import { publish } from '../core/realtime.js';
import { toApiUser } from './users.js';
import { type UserItem, type WsConnectionItem } from '../table/items.js';


const ttlFromNow = () => Math.floor(nowMs() / 1000) + WS_CONNECTION_TTL_SECONDS;
const ONLINE_INDEX = keys.onlineUsersPartition();

/**
 * A socket directory partition changed: its version moves, after the change, so a fan-out that
 * read the version before the change cannot keep members read before it (`FanoutLookups`).
 */
async function directoryChanged(...partitions: string[]): Promise<void> {
  await Promise.all(partitions.map((pk) => addToCounter(keys.wsDirectoryVersion(pk), 'v')));
}

export async function registerConnection(connectionId: string, user: UserItem, sessionId: string): Promise<void> {
  const ttl = ttlFromNow();
  const base = { connectionId, companyId: user.companyId, userId: user.id, ttl };
  await putItem({ ...keys.wsConnection(connectionId), ...base, entity: 'wsConnection', sessionId, rooms: [], connectedAt: nowIso() });
  await putItem({ ...keys.wsCompany(user.companyId, connectionId), ...base, entity: 'wsCompany' });
  await putItem({ ...keys.wsPlatform(connectionId), ...base, entity: 'wsPlatform' });
  await directoryChanged(keys.wsCompanyPartition(user.companyId), keys.wsPlatformPartition());
  await markSeen(user);
}

/** A socket item; one past its TTL is gone even if DynamoDB has not deleted it yet. */
export async function getConnection(connectionId: string): Promise<WsConnectionItem | undefined> {
  const item = await getItem<WsConnectionItem>(keys.wsConnection(connectionId), true);
  return item && item.ttl * 1000 > nowMs() ? item : undefined;
}

/** A frame can arrive after its socket closed (the item is gone): joining then is a no-op. */
async function ignoreGone(work: Promise<unknown>): Promise<void> {
  try {
    await work;
  } catch (err) {
    if (!isConditionFailure(err)) throw err;
  }
}

/** Joins a room; true when the socket is in it (it may have closed meanwhile). */
export async function joinRoom(conn: WsConnectionItem, roomName: string): Promise<boolean> {
  if (conn.rooms.includes(roomName)) return true;
  let joined = false;
  await ignoreGone(
    updateItem(keys.wsConnection(conn.connectionId), { rooms: [...conn.rooms, roomName] }).then(async () => {
      await putItem({ ...keys.wsRoom(conn.companyId, roomName, conn.connectionId), entity: 'wsRoom', connectionId: conn.connectionId, userId: conn.userId, ttl: conn.ttl });
      await directoryChanged(keys.wsRoomPartition(conn.companyId, roomName));
      joined = true;
    }),
  );
  return joined;
}

export async function leaveRoom(conn: WsConnectionItem, roomName: string): Promise<void> {
  if (!conn.rooms.includes(roomName)) return;
  await deleteItem(keys.wsRoom(conn.companyId, roomName, conn.connectionId));
  await directoryChanged(keys.wsRoomPartition(conn.companyId, roomName));
  await ignoreGone(updateItem(keys.wsConnection(conn.connectionId), { rooms: conn.rooms.filter((r) => r !== roomName) }));
}

/** Removes every trace of a socket; the user goes offline when it was their last one. */
export async function dropConnection(connectionId: string): Promise<void> {
  const conn = await getConnection(connectionId);
  if (!conn) return;
  await Promise.all([
    ...conn.rooms.map((r) => deleteItem(keys.wsRoom(conn.companyId, r, connectionId))),
    deleteItem(keys.wsCompany(conn.companyId, connectionId)),
    deleteItem(keys.wsPlatform(connectionId)),
    deleteItem(keys.wsConnection(connectionId)),
  ]);
  await directoryChanged(keys.wsCompanyPartition(conn.companyId), keys.wsPlatformPartition(), ...conn.rooms.map((r) => keys.wsRoomPartition(conn.companyId, r)));
  await offlineWithoutSockets(conn.companyId, conn.userId);
}

/** The user goes offline when none of their sockets is left. */
async function offlineWithoutSockets(companyId: number, userId: number): Promise<void> {
  const remaining = await queryAll<{ userId: number }>(keys.wsCompanyPartition(companyId));
  if (!remaining.some((c) => c.userId === userId)) await markOffline(companyId, userId);
}

async function publishPresence(user: UserItem) {
  await publish({
    companyId: user.companyId,
    event: companyEvent(user.companyId, 'user'),
    data: { action: 'update', user: await toApiUser(user) },
    audience: [{ kind: 'company' }],
  });
}

/** Heartbeat: the user is online now; publishes only when that changes. */
export async function markSeen(user: UserItem): Promise<void> {
  const now = nowIso();
  const wasOnline = user.online;
  const updated = await updateItem<UserItem>(keys.user(user.companyId, user.id), {
    online: true,
    lastSeenAt: now,
    GSI2PK: ONLINE_INDEX,
    GSI2SK: now,
  });
  if (!wasOnline) await publishPresence(updated);
}

/**
 * Heartbeat of a socket. A heartbeat handled after its socket closed (frames and the disconnect
 * race) must not bring the user back online: a gone socket marks nothing, and one that closed
 * while the user was being marked leaves the decision to the sockets that remain.
 */
export async function refreshConnection(conn: WsConnectionItem, user: UserItem): Promise<void> {
  const ttl = ttlFromNow();
  const alive = await Promise.all([
    updateItem(keys.wsConnection(conn.connectionId), { ttl }),
    updateItem(keys.wsCompany(conn.companyId, conn.connectionId), { ttl }),
    updateItem(keys.wsPlatform(conn.connectionId), { ttl }),
    ...conn.rooms.map((r) => updateItem(keys.wsRoom(conn.companyId, r, conn.connectionId), { ttl })),
  ]).then(
    () => true,
    (err) => {
      if (!isConditionFailure(err)) throw err;
      return false;
    },
  );
  if (!alive) return;
  await markSeen(user);
  if (!(await getConnection(conn.connectionId))) await offlineWithoutSockets(conn.companyId, conn.userId);
}

export async function markOffline(companyId: number, userId: number): Promise<void> {
  try {
    const updated = await updateItem<UserItem>(keys.user(companyId, userId), { online: false }, { remove: ['GSI2PK', 'GSI2SK'] });
    await publishPresence(updated);
  } catch (err) {
    if (!isConditionFailure(err)) throw err; // the user was deleted meanwhile
  }
}

/** Users whose heartbeat stopped without a disconnect (a closed laptop) go offline. */
export async function expireStalePresence(now = nowMs()): Promise<number> {
  const cutoff = new Date(now - PRESENCE_TTL_SECONDS * 1000).toISOString();
  let count = 0;
  let start: Record<string, unknown> | undefined;
  do {
    const out = await table().query({
      TableName: env.tableName,
      IndexName: 'GSI2',
      KeyConditionExpression: 'GSI2PK = :p AND GSI2SK < :c',
      ExpressionAttributeValues: { ':p': ONLINE_INDEX, ':c': cutoff },
      ExclusiveStartKey: start,
    });
    for (const u of (out.Items ?? []) as UserItem[]) {
      await markOffline(u.companyId, u.id);
      count++;
    }
    start = out.LastEvaluatedKey;
  } while (start);
  return count;
}
