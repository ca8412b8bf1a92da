import { CAMPAIGN_VARIANTS, campaignVariants, fromZonedInput, zonedInputValue, zonedParts, type ApiCampaign } from '@balcao/shared';

/** The message tabs' numbers, 1 to 5 (spec 002 §9: five variants, each with its confirmation). */
export const VARIANTS = Array.from({ length: CAMPAIGN_VARIANTS }, (_, i) => (i + 1) as Variant);
export type Variant = 1 | 2 | 3 | 4 | 5;
export type MessageField = `message${Variant}` | `confirmationMessage${Variant}`;
export const MESSAGE_FIELDS: MessageField[] = VARIANTS.flatMap((n) => [`message${n}`, `confirmationMessage${n}`] as MessageField[]);

/** What the dialog's form holds: selects as strings ('' is none), the date as a `datetime-local` value. */
export type CampaignValues = {
  name: string;
  /** 'true' | 'false' (a select, as the spec's Habilitada / Desabilitada). */
  confirmation: string;
  contactListId: string;
  tagListId: string;
  whatsappId: string;
  fileListId: string;
  /** `YYYY-MM-DDTHH:mm` on the company's wall clock; '' is not scheduled. */
  scheduledAt: string;
} & Record<MessageField, string>;

export const FORM_FIELDS = ['name', 'confirmation', 'contactListId', 'tagListId', 'whatsappId', 'fileListId', 'scheduledAt', ...MESSAGE_FIELDS] as const;

const idValue = (id: number | null | undefined) => (id ? String(id) : '');

export function toValues(c: ApiCampaign | null, timeZone: string): CampaignValues {
  const messages = Object.fromEntries(MESSAGE_FIELDS.map((f) => [f, c?.[f] ?? ''])) as Record<MessageField, string>;
  return {
    name: c?.name ?? '',
    confirmation: c?.confirmation ? 'true' : 'false',
    contactListId: idValue(c?.contactListId),
    tagListId: idValue(c?.tagListId),
    whatsappId: idValue(c?.whatsappId),
    fileListId: idValue(c?.fileListId),
    scheduledAt: c?.scheduledAt ? zonedInputValue(c.scheduledAt, timeZone) : '',
    ...messages,
  };
}

const pad = (n: number | string) => String(n).padStart(2, '0');

/**
 * The scheduled time as the API takes it (spec 002 §5): `YYYY-MM-DD HH:mm:ss` on the company's wall
 * clock, null when empty. A field still showing the stored instant (`keep`) sends that instant's
 * own wall clock, its seconds included, so opening and saving never moves it.
 */
export function wireDate(input: string, timeZone: string, keep: string | null | undefined): string | null {
  const text = input.trim();
  if (!text) return null;
  if (keep && zonedInputValue(keep, timeZone) === text) {
    const p = zonedParts(new Date(keep), timeZone);
    return `${p.year}-${p.month}-${p.day} ${pad(p.hour)}:${p.minute}:${p.second}`;
  }
  const [day, time = ''] = text.split('T');
  return `${day} ${time.length === 5 ? `${time}:00` : time}`;
}

/** Whether a filled-in time is already past (a new time only: a kept one is the server's business). */
export function isPast(input: string, timeZone: string, keep: string | null | undefined, now = Date.now()): boolean {
  if (!input.trim() || (keep && zonedInputValue(keep, timeZone) === input.trim())) return false;
  const at = fromZonedInput(input, timeZone);
  return !!at && Date.parse(at) <= now;
}

const idOrNull = (v: string) => (v ? Number(v) : null);

/** The messages of the form, trimmed as the server keeps them. */
export const messagesOf = (v: CampaignValues) => Object.fromEntries(MESSAGE_FIELDS.map((f) => [f, v[f].trim()])) as Record<MessageField, string>;

/** Whether any variant has a text (the server refuses a campaign without one). */
export const hasMessage = (v: CampaignValues) => campaignVariants(v).length > 0;

/**
 * The body of a save: everything for a campaign editable in full; only the messages for a cancelled
 * one (spec 002 §4: its other fields are read-only).
 */
export function campaignBody(v: CampaignValues, mode: 'all' | 'messages', timeZone: string, keep: string | null | undefined) {
  if (mode === 'messages') return messagesOf(v);
  return {
    name: v.name.trim(),
    confirmation: v.confirmation === 'true',
    contactListId: idOrNull(v.contactListId),
    tagListId: idOrNull(v.tagListId),
    whatsappId: idOrNull(v.whatsappId),
    fileListId: idOrNull(v.fileListId),
    scheduledAt: wireDate(v.scheduledAt, timeZone, keep),
    ...messagesOf(v),
  };
}
