import {
  AppError,
  CHATS_PAGE,
  CHAT_MEDIAS_MAX,
  CHAT_MESSAGES_PAGE,
  CHAT_USERS_REQUIRED,
  MSG,
  MULTIPART_MEDIA_MAX_BYTES,
  chatListQuerySchema,
  chatMessageSchema,
  chatMessagesQuerySchema,
  chatReadSchema,
  chatSchema,
  chatUpdateSchema,
  companyEvent,
  parseOrThrow,
  type ApiChat,
  type ApiChatMessage,
  type Audience,
  type CompanyEventData,
  type RealtimeMessage,
} from '@balcao/shared';
import { batchGet, batchWrite, conflictPause, getItem, isTransactionCanceled, nextId, queryAll, transact, tx, type TransactItem } from '../core/db.js';
import type { UploadedFile } from '../core/http.js';
import type { Identity } from '../core/identity.js';
import { log } from '../core/observability.js';
import { nowIso, table, uuid } from '../core/ports.js';
import { publish } from '../core/realtime.js';
import { deleteObject, readUrl } from '../core/storage.js';
import { env } from '../core/env.js';
import { chatKey, chatMessageKey, chatMessagePrefix, chatMessageSk, chatPartition, keys, userChatKey, userChatPrefix, userChatsPartition } from '../table/keys.js';
import type { ChatItem, ChatMessageItem, UserChatItem, UserItem } from '../table/items.js';
import { checkFile, checkUpload, commitFile, commitUpload, createUpload, mediaExtension, type OutgoingMedia } from './media.js';

/**
 * Internal chat between a company's users (issue 21 §2; spec 002 §2-§7; decision 57). A chat item
 * holds its members and each member's unread count; every send writes its messages and the counts
 * in one transaction conditioned on the chat version read (last message number and `updatedAt`),
 * so counts stay exact under concurrent sends and edits and are never recounted. Only members see
 * a chat, its messages and its files (anyone else: 404); only the owner edits or deletes it (403).
 */

const notFound = () => new AppError(404, 'ERR_NOT_FOUND');
const ownerOnly = () => new AppError(403, 'ERR_CHAT_OWNER_ONLY', { message: 'Só quem criou a conversa pode editá-la ou excluí-la' });
const invalid = (field: string, message: string) => new AppError(400, 'ERR_VALIDATION', { message, fields: [{ field, message }] });
const oneToOne = () =>
  new AppError(400, 'ERR_CHAT_ONE_TO_ONE', {
    message: 'Uma conversa individual tem exatamente um outro participante',
    fields: [{ field: 'users', message: 'ERR_CHAT_ONE_TO_ONE' }],
  });
/** How many times a write that lost a race with another one reads the chat again. */
const MAX_ATTEMPTS = 40;
const LAST_MESSAGE_MAX = 255;

/**
 * An edit's `updatedAt`: strictly after the version it replaces (even within one millisecond or
 * behind another function's clock), so a send conditioned on the old one always sees the edit.
 */
const editedAt = (previous: string) => {
  const now = nowIso();
  return now > previous ? now : new Date(Date.parse(previous) + 1).toISOString();
};

const audienceOf = (memberIds: number[]): Audience[] => memberIds.map((userId) => ({ kind: 'user', userId }));
const chatEvent = (companyId: number, data: CompanyEventData['chat'], memberIds: number[]): RealtimeMessage => ({
  companyId,
  event: companyEvent(companyId, 'chat'),
  data,
  audience: audienceOf(memberIds),
});

async function readChat(companyId: number, id: number): Promise<ChatItem | undefined> {
  const chat = await getItem<ChatItem>(chatKey(companyId, id), true);
  return chat?.entity === 'chat' ? chat : undefined;
}

/** The chat when the caller is one of its members; anyone else learns nothing of it. */
async function memberChat(identity: Identity, id: number): Promise<ChatItem> {
  const chat = await readChat(identity.companyId, id);
  if (!chat || !chat.memberIds.includes(identity.userId)) throw notFound();
  return chat;
}

async function ownedChat(identity: Identity, id: number): Promise<ChatItem> {
  const chat = await memberChat(identity, id);
  if (chat.ownerId !== identity.userId) throw ownerOnly();
  return chat;
}

/** The users of the caller's company named by `ids` (each must exist there). */
async function companyUsers(companyId: number, ids: number[]): Promise<Map<number, UserItem>> {
  const found = await batchGet<UserItem>(ids.map((id) => keys.user(companyId, id)));
  const byId = new Map(found.filter((u) => u.entity === 'user').map((u) => [u.id, u]));
  if (ids.some((id) => !byId.has(id))) throw new AppError(400, 'ERR_NO_USER_FOUND', { fields: [{ field: 'users', message: 'ERR_NO_USER_FOUND' }] });
  return byId;
}

async function usersOf(companyId: number, chats: ChatItem[]): Promise<Map<number, UserItem>> {
  const ids = [...new Set(chats.flatMap((c) => c.memberIds))];
  const found = await batchGet<UserItem>(ids.map((id) => keys.user(companyId, id)));
  return new Map(found.map((u) => [u.id, u]));
}

export async function toApiChat(chat: ChatItem, users?: Map<number, UserItem>): Promise<ApiChat> {
  const byId = users ?? (await usersOf(chat.companyId, [chat]));
  return {
    id: chat.id,
    uuid: chat.uuid,
    title: chat.title,
    isGroup: chat.isGroup,
    ownerId: chat.ownerId,
    lastMessage: chat.lastMessage,
    createdAt: chat.createdAt,
    updatedAt: chat.updatedAt,
    users: await Promise.all(
      chat.memberIds.map(async (userId) => {
        const u = byId.get(userId);
        return { userId, unreads: chat.unreads[String(userId)] ?? 0, user: { id: userId, name: u?.name ?? '', photoUrl: u?.photoKey ? await readUrl(u.photoKey) : null } };
      }),
    ),
  };
}

async function toApiChatMessage(m: ChatMessageItem, names: Map<number, UserItem>): Promise<ApiChatMessage> {
  return {
    id: m.id,
    chatId: m.chatId,
    senderId: m.senderId,
    sender: { id: m.senderId, name: names.get(m.senderId)?.name ?? '' },
    message: m.message,
    mediaUrl: m.media ? await readUrl(m.media.key, 15 * 60) : null,
    mediaType: m.media?.kind ?? null,
    mediaName: m.media?.fileName ?? null,
    createdAt: m.createdAt,
  };
}

/** `GET /chats`: the caller's chats, latest activity first, with how many of all of them have unread messages. */
export async function listChats(identity: Identity, query: unknown) {
  const { pageNumber = 1 } = parseOrThrow(chatListQuerySchema, query);
  const { companyId, userId } = identity;
  const pointers = await queryAll<UserChatItem>(userChatsPartition(companyId, userId), userChatPrefix());
  const chats = (await batchGet<ChatItem>(pointers.map((p) => chatKey(companyId, p.chatId))))
    .filter((c) => c.entity === 'chat' && c.memberIds.includes(userId))
    .sort((a, b) => (a.updatedAt === b.updatedAt ? b.id - a.id : a.updatedAt < b.updatedAt ? 1 : -1));
  const page = chats.slice((pageNumber - 1) * CHATS_PAGE, pageNumber * CHATS_PAGE);
  const users = await usersOf(companyId, page);
  return {
    records: await Promise.all(page.map((c) => toApiChat(c, users))),
    count: chats.length,
    hasMore: pageNumber * CHATS_PAGE < chats.length,
    unreadChats: chats.filter((c) => (c.unreads[String(userId)] ?? 0) > 0).length,
  };
}

/** The members a request names: the caller (owner) first, then the others once each. */
function membersOf(ownerId: number, users: number[]) {
  const others = [...new Set(users)].filter((id) => id !== ownerId);
  if (others.length === 0) throw invalid('users', CHAT_USERS_REQUIRED);
  return { others, memberIds: [ownerId, ...others] };
}

/** `POST /chats {users, title, isGroup}`. */
export async function createChat(identity: Identity, input: unknown): Promise<ApiChat> {
  const data = parseOrThrow(chatSchema, input);
  const { companyId, userId } = identity;
  const { others, memberIds } = membersOf(userId, data.users);
  const isGroup = data.isGroup ?? others.length > 1;
  if (!isGroup && others.length !== 1) throw oneToOne();
  const users = await companyUsers(companyId, memberIds);
  const id = await nextId(companyId, 'chat');
  const now = nowIso();
  const chat: ChatItem = {
    ...chatKey(companyId, id),
    entity: 'chat',
    id,
    uuid: uuid(),
    companyId,
    title: data.title,
    isGroup,
    ownerId: userId,
    memberIds,
    unreads: Object.fromEntries(memberIds.map((m) => [String(m), 0])),
    lastSeq: 0,
    lastMessage: '',
    createdAt: now,
    updatedAt: now,
  };
  await transact([tx.put(chat, 'attribute_not_exists(PK)'), ...memberIds.map((m) => tx.put(pointer(companyId, m, id)))]);
  const api = await toApiChat(chat, users);
  await publish(chatEvent(companyId, { action: 'create', chat: api }, memberIds));
  return api;
}

const pointer = (companyId: number, userId: number, chatId: number): UserChatItem => ({ ...userChatKey(companyId, userId, chatId), entity: 'userChat', chatId, userId });

/**
 * Runs `attempt` until its write is not refused by a race: a failed condition (the chat changed
 * since it was read) or a conflict with another transaction on the chat. `attempt` reads the chat
 * afresh each time, so each write is computed from the version it is conditioned on.
 */
async function untilWritten<T>(attempt: () => Promise<T>): Promise<T> {
  for (let n = 0; ; n++) {
    try {
      return await attempt();
    } catch (err) {
      const raced = isTransactionCanceled(err) || (err as { name?: string })?.name === 'TransactionConflictException' || (err as { name?: string })?.name === 'ConditionalCheckFailedException';
      if (!raced || n >= MAX_ATTEMPTS) throw err;
      await conflictPause(Math.min(n, 5));
    }
  }
}

/** What an edit to `memberIds` changes: the members it adds and the ones it removes. */
const memberChanges = (current: ChatItem, memberIds: number[]) => ({
  added: memberIds.filter((m) => !current.memberIds.includes(m)),
  removed: current.memberIds.filter((m) => !memberIds.includes(m)),
});

/** `current` edited: members kept keep their counts, members added start at 0, `updatedAt` strictly on. */
const editedChat = (current: ChatItem, change: { memberIds: number[]; title?: string; ownerId?: number }): ChatItem => ({
  ...current,
  title: change.title ?? current.title,
  ownerId: change.ownerId ?? current.ownerId,
  memberIds: change.memberIds,
  unreads: Object.fromEntries(change.memberIds.map((m) => [String(m), current.unreads[String(m)] ?? 0])),
  updatedAt: editedAt(current.updatedAt),
});

/** The condition an edit or a removal is written under: the chat version read (no message and no edit since). */
const sameVersion = (current: ChatItem): [string, Record<string, unknown>] => ['lastSeq = :s AND updatedAt = :u', { ':s': current.lastSeq, ':u': current.updatedAt }];

/**
 * Writes `next` over `current`, the version read, in one transaction with the pointers of the
 * members added and removed. Over that version, a message sent meanwhile (its counts) is never
 * overwritten, and a send read before this edit fails its condition on `updatedAt` (it would
 * count and notify old members); either way the caller's `untilWritten` reads the chat again.
 */
async function writeEdit(current: ChatItem, next: ChatItem): Promise<void> {
  const { companyId, id } = current;
  const { added, removed } = memberChanges(current, next.memberIds);
  await transact([
    tx.put(next, ...sameVersion(current)),
    ...added.map((m) => tx.put(pointer(companyId, m, id))),
    ...removed.map((m) => tx.delete(userChatKey(companyId, m, id))),
  ]);
}

/** The chat item and every member's pointer, removed in one transaction (`condition` on the chat item). */
const chatDeletion = (chat: ChatItem, condition: string, values?: Record<string, unknown>): TransactItem[] => [
  tx.delete(chatKey(chat.companyId, chat.id), condition, values),
  ...chat.memberIds.map((m) => tx.delete(userChatKey(chat.companyId, m, chat.id))),
];

/** After a chat item is deleted: its messages and their files. */
async function removeMessages(chat: ChatItem): Promise<void> {
  // Consistent: a send committed just before the delete is seen (it could not commit after it).
  const messages = await queryAll<ChatMessageItem>(chatPartition(chat.companyId, chat.id), chatMessagePrefix(), { ConsistentRead: true });
  await batchWrite(messages.map((m) => ({ DeleteRequest: { Key: { PK: m.PK, SK: m.SK } } })));
  for (const m of messages) if (m.media) await deleteObject(m.media.key).catch((err) => log.warn('chat file not removed', { err, key: m.media?.key }));
}

/** `PUT /chats/{id} {users, title}`: the owner only; members removed lose the chat, members added start at 0 unread. */
export async function updateChat(identity: Identity, id: number, input: unknown): Promise<ApiChat> {
  const data = parseOrThrow(chatUpdateSchema, input);
  const { companyId } = identity;
  let removed: number[] = [];
  const next = await untilWritten(async () => {
    const current = await ownedChat(identity, id);
    const memberIds = data.users ? membersOf(current.ownerId, data.users).memberIds : current.memberIds;
    if (!current.isGroup && memberIds.length !== 2) throw oneToOne();
    const changes = memberChanges(current, memberIds);
    // Only newcomers must be users of the company (a member since removed from it does not block edits).
    if (changes.added.length) await companyUsers(companyId, changes.added);
    removed = changes.removed;
    const item = editedChat(current, { memberIds, title: data.title });
    await writeEdit(current, item);
    return item;
  });
  const api = await toApiChat(next);
  await publish([chatEvent(companyId, { action: 'update', chat: api }, next.memberIds), ...(removed.length ? [chatEvent(companyId, { action: 'delete', chatId: id }, removed)] : [])]);
  return api;
}

/** `DELETE /chats/{id}`: the owner only; the messages and their files go with it. */
export async function deleteChat(identity: Identity, id: number): Promise<void> {
  const chat = await ownedChat(identity, id);
  const { companyId } = identity;
  // The chat item first: a send racing this one fails its condition on the chat.
  await transact(chatDeletion(chat, 'attribute_exists(PK)'), () => notFound());
  await publish(chatEvent(companyId, { action: 'delete', chatId: id }, chat.memberIds));
  await removeMessages(chat);
}

/**
 * A deleted user leaves every chat they belong to (read through their pointers, one Query). Each
 * chat is an edit over the version read (`writeEdit`, retried by `untilWritten`), so a send racing
 * the removal neither counts them nor reaches them: their pointer and count go; a group they owned
 * passes to the remaining member with the lowest id (members are kept in the order an edit names
 * them, not the order they joined) and keeps the owner first; a chat left with fewer than two
 * members is deleted as `DELETE /chats/{id}` deletes it (pointers, messages, files). The remaining
 * members hear `update` or `delete`. Every chat is tried; the first failure is raised at the end.
 */
export async function removeUserFromChats(companyId: number, userId: number): Promise<void> {
  // Consistent: a chat the user was added to just before is not missed.
  const pointers = await queryAll<UserChatItem>(userChatsPartition(companyId, userId), userChatPrefix(), { ConsistentRead: true });
  let failure: unknown;
  for (const p of pointers) {
    try {
      await leaveChat(companyId, userId, p.chatId);
    } catch (err) {
      log.error('chat not left by a deleted user', { err, companyId, userId, chatId: p.chatId });
      failure ??= err;
    }
  }
  if (failure) throw failure;
}

async function leaveChat(companyId: number, userId: number, id: number): Promise<void> {
  const outcome = await untilWritten(async (): Promise<{ edited: ChatItem } | { deleted: ChatItem; remaining: number[] } | undefined> => {
    const current = await readChat(companyId, id);
    if (!current || !current.memberIds.includes(userId)) {
      // A pointer left behind (the chat deleted, or the user removed from it, meanwhile).
      await transact([tx.delete(userChatKey(companyId, userId, id))]);
      return undefined;
    }
    const remaining = current.memberIds.filter((m) => m !== userId);
    if (remaining.length < 2) {
      // Over the version read too: an edit that just added members is not wiped out.
      await transact(chatDeletion(current, ...sameVersion(current)));
      return { deleted: current, remaining };
    }
    const ownerId = remaining.includes(current.ownerId) ? current.ownerId : Math.min(...remaining);
    const edited = editedChat(current, { ownerId, memberIds: [ownerId, ...remaining.filter((m) => m !== ownerId)] });
    await writeEdit(current, edited);
    return { edited };
  });
  if (!outcome) return;
  if ('edited' in outcome) {
    await publish(chatEvent(companyId, { action: 'update', chat: await toApiChat(outcome.edited) }, outcome.edited.memberIds));
    return;
  }
  if (outcome.remaining.length) await publish(chatEvent(companyId, { action: 'delete', chatId: id }, outcome.remaining));
  await removeMessages(outcome.deleted);
}

/** `GET /chats/{id}/messages ?pageNumber`: page 1 is the newest messages, each page oldest first. */
export async function listChatMessages(identity: Identity, id: number, query: unknown) {
  const { pageNumber = 1 } = parseOrThrow(chatMessagesQuerySchema, query);
  const chat = await memberChat(identity, id);
  const high = chat.lastSeq - (pageNumber - 1) * CHAT_MESSAGES_PAGE;
  if (high < 1) return { records: [], count: chat.lastSeq, hasMore: false };
  const low = Math.max(1, high - CHAT_MESSAGES_PAGE + 1);
  const out = await table().query({
    TableName: env.tableName,
    KeyConditionExpression: 'PK = :pk AND SK BETWEEN :lo AND :hi',
    ExpressionAttributeValues: { ':pk': chat.PK, ':lo': chatMessageSk(low), ':hi': chatMessageSk(high) },
    // The chat was read consistently: its newest messages must be in the page too.
    ConsistentRead: true,
  });
  const items = (out.Items ?? []) as ChatMessageItem[];
  const names = await companyNames(identity.companyId, items);
  return { records: await Promise.all(items.map((m) => toApiChatMessage(m, names))), count: chat.lastSeq, hasMore: low > 1 };
}

const companyNames = async (companyId: number, items: Pick<ChatMessageItem, 'senderId'>[]) => {
  const ids = [...new Set(items.map((m) => m.senderId))];
  const found = await batchGet<UserItem>(ids.map((uid) => keys.user(companyId, uid)));
  return new Map(found.map((u) => [u.id, u]));
};

/** `POST /chats/{id}/media-upload {fileName, contentType, size}`: a presigned PUT, for members (the ticket upload's checks). */
export async function createChatUpload(identity: Identity, id: number, input: unknown) {
  await memberChat(identity, id);
  return createUpload(identity.companyId, input);
}

type ChatFile = { media: OutgoingMedia; commit: () => Promise<OutgoingMedia> };

/** Where a chat's file is kept: under the chat, not a connection (the object is named by the message alone). */
const chatMediaKey = (companyId: number, chatId: number, media: OutgoingMedia) => `c/${companyId}/chats/${chatId}/${uuid()}.${mediaExtension(media.mimetype, media.fileName ?? '')}`;

/** The send's text and files, every file checked (type by its bytes, size by its kind) before anything is stored. */
async function parseSend(identity: Identity, chatId: number, body: Record<string, unknown>, files: UploadedFile[]): Promise<{ text: string; files: ChatFile[] }> {
  const { companyId } = identity;
  if (files.length) {
    if (files.length > CHAT_MEDIAS_MAX) throw invalid('medias', `Até ${CHAT_MEDIAS_MAX} arquivos por envio`);
    const text = parseOrThrow(chatMessageSchema.pick({ message: true }), { message: body.body ?? body.message }).message.trim();
    const total = files.reduce((n, f) => n + f.data.length, 0);
    if (total > MULTIPART_MEDIA_MAX_BYTES) throw invalid('medias', `Arquivos demais para um envio: até ${MULTIPART_MEDIA_MAX_BYTES / (1024 * 1024)} MB por envio`);
    const checked = files.map((f, i) => checkFile(companyId, 0, f, false, `medias.${i}`));
    return {
      text,
      files: checked.map((c) => {
        const media = { ...c.media, key: chatMediaKey(companyId, chatId, c.media) };
        return { media, commit: () => commitFile({ ...c, media }) };
      }),
    };
  }
  const data = parseOrThrow(chatMessageSchema, body);
  const checked = [];
  for (const [i, m] of (data.medias ?? []).entries()) checked.push(await checkUpload(companyId, 0, m, `medias.${i}`));
  return {
    text: data.message.trim(),
    files: checked.map((c) => {
      const media = { ...c.media, key: chatMediaKey(companyId, chatId, c.media) };
      return { media, commit: () => commitUpload({ ...c, media }) };
    }),
  };
}

const kindOf = (m: OutgoingMedia): NonNullable<ChatMessageItem['media']>['kind'] => (m.mediaType === 'image' || m.mediaType === 'audio' || m.mediaType === 'video' ? m.mediaType : 'other');

/**
 * `POST /chats/{id}/messages`: one message for text alone, one per file otherwise (the text with
 * the first). The messages, the chat's last message and every other member's unread count are one
 * transaction over the chat's `lastSeq`; the sender's own count goes to 0 (they have read it all).
 */
export async function sendChatMessage(identity: Identity, id: number, body: Record<string, unknown>, files: UploadedFile[]): Promise<ApiChatMessage[]> {
  await memberChat(identity, id);
  const { companyId, userId } = identity;
  const send = await parseSend(identity, id, body, files);
  if (!send.text && send.files.length === 0) throw invalid('message', MSG.required);
  const stored = [];
  for (const f of send.files) stored.push(await f.commit());
  const parts = stored.length ? stored.map((media, i) => ({ media, message: i === 0 ? send.text : '' })) : [{ media: null, message: send.text }];
  const last = parts[parts.length - 1];
  const lastMessage = (last.message || send.text || last.media?.fileName || '').slice(0, LAST_MESSAGE_MAX);

  try {
    const { chat, messages } = await untilWritten(async () => {
      const chat = await memberChat(identity, id);
      const now = nowIso();
      const messages: ChatMessageItem[] = parts.map((p, i) => ({
        ...chatMessageKey(companyId, id, chat.lastSeq + 1 + i),
        entity: 'chatMessage',
        id: chat.lastSeq + 1 + i,
        chatId: id,
        companyId,
        senderId: userId,
        message: p.message,
        media: p.media ? { key: p.media.key, mimetype: p.media.mimetype, fileName: p.media.fileName ?? 'arquivo', size: p.media.size, kind: kindOf(p.media) } : null,
        createdAt: now,
      }));
      const others = chat.memberIds.filter((m) => m !== userId);
      const names: Record<string, string> = { '#u': 'unreads', '#me': String(userId) };
      const values: Record<string, unknown> = { ':prev': chat.lastSeq, ':at': chat.updatedAt, ':seq': chat.lastSeq + parts.length, ':last': lastMessage, ':now': now, ':zero': 0, ':n': parts.length };
      // Every member has a count in the version read (created and edited with one), so a plain
      // addition; short names keep a full group well within the 4 KB an update expression may take.
      const adds = others.map((m, i) => {
        names[`#o${i}`] = String(m);
        return `#u.#o${i} = #u.#o${i} + :n`;
      });
      const update = tx.update(
        chatKey(companyId, id),
        `SET lastSeq = :seq, lastMessage = :last, updatedAt = :now, #u.#me = :zero${adds.map((a) => `, ${a}`).join('')}`,
        values,
        // The version read: no message and no edit (members) since.
        'lastSeq = :prev AND updatedAt = :at',
        names,
      );
      await transact([update, ...messages.map((m) => tx.put(m, 'attribute_not_exists(PK)'))]);
      const unreads = { ...chat.unreads, [String(userId)]: 0 };
      for (const m of others) unreads[String(m)] = (unreads[String(m)] ?? 0) + parts.length;
      return { chat: { ...chat, lastSeq: chat.lastSeq + parts.length, lastMessage, updatedAt: now, unreads } as ChatItem, messages };
    });
    const users = await usersOf(companyId, [chat]);
    const apiChat = await toApiChat(chat, users);
    const api = await Promise.all(messages.map((m) => toApiChatMessage(m, users)));
    await publish(api.map((message) => chatEvent(companyId, { action: 'new-message', chat: apiChat, message }, chat.memberIds)));
    return api;
  } catch (err) {
    // Nothing names the stored files when the send did not happen.
    for (const m of stored) await deleteObject(m.key).catch(() => undefined);
    throw err;
  }
}

/** `POST /chats/{id}/read {userId}`: clears the caller's own count (spec 002 §4); another user's is refused. */
export async function markChatRead(identity: Identity, id: number, input: unknown): Promise<ApiChat> {
  const data = parseOrThrow(chatReadSchema, input);
  if (data.userId !== undefined && data.userId !== identity.userId) throw new AppError(403, 'ERR_NO_PERMISSION');
  const chat = await untilWritten(async () => {
    const current = await memberChat(identity, id);
    if ((current.unreads[String(identity.userId)] ?? 0) === 0) return current;
    await transact([
      tx.update(chatKey(identity.companyId, id), 'SET unreads.#me = :zero', { ':zero': 0, ':me': identity.userId, ':s': current.lastSeq }, 'lastSeq = :s AND contains(memberIds, :me)', { '#me': String(identity.userId) }),
    ]);
    return { ...current, unreads: { ...current.unreads, [String(identity.userId)]: 0 }, cleared: true } as ChatItem & { cleared?: boolean };
  });
  const api = await toApiChat(chat);
  // The reader's other tabs and the top bar's popover learn the count is gone.
  if ((chat as { cleared?: boolean }).cleared) await publish(chatEvent(identity.companyId, { action: 'update', chat: api }, [identity.userId]));
  return api;
}
