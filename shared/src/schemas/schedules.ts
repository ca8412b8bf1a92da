import { z } from 'zod';
import { MSG, optionalId } from '../validation.js';
import { SCHEDULE_INVALID_DATE } from '../messages.js';

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
export { SCHEDULE_MEDIA_REFUSED, SCHEDULE_INVALID_DATE, SCHEDULE_TICKET_OF_OTHER_CONTACT } from '../messages.js';
/** The dialog's default time (spec 001 §9). */
export const SCHEDULE_DEFAULT_AHEAD_MS = 60 * 60 * 1000;

/**
 * Why a schedule ended ERRO, as a code the console translates (the API's `reason` keeps the
 * Portuguese text for clients that only show text). `reasonParams.connection` names the
 * connection; `reasonParams.detail` is the failed send's error code.
 */
export const SCHEDULE_ERROR_CODES = [
  'HANDOFF_LOST',
  'INTERRUPTED',
  'CONTACT_NOT_FOUND',
  'NO_CONNECTION',
  'CONNECTION_DOWN',
  'CONNECTION_NO_ANSWER',
  'NOT_ON_WHATSAPP',
  'SEND_FAILED',
] as const;
export type ScheduleErrorCode = (typeof SCHEDULE_ERROR_CODES)[number];
export type ScheduleReasonParams = { connection?: string; detail?: string };

/** The Portuguese text of a reason (stored in `reason` next to the code). */
export function scheduleErrorText(code: ScheduleErrorCode, params: ScheduleReasonParams = {}): string {
  switch (code) {
    case 'HANDOFF_LOST':
      return 'O envio não foi concluído; edite o agendamento para tentar de novo';
    case 'INTERRUPTED':
      return 'O envio foi interrompido; confira a conversa antes de reagendar';
    case 'CONTACT_NOT_FOUND':
      return 'Contato não encontrado';
    case 'NO_CONNECTION':
      return 'Nenhuma conexão disponível';
    case 'CONNECTION_DOWN':
      return `A conexão ${params.connection ?? ''} não está conectada`;
    case 'CONNECTION_NO_ANSWER':
      return `A conexão ${params.connection ?? ''} não respondeu`;
    case 'NOT_ON_WHATSAPP':
      return 'O número não está no WhatsApp';
    case 'SEND_FAILED':
      return params.detail ? `A mensagem não foi enviada (${params.detail})` : 'A mensagem não foi enviada';
  }
}

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
  /**
   * The connection to send through; none means the default connection at send time: the
   * scheduling user's own default (`whatsappId` of the user), else the company's.
   */
  whatsappId: optionalId().optional(),
  /**
   * The conversation the schedule was made from (the ticket screen's action): the schedule goes out
   * on that ticket's connection when none is chosen, and lands in it (reopened by the normal rule if
   * it was closed meanwhile).
   */
  ticketId: optionalId().optional(),
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
  /** Why a send failed (status ERRO), in Portuguese. */
  reason: string | null;
  /** The same reason as a code (translated by the console), with its parameters. */
  reasonCode: ScheduleErrorCode | null;
  reasonParams: ScheduleReasonParams | null;
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
