import {
  AppError,
  DEFAULT_PROFILE,
  PRESENCE_TTL_SECONDS,
  companyEvent,
  parseOrThrow,
  userCreateSchema,
  userListQuerySchema,
  userUpdateSchema,
  type User,
} from '@balcao/shared';
import { batchGet, clean, getItem, nextId, queryAll, transact, tx, updateItem } from '../core/db.js';
import { connectionKey, keys } from '../table/keys.js';
import { identityProvider } from '../core/cognito.js';
import { assertImage, deleteObject, putObject, readUrl } from '../core/storage.js';
import { publish } from '../core/realtime.js';
import type { Identity } from '../core/identity.js';
import type { UploadedFile } from '../core/http.js';
import { limitError, usageDecrement, usageIncrement } from './usage.js';
import { listQueueItems } from './queues.js';
import { forgetTicketRef } from './ref-cache.js';
import { removeUserFromChats } from './chats.js';
import { type CompanyItem, type PlanItem, type QueueItem, type UserItem } from '../table/items.js';
import { nowIso, nowMs } from '../core/ports.js';

const emailTaken = () =>
  new AppError(409, 'ERR_EMAIL_ALREADY_EXISTS', { fields: [{ field: 'email', message: 'ERR_EMAIL_ALREADY_EXISTS' }] });

export function isOnline(user: Pick<UserItem, 'online' | 'lastSeenAt'>, now = nowMs()): boolean {
  return !!user.online && !!user.lastSeenAt && now - Date.parse(user.lastSeenAt) < PRESENCE_TTL_SECONDS * 1000;
}

export async function toApiUser(user: UserItem, queues?: Map<number, QueueItem>): Promise<User> {
  const queueMap = queues ?? new Map((await listQueueItems(user.companyId)).map((q) => [q.id, q]));
  const { sub: _sub, photoKey, session: _session, lastSeenAt: _seen, ...rest } = clean(user);
  return {
    ...(rest as unknown as User),
    online: isOnline(user),
    photoUrl: photoKey ? await readUrl(photoKey) : null,
    queues: (user.queueIds ?? [])
      .map((id) => queueMap.get(id))
      .filter((q): q is QueueItem => !!q)
      .map((q) => ({ id: q.id, name: q.name, color: q.color })),
  };
}

export async function getUserItem(companyId: number, id: number): Promise<UserItem> {
  const item = await getItem<UserItem>(keys.user(companyId, id));
  if (!item) throw new AppError(404, 'ERR_NO_USER_FOUND');
  return item;
}

export const listUserItems = (companyId: number) => queryAll<UserItem>(keys.companyPartition(companyId), keys.userPrefix());

const fold = (s: string) => s.normalize('NFD').replace(/[\u0300-\u036f]/g, '').toLowerCase();

/** The company's users (bounded by the plan) whose name or e-mail holds `searchParam`, of a queue if given, by name. */
async function matchingUsers(companyId: number, searchParam: string | undefined, queueId?: number) {
  const term = fold((searchParam ?? '').trim());
  return (await listUserItems(companyId))
    .filter((u) => !queueId || (u.queueIds ?? []).includes(queueId))
    .filter((u) => !term || fold(u.name).includes(term) || fold(u.email).includes(term))
    .sort((a, b) => a.name.localeCompare(b.name, 'pt-BR'));
}

/** Users are bounded by the plan, so the page is cut from the company's users in memory. */
export async function searchUsers(companyId: number, searchParam: string | undefined, pageNumber: number, pageSize = 20) {
  const all = await matchingUsers(companyId, searchParam);
  const page = all.slice((pageNumber - 1) * pageSize, pageNumber * pageSize);
  const queues = new Map((await listQueueItems(companyId)).map((q) => [q.id, q]));
  return {
    users: await Promise.all(page.map((u) => toApiUser(u, queues))),
    count: all.length,
    hasMore: pageNumber * pageSize < all.length,
  };
}

/**
 * Names and online state of the company's users (decision 12), in name order: every user, or one
 * queue's users narrowed by a fragment and cut to `limit` (the ticket transfer, decision 36).
 */
export async function listUsersBrief(companyId: number, query: unknown = {}) {
  const { queueId, searchParam, limit } = parseOrThrow(userListQuerySchema, query);
  const all = await matchingUsers(companyId, searchParam, queueId ?? undefined);
  return (limit ? all.slice(0, limit) : all).map((u) => ({ id: u.id, name: u.name, email: u.email, profile: u.profile, online: isOnline(u), companyId: u.companyId }));
}

async function assertQueuesExist(companyId: number, queueIds: number[]) {
  if (!queueIds.length) return;
  const found = await batchGet<QueueItem>(queueIds.map((id) => keys.queue(companyId, id)));
  if (found.length !== new Set(queueIds).size) {
    throw new AppError(400, 'ERR_NO_QUEUE_FOUND', { fields: [{ field: 'queueIds', message: 'ERR_NO_QUEUE_FOUND' }] });
  }
}

async function assertConnectionExists(companyId: number, whatsappId: number | null | undefined) {
  if (whatsappId === null || whatsappId === undefined) return;
  const found = await getItem(connectionKey(companyId, whatsappId));
  if (!found) throw new AppError(400, 'ERR_NO_WAPP_FOUND', { fields: [{ field: 'whatsappId', message: 'ERR_NO_WAPP_FOUND' }] });
}

async function storePhoto(companyId: number, userId: number, file: UploadedFile | undefined): Promise<string | undefined> {
  if (!file) return undefined;
  const type = assertImage(file.data, 'photo');
  const key = `c/${companyId}/users/${userId}/photo-${nowMs()}.${type.split('/')[1]}`;
  await putObject(key, file.data, type);
  return key;
}

const photoFile = (files: UploadedFile[]) => files.find((f) => ['photo', 'photoUrl', 'profileImage', 'file'].includes(f.field));

export interface CreateUserOptions {
  isSuper?: boolean;
  /** Skip the plan limit (the company's own first admin is created with the company). */
  skipLimit?: boolean;
}

/** Creates the Cognito user and the table records in one step; undoes Cognito if the table refuses. */
export async function createUser(
  companyId: number,
  input: unknown,
  files: UploadedFile[] = [],
  opts: CreateUserOptions = {},
): Promise<UserItem> {
  const data = parseOrThrow(userCreateSchema, input);
  const company = await getItem<CompanyItem>(keys.company(companyId));
  if (!company) throw new AppError(404, 'ERR_NO_COMPANY_FOUND');
  const plan = await getItem<PlanItem>(keys.plan(company.planId));
  const queueIds = [...new Set(data.queueIds ?? [])];
  await assertQueuesExist(companyId, queueIds);
  await assertConnectionExists(companyId, data.whatsappId);
  if (await getItem(keys.uniqueEmail(data.email))) throw emailTaken();

  const id = await nextId(companyId, 'user');
  const photoKey = (await storePhoto(companyId, id, photoFile(files))) ?? null;
  const sub = await identityProvider.createUser(data.email, data.password);
  const now = nowIso();
  const item: UserItem = {
    ...keys.user(companyId, id),
    entity: 'user',
    id,
    companyId,
    sub,
    name: data.name,
    email: data.email,
    profile: data.profile ?? DEFAULT_PROFILE,
    super: opts.isSuper ?? false,
    queueIds,
    whatsappId: data.whatsappId ?? null,
    allTicket: data.allTicket ?? 'desabled',
    sendGreetingAccepted: data.sendGreetingAccepted ?? false,
    photoKey,
    online: false,
    createdAt: now,
    updatedAt: now,
  };
  const limit = plan?.users ?? 0;
  const items = [
    tx.putUnique({ ...keys.uniqueEmail(data.email), entity: 'unique', companyId, userId: id, sub }),
    tx.put(item, 'attribute_not_exists(PK)'),
    tx.put({ ...keys.identity(sub), entity: 'identity', companyId, userId: id }),
    usageIncrement(companyId, 'users', opts.skipLimit ? undefined : limit),
  ];
  try {
    await transact(items, (i) => (i === 0 ? emailTaken() : i === 3 ? limitError('users', limit) : undefined));
  } catch (err) {
    await identityProvider.deleteUser(data.email);
    if (photoKey) await deleteObject(photoKey).catch(() => undefined);
    throw err;
  }
  const api = await toApiUser(item);
  await publish({ companyId, event: companyEvent(companyId, 'user'), data: { action: 'create', user: api }, audience: [{ kind: 'company' }] });
  return item;
}

/**
 * Admins edit anyone of their company; others edit only themselves and never their profile,
 * queues, default connection or ticket scope (spec 000 §2.6).
 */
export async function updateUser(identity: Identity, companyId: number, id: number, input: unknown, files: UploadedFile[] = []): Promise<UserItem> {
  const current = await getUserItem(companyId, id);
  const privileged = identity.isAdmin || identity.isSuper;
  if (!privileged && identity.userId !== id) throw new AppError(403, 'ERR_NO_PERMISSION');
  const data = parseOrThrow(userUpdateSchema, input);
  if (!privileged) {
    const tries =
      (data.profile !== undefined && data.profile !== current.profile) ||
      (data.queueIds !== undefined && JSON.stringify([...data.queueIds].sort()) !== JSON.stringify([...current.queueIds].sort())) ||
      (data.whatsappId !== undefined && data.whatsappId !== current.whatsappId) ||
      (data.allTicket !== undefined && data.allTicket !== current.allTicket);
    if (tries) throw new AppError(403, 'ERR_NO_PERMISSION');
  }
  if (data.queueIds) await assertQueuesExist(companyId, data.queueIds);
  if (data.whatsappId !== undefined) await assertConnectionExists(companyId, data.whatsappId);
  // An admin may not take away the company's last admin (they would lock the company out).
  if (data.profile && data.profile !== 'admin' && current.profile === 'admin') {
    const admins = (await listUserItems(companyId)).filter((u) => u.profile === 'admin');
    if (admins.length <= 1) throw new AppError(400, 'ERR_NO_PERMISSION', { message: 'A empresa precisa de pelo menos um administrador' });
  }

  const now = nowIso();
  const newEmail = data.email && data.email !== current.email ? data.email : undefined;
  if (newEmail) {
    await transact(
      [
        tx.putUnique({ ...keys.uniqueEmail(newEmail), entity: 'unique', companyId, userId: id, sub: current.sub }),
        tx.delete(keys.uniqueEmail(current.email)),
      ],
      (i) => (i === 0 ? emailTaken() : undefined),
    );
    try {
      await identityProvider.changeEmail(current.email, newEmail);
    } catch (err) {
      await transact([tx.delete(keys.uniqueEmail(newEmail)), tx.put({ ...keys.uniqueEmail(current.email), entity: 'unique', companyId, userId: id, sub: current.sub })]);
      throw err;
    }
  }
  if (data.password) await identityProvider.setPassword(newEmail ?? current.email, data.password);
  // Someone else's password changed: whoever was signed in with the old one is signed out (issue 16 §5).
  const endOthersSession = !!data.password && identity.userId !== id;
  const photoKey = await storePhoto(companyId, id, photoFile(files));
  const updated = await updateItem<UserItem>(keys.user(companyId, id), {
    name: data.name,
    email: newEmail,
    profile: privileged ? data.profile : undefined,
    queueIds: privileged && data.queueIds ? [...new Set(data.queueIds)] : undefined,
    whatsappId: privileged ? data.whatsappId : undefined,
    allTicket: privileged ? data.allTicket : undefined,
    sendGreetingAccepted: data.sendGreetingAccepted,
    photoKey,
    updatedAt: now,
  });
  forgetTicketRef(keys.user(companyId, id));
  if (photoKey && current.photoKey) await deleteObject(current.photoKey).catch(() => undefined);
  if (endOthersSession) {
    await endSessions(updated, { revokeSignIns: true });
    return { ...updated, online: false, session: undefined };
  }
  const api = await toApiUser(updated);
  await publish({ companyId, event: companyEvent(companyId, 'user'), data: { action: 'update', user: api }, audience: [{ kind: 'company' }] });
  return updated;
}

export async function deleteUser(identity: Identity, companyId: number, id: number): Promise<void> {
  const current = await getUserItem(companyId, id);
  if (identity.userId === id && identity.companyId === companyId) {
    throw new AppError(400, 'ERR_NO_PERMISSION', { message: 'Você não pode excluir o seu próprio usuário' });
  }
  await removeUserRecords(current);
  await publish({ companyId, event: companyEvent(companyId, 'user'), data: { action: 'delete', userId: id }, audience: [{ kind: 'company' }] });
}

/**
 * Removes a user everywhere: table records, usage, Cognito, the photo, then their internal chats
 * (decision 57: they leave each one; a group they owned passes on, a chat left with one member is
 * deleted). The chats come after the user item is gone, so the user can no longer be added to one.
 */
export async function removeUserRecords(user: UserItem): Promise<void> {
  await transact(
    [
      tx.delete(keys.user(user.companyId, user.id), 'attribute_exists(PK)'),
      tx.delete(keys.identity(user.sub)),
      tx.delete(keys.uniqueEmail(user.email)),
      usageDecrement(user.companyId, 'users'),
    ],
    (i) => (i === 0 ? new AppError(404, 'ERR_NO_USER_FOUND') : undefined),
  );
  await identityProvider.deleteUser(user.email);
  if (user.photoKey) await deleteObject(user.photoKey).catch(() => undefined);
  await removeUserFromChats(user.companyId, user.id);
}

/**
 * Ends the user's session (single session, §14): its tokens stop working at once, the user shows
 * offline and every console hears it. With `revokeSignIns`, Cognito also revokes every refresh
 * token (a password reset or an admin's password change: nothing signed in before is renewed).
 */
export async function endSessions(user: UserItem, opts: { revokeSignIns?: boolean } = {}): Promise<void> {
  const updated = await updateItem<UserItem>(keys.user(user.companyId, user.id), { online: false, updatedAt: nowIso() }, { remove: ['session', 'GSI2PK', 'GSI2SK'] });
  if (opts.revokeSignIns) await identityProvider.globalSignOut(user.email);
  await publish({
    companyId: user.companyId,
    event: companyEvent(user.companyId, 'user'),
    data: { action: 'update', user: await toApiUser(updated) },
    audience: [{ kind: 'company' }],
  });
}
