import { AppError } from '@balcao/shared';
import { ports } from './ports.js';

/** Media in S3 under the company's prefix; the API hands out short-lived URLs (server-behaviour §7). */
export const IMAGE_TYPES: Record<string, string> = { 'image/png': 'png', 'image/jpeg': 'jpg', 'image/webp': 'webp', 'image/gif': 'gif' };

/** Checks the real bytes, not only the declared type (uploads are checked for type and size). */
export function sniffImage(data: Buffer): string | undefined {
  if (data.length >= 8 && data.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))) return 'image/png';
  if (data.length >= 3 && data[0] === 0xff && data[1] === 0xd8 && data[2] === 0xff) return 'image/jpeg';
  if (data.length >= 12 && data.toString('ascii', 0, 4) === 'RIFF' && data.toString('ascii', 8, 12) === 'WEBP') return 'image/webp';
  if (data.length >= 6 && (data.toString('ascii', 0, 6) === 'GIF87a' || data.toString('ascii', 0, 6) === 'GIF89a')) return 'image/gif';
  return undefined;
}

export function assertImage(data: Buffer, field: string, maxBytes = 5 * 1024 * 1024): string {
  if (data.length > maxBytes) throw new AppError(413, 'ERR_PAYLOAD_TOO_LARGE', { fields: [{ field, message: 'ERR_PAYLOAD_TOO_LARGE' }] });
  const type = sniffImage(data);
  if (!type) throw new AppError(415, 'ERR_UNSUPPORTED_MEDIA_TYPE', { fields: [{ field, message: 'ERR_UNSUPPORTED_MEDIA_TYPE' }] });
  return type;
}

export const putObject = (key: string, data: Buffer, contentType: string): Promise<void> => ports().media.put(key, data, contentType);

export const deleteObject = (key: string): Promise<void> => ports().media.remove(key);

export const readUrl = (key: string, expiresIn = 3600): Promise<string> => ports().media.readUrl(key, expiresIn);
