import {
  AppError,
  FILE_LISTS_PAGE,
  FILE_LIST_MEDIA_MAX_BYTES,
  FILE_LIST_TYPE_ARCH,
  MSG,
  checkMedia,
  companyEvent,
  displayFileName,
  fileListSchema,
  fileListsQuerySchema,
  fileListUpdateSchema,
  mediaKindOf,
  parseOrThrow,
  safeFileName,
  type ApiFileList,
  type ApiFileListOption,
  type CompanyEventData,
  type FileListOptionInput,
  type MediaType,
  type StoredMedia,
} from '@balcao/shared';
import { clean, getItem, isConditionFailure, nextId, putItem, queryAll, transact, tx, updateItem } from '../core/db.js';
import type { UploadedFile } from '../core/http.js';
import type { Identity } from '../core/identity.js';
import { log } from '../core/observability.js';
import { pageByName } from '../core/paging.js';
import { nowIso, nowMs } from '../core/ports.js';
import { publish } from '../core/realtime.js';
import { deleteObject, putObject, readUrl } from '../core/storage.js';
import { fileListKey, fileListPrefix, fileListsPartition, fold } from '../table/keys.js';
import type { FileListOptionItem, FileListRecord } from '../table/items.js';

/**
 * File lists (issue 20 §3; spec 002 §2-§3, §5, §7): a message and named options, each with at most
 * one file, that a campaign sends after its own message. A company's lists are one partition; a
 * list keeps its options (at most 20) inside its item, so a list, its options and their files
 * change in one conditional write. Files are checked by their bytes and size like the other
 * uploads and stored under `c/<cid>/file-lists/<list>/<option>/`; removing an option, replacing its
 * file or deleting the list removes the stored file.
 */

const notFound = () => new AppError(404, 'ERR_NOT_FOUND');
const invalid = (field: string, message: string = MSG.invalidValue) => new AppError(400, 'ERR_VALIDATION', { message, fields: [{ field, message }] });
const changedMeanwhile = () => new AppError(409, 'ERR_VALIDATION', { message: 'A lista de arquivos mudou ao mesmo tempo; tente de novo' });
/** URLs of the files answered: as long as quick replies' and schedules'. */
const URL_SECONDS = 15 * 60;

async function toApiOption(o: FileListOptionItem): Promise<ApiFileListOption> {
  const { mediaKey, mediaSize: _size, ...rest } = o;
  return { ...rest, mediaUrl: mediaKey ? await readUrl(mediaKey, URL_SECONDS) : null };
}

export async function toApiFileList(l: FileListRecord): Promise<ApiFileList> {
  const { userId: _u, lastOptionId: _n, sentAt: _s, options, ...rest } = clean(l);
  return { ...rest, options: await Promise.all(options.map(toApiOption)) };
}

async function announce(companyId: number, data: CompanyEventData['FileList']) {
  await publish({ companyId, event: companyEvent(companyId, 'FileList'), data, audience: [{ kind: 'admins' }] });
}

const allLists = async (companyId: number) =>
  (await queryAll<FileListRecord>(fileListsPartition(companyId), fileListPrefix())).sort((a, b) => fold(a.name).localeCompare(fold(b.name)) || a.id - b.id);

async function getList(companyId: number, id: number): Promise<FileListRecord> {
  const l = await getItem<FileListRecord>(fileListKey(companyId, id), true);
  if (!l || l.entity !== 'fileList') throw notFound();
  return l;
}

const removeFiles = async (keys: (string | null)[]) => {
  for (const key of keys) if (key) await deleteObject(key).catch((err) => log.warn('file list media not removed', { err }));
};
/** A list's files no longer in it: removed, unless a campaign may have sent them (messages name the same objects). */
const removeUnsent = (l: FileListRecord, keys: (string | null)[]) => (l.sentAt ? Promise.resolve() : removeFiles(keys));

const emptyOption = (id: number, name: string): FileListOptionItem => ({ id, name, path: null, mediaName: null, mediaType: null, mediaKey: null, mediaSize: null });

/** Writes a list over the version read (`seen`), so an upload or an edit meanwhile is never lost. */
async function writeOver(next: FileListRecord, seen: string) {
  try {
    await putItem(next, 'attribute_exists(PK) AND updatedAt = :seen', undefined, { ':seen': seen });
  } catch (err) {
    if (isConditionFailure(err)) throw changedMeanwhile();
    throw err;
  }
}

// ------------------------------------------------------------------ routes

/** `GET /files`: `{files, count, hasMore}`, by name, pages of 20, narrowed by a fragment of the name. */
export async function listFileLists(identity: Identity, query: Record<string, string | undefined>) {
  const { page, count, hasMore } = pageByName(await allLists(identity.companyId), parseOrThrow(fileListsQuerySchema, query), FILE_LISTS_PAGE);
  return { files: await Promise.all(page.map(toApiFileList)), count, hasMore };
}

export const getFileList = async (identity: Identity, id: number) => toApiFileList(await getList(identity.companyId, id));

/** `POST /files`: the list with its options (new, without files: the upload comes after). */
export async function createFileList(identity: Identity, body: unknown): Promise<ApiFileList> {
  const data = parseOrThrow(fileListSchema, body);
  const companyId = identity.companyId;
  const id = await nextId(companyId, 'fileList');
  const now = nowIso();
  const options = (data.options ?? []).map((o, i) => emptyOption(i + 1, o.name));
  const item: FileListRecord = {
    ...fileListKey(companyId, id),
    entity: 'fileList',
    id,
    companyId,
    userId: identity.userId,
    name: data.name,
    message: data.message,
    options,
    lastOptionId: options.length,
    createdAt: now,
    updatedAt: now,
  };
  await transact([tx.put(item, 'attribute_not_exists(PK)')]);
  const record = await toApiFileList(item);
  await announce(companyId, { action: 'create', record });
  return record;
}

/**
 * The options of an edit: `sent` is the whole new list. An option naming a saved one (`id`) keeps
 * its file under its (new) name; one without `id` is new; saved options left out go, with their files.
 */
function nextOptions(current: FileListRecord, sent: FileListOptionInput[]) {
  const byId = new Map(current.options.map((o) => [o.id, o]));
  let lastOptionId = current.lastOptionId;
  const options = sent.map((o, i) => {
    if (o.id === undefined) return emptyOption(++lastOptionId, o.name);
    const saved = byId.get(o.id);
    if (!saved) throw invalid(`options.${i}.id`, 'ERR_NOT_FOUND');
    return { ...saved, name: o.name };
  });
  const kept = new Set(options.map((o) => o.id));
  const dropped = current.options.filter((o) => !kept.has(o.id));
  return { options, lastOptionId, dropped };
}

/** `PUT /files/{id}`: name, message and (when sent) the whole list of options. */
export async function updateFileList(identity: Identity, id: number, body: unknown): Promise<ApiFileList> {
  const data = parseOrThrow(fileListUpdateSchema, body);
  const current = await getList(identity.companyId, id);
  const changed = data.options ? nextOptions(current, data.options) : undefined;
  const next: FileListRecord = {
    ...current,
    name: data.name ?? current.name,
    message: data.message ?? current.message,
    ...(changed ? { options: changed.options, lastOptionId: changed.lastOptionId } : {}),
    updatedAt: nowIso(),
  };
  await writeOver(next, current.updatedAt);
  await removeUnsent(current, changed?.dropped.map((o) => o.mediaKey) ?? []);
  const record = await toApiFileList(next);
  await announce(identity.companyId, { action: 'update', record });
  return record;
}

/** `DELETE /files/{id}`: the list, then its stored files. */
export async function deleteFileList(identity: Identity, id: number): Promise<void> {
  const current = await getList(identity.companyId, id);
  await transact([tx.delete(fileListKey(identity.companyId, id), 'attribute_exists(PK)')], () => notFound());
  await removeUnsent(current, current.options.map((o) => o.mediaKey));
  await announce(identity.companyId, { action: 'delete', id });
}

/** Repeated multipart fields arrive as arrays, single ones as text. */
const listOf = (v: unknown): string[] => (v === undefined || v === null ? [] : Array.isArray(v) ? v.map(String) : [String(v)]);
const blank = (v: string | undefined) => v === undefined || ['', 'undefined', 'null'].includes(v.trim());

/**
 * `POST /files/uploadList/{id}` (spec 002 §7; multipart `fileId`, `typeArch=fileList`, `files`,
 * `mediaType`, `name`, `id`): one file per option. The n-th file part goes to the option whose id
 * is the n-th `id` field, or, when that `id` is absent or empty, to the n-th option of the list
 * (its order in the list). A file replaces the option's earlier one. `fileId`, when sent, must be
 * the list of the path; `mediaType` and `name` are accepted and not used: the stored type is the
 * part's declared type once its bytes match it, and options are renamed with `PUT /files/{id}`.
 * Every file is checked before any is stored; the list is written over the version read.
 */
export async function uploadFileListFiles(identity: Identity, id: number, files: UploadedFile[], body: Record<string, unknown>): Promise<ApiFileList> {
  const companyId = identity.companyId;
  const current = await getList(companyId, id);
  if (body.typeArch !== undefined && body.typeArch !== FILE_LIST_TYPE_ARCH) throw invalid('typeArch');
  const fileId = listOf(body.fileId)[0];
  if (!blank(fileId) && Number(fileId) !== id) throw invalid('fileId');
  if (!files.length) throw invalid('files', MSG.obrigatorio);
  const ids = listOf(body.id);
  const targets = new Map<number, UploadedFile>();
  files.forEach((file, i) => {
    const named = ids[i];
    const option = blank(named) ? current.options[i] : current.options.find((o) => o.id === Number(named));
    if (!option) throw invalid('id', 'ERR_NOT_FOUND');
    if (targets.has(option.id)) throw invalid('id');
    targets.set(option.id, file);
  });
  // Every file is checked before anything is stored.
  const checked = [...targets].map(([optionId, file]) => {
    if (file.data.length > FILE_LIST_MEDIA_MAX_BYTES) throw new AppError(413, 'ERR_PAYLOAD_TOO_LARGE', { fields: [{ field: 'files', message: 'ERR_PAYLOAD_TOO_LARGE' }] });
    const check = checkMedia(file.mimeType, file.data.length, file.data.subarray(0, 64));
    if (!check.ok) throw invalid('files', check.message);
    // Spaces in names become underscores (as quick replies' and schedules' files); the stored name is path-safe.
    const path = safeFileName(file.fileName.replace(/ /g, '_'));
    return { optionId, file, mimetype: check.mimetype, path, key: `c/${companyId}/file-lists/${id}/${optionId}/${nowMs()}-${path}` };
  });
  const byOption = new Map(checked.map((c) => [c.optionId, c]));
  const next: FileListRecord = {
    ...current,
    options: current.options.map((o) => {
      const c = byOption.get(o.id);
      return c ? { ...o, path: c.path, mediaName: displayFileName(c.file.fileName).replace(/ /g, '_'), mediaType: c.mimetype, mediaKey: c.key, mediaSize: c.file.data.length } : o;
    }),
    updatedAt: nowIso(),
  };
  const stored: string[] = [];
  try {
    for (const c of checked) {
      await putObject(c.key, c.file.data, c.mimetype);
      stored.push(c.key);
    }
    await writeOver(next, current.updatedAt);
  } catch (err) {
    // The list was not written: nothing points at the new files.
    await removeFiles(stored);
    throw err;
  }
  await removeUnsent(current, current.options.filter((o) => byOption.has(o.id)).map((o) => o.mediaKey));
  const record = await toApiFileList(next);
  await announce(companyId, { action: 'update', record });
  return record;
}

// ------------------------------------------------------------------ for campaigns and the company's removal

/** A file as a campaign sends it (the shape `sendInTicket` takes). */
export type FileListMedia = StoredMedia & { mediaType: MediaType };

export interface FileListForSending {
  id: number;
  name: string;
  message: string;
  /** The options that have a file, in the list's order. */
  options: { id: number; name: string; path: string; media: FileListMedia }[];
}

/**
 * What the campaign dispatcher sends of a list: its message and each option's stored file (S3 key,
 * checked content type, the name it was uploaded with, size, WhatsApp media type). Options without a
 * file are left out. Null when the list is gone.
 */
export async function fileListForSending(companyId: number, id: number): Promise<FileListForSending | null> {
  const l = await getItem<FileListRecord>(fileListKey(companyId, id), true);
  if (!l || l.entity !== 'fileList') return null;
  return {
    id: l.id,
    name: l.name,
    message: l.message,
    options: l.options
      .filter((o) => o.mediaKey && o.mediaType)
      .map((o) => ({
        id: o.id,
        name: o.name,
        path: o.path ?? '',
        media: { key: o.mediaKey!, mimetype: o.mediaType!, fileName: o.mediaName ?? o.path ?? undefined, size: o.mediaSize ?? 0, mediaType: mediaKindOf(o.mediaType!) ?? 'document' },
      })),
  };
}

/** Whether the company has this file list (a campaign naming one checks it). */
export async function fileListExists(companyId: number, id: number): Promise<boolean> {
  const l = await getItem<FileListRecord>(fileListKey(companyId, id), true);
  return !!l && l.entity === 'fileList';
}

/** A company being removed: its file lists and their stored files. */
export async function deleteCompanyFileLists(companyId: number): Promise<void> {
  for (const l of await queryAll<FileListRecord>(fileListsPartition(companyId))) {
    await removeFiles((l.options ?? []).map((o) => o.mediaKey));
    await transact([tx.delete({ PK: l.PK, SK: l.SK })]);
  }
}

/** A campaign starts sending the list: its files are kept from now on (see `FileListRecord.sentAt`). */
export async function markFileListSent(companyId: number, id: number): Promise<void> {
  await updateItem(fileListKey(companyId, id), { sentAt: nowIso() }, { condition: 'attribute_exists(PK) AND attribute_not_exists(sentAt)' }).catch((err) => {
    if (!isConditionFailure(err)) throw err;
  });
}
