import {
  ANNOUNCEMENTS_PAGE,
  ANNOUNCEMENT_EVENT,
  ANNOUNCEMENT_IMAGE_MAX_BYTES,
  AppError,
  DEFAULT_ANNOUNCEMENT_PRIORITY,
  MSG,
  announcementSchema,
  announcementsQuerySchema,
  announcementUpdateSchema,
  checkAnnouncementImage,
  compareAnnouncements,
  displayFileName,
  parseOrThrow,
  safeFileName,
  type AnnouncementEventData,
  type ApiAnnouncement,
  type RealtimeMessage,
} from '@balcao/shared';
import { clean, getItem, isConditionFailure, nextId, putItem, queryAll, queryIndexAll, transact, tx } from '../core/db.js';
import type { UploadedFile } from '../core/http.js';
import type { Identity } from '../core/identity.js';
import { log } from '../core/observability.js';
import { nowIso, nowMs } from '../core/ports.js';
import { publish } from '../core/realtime.js';
import { deleteObject, putObject, readUrl } from '../core/storage.js';
import { activeAnnouncementsPartition, announcementIndexKeys, announcementKey, announcementPrefix, announcementsPartition, fold } from '../table/keys.js';
import type { AnnouncementItem } from '../table/items.js';

/**
 * Announcements (issue 21 §3; spec 002 §2-§9; decision 58): notices the super user publishes to
 * every company's users. They are the platform's, not a tenant's: one partition, ids from the
 * global counter. Super users read and write all of them; everyone else reads only the active
 * ones, which a sparse index keeps in the popover's order (priority, then newest), so their read is
 * one Query. The optional image is checked by its name, its bytes and its size.
 */

const notFound = () => new AppError(404, 'ERR_NOT_FOUND');
const invalid = (field: string, message: string) => new AppError(400, 'ERR_VALIDATION', { message, fields: [{ field, message }] });
const changedMeanwhile = () => new AppError(409, 'ERR_VALIDATION', { message: 'O informativo mudou ao mesmo tempo; tente de novo' });
/** URLs of the images answered: as long as quick replies' and file lists'. */
const URL_SECONDS = 15 * 60;

/** Writes are the super user's (the routes gate them too; this keeps the rule with the use case). */
function requireSuper(identity: Identity) {
  if (!identity.isSuper) throw new AppError(403, 'ERR_NO_PERMISSION');
}

export async function toApiAnnouncement(a: AnnouncementItem): Promise<ApiAnnouncement> {
  const { mediaKey, userId: _author, ...rest } = clean(a);
  return { ...rest, mediaUrl: mediaKey ? await readUrl(mediaKey, URL_SECONDS) : null };
}

/**
 * Everyone hears an active announcement; an inactive one only super users, as it is, while the
 * others hear it gone (they may not read inactive ones, not even from their socket).
 */
async function announce(data: AnnouncementEventData, inactive = false) {
  const message = (d: AnnouncementEventData, supers?: boolean): RealtimeMessage => ({
    companyId: null,
    event: ANNOUNCEMENT_EVENT,
    data: d,
    audience: [supers === undefined ? { kind: 'platform' } : { kind: 'platform', supers }],
  });
  if (data.action === 'delete' || !inactive) return publish(message(data));
  await publish([message(data, true), message({ action: 'delete', id: data.record.id, updatedAt: data.record.updatedAt }, false)]);
}

const publishChange = async (action: 'create' | 'update', a: AnnouncementItem) => announce({ action, record: await toApiAnnouncement(a) }, !a.status);

/** The active announcements in the popover's order: one Query of the sparse index. */
const activeOnes = async () => (await queryIndexAll<AnnouncementItem>('GSI1', activeAnnouncementsPartition())).filter((a) => a.entity === 'announcement');
/** Every announcement (the super user's table): one Query of the partition, put in the same order. */
const allOnes = async () => (await queryAll<AnnouncementItem>(announcementsPartition(), announcementPrefix())).sort(compareAnnouncements);

async function getStored(id: number): Promise<AnnouncementItem> {
  const a = await getItem<AnnouncementItem>(announcementKey(id), true);
  if (!a || a.entity !== 'announcement') throw notFound();
  return a;
}

/** Whole-item writes over the version read (`seen`): an edit and an upload at once never lose each other. */
async function writeOver(next: AnnouncementItem, seen: string) {
  try {
    await putItem(next, 'attribute_exists(PK) AND updatedAt = :seen', undefined, { ':seen': seen });
  } catch (err) {
    if (isConditionFailure(err)) throw changedMeanwhile();
    throw err;
  }
}

const removeImage = async (key: string | null) => {
  if (key) await deleteObject(key).catch((err) => log.warn('announcement image not removed', { err }));
};

// ------------------------------------------------------------------ routes

/**
 * `GET /announcements` (`searchParam`, `pageNumber`; `{records, count, hasMore}`): a super user
 * gets every announcement (`status` narrows them), anyone else only the active ones; both in the
 * popover's order, the search on title and text (accents and case aside).
 */
export async function listAnnouncements(identity: Identity, query: Record<string, string | undefined>) {
  const q = parseOrThrow(announcementsQuerySchema, query);
  const status = identity.isSuper ? q.status : true;
  if (q.status === false && !identity.isSuper) return { records: [], count: 0, hasMore: false };
  const term = fold(q.searchParam ?? '');
  const source = status === true ? await activeOnes() : (await allOnes()).filter((a) => status === undefined || a.status === status);
  const found = term ? source.filter((a) => fold(a.title).includes(term) || fold(a.text).includes(term)) : source;
  const pageNumber = q.pageNumber ?? 1;
  const page = found.slice((pageNumber - 1) * ANNOUNCEMENTS_PAGE, pageNumber * ANNOUNCEMENTS_PAGE);
  return { records: await Promise.all(page.map(toApiAnnouncement)), count: found.length, hasMore: pageNumber * ANNOUNCEMENTS_PAGE < found.length };
}

/** `GET /announcements/{id}`: an inactive one is not found for anyone but a super user. */
export async function getAnnouncement(identity: Identity, id: number): Promise<ApiAnnouncement> {
  const a = await getStored(id);
  if (!a.status && !identity.isSuper) throw notFound();
  return toApiAnnouncement(a);
}

/** `POST /announcements`: title and text required; active and low priority unless told. */
export async function createAnnouncement(identity: Identity, body: unknown): Promise<ApiAnnouncement> {
  requireSuper(identity);
  const data = parseOrThrow(announcementSchema, body);
  // Platform-wide: ids from the global counter (company 0), like plans and companies.
  const id = await nextId(0, 'announcement');
  const now = nowIso();
  const fields = { id, priority: data.priority ?? DEFAULT_ANNOUNCEMENT_PRIORITY, status: data.status ?? true, createdAt: now };
  const item: AnnouncementItem = {
    ...announcementKey(id),
    ...announcementIndexKeys(fields),
    entity: 'announcement',
    ...fields,
    title: data.title,
    text: data.text,
    userId: identity.userId,
    mediaPath: null,
    mediaName: null,
    mediaType: null,
    mediaKey: null,
    updatedAt: now,
  };
  await transact([tx.put(item, 'attribute_not_exists(PK)')]);
  await publishChange('create', item);
  return toApiAnnouncement(item);
}

/** `PUT /announcements/{id}`: any of title, text, priority and status. */
export async function updateAnnouncement(identity: Identity, id: number, body: unknown): Promise<ApiAnnouncement> {
  requireSuper(identity);
  const data = parseOrThrow(announcementUpdateSchema, body);
  const current = await getStored(id);
  const changed = {
    ...current,
    title: data.title ?? current.title,
    text: data.text ?? current.text,
    priority: data.priority ?? current.priority,
    status: data.status ?? current.status,
    updatedAt: nowIso(),
  };
  const next: AnnouncementItem = { ...changed, ...announcementIndexKeys(changed) };
  await writeOver(next, current.updatedAt);
  await publishChange('update', next);
  return toApiAnnouncement(next);
}

/** `DELETE /announcements/{id}`: the announcement, then its image. */
export async function deleteAnnouncement(identity: Identity, id: number): Promise<void> {
  requireSuper(identity);
  const current = await getStored(id);
  await transact([tx.delete(announcementKey(id), 'attribute_exists(PK)')], () => notFound());
  await removeImage(current.mediaKey);
  await announce({ action: 'delete', id });
}

/**
 * `POST /announcements/{id}/media-upload` (multipart `file`): a .png, .jpg or .jpeg image whose
 * bytes are that format, 5 MB at most; it replaces the previous image, which is then removed.
 */
export async function uploadAnnouncementMedia(identity: Identity, id: number, files: UploadedFile[]): Promise<ApiAnnouncement> {
  requireSuper(identity);
  const current = await getStored(id);
  const file = files.find((f) => f.field === 'file') ?? files[0];
  if (!file) throw invalid('file', MSG.obrigatorio);
  if (file.data.length > ANNOUNCEMENT_IMAGE_MAX_BYTES) throw new AppError(413, 'ERR_PAYLOAD_TOO_LARGE', { fields: [{ field: 'file', message: 'ERR_PAYLOAD_TOO_LARGE' }] });
  const check = checkAnnouncementImage(file.fileName, file.mimeType, file.data.length, file.data.subarray(0, 64));
  if (!check.ok) throw invalid('file', check.message);
  const mediaPath = safeFileName(file.fileName.replace(/ /g, '_'));
  const key = `p/announcements/${id}/${nowMs()}-${mediaPath}`;
  const next: AnnouncementItem = {
    ...current,
    mediaKey: key,
    mediaPath,
    mediaName: displayFileName(file.fileName).replace(/ /g, '_'),
    mediaType: check.mimetype,
    updatedAt: nowIso(),
  };
  await putObject(key, file.data, check.mimetype);
  try {
    await writeOver(next, current.updatedAt);
  } catch (err) {
    // The announcement was not written: nothing names the new file.
    await removeImage(key);
    throw err;
  }
  await removeImage(current.mediaKey);
  await publishChange('update', next);
  return toApiAnnouncement(next);
}

/** `DELETE /announcements/{id}/media-upload`: the image goes; the announcement stays. */
export async function deleteAnnouncementMedia(identity: Identity, id: number): Promise<ApiAnnouncement> {
  requireSuper(identity);
  const current = await getStored(id);
  if (!current.mediaKey) return toApiAnnouncement(current);
  const next: AnnouncementItem = { ...current, mediaKey: null, mediaPath: null, mediaName: null, mediaType: null, updatedAt: nowIso() };
  await writeOver(next, current.updatedAt);
  await removeImage(current.mediaKey);
  await publishChange('update', next);
  return toApiAnnouncement(next);
}
