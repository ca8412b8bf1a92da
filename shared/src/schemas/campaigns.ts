import { z } from 'zod';
import { MSG, boolish, boundedName } from '../validation.js';

/**
 * Campaigns (spec 002 §2-§5, §7; server-behaviour §10; issue 20 §3-§5). A campaign sends one of
 * its non-empty message variants to each recipient of a contact list (or of a tag), paced per
 * connection; with confirmation on, a confirmation message goes first and the campaign message
 * after the recipient answers.
 */
export const CAMPAIGNS_PAGE = 20;
export const CAMPAIGN_VARIANTS = 5;
export const CAMPAIGN_STATUSES = ['INATIVA', 'PROGRAMADA', 'EM_ANDAMENTO', 'CANCELADA', 'FINALIZADA'] as const;
export type CampaignStatus = (typeof CAMPAIGN_STATUSES)[number];
/** Spec 002 §4: editable while INATIVA, or PROGRAMADA more than this ahead. */
export const CAMPAIGN_EDIT_MARGIN_MS = 60 * 60_000;
/** A campaign message's longest text (WhatsApp's own limit is far above; lists stay readable). */
export const CAMPAIGN_MESSAGE_MAX = 4096;

/** Why a campaign stopped on its own (shown in the table; the console translates each). */
export const CAMPAIGN_ERRORS = ['CONNECTION_DOWN', 'CONNECTION_GONE', 'LIST_GONE', 'NO_RECIPIENTS'] as const;
export type CampaignErrorCode = (typeof CAMPAIGN_ERRORS)[number];

const text = () => z.preprocess((v) => (v === null || v === undefined ? '' : typeof v === 'string' ? v.trim() : v), z.string().max(CAMPAIGN_MESSAGE_MAX, { error: MSG.tooLong }));
/** An id of a referenced record; '', 'null', null and the tag list's "Nenhuma" mean none. */
const reference = () =>
  z.preprocess(
    (v) => (v === '' || v === 'null' || v === null || v === undefined || v === 'Nenhuma' ? null : typeof v === 'string' ? Number(v) : v),
    z.number({ error: MSG.invalidValue }).int({ error: MSG.invalidValue }).positive({ error: MSG.invalidValue }).nullable(),
  );
/**
 * The scheduled time as the console sends it: `YYYY-MM-DD HH:mm:ss` on the company's wall clock
 * (spec 002 §5; the service reads it in the company's zone), or an ISO instant; '' is none.
 */
const scheduled = () =>
  z.preprocess(
    (v) => (v === '' || v === null || v === undefined ? null : v),
    z
      .string({ error: MSG.invalidValue })
      .regex(/^\d{4}-\d{2}-\d{2}[ T]\d{2}:\d{2}(:\d{2})?(\.\d+)?(Z|[+-]\d{2}:?\d{2})?$/, { error: MSG.invalidValue })
      .nullable(),
  );

const variants = Object.fromEntries(
  Array.from({ length: CAMPAIGN_VARIANTS }, (_, i) => [
    [`message${i + 1}`, text().optional()],
    [`confirmationMessage${i + 1}`, text().optional()],
  ]).flat(),
) as Record<`message${1 | 2 | 3 | 4 | 5}` | `confirmationMessage${1 | 2 | 3 | 4 | 5}`, ReturnType<typeof text>>;

export const campaignSchema = z.object({
  name: boundedName(2, 50),
  confirmation: boolish().optional(),
  contactListId: reference().optional(),
  tagListId: reference().optional(),
  whatsappId: reference().optional(),
  fileListId: reference().optional(),
  scheduledAt: scheduled().optional(),
  ...variants,
});
export type CampaignInput = z.output<typeof campaignSchema>;
export const campaignUpdateSchema = campaignSchema.partial();

export const campaignsQuerySchema = z.object({
  searchParam: z.preprocess((v) => (typeof v === 'string' ? v.trim() : v), z.string().max(100, { error: MSG.tooLong }).optional()),
  pageNumber: z.coerce.number({ error: MSG.invalidValue }).int({ error: MSG.invalidValue }).min(1, { error: MSG.invalidValue }).max(10_000, { error: MSG.invalidValue }).optional(),
});

/** The message variants a campaign has (non-empty), with the confirmation message of each. */
export function campaignVariants(c: object): { index: number; message: string; confirmation: string }[] {
  const out: { index: number; message: string; confirmation: string }[] = [];
  for (let i = 1; i <= CAMPAIGN_VARIANTS; i++) {
    const fields = c as Record<string, unknown>;
    const message = String(fields[`message${i}`] ?? '').trim();
    if (message) out.push({ index: i, message, confirmation: String(fields[`confirmationMessage${i}`] ?? '').trim() });
  }
  return out;
}

/**
 * Spec 002 §4: a campaign is editable while INATIVA, or PROGRAMADA more than an hour ahead; a
 * CANCELADA one keeps its messages editable (the rest is read-only).
 */
export function campaignEditable(c: { status: CampaignStatus; scheduledAt: string | null }, now: number): 'all' | 'messages' | 'none' {
  if (c.status === 'INATIVA') return 'all';
  if (c.status === 'PROGRAMADA' && c.scheduledAt && Date.parse(c.scheduledAt) - now > CAMPAIGN_EDIT_MARGIN_MS) return 'all';
  if (c.status === 'CANCELADA') return 'messages';
  return 'none';
}

/**
 * A campaign text with the recipient's `{nome}`, `{numero}`, `{email}` and the company's custom
 * variables (campaign settings) filled; unknown braces stay as written.
 */
export function fillCampaignText(body: string, recipient: { name: string; number: string; email: string }, custom: { key: string; value: string }[]): string {
  const values = new Map<string, string>([
    ['nome', recipient.name],
    ['numero', recipient.number],
    ['email', recipient.email],
  ]);
  for (const v of custom) if (!values.has(v.key.toLowerCase())) values.set(v.key.toLowerCase(), v.value);
  return body.replace(/\{([\p{L}\p{N}_]+)\}/gu, (whole, key: string) => values.get(key.toLowerCase()) ?? whole);
}
