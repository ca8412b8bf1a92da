import { z } from 'zod';
import { MSG, boolish } from '../validation.js';
import { FILE_CONTENT_MISMATCH, FILE_TYPE_NOT_ALLOWED, MEDIA_LIMITS, baseContentType, fileTooLarge, sniffContentType, type MediaCheck } from './messages.js';

/**
 * Announcements (spec 002 §2-§5, §7, §9; decision 58): platform-wide notices the super user
 * publishes to every company's users. Shared by the API (validation, image rule) and the console
 * (the same rules in the dialog). The order and priorities are in the zod-free `../announcements.ts`.
 */

export const ANNOUNCEMENTS_PAGE = 20;

/** The optional image: .png, .jpg or .jpeg (spec 002 §5), as large as an image WhatsApp takes. */
export const ANNOUNCEMENT_IMAGE_MAX_BYTES = MEDIA_LIMITS.image;
export const ANNOUNCEMENT_IMAGE_EXTENSIONS = ['.png', '.jpg', '.jpeg'] as const;
const ANNOUNCEMENT_IMAGE_TYPES = ['image/png', 'image/jpeg'];

const requiredText = (max: number) =>
  z.preprocess(
    (v) => (typeof v === 'string' ? v.trim() : v),
    z.string({ error: MSG.obrigatorio }).min(1, { error: MSG.obrigatorio }).max(max, { error: MSG.tooLong }),
  );

const priority = () =>
  z.preprocess(
    (v) => (typeof v === 'string' && v.trim() !== '' ? Number(v) : v),
    z.union([z.literal(1), z.literal(2), z.literal(3)], { error: MSG.invalidValue }),
  );

/** The dialog (spec 002 §5): title and text required ('Obrigatório'); status active and priority low by default. */
export const announcementSchema = z.object({
  title: requiredText(200),
  text: requiredText(5_000),
  priority: priority().optional(),
  status: boolish().optional(),
  /** Set by the image upload only; a value sent here is ignored (the client cannot name stored files). */
  mediaPath: z.unknown().optional(),
  mediaName: z.unknown().optional(),
});
export const announcementUpdateSchema = announcementSchema.partial();
export type AnnouncementInput = z.output<typeof announcementSchema>;

/**
 * `GET /announcements`: the spec's `searchParam` and `pageNumber`; `status=true` narrows a super
 * user's answer to the active ones (what the popover shows; other users only ever get those).
 */
export const announcementsQuerySchema = z.object({
  searchParam: z.preprocess((v) => (typeof v === 'string' ? v.trim() : v), z.string().max(100, { error: MSG.tooLong }).optional()),
  pageNumber: z.coerce.number({ error: MSG.invalidValue }).int({ error: MSG.invalidValue }).min(1, { error: MSG.invalidValue }).max(10_000, { error: MSG.invalidValue }).optional(),
  status: boolish().optional(),
});

/**
 * The announcement image: a .png, .jpg or .jpeg name, a PNG or JPEG declared type, and bytes that
 * really are that format, within the size limit. The answer's `mimetype` is the format the bytes show.
 */
export function checkAnnouncementImage(fileName: string, declared: string, size: number, head: Uint8Array): MediaCheck {
  const name = fileName.toLowerCase();
  if (!ANNOUNCEMENT_IMAGE_EXTENSIONS.some((ext) => name.endsWith(ext))) return { ok: false, message: FILE_TYPE_NOT_ALLOWED };
  const type = baseContentType(declared || 'application/octet-stream');
  // Some browsers send no type or a generic one: the bytes decide then; a declared other type is refused.
  if (type !== 'application/octet-stream' && !ANNOUNCEMENT_IMAGE_TYPES.includes(type)) return { ok: false, message: FILE_TYPE_NOT_ALLOWED };
  if (size <= 0) return { ok: false, message: MSG.required };
  if (size > ANNOUNCEMENT_IMAGE_MAX_BYTES) return { ok: false, message: fileTooLarge('image') };
  const sniffed = sniffContentType(head);
  if (!sniffed || !ANNOUNCEMENT_IMAGE_TYPES.includes(sniffed) || (type !== 'application/octet-stream' && sniffed !== type)) return { ok: false, message: FILE_CONTENT_MISMATCH };
  return { ok: true, kind: 'image', mimetype: sniffed };
}
