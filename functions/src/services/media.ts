import {
  AppError,
  FILE_NOT_FOUND,
  MEDIA_LIMITS,
  UPLOAD_URL_EXPIRES_SECONDS,
  checkMedia,
  displayFileName,
  fileTooLarge,
  mediaKindOf,
  mediaUploadSchema,
  parseOrThrow,
  safeFileName,
  FILE_TYPE_NOT_ALLOWED,
  baseContentType,
  type MediaType,
  type StoredMedia,
} from '@balcao/shared';
import { ports, uuid } from '../core/ports.js';
import { log } from '../core/observability.js';

/**
 * Media the agents send (server-behaviour §7, DESIGN §6/§8). Large files never pass through the
 * API: the console asks for a presigned PUT (`createUpload`), uploads straight to S3 under the
 * company's upload prefix, then names the key in the send. The send checks the object (size, and
 * the real format from its first bytes) and moves it to the key scheme inbound media uses, so
 * reading goes through the same short-lived URLs. Uploads live under `tmp/`, which the bucket
 * expires after a day: an upload that is never sent cleans itself up.
 */

export type OutgoingMedia = StoredMedia & { mediaType: MediaType };

const invalid = (field: string, message: string) => new AppError(400, 'ERR_VALIDATION', { message, fields: [{ field, message }] });

/** Every upload of a company starts with this prefix; a send accepts no other key. */
export const uploadPrefix = (companyId: number) => `tmp/uploads/${companyId}/`;
const UPLOAD_KEY = /^tmp\/uploads\/(\d+)\/[0-9a-f-]{36}\/[A-Za-z0-9._-]{1,100}$/;

/** `POST /messages/{ticketId}/media-upload`: a presigned PUT for one file of an accepted type and size. */
export async function createUpload(companyId: number, input: unknown) {
  const data = parseOrThrow(mediaUploadSchema, input);
  const kind = mediaKindOf(data.contentType)!;
  if (data.size > MEDIA_LIMITS[kind]) throw invalid('size', fileTooLarge(kind));
  const contentType = baseContentType(data.contentType);
  const key = `${uploadPrefix(companyId)}${uuid()}/${safeFileName(data.fileName)}`;
  const expiresIn = UPLOAD_URL_EXPIRES_SECONDS;
  const uploadUrl = await ports().media.uploadUrl(key, contentType, expiresIn);
  return { key, uploadUrl, headers: { 'Content-Type': contentType }, expiresIn };
}

const EXTENSIONS: Record<string, string> = {
  'image/jpeg': 'jpg',
  'image/png': 'png',
  'image/webp': 'webp',
  'video/mp4': 'mp4',
  'video/3gpp': '3gp',
  'audio/ogg': 'ogg',
  'audio/mpeg': 'mp3',
  'audio/mp4': 'm4a',
  'audio/aac': 'aac',
  'audio/webm': 'webm',
  'audio/wav': 'wav',
  'application/pdf': 'pdf',
  'application/zip': 'zip',
  'text/plain': 'txt',
  'text/csv': 'csv',
};

/** A stored file's extension: its type's, else its name's. */
export function mediaExtension(mimetype: string, name: string) {
  const fromName = /\.([A-Za-z0-9]{1,8})$/.exec(name)?.[1]?.toLowerCase();
  return EXTENSIONS[mimetype] ?? fromName ?? 'bin';
}

/** The key of a message's media: the scheme the session host uses for inbound media. */
function messageMediaKey(companyId: number, connectionId: number, mimetype: string, name: string) {
  return `c/${companyId}/media/${connectionId}/${uuid()}.${mediaExtension(mimetype, name)}`;
}

/** An uploaded file checked and ready to be moved under the message's key. */
export interface CheckedUpload {
  sourceKey: string;
  media: OutgoingMedia;
}

/**
 * Checks one uploaded file named in a send: the key is this company's upload, the object exists,
 * its size is within its kind's limit and its first bytes match its type. Nothing is written.
 */
export async function checkUpload(companyId: number, connectionId: number, item: { key: string; name: string; ptt?: boolean }, field: string): Promise<CheckedUpload> {
  const match = UPLOAD_KEY.exec(item.key);
  if (!match || Number(match[1]) !== companyId) throw invalid(`${field}.key`, FILE_NOT_FOUND);
  const head = await ports().media.head(item.key);
  if (!head) throw invalid(`${field}.key`, FILE_NOT_FOUND);
  const size = head.size;
  const first = size > 0 ? await ports().media.readStart(item.key, 64) : new Uint8Array();
  const check = checkMedia(head.contentType, size, first);
  if (!check.ok) throw invalid(`${field}.key`, check.message);
  if (item.ptt && check.kind !== 'audio') throw invalid(`${field}.ptt`, FILE_TYPE_NOT_ALLOWED);
  const fileName = displayFileName(item.name);
  return {
    sourceKey: item.key,
    media: {
      key: messageMediaKey(companyId, connectionId, check.mimetype, fileName),
      mimetype: check.mimetype,
      fileName,
      size,
      mediaType: check.kind,
      ...(item.ptt ? { ptt: true } : {}),
    },
  };
}

/** Moves a checked upload under its message key (copy, then drop the upload). */
export async function commitUpload(u: CheckedUpload): Promise<OutgoingMedia> {
  await ports().media.copy(u.sourceKey, u.media.key, u.media.mimetype);
  // The copy is what the message names; a leftover upload only waits for the tmp/ expiry.
  await ports()
    .media.remove(u.sourceKey)
    .catch((err) => log.warn('upload not removed after the copy', { err, key: u.sourceKey }));
  return u.media;
}

/** A file sent in a multipart body: checked like an upload, then stored under its message key. */
export interface CheckedFile {
  data: Buffer;
  media: OutgoingMedia;
}

export function checkFile(companyId: number, connectionId: number, file: { fileName: string; mimeType: string; data: Buffer }, ptt: boolean, field: string): CheckedFile {
  const check = checkMedia(file.mimeType || '', file.data.length, file.data.subarray(0, 64));
  if (!check.ok) throw invalid(field, check.message);
  const audioNote = ptt && check.kind === 'audio';
  const fileName = displayFileName(file.fileName);
  return {
    data: file.data,
    media: {
      key: messageMediaKey(companyId, connectionId, check.mimetype, fileName),
      mimetype: check.mimetype,
      fileName,
      size: file.data.length,
      mediaType: check.kind,
      ...(audioNote ? { ptt: true } : {}),
    },
  };
}

export async function commitFile(f: CheckedFile): Promise<OutgoingMedia> {
  await ports().media.put(f.media.key, f.data, f.media.mimetype);
  return f.media;
}
