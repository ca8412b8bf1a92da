import { z } from 'zod';
import { boolish, optionalId } from '../validation.js';

export const TICKET_STATUSES = ['pending', 'open', 'closed'] as const;
export type TicketStatusValue = (typeof TICKET_STATUSES)[number];
export const TICKETS_PAGE = 40;

export { SELECT_QUEUE } from '../messages.js';
export const CLOSE_NOT_YOURS = 'Para encerrar esse atendimento, transfira o atendimento pra você';

const status = z.enum(TICKET_STATUSES, { error: 'Valor inválido' });

/** A list given as JSON (`[1,2]`), comma separated text or an array; empty means "no filter". */
const listOf = <T extends z.ZodType>(item: T) =>
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
  }, z.array(item, { error: 'Valor inválido' }).optional());
const ids = () => listOf(z.coerce.number({ error: 'Valor inválido' }).int({ error: 'Valor inválido' }).min(0, { error: 'Valor inválido' }));
/** A calendar day (`YYYY-MM-DD`, anything after it ignored); impossible dates like 2024-02-30 are refused. */
const day = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}/, { error: 'Valor inválido' })
  .transform((s) => s.slice(0, 10))
  .refine((d) => {
    const t = Date.parse(`${d}T00:00:00Z`);
    return Number.isFinite(t) && new Date(t).toISOString().slice(0, 10) === d;
  }, { error: 'Valor inválido' });
const flag = () => boolish().optional();

export const ticketListQuerySchema = z.object({
  searchParam: z.string().max(200, { error: 'Valor inválido' }).optional(),
  pageNumber: z.coerce.number({ error: 'Valor inválido' }).int({ error: 'Valor inválido' }).min(1, { error: 'Valor inválido' }).optional(),
  /** Opaque cursor of the next page (`nextCursor` of the previous answer). */
  cursor: z.string().optional(),
  tags: ids(),
  users: ids(),
  status: status.optional(),
  date: day.optional(),
  updatedAt: day.optional(),
  showAll: flag(),
  queueIds: ids(),
  withUnreadMessages: flag(),
  statusFilter: listOf(status),
  isUseStatusFilter: flag(),
  tagsContact: ids(),
  /** Our own: the open tab's sub-tabs ('me' = assigned to me, 'others' = everyone else's). */
  assigned: z.enum(['me', 'others'], { error: 'Valor inválido' }).optional(),
  /**
   * Our own: the answer's `count` (the list's size) on a first page that does not end the list,
   * read from the tab counters (the console's badges use `GET /tickets/counts` instead).
   */
  withCount: flag(),
});
export type TicketListQuery = z.output<typeof ticketListQuerySchema>;

/** `GET /tickets/counts`: the list's filters; the tab (status, assigned) and paging are its own. */
export const ticketCountsQuerySchema = ticketListQuerySchema.omit({ status: true, statusFilter: true, isUseStatusFilter: true, assigned: true, showAll: true, pageNumber: true, cursor: true, withCount: true });
export interface TicketCounts {
  /** Open tickets assigned to the viewer. */
  me: number;
  /** Open tickets of others the viewer may see. */
  others: number;
  /** Pending tickets the viewer may see (and accept). */
  pending: number;
}

export const createTicketSchema = z.object({
  contactId: z.coerce.number({ error: 'Required' }).int().positive({ error: 'Required' }),
  queueId: optionalId().optional(),
  whatsappId: optionalId().optional(),
  userId: optionalId().optional(),
  status: status.optional(),
});

export const updateTicketSchema = z.object({
  status: status.optional(),
  userId: optionalId().optional(),
  queueId: optionalId().optional(),
  whatsappId: optionalId().optional(),
  useIntegration: flag(),
  promptId: optionalId().optional(),
  integrationId: optionalId().optional(),
  isJustFinish: flag(),
  /** `0` marks the ticket read (the agent opened it). */
  unreadMessages: z.coerce.number({ error: 'Valor inválido' }).int().refine((n) => n === 0, { error: 'Valor inválido' }).optional(),
});
export type UpdateTicketInput = z.output<typeof updateTicketSchema>;

export const ticketNoteSchema = z.object({
  note: z.preprocess((v) => (typeof v === 'string' ? v.trim() : v), z.string({ error: 'Required' }).min(1, { error: 'Required' }).min(2, { error: 'Too Short!' }).max(5000, { error: 'Too Long!' })),
  ticketId: z.coerce.number({ error: 'Required' }).int().positive({ error: 'Required' }),
  contactId: z.coerce.number({ error: 'Required' }).int().positive({ error: 'Required' }),
});
export const ticketNoteListSchema = ticketNoteSchema.pick({ ticketId: true, contactId: true });

/** Cards per lane of the kanban board's first load (a lane shows about six), and per later page of one lane. */
export const KANBAN_FIRST_PAGE = 10;
export const KANBAN_LANE_PAGE = 20;

/**
 * `GET /ticket/kanban` (spec 002 §7): the board of pending and open tickets, one lane per kanban tag
 * of `type` (ticket tags, or the contact's tags) plus lane 0 'Em aberto' for tickets without one.
 * Without `lane`, the first page of every lane (or of the `lanes` listed: the console asks for the
 * lanes in view); with `lane` (and its `cursor`), a page of that one.
 */
export const kanbanQuerySchema = z.object({
  queueIds: ids(),
  lanes: ids().refine((l) => !l || l.length <= 200, { error: 'Valor inválido' }),
  type: z.enum(['ticket', 'contact'], { error: 'Valor inválido' }).optional(),
  lane: z.coerce.number({ error: 'Valor inválido' }).int({ error: 'Valor inválido' }).min(0, { error: 'Valor inválido' }).optional(),
  cursor: z.string().max(100, { error: 'Valor inválido' }).optional(),
});
export type KanbanQuery = z.output<typeof kanbanQuerySchema>;

/** `DELETE /ticket-tags/{ticketId}`: which lanes the card leaves (the ticket's or its contact's). */
export const kanbanTypeQuerySchema = z.object({ type: z.enum(['ticket', 'contact'], { error: 'Valor inválido' }).optional() });
