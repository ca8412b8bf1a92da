import { AppError, QUICK_MESSAGES_PAGE, QUICK_MESSAGE_MEDIA_MAX_BYTES, checkMedia, companyEvent, displayFileName, parseOrThrow, quickMessageListQuerySchema, quickMessageSchema, quickMessageUpdateSchema, safeFileName, type Audience, type ApiQuickMessage } from '@balcao/shared';
import { clean, getItem, nextId, queryIndexAll, transact, tx, updateItem, type TransactItem } from '../core/db.js';
import { fold, quickMessageIndexKeys, quickMessageKey, quickMessagesPartition, shortcodeMarker } from '../table/keys.js';
import { deleteObject, putObject, readUrl } from '../core/storage.js';
import { publish } from '../core/realtime.js';
import { log } from '../core/observability.js';
import type { Identity } from '../core/identity.js';
import type { UploadedFile } from '../core/http.js';
import { type QuickMessageItem } from '../table/items.js';
import { nowIso, nowMs } from '../core/ports.js';


const notFound = () => new AppError(404, 'ERR_NOT_FOUND');
const duplicated = () => new AppError(409, 'ERR_DUPLICATED_SHORTCODE', { fields: [{ field: 'shortcode', message: 'ERR_DUPLICATED_SHORTCODE' }] });
const privileged = (identity: Identity) => identity.isAdmin || identity.isSuper;

export async function toApiQuickMessage(q: QuickMessageItem): Promise<ApiQuickMessage> {
  const { mediaKey, ...rest } = clean(q);
  return { ...rest, mediaUrl: mediaKey ? await readUrl(mediaKey, 15 * 60) : null };
}

/** What a user may see: the company's `geral` replies and their own (admins: all of them). */
const visibleTo = (identity: Identity, q: QuickMessageItem) => privileged(identity) || q.geral || q.userId === identity.userId;

async function getVisible(identity: Identity, id: number): Promise<QuickMessageItem> {
  const q = await getItem<QuickMessageItem>(quickMessageKey(identity.companyId, id), true);
  if (!q || q.entity !== 'quickMessage' || !visibleTo(identity, q)) throw notFound();
  return q;
}

/** Changing a reply: its owner or an admin. */
async function getEditable(identity: Identity, id: number): Promise<QuickMessageItem> {
  const q = await getVisible(identity, id);
  if (!privileged(identity) && q.userId !== identity.userId) throw new AppError(403, 'ERR_NO_PERMISSION');
  return q;
}

/** Company replies reach the company; private ones their owner. */
async function announce(q: QuickMessageItem, action: 'create' | 'update' | 'delete') {
  const audience: Audience[] = q.geral ? [{ kind: 'company' }] : [{ kind: 'user', userId: q.userId }];
  const data = action === 'delete' ? { action, id: q.id } : { action, record: await toApiQuickMessage(q) };
  await publish({ companyId: q.companyId, event: companyEvent(q.companyId, 'quickmessage'), data, audience });
}

/**
 * Every reply of a company (a company keeps tens to a few hundred), alphabetical by shortcode;
 * pages and searches are cut in memory like users, queues and tags.
 */
const allOf = async (companyId: number) =>
  (await queryIndexAll<QuickMessageItem>('GSI1', quickMessagesPartition(companyId))).filter((q) => q.entity === 'quickMessage').sort((a, b) => (a.GSI1SK < b.GSI1SK ? -1 : 1));

/** `GET /quick-messages`: `{records, count, hasMore}`; admins may narrow to one user's (`userId`). */
export async function listQuickMessages(identity: Identity, query: Record<string, string | undefined>) {
  const q = parseOrThrow(quickMessageListQuerySchema, query);
  const term = fold(q.searchParam ?? '');
  const pageNumber = q.pageNumber ?? 1;
  const onlyUser = privileged(identity) ? q.userId ?? undefined : undefined;
  const list = (await allOf(identity.companyId)).filter(
    (m) =>
      visibleTo(identity, m) &&
      (onlyUser === undefined || m.userId === onlyUser || m.geral) &&
      (!term || fold(m.shortcode).includes(term) || fold(m.message).includes(term)),
  );
  const page = list.slice((pageNumber - 1) * QUICK_MESSAGES_PAGE, pageNumber * QUICK_MESSAGES_PAGE);
  return { records: await Promise.all(page.map(toApiQuickMessage)), count: list.length, hasMore: pageNumber * QUICK_MESSAGES_PAGE < list.length };
}

/** `GET /quick-messages/list`: what the composer offers: active company replies plus one's own. */
export async function listQuickMessagesForUser(identity: Identity, query: Record<string, string | undefined>) {
  const q = parseOrThrow(quickMessageListQuerySchema, query);
  const userId = privileged(identity) && q.userId ? q.userId : identity.userId;
  const list = (await allOf(identity.companyId)).filter((m) => m.status !== false && (m.geral || m.userId === userId));
  return Promise.all(list.map(toApiQuickMessage));
}

export const getQuickMessage = async (identity: Identity, id: number) => toApiQuickMessage(await getVisible(identity, id));

export async function createQuickMessage(identity: Identity, input: unknown): Promise<QuickMessageItem> {
  const data = parseOrThrow(quickMessageSchema, input);
  const companyId = identity.companyId;
  const id = await nextId(companyId, 'quickMessage');
  const now = nowIso();
  const item: QuickMessageItem = {
    ...quickMessageKey(companyId, id),
    entity: 'quickMessage',
    ...quickMessageIndexKeys(companyId, data.shortcode, id),
    id,
    companyId,
    userId: identity.userId,
    shortcode: data.shortcode,
    message: data.message,
    geral: data.geral ?? false,
    status: data.status ?? true,
    isMedia: false,
    mediaPath: null,
    mediaName: null,
    mediaType: null,
    mediaKey: null,
    createdAt: now,
    updatedAt: now,
  };
  await transact(
    [tx.putUnique({ ...shortcodeMarker(companyId, identity.userId, data.shortcode), entity: 'unique', quickMessageId: id }), tx.put(item, 'attribute_not_exists(PK)')],
    (i) => (i === 0 ? duplicated() : undefined),
  );
  await announce(item, 'create');
  return item;
}

export async function updateQuickMessage(identity: Identity, id: number, input: unknown): Promise<QuickMessageItem> {
  const current = await getEditable(identity, id);
  const data = parseOrThrow(quickMessageUpdateSchema, input);
  const companyId = identity.companyId;
  const shortcode = data.shortcode ?? current.shortcode;
  const next: QuickMessageItem = {
    ...current,
    ...quickMessageIndexKeys(companyId, shortcode, id),
    shortcode,
    message: data.message ?? current.message,
    geral: data.geral ?? current.geral,
    status: data.status ?? current.status,
    updatedAt: nowIso(),
  };
  const items: TransactItem[] = [];
  const codeChanged = fold(shortcode) !== fold(current.shortcode);
  if (codeChanged) {
    items.push(tx.putUnique({ ...shortcodeMarker(companyId, current.userId, shortcode), entity: 'unique', quickMessageId: id }));
    items.push(tx.delete(shortcodeMarker(companyId, current.userId, current.shortcode)));
  }
  // Over the version read: an attachment uploaded meanwhile is not lost.
  items.push(tx.put(next, 'attribute_exists(PK) AND updatedAt = :u', { ':u': current.updatedAt }));
  await transact(items, (i) => (codeChanged && i === 0 ? duplicated() : new AppError(409, 'ERR_VALIDATION', { message: 'A resposta rápida mudou ao mesmo tempo; tente de novo' })));
  if (current.geral && !next.geral) await announce(current, 'delete');
  await announce(next, 'update');
  return next;
}

export async function deleteQuickMessage(identity: Identity, id: number): Promise<void> {
  const current = await getEditable(identity, id);
  await transact([tx.delete(quickMessageKey(identity.companyId, id), 'attribute_exists(PK)'), tx.delete(shortcodeMarker(identity.companyId, current.userId, current.shortcode))], (i) =>
    i === 0 ? notFound() : undefined,
  );
  if (current.mediaKey) await deleteObject(current.mediaKey).catch((err) => log.warn('quick message media not removed', { err }));
  await announce(current, 'delete');
}

/**
 * `POST /quick-messages/{id}/media-upload` (multipart `typeArch=quickMessage`, `file`): the file's
 * type is checked by its bytes and its size bounded; it replaces the previous attachment.
 */
export async function uploadQuickMessageMedia(identity: Identity, id: number, files: UploadedFile[], body: Record<string, unknown>): Promise<QuickMessageItem> {
  const current = await getEditable(identity, id);
  if (body.typeArch !== undefined && body.typeArch !== 'quickMessage') {
    throw new AppError(400, 'ERR_VALIDATION', { message: 'Valor inválido', fields: [{ field: 'typeArch', message: 'Valor inválido' }] });
  }
  const file = files.find((f) => f.field === 'file') ?? files[0];
  if (!file) throw new AppError(400, 'ERR_VALIDATION', { message: 'Obrigatório', fields: [{ field: 'file', message: 'Obrigatório' }] });
  if (file.data.length > QUICK_MESSAGE_MEDIA_MAX_BYTES) {
    throw new AppError(413, 'ERR_PAYLOAD_TOO_LARGE', { fields: [{ field: 'file', message: 'ERR_PAYLOAD_TOO_LARGE' }] });
  }
  const check = checkMedia(file.mimeType, file.data.length, file.data.subarray(0, 64));
  // A refused file is bad input like any other field (400 with the reason), as for message media.
  if (!check.ok) throw new AppError(400, 'ERR_VALIDATION', { message: check.message, fields: [{ field: 'file', message: check.message }] });
  // Spaces in names become underscores (spec 001 §5); the stored name is also made path-safe.
  const mediaPath = safeFileName(file.fileName.replace(/ /g, '_'));
  const key = `c/${identity.companyId}/quick-messages/${id}/${nowMs()}-${mediaPath}`;
  await putObject(key, file.data, check.mimetype);
  let updated: QuickMessageItem;
  try {
    updated = await updateItem<QuickMessageItem>(
      quickMessageKey(identity.companyId, id),
      { mediaKey: key, mediaPath, mediaName: displayFileName(file.fileName).replace(/ /g, '_'), mediaType: check.mimetype, isMedia: true, updatedAt: nowIso() },
      { condition: 'attribute_exists(PK) AND updatedAt = :u', values: { ':u': current.updatedAt } },
    );
  } catch (err) {
    await deleteObject(key).catch(() => undefined);
    if ((err as { name?: string }).name === 'ConditionalCheckFailedException') throw new AppError(409, 'ERR_VALIDATION', { message: 'A resposta rápida mudou ao mesmo tempo; tente de novo' });
    throw err;
  }
  if (current.mediaKey) await deleteObject(current.mediaKey).catch((err) => log.warn('old quick message media not removed', { err }));
  await announce(updated, 'update');
  return updated;
}

/** `DELETE /quick-messages/{id}/media-upload`: removes the attachment. */
export async function deleteQuickMessageMedia(identity: Identity, id: number): Promise<QuickMessageItem> {
  const current = await getEditable(identity, id);
  const updated = await updateItem<QuickMessageItem>(
    quickMessageKey(identity.companyId, id),
    { mediaKey: null, mediaPath: null, mediaName: null, mediaType: null, isMedia: false, updatedAt: nowIso() },
    { condition: 'attribute_exists(PK)' },
  );
  if (current.mediaKey) await deleteObject(current.mediaKey).catch((err) => log.warn('quick message media not removed', { err }));
  await announce(updated, 'update');
  return updated;
}
