import { z } from 'zod';
import { MSG, boundedName } from '../validation.js';
import { contactNumberField, optionalEmailField } from './contacts.js';

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
