import { z } from 'zod';
import { MSG, boolish, optionalId } from '../validation.js';

export const QUICK_MESSAGES_PAGE = 20;
/** Attachments of quick replies: what WhatsApp accepts as media, within the API's body limit. */
export const QUICK_MESSAGE_MEDIA_MAX_BYTES = 5 * 1024 * 1024;

/** Quick reply dialog (spec 001 §3, §5, §7): the shortcode is required ('Obrigatório'). */
export const quickMessageSchema = z.object({
  shortcode: z.preprocess(
    (v) => (typeof v === 'string' ? v.trim() : v),
    z.string({ error: MSG.obrigatorio }).min(1, { error: MSG.obrigatorio }).max(50, { error: MSG.tooLong }),
  ),
  message: z.preprocess((v) => (v === null || v === undefined ? '' : v), z.string({ error: MSG.invalidValue }).max(10_000, { error: MSG.tooLong })),
  geral: boolish().optional(),
  status: boolish().optional(),
  isMedia: boolish().optional(),
  /** Set by the media upload only; a value sent here is ignored (the client cannot name S3 keys). */
  mediaPath: z.unknown().optional(),
});
export const quickMessageUpdateSchema = quickMessageSchema.partial();
export type QuickMessageInput = z.output<typeof quickMessageSchema>;

export const quickMessageListQuerySchema = z.object({
  searchParam: z.string().max(100, { error: MSG.tooLong }).optional(),
  pageNumber: z.coerce.number({ error: MSG.invalidValue }).int({ error: MSG.invalidValue }).min(1, { error: MSG.invalidValue }).optional(),
  userId: optionalId().optional(),
  companyId: optionalId().optional(),
});
