import { z } from 'zod';
import { MSG, boolish } from '../validation.js';
import { normalizeNumber, type MediaType } from '../whatsapp.js';

/**
 * Message actions and media sending (spec 001 §4-§5, §7 "Send message", "Delete message",
 * "Forward"; server-behaviour §7). Shared by the API (validation, limits, sniffing) and the console
 * (the same limits before uploading).
 */

/** An agent may edit their own text message for 15 minutes (spec 001 §4, §9). */
export const MESSAGE_EDIT_WINDOW_MS = 15 * 60 * 1000;
export const EDIT_WINDOW_EXPIRED = 'A mensagem só pode ser editada até 15 minutos depois do envio';
export const EDIT_NOT_ALLOWED = 'Só é possível editar mensagens de texto enviadas por você';
export const FILE_TYPE_NOT_ALLOWED = 'Tipo de arquivo não permitido';
export const FILE_NOT_FOUND = 'Arquivo não encontrado; envie-o de novo';
export const FILE_CONTENT_MISMATCH = 'O conteúdo do arquivo não corresponde ao tipo informado';
export const TICKET_CLOSED = 'O atendimento está encerrado';

const MB = 1024 * 1024;
/** Upload limits per kind (WhatsApp's own limits, rounded down). */
export const MEDIA_LIMITS = { image: 5 * MB, video: 16 * MB, audio: 16 * MB, document: 100 * MB } as const;
/** Multipart sends (small files through the API itself): the total of the files. */
export const MULTIPART_MEDIA_MAX_BYTES = 5 * MB;
/** How long a presigned upload URL is valid. */
export const UPLOAD_URL_EXPIRES_SECONDS = 15 * 60;

export type MediaKind = keyof typeof MEDIA_LIMITS;
export const fileTooLarge = (kind: MediaKind) => `Arquivo muito grande: o máximo para ${KIND_LABEL[kind]} é ${MEDIA_LIMITS[kind] / MB} MB`;
const KIND_LABEL: Record<MediaKind, string> = { image: 'imagens', video: 'vídeos', audio: 'áudios', document: 'documentos' };

const IMAGE = ['image/jpeg', 'image/png', 'image/webp'];
const VIDEO = ['video/mp4', 'video/3gpp'];
const AUDIO = ['audio/ogg', 'audio/mpeg', 'audio/mp4', 'audio/aac', 'audio/webm', 'audio/wav'];
/** Documents named explicitly; any other `application/*` is a document too. */
const DOCUMENT_TEXT = ['text/plain', 'text/csv'];
/** Spellings browsers and phones use for the same formats. */
const ALIASES: Record<string, string> = {
  'image/jpg': 'image/jpeg',
  'image/pjpeg': 'image/jpeg',
  'audio/mp3': 'audio/mpeg',
  'audio/x-m4a': 'audio/mp4',
  'audio/m4a': 'audio/mp4',
  'audio/x-aac': 'audio/aac',
  'audio/x-wav': 'audio/wav',
  'audio/wave': 'audio/wav',
  'audio/vnd.wave': 'audio/wav',
  'audio/opus': 'audio/ogg',
  'application/x-zip-compressed': 'application/zip',
  'text/comma-separated-values': 'text/csv',
};

/** `audio/webm;codecs=opus` → `audio/webm`; lower case; known aliases folded. */
export function baseContentType(contentType: string): string {
  const base = contentType.split(';')[0].trim().toLowerCase();
  return ALIASES[base] ?? base;
}

/** The kind of an accepted content type, or undefined when it is not accepted. */
export function mediaKindOf(contentType: string): MediaKind | undefined {
  const t = baseContentType(contentType);
  if (IMAGE.includes(t)) return 'image';
  if (VIDEO.includes(t)) return 'video';
  if (AUDIO.includes(t)) return 'audio';
  if (DOCUMENT_TEXT.includes(t) || /^application\/[a-z0-9][a-z0-9!#$&^_.+-]*$/.test(t)) return 'document';
  return undefined;
}

export const mediaTypeOfKind = (kind: MediaKind): MediaType => kind;

/**
 * The real format from the first bytes (at least 16 are needed), for the formats that have a
 * signature. Answers a base content type, or undefined when the bytes name nothing known.
 */
export function sniffContentType(b: Uint8Array): string | undefined {
  const ascii = (from: number, to: number) => String.fromCharCode(...b.subarray(from, Math.min(to, b.length)));
  const starts = (...bytes: number[]) => bytes.every((x, i) => b[i] === x);
  if (starts(0xff, 0xd8, 0xff)) return 'image/jpeg';
  if (starts(0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a)) return 'image/png';
  if (ascii(0, 4) === 'RIFF' && ascii(8, 12) === 'WEBP') return 'image/webp';
  if (ascii(0, 4) === 'RIFF' && ascii(8, 12) === 'WAVE') return 'audio/wav';
  if (ascii(0, 6) === 'GIF87a' || ascii(0, 6) === 'GIF89a') return 'image/gif';
  if (ascii(4, 8) === 'ftyp') {
    const brand = ascii(8, 12);
    if (brand.startsWith('3gp') || brand.startsWith('3g2')) return 'video/3gpp';
    if (brand === 'M4A ' || brand === 'M4B ') return 'audio/mp4';
    return 'video/mp4';
  }
  if (ascii(0, 4) === 'OggS') return 'audio/ogg';
  if (starts(0x1a, 0x45, 0xdf, 0xa3)) return 'video/webm';
  if (ascii(0, 3) === 'ID3' || (b[0] === 0xff && (b[1] & 0xe6) === 0xe2)) return 'audio/mpeg';
  if (b[0] === 0xff && (b[1] & 0xf6) === 0xf0) return 'audio/aac';
  if (ascii(0, 5) === '%PDF-') return 'application/pdf';
  if (starts(0x50, 0x4b, 0x03, 0x04) || starts(0x50, 0x4b, 0x05, 0x06)) return 'application/zip';
  if (starts(0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1)) return 'application/x-ole-storage';
  return undefined;
}

/** Declared types whose bytes must carry their signature, and the signatures each accepts. */
const SIGNATURES: Record<string, string[]> = {
  'image/jpeg': ['image/jpeg'],
  'image/png': ['image/png'],
  'image/webp': ['image/webp'],
  'video/mp4': ['video/mp4', 'audio/mp4'],
  'video/3gpp': ['video/3gpp', 'video/mp4'],
  'audio/ogg': ['audio/ogg'],
  'audio/mpeg': ['audio/mpeg'],
  // m4a/aac files are mp4 containers or raw ADTS.
  'audio/mp4': ['audio/mp4', 'video/mp4', 'audio/aac'],
  'audio/aac': ['audio/aac', 'audio/mp4', 'video/mp4'],
  // MediaRecorder writes WebM (Matroska) for audio too.
  'audio/webm': ['video/webm'],
  'audio/wav': ['audio/wav'],
  'application/pdf': ['application/pdf'],
  'application/zip': ['application/zip'],
  // OOXML documents are zip files; the legacy Office formats are OLE compound files.
  'application/vnd.openxmlformats-officedocument.wordprocessingml.document': ['application/zip'],
  'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet': ['application/zip'],
  'application/vnd.openxmlformats-officedocument.presentationml.presentation': ['application/zip'],
  'application/msword': ['application/x-ole-storage'],
  'application/vnd.ms-excel': ['application/x-ole-storage'],
  'application/vnd.ms-powerpoint': ['application/x-ole-storage'],
};

export type MediaCheck =
  | { ok: true; kind: MediaKind; mimetype: string }
  | { ok: false; message: string };

/**
 * Checks a file against what it claims to be: the declared type must be accepted, its size within
 * the kind's limit, and its first bytes must match the declared format where the format has a
 * signature (text files must not look binary). The answer's `mimetype` is the declared base type.
 */
export function checkMedia(declared: string, size: number, head: Uint8Array): MediaCheck {
  const mimetype = baseContentType(declared);
  const kind = mediaKindOf(mimetype);
  if (!kind) return { ok: false, message: FILE_TYPE_NOT_ALLOWED };
  if (size > MEDIA_LIMITS[kind]) return { ok: false, message: fileTooLarge(kind) };
  if (size <= 0) return { ok: false, message: MSG.required };
  const expected = SIGNATURES[mimetype];
  if (expected && !expected.includes(sniffContentType(head) ?? '')) return { ok: false, message: FILE_CONTENT_MISMATCH };
  if (DOCUMENT_TEXT.includes(mimetype) && head.includes(0)) return { ok: false, message: FILE_CONTENT_MISMATCH };
  return { ok: true, kind, mimetype };
}

/** A file name fit for a storage key: no path, only safe characters, spaces as underscores. */
export function safeFileName(name: string): string {
  const base = name.split(/[\\/]/).pop() ?? '';
  const cleaned = base
    .normalize('NFD')
    .replace(/[\u0300-\u036f]/g, '')
    .replace(/\s+/g, '_')
    .replace(/[^A-Za-z0-9._-]/g, '')
    .replace(/^\.+/, '')
    .slice(-100);
  return cleaned || 'arquivo';
}

/** A display name for a file: no path, no control characters. */
/**
 * A file name as shown and sent: its last path part, without control characters nor the
 * direction overrides that make `fatura\u202Efdp.exe` read as `fatura exe.pdf` (issue 16 §3).
 */
export const displayFileName = (name: string) =>
  (name.split(/[\\/]/).pop() ?? '').replace(/[\u0000-\u001f\u007f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g, '').trim().slice(0, 255) || 'arquivo';

// ---------------------------------------------------------------- vCard

const vcardEscape = (s: string) => s.replace(/\\/g, '\\\\').replace(/\n/g, '\\n').replace(/([,;])/g, '\\$1');

/** A vCard 3.0 contact card as WhatsApp builds it (the `waid` lets the phone open the chat). */
export function buildVcard(name: string, number: string): string {
  const digits = number.replace(/\D/g, '');
  const n = vcardEscape(name.trim());
  return ['BEGIN:VCARD', 'VERSION:3.0', `N:;${n};;;`, `FN:${n}`, `TEL;type=CELL;type=VOICE;waid=${digits}:+${digits}`, 'END:VCARD'].join('\n');
}

/** The display name (FN) and the first number of a vCard. */
export function parseVcard(vcard: string): { name?: string; number?: string } {
  const fn = /^FN(?:;[^:]*)?:(.*)$/im.exec(vcard)?.[1];
  const tel = /^(?:item\d+\.)?TEL[^:\n]*?(?:waid=(\d+))?[^:\n]*:(.*)$/im.exec(vcard);
  const name = fn?.replace(/\\([,;\\])/g, '$1').replace(/\\n/gi, ' ').trim();
  const number = tel ? (tel[1] ?? tel[2].replace(/\D/g, '')) : undefined;
  return { name: name || undefined, number: number || undefined };
}

// ---------------------------------------------------------------- payloads

const text = (max: number) => z.string({ error: MSG.invalidValue }).max(max, { error: MSG.tooLong });

export const mediaUploadSchema = z.object({
  fileName: z.preprocess((v) => (typeof v === 'string' ? v.trim() : v), z.string({ error: MSG.required }).min(1, { error: MSG.required }).max(255, { error: MSG.tooLong })),
  contentType: z
    .string({ error: MSG.required })
    .min(1, { error: MSG.required })
    .refine((t) => mediaKindOf(t) !== undefined, { error: FILE_TYPE_NOT_ALLOWED }),
  size: z.coerce.number({ error: MSG.required }).int({ error: MSG.invalidValue }).positive({ error: MSG.required }),
});
export type MediaUploadInput = z.output<typeof mediaUploadSchema>;

/** `quotedMsg` as the console sends it: the quoted message or its id. */
const quoted = z.preprocess(
  (v) => (typeof v === 'string' ? v : v && typeof v === 'object' ? (v as { id?: unknown }).id : v),
  z.string().min(1).max(100).optional(),
);

export const sendMediaSchema = z.object({
  key: z.string({ error: MSG.required }).min(1, { error: MSG.required }).max(1024, { error: MSG.tooLong }),
  name: z.preprocess((v) => (typeof v === 'string' ? v.trim() : v), z.string({ error: MSG.required }).min(1, { error: MSG.required }).max(255, { error: MSG.tooLong })),
  caption: text(4096).optional(),
  ptt: boolish().optional(),
});

export const sendContactSchema = z.object({
  name: z.preprocess((v) => (typeof v === 'string' ? v.trim() : v), z.string({ error: MSG.required }).min(1, { error: MSG.required }).max(100, { error: MSG.tooLong })),
  number: z.preprocess(
    (v) => (typeof v === 'string' || typeof v === 'number' ? normalizeNumber(String(v)) : v),
    z.string({ error: MSG.required }).min(8, { error: MSG.tooShort }).max(15, { error: MSG.tooLong }),
  ),
});

export const sendMessageSchema = z.object({
  body: text(4096).optional(),
  quotedMsg: quoted,
  editMsg: z.preprocess((v) => (typeof v === 'string' ? { id: v } : v), z.object({ id: z.string({ error: MSG.required }).min(1, { error: MSG.required }).max(100) }).optional()),
  medias: z.array(sendMediaSchema, { error: MSG.invalidValue }).max(10, { error: MSG.tooLong }).optional(),
  contacts: z.array(sendContactSchema, { error: MSG.invalidValue }).max(10, { error: MSG.tooLong }).optional(),
  // Sent by the spec's client; messages from the console are always ours.
  fromMe: z.unknown().optional(),
  read: z.unknown().optional(),
  mediaUrl: z.unknown().optional(),
});
export type SendMessageInput = z.output<typeof sendMessageSchema>;

/** The multipart form of the same call (spec 001 §7): `medias` files, `body`, `fromMe`. */
export const sendMultipartSchema = z.object({
  body: text(4096).optional(),
  quotedMsg: quoted,
  ptt: boolish().optional(),
});

export const reactionSchema = z.object({
  // An empty string removes our reaction; one emoji (a few code points) otherwise.
  emoji: z.string({ error: MSG.required }).max(16, { error: MSG.tooLong }),
});

export const forwardSchema = z
  .object({
    contactId: z.coerce.number({ error: MSG.required }).int({ error: MSG.invalidValue }).positive({ error: MSG.required }),
    messageId: z.string().min(1).max(100).optional(),
    messageIds: z.array(z.string().min(1).max(100), { error: MSG.invalidValue }).max(20, { error: MSG.tooLong }).optional(),
  })
  .refine((f) => f.messageId || f.messageIds?.length, { error: MSG.required, path: ['messageId'] });
export type ForwardInput = z.output<typeof forwardSchema>;

/** `GET /messages/{ticketId}?searchParam=` (the message search drawer starts at 2 characters, spec 001 §5). */
export const messageSearchQuerySchema = z.object({
  searchParam: z
    .string()
    .transform((s) => s.trim())
    .pipe(z.string().min(2, { error: 'Digite ao menos 2 caracteres' }).max(100, { error: 'Too Long!' }))
    .optional(),
  cursor: z.coerce.number({ error: 'Valor inválido' }).int({ error: 'Valor inválido' }).min(1, { error: 'Valor inválido' }).optional(),
});

/**
 * `GET /messages/{ticketId}`: a page of the conversation (`pageNumber`, read leniently: anything
 * else is the first page) or, with `searchParam`, a search continued from `cursor`.
 */
export const messageListQuerySchema = messageSearchQuerySchema.extend({ pageNumber: z.union([z.string(), z.number()]).optional() });

/**
 * Types a browser shows without running anything (images, audio, video, PDF, plain text). Any
 * other type is stored as `application/octet-stream`, so opening the file's link downloads it: a
 * customer's HTML, SVG or XML attachment must never run script on the media origin (issue 16 §3).
 * The message keeps the declared type for the console to show.
 */
const INERT_TYPES = [/^image\/(png|jpeg|gif|webp|bmp)$/, /^audio\/[a-z0-9.+-]+$/, /^video\/[a-z0-9.+-]+$/, /^application\/pdf$/, /^text\/(plain|csv)$/];

export function storedContentType(mimetype: string): string {
  const base = mimetype.split(';')[0]!.trim().toLowerCase();
  return INERT_TYPES.some((re) => re.test(base)) ? mimetype : 'application/octet-stream';
}
