import { z } from 'zod';
import { MSG, optionalId } from '../validation.js';

/**
 * Scheduled messages (spec 001 §3-§5, server-behaviour §8). `PENDENTE` waits for its time;
 * `AGENDADA` was handed to the dispatcher; `ENVIADA` (with `sentAt`) or `ERRO` (with the reason)
 * end it.
 */
export const SCHEDULE_STATUSES = ['PENDENTE', 'AGENDADA', 'ENVIADA', 'ERRO'] as const;
export type ScheduleStatus = (typeof SCHEDULE_STATUSES)[number];
export const SCHEDULES_PAGE = 20;
export const SCHEDULE_BODY_MIN = 5;
export const SCHEDULE_BODY_MAX = 4096;
/** Attachments: png, jpg and jpeg only (spec 001 §5), within WhatsApp's image limit. */
export const SCHEDULE_MEDIA_TYPES = ['image/png', 'image/jpeg'] as const;
export const SCHEDULE_MEDIA_EXTENSIONS = ['png', 'jpg', 'jpeg'] as const;
export const SCHEDULE_MEDIA_MAX_BYTES = 5 * 1024 * 1024;
export const SCHEDULE_MEDIA_REFUSED = 'Apenas imagens png, jpg ou jpeg';
export const SCHEDULE_INVALID_DATE = 'Data inválida';
/** The dialog's default time (spec 001 §9). */
export const SCHEDULE_DEFAULT_AHEAD_MS = 60 * 60 * 1000;

/** True for a file the schedule dialog accepts (by name and declared type; the server also sniffs bytes). */
export function isScheduleMedia(fileName: string, mimeType: string): boolean {
  const ext = fileName.split('.').pop()?.toLowerCase() ?? '';
  return (SCHEDULE_MEDIA_EXTENSIONS as readonly string[]).includes(ext) && (SCHEDULE_MEDIA_TYPES as readonly string[]).includes(mimeType.toLowerCase());
}

const sendAtField = () =>
  z.preprocess(
    (v) => {
      if (v === undefined || v === null || v === '') return undefined;
      if (v instanceof Date) return v.toISOString();
      if (typeof v === 'string' || typeof v === 'number') {
        const t = new Date(v).getTime();
        return Number.isFinite(t) ? new Date(t).toISOString() : null;
      }
      return null;
    },
    z.string({ error: (i) => (i.input === undefined ? MSG.obrigatorio : SCHEDULE_INVALID_DATE) }),
  );

/** Schedule dialog: body at least 5 ('Mensagem muito curta'; 'Obrigatório'), contact and time required. */
export const scheduleSchema = z.object({
  body: z.preprocess(
    (v) => (typeof v === 'string' ? v.trim() : v),
    z
      .string({ error: MSG.obrigatorio })
      .min(1, { error: MSG.obrigatorio })
      .min(SCHEDULE_BODY_MIN, { error: MSG.mensagemCurta })
      .max(SCHEDULE_BODY_MAX, { error: MSG.tooLong }),
  ),
  contactId: z.preprocess(
    (v) => (v === '' || v === null ? undefined : typeof v === 'string' ? Number(v) : v),
    z.number({ error: MSG.obrigatorio }).int({ error: MSG.invalidValue }).positive({ error: MSG.invalidValue }),
  ),
  sendAt: sendAtField(),
  /** The connection to send through; none means the company's default at send time. */
  whatsappId: optionalId().optional(),
  /** Set by the media upload only; values sent here are ignored (the client cannot name S3 keys). */
  mediaPath: z.unknown().optional(),
  mediaName: z.unknown().optional(),
});
export const scheduleUpdateSchema = scheduleSchema.partial();
export type ScheduleInput = z.output<typeof scheduleSchema>;

export const scheduleListQuerySchema = z.object({
  searchParam: z.string().max(100, { error: MSG.tooLong }).optional(),
  pageNumber: z.coerce.number({ error: MSG.invalidValue }).int({ error: MSG.invalidValue }).min(1, { error: MSG.invalidValue }).optional(),
  contactId: optionalId().optional(),
});

/** A schedule as the API answers it. */
export interface Schedule {
  id: number;
  body: string;
  contactId: number;
  contact: { id: number; name: string; number: string } | null;
  sendAt: string;
  sentAt: string | null;
  status: ScheduleStatus;
  /** Why a send failed (status ERRO). */
  reason: string | null;
  whatsappId: number | null;
  whatsapp: { id: number; name: string } | null;
  userId: number;
  ticketId: number | null;
  mediaPath: string | null;
  mediaName: string | null;
  mediaUrl: string | null;
  createdAt: string;
  updatedAt: string;
}
