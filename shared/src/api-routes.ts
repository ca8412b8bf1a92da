import type { z } from 'zod';
import type { ApiContact, ApiMessage, ApiTicket, TagRef } from './contracts.js';
import type { Plan, SettingItem, User } from './entities.js';
import { contactListQuerySchema, contactSchema } from './schemas/contacts.js';
import { mediaUploadSchema, messageListQuerySchema } from './schemas/messages.js';
import { signupSchema } from './schemas/platform.js';
import { tagListQuerySchema, tagSyncSchema } from './schemas/tags.js';
import { createTicketSchema, ticketCountsQuerySchema, ticketListQuerySchema, ticketNoteSchema, updateTicketSchema } from './schemas/tickets.js';

/**
 * The typed contracts of the routes the console calls (issue 15 §4): for each `METHOD /path` of
 * the route table (functions/src/routes.ts; a unit test checks every key is there), the zod
 * schemas its handler parses the query and body with, and (`ApiAnswers`) the answer's type. The
 * console's client (`web/src/api/call.ts`) is typed from both, so no component spells a path or
 * copies a type. Routes are added here as the console's calls move onto the client.
 */
export const apiRoutes = {
  'GET /auth/me': {},
  'POST /auth/login': {},
  'DELETE /auth/logout': {},
  'POST /forgetpassword/{email}': {},
  'GET /plans/list': {},
  'POST /companies/cadastro': { body: signupSchema },
  'GET /settings': {},
  'PUT /settings/{key}': {},
  'GET /tickets': { query: ticketListQuerySchema },
  'GET /tickets/counts': { query: ticketCountsQuerySchema },
  'POST /tickets': { body: createTicketSchema },
  'GET /tickets/{id}': {},
  'GET /tickets/u/{uuid}': {},
  'PUT /tickets/{id}': { body: updateTicketSchema },
  'GET /messages/{ticketId}': { query: messageListQuerySchema },
  'POST /messages/{ticketId}': {},
  'POST /messages/{ticketId}/media-upload': { body: mediaUploadSchema },
  'POST /ticket-notes': { body: ticketNoteSchema },
  'DELETE /ticket-notes/{id}': {},
  'GET /tags/list': { query: tagListQuerySchema },
  'POST /tags/sync': { body: tagSyncSchema },
  'GET /contacts': { query: contactListQuerySchema },
  'POST /contacts': { body: contactSchema },
} as const satisfies Record<string, { query?: z.ZodType; body?: z.ZodType }>;

export type ApiRoute = keyof typeof apiRoutes;

export interface TicketPage {
  tickets: ApiTicket[];
  hasMore: boolean;
  nextCursor: string | null;
  count?: number;
}

export interface MessagePage {
  messages: ApiMessage[];
  hasMore: boolean;
  /** Searches continue from here (`cursor`); null when the search is done. */
  nextCursor?: string | null;
  count?: number;
}

export interface MediaUploadSlot {
  key: string;
  uploadUrl: string;
  headers?: Record<string, string>;
  expiresIn?: number;
}

export interface TicketNote {
  id: number;
  note: string;
  ticketId: number;
  contactId: number;
  user: { id: number; name: string } | null;
  createdAt: string;
}

/** What each route answers. */
export interface ApiAnswers {
  'GET /auth/me': User;
  'POST /auth/login': { user: User };
  'DELETE /auth/logout': void;
  'POST /forgetpassword/{email}': unknown;
  'GET /plans/list': Plan[];
  'POST /companies/cadastro': unknown;
  'GET /settings': SettingItem[];
  'PUT /settings/{key}': SettingItem;
  'GET /tickets': TicketPage;
  /** The tickets tab's badges: open assigned to me, open of others, pending. */
  'GET /tickets/counts': { me: number; others: number; pending: number };
  'POST /tickets': ApiTicket;
  'GET /tickets/{id}': ApiTicket;
  'GET /tickets/u/{uuid}': ApiTicket;
  'PUT /tickets/{id}': ApiTicket;
  'GET /messages/{ticketId}': MessagePage;
  /** One message, or several when one send carried several files. */
  'POST /messages/{ticketId}': ApiMessage & { messages?: ApiMessage[] };
  'POST /messages/{ticketId}/media-upload': MediaUploadSlot;
  'POST /ticket-notes': TicketNote;
  'DELETE /ticket-notes/{id}': unknown;
  'GET /tags/list': (TagRef & { kanban: 0 | 1 })[];
  'POST /tags/sync': unknown;
  'GET /contacts': { contacts: ApiContact[]; count: number; hasMore: boolean };
  'POST /contacts': ApiContact;
}

// Every route has an answer type and every answer a route.
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : never) : never;
export const apiAnswersCoverRoutes: Same<keyof ApiAnswers, ApiRoute> = true;

/** The path parameters a route's path names (`{id}` → `id`). */
type PathParams<P extends string> = P extends `${string}{${infer Name}}${infer Rest}` ? Name | PathParams<Rest> : never;

type RouteSpec<R extends ApiRoute> = (typeof apiRoutes)[R];
type QueryOf<R extends ApiRoute> = RouteSpec<R> extends { query: infer Q extends z.ZodType } ? Partial<Record<keyof z.input<Q>, string | number | undefined>> : never;
type BodyOf<R extends ApiRoute> = RouteSpec<R> extends { body: infer B extends z.ZodType } ? z.input<B> : unknown;

/** The arguments of a call: its path parameters, query and body as the route's schemas take them. */
export type ApiCallArgs<R extends ApiRoute> = ([PathParams<R>] extends [never] ? { params?: never } : { params: Record<PathParams<R>, string | number> }) & {
  query?: QueryOf<R>;
  body?: BodyOf<R>;
};

/** `GET /tickets/{id}` with `{id: 7}` → `['GET', '/tickets/7']`. */
export function routeRequest(route: ApiRoute, params: Record<string, string | number> = {}): [string, string] {
  const space = route.indexOf(' ');
  const path = route.slice(space + 1).replace(/\{(\w+)\}/g, (_, name: string) => {
    if (params[name] === undefined) throw new Error(`${route}: missing ${name}`);
    return encodeURIComponent(String(params[name]));
  });
  return [route.slice(0, space), path];
}
