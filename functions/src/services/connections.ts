import { createHash, randomBytes } from 'node:crypto';
import {
  AppError,
  companyEvent,
  connectionSchema,
  connectionUpdateSchema,
  normalizeNumber,
  parseOrThrow,
  pickDefaultConnection,
  LIVE_SESSION_STATUSES,
  shardOf,
  type Connection,
  type SessionStatus,
} from '@balcao/shared';
import { batchGet, clean, getItem, isConditionFailure, nextId, queryAll, transact, tx, updateItem, type TransactItem } from '../core/db.js';
import {
  connectionKey,
  connectionNameMarker,
  connectionPrefix,
  connectionTimerKeys,
  connectionTokenMarker,
  keys,
  shardIndexKeys,
} from '../table/keys.js';
import { publish } from '../core/realtime.js';
import { sendCommand } from '../core/commands.js';
import { SHARDS } from '../workers/manifest.js';
import { limitError, usageDecrement, usageIncrement } from './usage.js';
import { forgetTicketRef } from './ref-cache.js';
import { checkAutomationReferences } from './integrations.js';
import { type CompanyItem, type ConnectionItem, type PlanItem, type QueueItem } from '../table/items.js';
import { nowIso } from '../core/ports.js';


export const tokenHash = (token: string) => createHash('sha256').update(token, 'utf8').digest('hex');

/** A connection's API token: 256 random bits, made here, never chosen by hand (issue 16 §4). */
const newToken = () => randomBytes(32).toString('base64url');

const nameTaken = () =>
  new AppError(409, 'ERR_VALIDATION', { message: 'Já existe uma conexão com esse nome', fields: [{ field: 'name', message: 'Já existe uma conexão com esse nome' }] });
const greetingRequired = () =>
  new AppError(400, 'ERR_WAPP_GREETING_REQUIRED', { fields: [{ field: 'greetingMessage', message: 'ERR_WAPP_GREETING_REQUIRED' }] });

export async function toApiConnection(item: ConnectionItem, queues?: Map<number, QueueItem>, withSession = true): Promise<Connection> {
  const queueMap =
    queues ?? new Map((await batchGet<QueueItem>(item.queueIds.map((id) => keys.queue(item.companyId, id)))).map((q) => [q.id, q]));
  const { tokenHash: hash, shard: _shard, ...rest } = clean(item);
  return {
    ...(rest as unknown as Connection),
    qrcode: withSession ? item.qrcode : '',
    hasToken: !!hash,
    token: '',
    queues: item.queueIds
      .map((id) => queueMap.get(id))
      .filter((q): q is QueueItem => !!q)
      .map((q) => ({ id: q.id, name: q.name, color: q.color })),
  };
}

export const listConnectionItems = (companyId: number) =>
  queryAll<ConnectionItem>(keys.companyPartition(companyId), connectionPrefix());

/**
 * The connection used when none is named (a new ticket, a schedule, an import's number check): the
 * user's own default connection (the user's `whatsappId`, spec 000 §2.6) while it exists, else the
 * company's default, else its oldest. One rule, so "Conexão padrão" means the same everywhere.
 */
export async function defaultConnection(companyId: number, userDefaultId?: number | null): Promise<ConnectionItem | undefined> {
  return pickDefaultConnection(await listConnectionItems(companyId), userDefaultId);
}

export async function listConnections(companyId: number, withSession: boolean): Promise<Connection[]> {
  const [items, queues] = await Promise.all([listConnectionItems(companyId), queryAll<QueueItem>(keys.companyPartition(companyId), keys.queuePrefix())]);
  const queueMap = new Map(queues.map((q) => [q.id, q]));
  return Promise.all(items.sort((a, b) => a.name.localeCompare(b.name, 'pt-BR')).map((c) => toApiConnection(c, queueMap, withSession)));
}

export async function getConnectionItem(companyId: number, id: number): Promise<ConnectionItem> {
  const item = await getItem<ConnectionItem>(connectionKey(companyId, id));
  if (!item) throw new AppError(404, 'ERR_NO_WAPP_FOUND');
  return item;
}

async function assertRefs(companyId: number, queueIds: number[], transferQueueId: number | null | undefined, sendIdQueue: number | null | undefined) {
  const wanted = [...new Set([...queueIds, ...(transferQueueId ? [transferQueueId] : []), ...(sendIdQueue ? [sendIdQueue] : [])])];
  if (!wanted.length) return;
  const found = await batchGet<QueueItem>(wanted.map((id) => keys.queue(companyId, id)));
  if (found.length !== wanted.length) {
    throw new AppError(400, 'ERR_NO_QUEUE_FOUND', { fields: [{ field: 'queueIds', message: 'ERR_NO_QUEUE_FOUND' }] });
  }
}

async function publishConnection(item: ConnectionItem, action: 'create' | 'update') {
  const whatsapp = await toApiConnection(item);
  await publish({ companyId: item.companyId, event: companyEvent(item.companyId, 'whatsapp'), data: { action, whatsapp }, audience: [{ kind: 'company' }] });
}

/** Creates a connection; the company's first one becomes its default (spec 000 §5). */
export async function createConnection(companyId: number, input: unknown): Promise<Connection> {
  const data = parseOrThrow(connectionSchema, input);
  const queueIds = [...new Set(data.queueIds ?? [])];
  if (queueIds.length > 1 && !data.greetingMessage?.trim()) throw greetingRequired();
  await assertRefs(companyId, queueIds, data.transferQueueId, data.sendIdQueue);
  await checkAutomationReferences(companyId, data);
  const company = await getItem<CompanyItem>(keys.company(companyId));
  const plan = company ? await getItem<PlanItem>(keys.plan(company.planId)) : undefined;
  const existing = await listConnectionItems(companyId);
  const makeDefault = existing.length === 0 || data.isDefault === true;
  // Platform-wide ids: the session host and the sandbox name a connection without its company.
  const id = await nextId(0, 'whatsapp');
  const shard = shardOf(id, SHARDS);
  const now = nowIso();
  const token = data.generateToken ? newToken() : undefined;
  const hash = token ? tokenHash(token) : null;
  const item: ConnectionItem = {
    ...connectionKey(companyId, id),
    entity: 'connection',
    ...shardIndexKeys(shard, companyId, id),
    id,
    companyId,
    shard,
    name: data.name,
    status: 'OPENING',
    qrcode: '',
    retries: 0,
    isDefault: makeDefault,
    number: '',
    tokenHash: hash,
    provider: data.provider ?? 'beta',
    greetingMessage: data.greetingMessage ?? '',
    complationMessage: data.complationMessage ?? '',
    outOfHoursMessage: data.outOfHoursMessage ?? '',
    ratingMessage: data.ratingMessage ?? '',
    expiresInactiveMessage: data.expiresInactiveMessage ?? '',
    expiresTicket: data.expiresTicket ?? 0,
    timeToTransfer: data.timeToTransfer ?? 0,
    transferQueueId: data.transferQueueId ?? null,
    timeUseBotQueues: data.timeUseBotQueues ?? 0,
    maxUseBotQueues: data.maxUseBotQueues ?? 3,
    sendIdQueue: data.sendIdQueue ?? null,
    timeSendQueue: data.timeSendQueue ?? 0,
    promptId: data.promptId ?? null,
    integrationId: data.integrationId ?? null,
    queueIds,
    createdAt: now,
    updatedAt: now,
  };
  Object.assign(item, connectionTimerKeys(item));
  const limit = plan?.connections ?? 0;
  const items: TransactItem[] = [
    tx.putUnique({ ...connectionNameMarker(companyId, data.name), entity: 'unique', connectionId: id }),
    tx.put(item, 'attribute_not_exists(PK)'),
    usageIncrement(companyId, 'connections', limit),
  ];
  if (hash) items.push(tx.putUnique({ ...connectionTokenMarker(hash), entity: 'wtoken', companyId, connectionId: id }));
  if (makeDefault) {
    for (const other of existing.filter((c) => c.isDefault)) {
      items.push(tx.update(connectionKey(companyId, other.id), 'SET isDefault = :f', { ':f': false }, 'attribute_exists(PK)'));
    }
  }
  // 256 random bits never collide: a token marker that exists is a fault, not an answer to show.
  await transact(items, (i) => (i === 0 ? nameTaken() : i === 2 ? limitError('connections', limit) : undefined));
  await publishConnection(item, 'create');
  if (makeDefault) for (const other of existing.filter((c) => c.isDefault)) await publishConnection({ ...other, isDefault: false }, 'update');
  // A new connection starts its session at once: the QR (or the sandbox phone) is waiting.
  await sendCommand({ type: 'start', companyId, connectionId: id });
  return withToken(await toApiConnection(item), token);
}

/** The answer that carries a new token: the only time it is ever shown. */
const withToken = (c: Connection, token: string | undefined): Connection => (token ? { ...c, token } : c);

export async function updateConnection(companyId: number, id: number, input: unknown): Promise<Connection> {
  const current = await getConnectionItem(companyId, id);
  const data = parseOrThrow(connectionUpdateSchema, input);
  const queueIds = data.queueIds ? [...new Set(data.queueIds)] : current.queueIds;
  const greeting = data.greetingMessage ?? current.greetingMessage;
  if (queueIds.length > 1 && !greeting.trim()) throw greetingRequired();
  await assertRefs(companyId, queueIds, data.transferQueueId, data.sendIdQueue);
  await checkAutomationReferences(companyId, data);
  if (data.isDefault === false && current.isDefault) {
    throw new AppError(400, 'ERR_NO_OTHER_WHATSAPP', { fields: [{ field: 'isDefault', message: 'ERR_NO_OTHER_WHATSAPP' }] });
  }
  const now = nowIso();
  const token = data.generateToken ? newToken() : undefined;
  const newHash = token ? tokenHash(token) : undefined;
  const { token: _token, generateToken: _generate, queueIds: _q, ...fields } = data;
  // Only the edited settings are written: the session host updates status and QR of the same item
  // concurrently, and neither may overwrite the other.
  const changed: Record<string, unknown> = Object.fromEntries(
    Object.entries({ ...fields, queueIds, tokenHash: newHash ?? current.tokenHash, updatedAt: now }).filter(([, v]) => v !== undefined),
  );
  // The sweeper's list of connections with ticket timers follows the edited timer settings.
  const timersEdited = data.timeToTransfer !== undefined || data.transferQueueId !== undefined || data.expiresTicket !== undefined;
  const timerKeys = timersEdited ? connectionTimerKeys({ ...current, ...changed, companyId, id }) : undefined;
  if (timerKeys) Object.assign(changed, timerKeys);
  const names = Object.fromEntries(Object.keys(changed).map((k, i) => [`#f${i}`, k]));
  const values = Object.fromEntries(Object.values(changed).map((v, i) => [`:f${i}`, v]));
  const items: TransactItem[] = [
    tx.update(
      connectionKey(companyId, id),
      `SET ${Object.keys(changed).map((_, i) => `#f${i} = :f${i}`).join(', ')}${timersEdited && !timerKeys ? ' REMOVE GSI2PK, GSI2SK' : ''}`,
      values,
      'attribute_exists(PK)',
      names,
    ),
  ];
  const nameChanged = data.name && data.name.trim().toLowerCase() !== current.name.trim().toLowerCase();
  if (nameChanged) {
    items.push(tx.putUnique({ ...connectionNameMarker(companyId, data.name!), entity: 'unique', connectionId: id }));
    items.push(tx.delete(connectionNameMarker(companyId, current.name)));
  }
  const tokenChanged = newHash && newHash !== current.tokenHash;
  if (tokenChanged) {
    items.push(tx.putUnique({ ...connectionTokenMarker(newHash), entity: 'wtoken', companyId, connectionId: id }));
    if (current.tokenHash) items.push(tx.delete(connectionTokenMarker(current.tokenHash)));
  }
  const demoted: ConnectionItem[] = [];
  if (data.isDefault === true && !current.isDefault) {
    for (const other of (await listConnectionItems(companyId)).filter((c) => c.isDefault && c.id !== id)) {
      items.push(tx.update(connectionKey(companyId, other.id), 'SET isDefault = :f', { ':f': false }, 'attribute_exists(PK)'));
      demoted.push({ ...other, isDefault: false });
    }
  }
  await transact(items, (i) => {
    if (i === 0) return new AppError(404, 'ERR_NO_WAPP_FOUND');
    if (nameChanged && i === 1) return nameTaken();
    return undefined;
  });
  forgetTicketRef(connectionKey(companyId, id));
  const fresh = await getConnectionItem(companyId, id);
  await publishConnection(fresh, 'update');
  for (const d of demoted) await publishConnection(d, 'update');
  return withToken(await toApiConnection(fresh), token);
}

/** Deleting ends the session (logout) and, for the default, promotes the oldest other connection. */
export async function deleteConnection(companyId: number, id: number): Promise<void> {
  const current = await getConnectionItem(companyId, id);
  const others = (await listConnectionItems(companyId)).filter((c) => c.id !== id).sort((a, b) => a.id - b.id);
  const items: TransactItem[] = [
    tx.delete(connectionKey(companyId, id), 'attribute_exists(PK)'),
    tx.delete(connectionNameMarker(companyId, current.name)),
    usageDecrement(companyId, 'connections'),
  ];
  if (current.tokenHash) items.push(tx.delete(connectionTokenMarker(current.tokenHash)));
  const promoted = current.isDefault && others.length && !others.some((o) => o.isDefault) ? others[0] : undefined;
  if (promoted) items.push(tx.update(connectionKey(companyId, promoted.id), 'SET isDefault = :t', { ':t': true }, 'attribute_exists(PK)'));
  await transact(items, (i) => (i === 0 ? new AppError(404, 'ERR_NO_WAPP_FOUND') : undefined));
  await sendCommand({ type: 'logout', companyId, connectionId: id });
  await publish({ companyId, event: companyEvent(companyId, 'whatsapp'), data: { action: 'delete', whatsappId: id }, audience: [{ kind: 'company' }] });
  if (promoted) await publishConnection({ ...promoted, isDefault: true }, 'update');
}

const alreadyConnected = () =>
  new AppError(409, 'ERR_WAPP_ALREADY_CONNECTED');

/**
 * Session actions of the connections page (spec 000 §4): the session host carries them out.
 * - `start` (Try again) is idempotent: a session that is starting, showing a QR or connected is
 *   answered as it is (the host is still asked, and starts it only if it has none), so a second
 *   start can never drop a scan in progress. With a `pairingNumber` the host switches a waiting
 *   session to a pairing code for that number (refused on a connected one).
 * - `newQr` is the explicit action that forgets the credentials; refused on a connected session,
 *   answered as it is while a session is starting or showing a code (the button pressed twice).
 * - `restart` (Reconnect) starts again with the same credentials.
 * The status is reset to OPENING only over the status read, so a session that connected meanwhile
 * is never shown as starting again; the host ignores a repeated press (decision 35).
 */
export async function sessionAction(
  companyId: number,
  id: number,
  action: 'start' | 'newQr' | 'restart' | 'logout',
  body: Record<string, unknown> = {},
): Promise<Connection> {
  // Linking with a pairing code instead of the QR: the phone number that will type the code.
  const pairingNumber = typeof body.pairingNumber === 'string' && body.pairingNumber.trim() ? normalizeNumber(body.pairingNumber) : undefined;
  if (pairingNumber !== undefined && !/^\d{10,15}$/.test(pairingNumber)) {
    throw new AppError(400, 'ERR_VALIDATION', { message: 'Número inválido', fields: [{ field: 'pairingNumber', message: 'Número inválido' }] });
  }
  for (let attempt = 0; ; attempt++) {
    const current = await getConnectionItem(companyId, id);
    const live = LIVE_SESSION_STATUSES.includes(current.status);
    if ((action === 'newQr' || pairingNumber) && current.status === 'CONNECTED') throw alreadyConnected();
    // New QR pressed again while the first one's session is starting or showing its code: that
    // session is the new QR asked for (restarting it could drop a scan in progress).
    if (action === 'newQr' && live) return toApiConnection(current);
    if (action === 'start' && live) {
      // The host decides: a pairing code for another number restarts the waiting session (and
      // reports it), anything else leaves it as it is. The status stays the host's to write.
      await sendCommand({ type: 'start', companyId, connectionId: id, pairingNumber });
      return toApiConnection(current);
    }
    const status: SessionStatus = action === 'logout' ? 'DISCONNECTED' : 'OPENING';
    let updated: ConnectionItem;
    try {
      updated = await updateItem<ConnectionItem>(
        connectionKey(companyId, id),
        { status, qrcode: '', retries: action === 'logout' ? current.retries : 0, updatedAt: nowIso() },
        { condition: 'attribute_exists(PK) AND #st = :read', values: { ':read': current.status }, names: { '#st': 'status' } },
      );
    } catch (err) {
      // The session host changed the status meanwhile: decide again on the new one.
      if (isConditionFailure(err) && attempt < 3) continue;
      if (isConditionFailure(err)) throw new AppError(409, 'ERR_WAPP_STATE_CHANGED');
      throw err;
    }
    await sendCommand({ type: action, companyId, connectionId: id, pairingNumber: action === 'logout' ? undefined : pairingNumber });
    await publishSession(updated);
    return toApiConnection(updated);
  }
}

export async function publishSession(item: ConnectionItem) {
  const session = await toApiConnection(item);
  await publish({
    companyId: item.companyId,
    event: companyEvent(item.companyId, 'whatsappSession'),
    data: { action: 'update', session },
    audience: [{ kind: 'company' }],
  });
}

/** The external API: a connection by its token (looked up by hash; the token is never stored). */
export async function connectionByToken(token: string): Promise<ConnectionItem | undefined> {
  const marker = await getItem<{ companyId: number; connectionId: number }>(connectionTokenMarker(tokenHash(token)));
  if (!marker) return undefined;
  return getItem<ConnectionItem>(connectionKey(marker.companyId, marker.connectionId));
}

export const newApiToken = () => randomBytes(24).toString('base64url');
