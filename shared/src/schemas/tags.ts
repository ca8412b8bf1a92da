import { z } from 'zod';
import { MSG, boolish } from '../validation.js';
import { tagRefList } from './contacts.js';

export const TAG_TYPES = ['ticket', 'contact'] as const;
export type TagType = (typeof TAG_TYPES)[number];
export const TAGS_PAGE = 20;

const kanbanFlag = () =>
  z.preprocess((v) => (v === true || v === 'true' ? 1 : v === false || v === 'false' ? 0 : typeof v === 'string' && v !== '' ? Number(v) : v), z.union([z.literal(0), z.literal(1)], { error: MSG.invalidValue }));

/** Tag form (spec 001 §5): name at least 3 ('Mensagem muito curta', 'Obrigatório'). */
export const tagSchema = z.object({
  name: z.preprocess(
    (v) => (typeof v === 'string' ? v.trim() : v),
    z.string({ error: MSG.obrigatorio }).min(1, { error: MSG.obrigatorio }).min(3, { error: MSG.mensagemCurta }).max(100, { error: MSG.tooLong }),
  ),
  color: z.preprocess(
    (v) => (typeof v === 'string' ? v.trim() : v),
    z.string({ error: MSG.invalidValue }).regex(/^#(?:[0-9a-fA-F]{3}|[0-9a-fA-F]{6}|[0-9a-fA-F]{8})$/, { error: MSG.invalidValue }),
  ).optional(),
  type: z.enum(TAG_TYPES, { error: MSG.invalidValue }).optional(),
  kanban: kanbanFlag().optional(),
});
export const tagUpdateSchema = tagSchema.partial();
export type TagInput = z.output<typeof tagSchema>;

export const tagListQuerySchema = z.object({
  searchParam: z.string().max(100, { error: MSG.tooLong }).optional(),
  pageNumber: z.coerce.number({ error: MSG.invalidValue }).int({ error: MSG.invalidValue }).min(1, { error: MSG.invalidValue }).optional(),
  type: z.enum(TAG_TYPES, { error: MSG.invalidValue }).optional(),
  kanban: boolish().optional(),
});

/** `GET /tags/kanban?type=`: the board's lanes of one tag type (ticket tags by default). */
export const kanbanTagsQuerySchema = tagListQuerySchema.pick({ type: true });

/** `POST /tags/sync`: the ticket's (type ticket) or its contact's (type contact) tags become `tags`. */
export const tagSyncSchema = z.object({
  ticketId: z.coerce.number({ error: MSG.required }).int({ error: MSG.required }).positive({ error: MSG.required }),
  tags: tagRefList(),
  type: z.enum(TAG_TYPES, { error: MSG.invalidValue }).optional(),
});
