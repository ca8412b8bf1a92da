import { z } from 'zod';
import { MSG, boundedName } from '../validation.js';
import { contactNumberField, optionalEmailField } from './contacts.js';
import type { ContactListImportReason } from '../contracts.js';

/**
 * Contact lists and their items (spec 002 §4-§5, §7; issue 20 §2): the lists a campaign sends to.
 * An item is a name and a number (normalised as the contacts page does), not a contact of the
 * company: lists are imported from spreadsheets and many numbers never write back.
 */
export const CONTACT_LISTS_PAGE = 20;
export const CONTACT_LIST_ITEMS_PAGE = 40;

const trimmed = (v: unknown) => (typeof v === 'string' ? v.trim() : v);
const requiredId = () => z.preprocess((v) => (v === '' || v === null ? undefined : v), z.coerce.number({ error: MSG.required }).int({ error: MSG.invalidValue }).positive({ error: MSG.invalidValue }));
const page = () => z.coerce.number({ error: MSG.invalidValue }).int({ error: MSG.invalidValue }).min(1, { error: MSG.invalidValue }).max(10_000, { error: MSG.invalidValue }).optional();
const search = () => z.preprocess(trimmed, z.string().max(100, { error: MSG.tooLong }).optional());

export const contactListSchema = z.object({ name: boundedName(2, 50) });
export const contactListsQuerySchema = z.object({ searchParam: search(), pageNumber: page() });

export const contactListItemSchema = z.object({
  name: boundedName(2, 50),
  number: contactNumberField(),
  email: optionalEmailField().optional(),
  contactListId: requiredId(),
});
/** An item stays in its list: only its name, number and e-mail change. */
export const contactListItemUpdateSchema = contactListItemSchema.omit({ contactListId: true }).partial();
export const contactListItemsQuerySchema = z.object({ searchParam: search(), pageNumber: page(), contactListId: requiredId() });

/** Spreadsheet imports into a list (issue 20 §2): whole-file limits. */
export const SPREADSHEET_MAX_BYTES = 10 * 1024 * 1024;
export const SPREADSHEET_MAX_ROWS = 50_000;
/** Rejected rows a report lists (the counts cover them all). */
export const IMPORT_REPORT_ERRORS = 100;

/**
 * A list spreadsheet's columns and the header names that mean each (issue 20 §2: nome/name,
 * numero/número/number, email/e-mail, plus the Spanish ones); compared folded (csv.ts foldHeader).
 */
export const CONTACT_LIST_HEADERS = {
  nome: 'name',
  name: 'name',
  nombre: 'name',
  numero: 'number',
  number: 'number',
  telefone: 'number',
  telefono: 'number',
  phone: 'number',
  email: 'email',
  correo: 'email',
} as const satisfies Record<string, 'name' | 'number' | 'email'>;

export interface ListImportRow {
  /** The row's number in the spreadsheet (the header is a row too). */
  row: number;
  name: string;
  number: string;
  email: string;
}

const importNumber = contactNumberField();
const importEmail = optionalEmailField();
const importName = boundedName(2, 50);

/**
 * Checks a spreadsheet's rows as the item dialog checks one item: a row without a name is named by
 * its number (lists often carry numbers only); a number already on an earlier row is refused.
 */
export function checkListRows(rows: { row: number; name?: string; number?: string; email?: string }[]): {
  valid: ListImportRow[];
  errors: { row: number; reason: ContactListImportReason }[];
} {
  const valid: ListImportRow[] = [];
  const errors: { row: number; reason: ContactListImportReason }[] = [];
  const seen = new Set<string>();
  for (const r of rows) {
    const number = importNumber.safeParse(r.number ?? '');
    if (!number.success) {
      errors.push({ row: r.row, reason: 'numberInvalid' });
      continue;
    }
    const name = importName.safeParse(r.name?.trim() ? r.name : number.data);
    if (!name.success) {
      errors.push({ row: r.row, reason: (r.name ?? '').trim().length > 50 ? 'nameTooLong' : 'nameTooShort' });
      continue;
    }
    const email = importEmail.safeParse(r.email ?? '');
    if (!email.success) {
      errors.push({ row: r.row, reason: 'emailInvalid' });
      continue;
    }
    if (seen.has(number.data)) {
      errors.push({ row: r.row, reason: 'duplicatedInFile' });
      continue;
    }
    seen.add(number.data);
    valid.push({ row: r.row, name: name.data, number: number.data, email: email.data });
  }
  return { valid, errors };
}
