import { z } from 'zod';
import { MSG, boolish, boundedName, optionalId } from '../validation.js';
import { normalizeNumber } from '../whatsapp.js';

export const CONTACTS_PAGE = 20;
// In the zod-free messages module: the console's first load translates it (see messages.ts).
export { SAME_ATTENDANT } from '../messages.js';
/**
 * Rows of one `POST /contacts/importList` call: what one request stores and indexes well inside
 * the API's 30 s; the console sends a bigger file in consecutive calls of this size. Measured on
 * the local stack (2 loaded cores): 500 rows took 5-15 s a call, so 300 keeps a wide margin; on
 * DynamoDB a call is much faster (the local engine writes the ~15 items of a contact one by one).
 */
export const IMPORT_MAX_ROWS = 300;

const trimmed = (v: unknown) => (typeof v === 'string' ? v.trim() : typeof v === 'number' ? String(v) : v);

/**
 * A phone number as typed (spec 001 §5: 8 to 50 characters), stored as digits with country code
 * (the identity of a contact, as the WhatsApp side knows it).
 */
export const contactNumberField = () =>
  z.preprocess(
    trimmed,
    z
      .string({ error: MSG.required })
      .min(1, { error: MSG.required })
      // A spreadsheet showed the number as 5,5112E+12 and saved it so: its digits are lost, and
      // keeping what is left would make a contact with another number.
      .refine((v) => !/^\d+(?:[.,]\d+)?e\+?\d+$/i.test(v.replace(/\s/g, '')), { error: MSG.scientificNumber, abort: true })
      .min(8, { error: MSG.tooShort })
      .max(50, { error: MSG.tooLong })
      .transform(normalizeNumber)
      .refine((d) => d.length >= 8, { error: MSG.tooShort }),
  );

/** E-mail is optional on contacts; when present it must be valid (spec 001 §5). */
export const optionalEmailField = () =>
  z.preprocess(
    (v) => (v === null || v === undefined ? '' : typeof v === 'string' ? v.trim().toLowerCase() : v),
    z.union([z.literal(''), z.string().max(200, { error: MSG.tooLong }).email({ error: MSG.invalidEmail })], { error: MSG.invalidEmail }),
  );

/**
 * Most tags one ticket or contact carries. A change of tags is one transaction of two items per
 * added or dropped tag (link and count) plus the target's own writes; swapping every tag at once
 * must stay under DynamoDB's 100 items per transaction (4 × 20 + 3).
 */
export const TAGS_PER_TARGET_MAX = 20;

/** Tag ids as the console sends them: `[1, 2]`, `[{id: 1}, …]`, or JSON text of either. */
export const tagRefList = () =>
  z.preprocess(
    (v) => {
      let list = v;
      if (typeof v === 'string') {
        if (!v.trim()) return [];
        try {
          list = JSON.parse(v);
        } catch {
          return v;
        }
      }
      return Array.isArray(list) ? list.map((x) => (x && typeof x === 'object' && 'id' in x ? (x as { id: unknown }).id : x)) : list;
    },
    z.array(z.coerce.number({ error: MSG.invalidValue }).int({ error: MSG.invalidValue }).positive({ error: MSG.invalidValue }), { error: MSG.invalidValue }).max(TAGS_PER_TARGET_MAX, { error: MSG.tooLong }),
  );

export const extraInfoSchema = z
  .array(
    z.object({
      name: z.preprocess(trimmed, z.string({ error: MSG.required }).min(1, { error: MSG.required }).max(100, { error: MSG.tooLong })),
      value: z.preprocess((v) => (v === null || v === undefined ? '' : trimmed(v)), z.string({ error: MSG.invalidValue }).max(1000, { error: MSG.tooLong })),
    }),
    { error: MSG.invalidValue },
  )
  .max(50, { error: MSG.tooLong });

/** Contact dialog (spec 001 §3, §5). */
export const contactSchema = z.object({
  name: boundedName(2, 50),
  number: contactNumberField(),
  email: optionalEmailField().optional(),
  extraInfo: extraInfoSchema.optional(),
  tags: tagRefList().optional(),
  /** The contact's specific attendant. */
  userId: optionalId().optional(),
  disableBot: boolish().optional(),
});
export const contactUpdateSchema = contactSchema.partial();
export type ContactInput = z.output<typeof contactSchema>;
export type ContactUpdateInput = z.output<typeof contactUpdateSchema>;

const idsJson = () =>
  z.preprocess((v) => {
    if (v === undefined || v === null || v === '') return undefined;
    if (typeof v === 'string') {
      try {
        const parsed = JSON.parse(v);
        return Array.isArray(parsed) ? parsed : [parsed];
      } catch {
        return v.split(',').map((s) => s.trim()).filter(Boolean);
      }
    }
    return v;
  }, z.array(z.coerce.number({ error: MSG.invalidValue }).int({ error: MSG.invalidValue }).positive({ error: MSG.invalidValue }), { error: MSG.invalidValue }).max(50, { error: MSG.invalidValue }).optional());

/** `GET /contacts` (spec 001 §7): tagsContact and users as JSON lists. */
export const contactListQuerySchema = z.object({
  searchParam: z.string().max(100, { error: MSG.tooLong }).optional(),
  pageNumber: z.coerce.number({ error: MSG.invalidValue }).int({ error: MSG.invalidValue }).min(1, { error: MSG.invalidValue }).max(10_000, { error: MSG.invalidValue }).optional(),
  tagsContact: idsJson(),
  users: idsJson(),
});
export type ContactListQuery = z.output<typeof contactListQuerySchema>;

/**
 * `GET /contacts/export`: the CSV export's pages (CONTACTS_EXPORT_PAGE contacts at most), with the
 * contacts page's filters; `cursor` is the previous answer's `next`.
 */
export const CONTACTS_EXPORT_PAGE = 1000;
export const contactExportQuerySchema = contactListQuerySchema.omit({ pageNumber: true }).extend({
  cursor: z.string().max(2000, { error: MSG.invalidValue }).optional(),
});

/** One row of a contacts import (CSV columns name, number, email: spec 001 §5). */
export const contactImportRowSchema = z.object({
  name: z.preprocess((v) => (v === null || v === undefined ? '' : trimmed(v)), z.string().max(50, { error: MSG.tooLong })),
  number: contactNumberField(),
  email: optionalEmailField().optional(),
});
export type ContactImportRow = z.output<typeof contactImportRowSchema>;

export const contactTransferSchema = z.object({
  userIdSource: z.coerce.number({ error: MSG.required }).int({ error: MSG.required }).positive({ error: MSG.required }),
  userIdDestination: z.coerce.number({ error: MSG.required }).int({ error: MSG.required }).positive({ error: MSG.required }),
});

export const contactImportSchema = z.object({
  /** The connection whose phone's address book is read; the default connection when absent. */
  whatsappId: optionalId().optional(),
  /**
   * The next page of the address book (IMPORT_MAX_ROWS entries a call, in number order): the
   * answer's `next`, the last number imported. Absent: from the start.
   */
  after: z.string({ error: MSG.invalidValue }).max(64, { error: MSG.tooLong }).optional(),
});
