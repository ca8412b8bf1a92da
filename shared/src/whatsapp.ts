import { z } from 'zod';

/**
 * WhatsApp sessions and the message pipeline (DESIGN §6, server-behaviour §2, §7). The session host
 * turns provider events into versioned inbound events (SQS FIFO `inbound`, grouped per chat so one
 * customer's messages stay in order); the API and workers send commands to the session host on
 * the shard's outbound FIFO queue, grouped per connection.
 */
export const SESSION_STATUSES = ['qrcode', 'OPENING', 'PAIRING', 'CONNECTED', 'DISCONNECTED', 'TIMEOUT'] as const;
export type SessionStatus = (typeof SESSION_STATUSES)[number];
/** Statuses that put the alert badge on the Connections menu item (spec 000 §2.2). */
export const ALERT_STATUSES: readonly SessionStatus[] = ['qrcode', 'PAIRING', 'DISCONNECTED', 'TIMEOUT', 'OPENING'];
/** A session starting, waiting for the phone or up: "try again" leaves it as it is (decision 35). */
export const LIVE_SESSION_STATUSES: readonly SessionStatus[] = ['OPENING', 'qrcode', 'PAIRING', 'CONNECTED'];

/**
 * The connection used where none is named (decision 37): the user's own default connection (the
 * user's `whatsappId`) while it exists, else the company's default, else its oldest.
 */
export function pickDefaultConnection<C extends { id: number; isDefault: boolean }>(list: readonly C[], userDefaultId?: number | null): C | undefined {
  const own = userDefaultId ? list.find((c) => c.id === userDefaultId) : undefined;
  return own ?? list.find((c) => c.isDefault) ?? [...list].sort((a, b) => a.id - b.id)[0];
}

export const PROVIDERS = ['beta', 'sandbox'] as const;
export type Provider = (typeof PROVIDERS)[number];

/** `unsupported`: conversation WhatsApp carries that we cannot show; the body names its WhatsApp type. */
export const MEDIA_TYPES = ['image', 'video', 'audio', 'document', 'sticker', 'locationMessage', 'contactMessage', 'call_log', 'unsupported'] as const;
export type MediaType = (typeof MEDIA_TYPES)[number];

/** WhatsApp acks: 0 error, 1 pending, 2 sent (server), 3 delivered, 4 read, 5 played (§7). */
export const ACK = { ERROR: 0, PENDING: 1, SENT: 2, DELIVERED: 3, READ: 4, PLAYED: 5 } as const;

/** Media already copied to S3 by the session host before the event is published. */
export const storedMediaSchema = z.object({
  key: z.string(),
  mimetype: z.string(),
  fileName: z.string().optional(),
  size: z.number().int().nonnegative(),
  /** Voice note (ptt) rather than an audio file. */
  ptt: z.boolean().optional(),
});
export type StoredMedia = z.infer<typeof storedMediaSchema>;

/** Why an inbound message came without its file: over the receiving limit, or not obtainable. */
export const MEDIA_ERRORS = ['tooLarge', 'unavailable'] as const;
export type MediaErrorReason = (typeof MEDIA_ERRORS)[number];

/**
 * A file the session host did not store (issue 17 §1): the message is published without `media`
 * and with this, so the agent sees that a file was sent and can ask for it another way.
 */
export const mediaErrorSchema = z.object({
  reason: z.enum(MEDIA_ERRORS),
  /** Bytes, as WhatsApp declared it (absent when unknown, or when the bytes sent proved it false). */
  size: z.number().int().nonnegative().optional(),
  /** The receiving limit in bytes that a `tooLarge` file went over. */
  limit: z.number().int().positive().optional(),
  fileName: z.string().optional(),
});
// Not `MediaError`: the DOM has one (HTMLMediaElement.error), and the console imports these types.
export type InboundMediaError = z.infer<typeof mediaErrorSchema>;

/** A chat peer as WhatsApp identifies it: phone number (digits with country code) and/or LID. */
export const peerSchema = z.object({
  number: z.string().regex(/^\d{6,20}$/).optional(),
  lid: z.string().optional(),
  /** Group chats: the group id (`…@g.us` without the suffix). */
  groupId: z.string().optional(),
  name: z.string().optional(),
});
export type Peer = z.infer<typeof peerSchema>;

/** A message's WhatsApp key as the session saw it: replies, reactions and read receipts are built from it. */
export const waKeySchema = z.object({
  remoteJid: z.string().min(1).max(200),
  participant: z.string().max(200).optional(),
  fromMe: z.boolean(),
});
export type WaKey = z.infer<typeof waKeySchema>;

/** Numbers asked in one `checkNumbers` question. */
export const CHECK_NUMBERS_BATCH = 100;

const base = {
  v: z.literal(1),
  /** Unique per event; the FIFO deduplication id. */
  eventId: z.string(),
  companyId: z.number().int().positive(),
  connectionId: z.number().int().positive(),
  at: z.string(),
};

export const inboundEventSchema = z.discriminatedUnion('type', [
  z.object({
    ...base,
    type: z.literal('message'),
    waMessageId: z.string().min(1),
    chat: peerSchema,
    /** In groups: who wrote it. */
    sender: peerSchema.optional(),
    fromMe: z.boolean(),
    body: z.string(),
    mediaType: z.enum(MEDIA_TYPES).optional(),
    media: storedMediaSchema.optional(),
    /** Set instead of `media` when the file was not stored. */
    mediaError: mediaErrorSchema.optional(),
    quotedWaId: z.string().optional(),
    waKey: waKeySchema.optional(),
    timestamp: z.number().int(),
    /** Status broadcasts and newsletters are dropped by the ingest worker (§2 step 2). */
    broadcast: z.boolean().optional(),
  }),
  z.object({ ...base, type: z.literal('ack'), chat: peerSchema, waMessageIds: z.array(z.string()).min(1), ack: z.number().int().min(0).max(5) }),
  z.object({ ...base, type: z.literal('edit'), chat: peerSchema, waMessageId: z.string(), body: z.string() }),
  z.object({ ...base, type: z.literal('delete'), chat: peerSchema, waMessageId: z.string() }),
  z.object({ ...base, type: z.literal('reaction'), chat: peerSchema, sender: peerSchema.optional(), fromMe: z.boolean(), waMessageId: z.string(), emoji: z.string() }),
  z.object({ ...base, type: z.literal('call'), chat: peerSchema, callId: z.string(), isVideo: z.boolean().optional(), timestamp: z.number().int() }),
  z.object({ ...base, type: z.literal('contact'), peer: peerSchema, name: z.string().optional(), pictureUrl: z.string().nullable().optional() }),
  z.object({
    ...base,
    type: z.literal('session'),
    status: z.enum(SESSION_STATUSES),
    qrcode: z.string().optional(),
    /** Phone number of the linked account once connected. */
    number: z.string().optional(),
    retries: z.number().int().optional(),
    reason: z.string().optional(),
    /**
     * The reporting host's lease epoch of the connection's shard: a report from an older owner
     * (a socket closing after a handover) never overwrites the current owner's.
     */
    epoch: z.number().int().nonnegative().optional(),
  }),
  /** Outcome of a `send` command: the message stored with ack 0 gets its ack or its error. */
  z.object({
    ...base,
    type: z.literal('sendResult'),
    ticketId: z.number().int().positive(),
    waMessageId: z.string(),
    ok: z.boolean(),
    error: z.string().optional(),
    timestamp: z.number().int().optional(),
  }),
]);
export type InboundEvent = z.infer<typeof inboundEventSchema>;

export const outboundCommandSchema = z.discriminatedUnion('type', [
  z.object({
    v: z.literal(1),
    type: z.literal('send'),
    commandId: z.string(),
    companyId: z.number().int(),
    connectionId: z.number().int(),
    ticketId: z.number().int(),
    /** Our id for the message, used as its WhatsApp id (so the echo is recognised: §1). */
    waMessageId: z.string(),
    to: peerSchema,
    body: z.string(),
    media: storedMediaSchema.extend({ mediaType: z.enum(MEDIA_TYPES) }).optional(),
    quotedWaId: z.string().optional(),
    vcard: z.string().optional(),
  }),
  z.object({ v: z.literal(1), type: z.literal('read'), commandId: z.string(), companyId: z.number().int(), connectionId: z.number().int(), to: peerSchema, waMessageIds: z.array(z.string()).min(1) }),
  z.object({ v: z.literal(1), type: z.literal('edit'), commandId: z.string(), companyId: z.number().int(), connectionId: z.number().int(), to: peerSchema, waMessageId: z.string(), body: z.string() }),
  z.object({ v: z.literal(1), type: z.literal('delete'), commandId: z.string(), companyId: z.number().int(), connectionId: z.number().int(), to: peerSchema, waMessageId: z.string() }),
  z.object({ v: z.literal(1), type: z.literal('react'), commandId: z.string(), companyId: z.number().int(), connectionId: z.number().int(), to: peerSchema, waMessageId: z.string(), emoji: z.string() }),
  z.object({ v: z.literal(1), type: z.literal('rejectCall'), commandId: z.string(), companyId: z.number().int(), connectionId: z.number().int(), callId: z.string(), from: peerSchema }),
  /** "typing…" (or recording) shown to the customer before an automated answer (server-behaviour §9). */
  z.object({ v: z.literal(1), type: z.literal('presence'), commandId: z.string(), companyId: z.number().int(), connectionId: z.number().int(), to: peerSchema, state: z.enum(['composing', 'recording', 'paused']) }),
  /**
   * A question the API needs answered synchronously (is this number on WhatsApp? the phone's
   * address book): the session host writes the answer to the table item `RPC#<rpcId>`.
   */
  z.object({
    v: z.literal(1),
    type: z.literal('rpc'),
    commandId: z.string(),
    companyId: z.number().int(),
    connectionId: z.number().int(),
    rpcId: z.string(),
    call: z.discriminatedUnion('op', [
      z.object({ op: z.literal('checkNumber'), number: z.string() }),
      // Many numbers in one question (a contact-list import checks its rows in batches).
      z.object({ op: z.literal('checkNumbers'), numbers: z.array(z.string()).min(1).max(CHECK_NUMBERS_BATCH) }),
      // A page of the address book in number order: the entries after `after`, at most `limit`.
      z.object({ op: z.literal('addressBook'), after: z.string().max(64).optional(), limit: z.number().int().positive().max(5000).optional() }),
    ]),
  }),
  /** Session control from the connections page (§2.8 actions). */
  z.object({
    v: z.literal(1),
    type: z.enum(['start', 'restart', 'newQr', 'logout', 'stop']),
    commandId: z.string(),
    companyId: z.number().int(),
    connectionId: z.number().int(),
    pairingNumber: z.string().optional(),
  }),
]);
export type OutboundCommand = z.infer<typeof outboundCommandSchema>;

/** A connection belongs to shard `hash(connectionId) % shards` (DESIGN §6). */
export function shardOf(connectionId: number, shards: number): number {
  // FNV-1a over the decimal id: stable across processes and languages.
  let h = 0x811c9dc5;
  for (const ch of String(connectionId)) {
    h ^= ch.charCodeAt(0);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h % shards;
}

/** Digits with country code; Brazilian numbers get 55 when it is missing (spec 001 §5). */
export function normalizeNumber(raw: string): string {
  const digits = raw.replace(/\D/g, '');
  if (digits.length >= 10 && digits.length <= 11) return `55${digits}`;
  return digits;
}

/** Placeholder bodies for media without a caption, as lists show them (§7). */
export const MEDIA_PLACEHOLDER: Partial<Record<MediaType, string>> = {
  image: '📷 Imagem',
  video: '🎥 Vídeo',
  audio: '🎵 Áudio',
  document: '📎 Documento',
  sticker: '🏷️ Figurinha',
  unsupported: '⚠️ Mensagem não suportada',
};

/** Answers of the `rpc` command, as written to the table. */
/**
 * Whether two numbers are one WhatsApp account: the same digits, or a Brazilian mobile written with
 * and without its ninth digit (WhatsApp answers older accounts without it).
 */
export function sameWhatsAppNumber(a: string, b: string): boolean {
  if (a === b) return true;
  const withoutNinth = (n: string) => (/^55\d{2}9\d{8}$/.test(n) ? n.slice(0, 4) + n.slice(5) : n);
  return withoutNinth(a) === withoutNinth(b);
}

export type RpcAnswer =
  | { op: 'checkNumber'; exists: boolean; number?: string; lid?: string }
  | { op: 'checkNumbers'; results: { number: string; exists: boolean }[] }
  | { op: 'addressBook'; contacts: AddressBookEntry[]; total?: number; offset?: number };

export type AddressBookEntry = { number: string; name: string };

/**
 * One page of a phone's address book: entries sorted by number (each number once), those after
 * `after`, at most `limit`; `total` entries in the book, `offset` of the first one. Paging by the
 * last number seen (not a position) never skips an entry when the book changes between pages, and
 * keeps every answer small (the answer is a table item, at most 400 KB).
 */
export function addressBookPage(book: AddressBookEntry[], page: { after?: string; limit?: number }): Extract<RpcAnswer, { op: 'addressBook' }> {
  const unique = [...new Map(book.filter((e) => e && typeof e.number === 'string' && e.number).map((e) => [e.number, e])).values()];
  unique.sort((a, b) => (a.number < b.number ? -1 : a.number > b.number ? 1 : 0));
  const offset = page.after === undefined ? 0 : unique.filter((e) => e.number <= page.after!).length;
  const contacts = unique.slice(offset, page.limit ? offset + page.limit : undefined);
  return { op: 'addressBook', contacts, total: unique.length, offset };
}

/** WhatsApp-style message ids for what we send (so the echo is recognised: §1). */
export function newWaMessageId(): string {
  const bytes = new Uint8Array(8);
  globalThis.crypto.getRandomValues(bytes);
  return `3EB0${Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('').toUpperCase()}`;
}
