import { z } from 'zod';
import { MSG, boolish } from '../validation.js';
import { sendMediaSchema } from './messages.js';

/**
 * Internal chat between a company's users (spec 002 §2 "Internal chats", §3, §5, §7; issue 21 §2;
 * decision 57). The dialog's alerts are the spec's texts; the API answers the same ones.
 */

/** Spec 002 §5: the new-chat dialog's alerts. */
export const CHAT_TITLE_REQUIRED = 'Por favor, preencha o título da conversa.';
export const CHAT_USERS_REQUIRED = 'Por favor, selecione pelo menos um usuário.';

/** Chats of one user per page of `GET /chats`, messages per page of `GET /chats/{id}/messages`. */
export const CHATS_PAGE = 20;
export const CHAT_MESSAGES_PAGE = 20;
/**
 * Members of one chat, the owner included: an edit writes the chat, a pointer per newcomer and a
 * pointer delete per leaver in one transaction (DynamoDB takes 100 items): replacing all 49 others
 * at once is 1 + 49 + 49.
 */
export const CHAT_MAX_USERS = 50;
export const CHAT_TITLE_MAX = 100;
export const CHAT_MESSAGE_MAX = 4096;
/** Files of one send: each is a message, all written in one transaction with the chat. */
export const CHAT_MEDIAS_MAX = 10;
/** Spec 002 §9: the message input grows up to 5 rows; older messages load within 600 px of the top. */
export const CHAT_INPUT_MAX_ROWS = 5;
export const CHAT_LOAD_OLDER_WITHIN_PX = 600;

/** A user named by id, or as the console's user picker holds it (`{id, name}`). */
const userRef = z.preprocess(
  (v) => (v && typeof v === 'object' && 'id' in v ? (v as { id: unknown }).id : typeof v === 'string' && v.trim() !== '' ? Number(v) : v),
  z.number({ error: MSG.invalidValue }).int({ error: MSG.invalidValue }).positive({ error: MSG.invalidValue }),
);

const users = z
  .array(userRef, { error: CHAT_USERS_REQUIRED })
  .min(1, { error: CHAT_USERS_REQUIRED })
  .max(CHAT_MAX_USERS - 1, { error: MSG.tooLong });

const title = z.preprocess(
  (v) => (typeof v === 'string' ? v.trim() : v),
  z.string({ error: CHAT_TITLE_REQUIRED }).min(1, { error: CHAT_TITLE_REQUIRED }).max(CHAT_TITLE_MAX, { error: MSG.tooLong }),
);

/** `POST /chats {users, title, isGroup}`: `users` are the other members (the creator is always one). */
export const chatSchema = z.object({
  title,
  users,
  /** Absent: a group when more than one other user is chosen. */
  isGroup: boolish().optional(),
});
export type ChatInput = z.output<typeof chatSchema>;

/** `PUT /chats/{id} {users, title}` (owner only). */
export const chatUpdateSchema = z.object({ title: title.optional(), users: users.optional() });

export const chatListQuerySchema = z.object({
  pageNumber: z.coerce.number({ error: MSG.invalidValue }).int({ error: MSG.invalidValue }).min(1, { error: MSG.invalidValue }).optional(),
});
export const chatMessagesQuerySchema = chatListQuerySchema;

/**
 * `POST /chats/{id}/messages`: `{message}` as JSON, optionally with uploaded files (`medias`:
 * keys from `POST /chats/{id}/media-upload`), or multipart `medias` files with `body`.
 */
export const chatMessageSchema = z.object({
  message: z.preprocess((v) => (v === null || v === undefined ? '' : v), z.string({ error: MSG.invalidValue }).max(CHAT_MESSAGE_MAX, { error: MSG.tooLong })),
  medias: z.array(sendMediaSchema.pick({ key: true, name: true }), { error: MSG.invalidValue }).max(CHAT_MEDIAS_MAX, { error: MSG.tooLong }).optional(),
});

/** `POST /chats/{id}/read {userId}`: only one's own counter (the body's user, when named, must be the caller). */
export const chatReadSchema = z.object({
  userId: z.preprocess((v) => (v === null || v === undefined || v === '' ? undefined : typeof v === 'string' ? Number(v) : v), z.number({ error: MSG.invalidValue }).int().positive().optional()),
});
