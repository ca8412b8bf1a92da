import type { z } from 'zod';
import type { ApiCampaign, ApiKanbanBoard, ApiContact, ApiContactFull, ApiContactList, ApiContactListItem, ApiMessage, ApiPrompt, ApiQueueIntegration, ApiQuickMessage, ApiTag, ApiTicket, ImportResult, TagRef } from './contracts.js';
import type { Company, Connection, Plan, Queue, QueueOption, SettingItem, TicketStatus, User } from './entities.js';
import { companySchedulesSchema, type ScheduleEntry } from './business-hours.js';
import { connectionSchema, connectionUpdateSchema } from './schemas/connections.js';
import { contactExportQuerySchema, contactImportSchema, contactListQuerySchema, contactSchema, contactTransferSchema, contactUpdateSchema } from './schemas/contacts.js';
import { forwardSchema, mediaUploadSchema, messageListQuerySchema, reactionSchema, sendMessageSchema } from './schemas/messages.js';
import {
  resetPasswordSchema,
  companySchema,
  companyUpdateSchema,
  planSchema,
  planUpdateSchema,
  queueSchema,
  queueUpdateSchema,
  queueOptionSchema,
  queueOptionUpdateSchema,
  queueOptionListQuerySchema,
  signupSchema,
  userCreateSchema,
  userListQuerySchema,
  userUpdateSchema,
} from './schemas/platform.js';
import { quickMessageListQuerySchema, quickMessageSchema, quickMessageUpdateSchema } from './schemas/quick-messages.js';
import { scheduleListQuerySchema, scheduleSchema, scheduleUpdateSchema, type Schedule } from './schemas/schedules.js';
import { contactListItemSchema, contactListItemsQuerySchema, contactListItemUpdateSchema, contactListSchema, contactListsQuerySchema } from './schemas/contact-lists.js';
import { campaignSchema, campaignsQuerySchema, campaignUpdateSchema } from './schemas/campaigns.js';
import { integrationListQuerySchema, integrationTestSchema, promptSchema, promptUpdateSchema, queueIntegrationSchema, queueIntegrationUpdateSchema } from './schemas/integrations.js';
import { kanbanTagsQuerySchema, tagListQuerySchema, tagSchema, tagSyncSchema, tagUpdateSchema } from './schemas/tags.js';
import { createTicketSchema, kanbanQuerySchema, kanbanTypeQuerySchema, ticketCountsQuerySchema, ticketListQuerySchema, ticketNoteListSchema, ticketNoteSchema, updateTicketSchema } from './schemas/tickets.js';
import type { ApiFileList } from './contracts.js';
import { fileListSchema, fileListsQuerySchema, fileListUpdateSchema } from './schemas/file-lists.js';
import { campaignSettingsSchema, type CampaignSettingEntry } from './schemas/campaign-settings.js';
import type { ApiAnnouncement } from './contracts.js';
import { announcementSchema, announcementsQuerySchema, announcementUpdateSchema } from './schemas/announcements.js';
import type { ApiChat, ApiChatMessage } from './contracts.js';
import { chatListQuerySchema, chatMessageSchema, chatMessagesQuerySchema, chatReadSchema, chatSchema, chatUpdateSchema } from './schemas/chats.js';
import type { ApiHelp } from './contracts.js';
import { helpListQuerySchema, helpSchema, helpUpdateSchema } from './schemas/helps.js';
import type { ApiInvoice, PixCheckout } from './contracts.js';
import { invoiceListQuerySchema, subscriptionSchema } from './schemas/billing.js';
import type { DashboardResult, DashboardTicketsDay, DashboardTicketsUsers } from './dashboard.js';
import { dashboardChartQuerySchema, dashboardQuerySchema } from './schemas/dashboard.js';

/**
 * The typed contracts of the routes the console calls (issue 15 §4): for each `METHOD /path` of
 * the route table (functions/src/routes.ts; a unit test checks every key is there), the zod
 * schemas its handler parses the query and body with, and (`ApiAnswers`) the answer's type. The
 * console's client (`web/src/api/call.ts`) is typed from both, so no component spells a path or
 * copies a type. Routes are added here as the console's calls move onto the client.
 */
export const apiRoutes = {
  // auth
  // The console signs in with Cognito and calls this with its token (no body); a password body is for API clients.
  'POST /auth/login': {},
  'POST /auth/refresh_token': {},
  'GET /auth/me': {},
  'DELETE /auth/logout': {},
  'POST /forgetpassword/{email}': {},
  'POST /resetpasswords/{email}/{token}/{newPassword}': {},
  /** The same reset with the code and the new password in the body (the console's form, issue 16 §5). */
  'POST /resetpasswords': { body: resetPasswordSchema },
  // plans
  'GET /plans/list': {},
  'GET /plans/all': {},
  'GET /plans': {},
  'POST /plans': { body: planSchema },
  'GET /plans/{id}': {},
  'PUT /plans/{id}': { body: planUpdateSchema },
  'DELETE /plans/{id}': {},
  // help videos (platform-wide; writes are the super user's)
  'GET /helps': { query: helpListQuerySchema },
  'GET /helps/list': {},
  'POST /helps': { body: helpSchema },
  'GET /helps/{id}': {},
  'PUT /helps/{id}': { body: helpUpdateSchema },
  'DELETE /helps/{id}': {},
  // companies
  'POST /companies/cadastro': { body: signupSchema },
  'GET /companies/listPlan/{id}': {},
  'GET /companies/list': {},
  'GET /companies': {},
  'POST /companies': { body: companySchema },
  'GET /companies/{id}': {},
  'PUT /companies/{id}': { body: companyUpdateSchema },
  'PUT /companies/{id}/schedules': { body: companySchedulesSchema },
  'DELETE /companies/{id}': {},
  // users
  'GET /users': { query: userListQuerySchema },
  'GET /users/list': {},
  'GET /users/{id}': {},
  'POST /users': { body: userCreateSchema },
  'PUT /users/{id}': { body: userUpdateSchema },
  'DELETE /users/{id}': {},
  // queues
  'GET /queue': {},
  'GET /queue/{id}': {},
  'POST /queue': { body: queueSchema },
  'PUT /queue/{id}': { body: queueUpdateSchema },
  'DELETE /queue/{id}': {},
  'GET /queue-options': { query: queueOptionListQuerySchema },
  'GET /queue-options/{id}': {},
  'POST /queue-options': { body: queueOptionSchema },
  'PUT /queue-options/{id}': { body: queueOptionUpdateSchema },
  'DELETE /queue-options/{id}': {},
  // connections and their sessions
  'GET /whatsapp': {},
  'GET /whatsapp/{id}': {},
  'POST /whatsapp': { body: connectionSchema },
  'PUT /whatsapp/{id}': { body: connectionUpdateSchema },
  'DELETE /whatsapp/{id}': {},
  'POST /whatsappsession/{id}': {},
  'PUT /whatsappsession/{id}': {},
  'POST /whatsappsession/reconnect/{id}': {},
  'DELETE /whatsappsession/{id}': {},
  // messages
  'GET /messages/{ticketId}': { query: messageListQuerySchema },
  'POST /messages/{ticketId}': { body: sendMessageSchema },
  'POST /messages/retry/{messageId}': {},
  'DELETE /messages/{ticketId}': {},
  'POST /messages/{ticketId}/reactions': { body: reactionSchema },
  'POST /messages/{ticketId}/media-upload': { body: mediaUploadSchema },
  'POST /forward': { body: forwardSchema },
  // tickets
  'GET /tickets': { query: ticketListQuerySchema },
  'GET /tickets/counts': { query: ticketCountsQuerySchema },
  'GET /ticket/kanban': { query: kanbanQuerySchema },
  'GET /tickets/u/{uuid}': {},
  'GET /tickets/{id}': {},
  'POST /tickets': { body: createTicketSchema },
  'PUT /tickets/{id}': { body: updateTicketSchema },
  'DELETE /tickets/{id}': {},
  'POST /ticket-notes': { body: ticketNoteSchema },
  'GET /ticket-notes/list': { query: ticketNoteListSchema },
  'DELETE /ticket-notes/{id}': {},
  // contacts
  'GET /contacts': { query: contactListQuerySchema },
  'GET /contacts/list': {},
  'GET /contacts/export': { query: contactExportQuerySchema },
  'GET /contacts/{id}': {},
  'POST /contacts': { body: contactSchema },
  'PUT /contacts/{id}': { body: contactUpdateSchema },
  'DELETE /contacts/{id}': {},
  'POST /contacts/import': {},
  'POST /contacts/importList': { body: contactImportSchema },
  'POST /contacts/transferUser': { body: contactTransferSchema },
  // tags
  'GET /tags': {},
  'GET /tags/list': { query: tagListQuerySchema },
  'GET /tags/kanban': { query: kanbanTagsQuerySchema },
  'GET /tags/{id}': {},
  'POST /tags': { body: tagSchema },
  'PUT /tags/{id}': { body: tagUpdateSchema },
  'DELETE /tags/{id}': {},
  'POST /tags/sync': { body: tagSyncSchema },
  'PUT /ticket-tags/{ticketId}/{tagId}': {},
  'DELETE /ticket-tags/{ticketId}': { query: kanbanTypeQuerySchema },
  // quick replies
  'GET /quick-messages': { query: quickMessageListQuerySchema },
  'GET /quick-messages/list': {},
  'GET /quick-messages/{id}': {},
  'POST /quick-messages': { body: quickMessageSchema },
  'PUT /quick-messages/{id}': { body: quickMessageUpdateSchema },
  'DELETE /quick-messages/{id}': {},
  'POST /quick-messages/{id}/media-upload': {},
  'DELETE /quick-messages/{id}/media-upload': {},
  // schedules
  'GET /schedules': { query: scheduleListQuerySchema },
  'GET /schedules/{id}': {},
  'POST /schedules': { body: scheduleSchema },
  'PUT /schedules/{id}': { body: scheduleUpdateSchema },
  'DELETE /schedules/{id}': {},
  'POST /schedules/{id}/media-upload': {},
  'DELETE /schedules/{id}/media-upload': {},
  // queue integrations and AI prompts (issue 19)
  'GET /queueIntegration': { query: integrationListQuerySchema },
  'GET /queueIntegration/{id}': {},
  'POST /queueIntegration': { body: queueIntegrationSchema },
  'PUT /queueIntegration/{id}': { body: queueIntegrationUpdateSchema },
  'DELETE /queueIntegration/{id}': {},
  'POST /queueIntegration/testSession': { body: integrationTestSchema },
  'GET /prompt': {},
  'GET /prompt/{id}': {},
  'POST /prompt': { body: promptSchema },
  'PUT /prompt/{id}': { body: promptUpdateSchema },
  'DELETE /prompt/{id}': {},
  // contact lists (issue 20 §2)
  'GET /contact-lists': { query: contactListsQuerySchema },
  'GET /contact-lists/list': {},
  'POST /contact-lists': { body: contactListSchema },
  'GET /contact-lists/{id}': {},
  'PUT /contact-lists/{id}': { body: contactListSchema },
  'DELETE /contact-lists/{id}': {},
  'POST /contact-lists/{id}/upload': {},
  'GET /contact-list-items': { query: contactListItemsQuerySchema },
  'POST /contact-list-items': { body: contactListItemSchema },
  'GET /contact-list-items/{id}': {},
  'PUT /contact-list-items/{id}': { body: contactListItemUpdateSchema },
  'DELETE /contact-list-items/{id}': {},
  'GET /campaigns': { query: campaignsQuerySchema },
  'POST /campaigns': { body: campaignSchema },
  'GET /campaigns/{id}': {},
  'PUT /campaigns/{id}': { body: campaignUpdateSchema },
  'DELETE /campaigns/{id}': {},
  'POST /campaigns/{id}/cancel': {},
  'POST /campaigns/{id}/restart': {},
  'POST /campaigns/{id}/media-upload': {},
  'DELETE /campaigns/{id}/media-upload': {},
  // file lists (issue 20 §3; spec 002 §7): admins
  'GET /files': { query: fileListsQuerySchema },
  'POST /files': { body: fileListSchema },
  'GET /files/{id}': {},
  'PUT /files/{id}': { body: fileListUpdateSchema },
  'DELETE /files/{id}': {},
  /** Multipart: `files` (one per option), `id` (the option of each file, by position), `fileId`, `typeArch=fileList`. */
  'POST /files/uploadList/{id}': {},
  // campaign settings (issue 20 §3; spec 002 §7): admins, behind useCampaigns
  'GET /campaign-settings': {},
  'POST /campaign-settings': { body: campaignSettingsSchema },
  // internal chat (issue 21 §2; spec 002 §7): members only, behind useInternalChat
  'GET /chats': { query: chatListQuerySchema },
  'POST /chats': { body: chatSchema },
  'PUT /chats/{id}': { body: chatUpdateSchema },
  'DELETE /chats/{id}': {},
  'GET /chats/{id}/messages': { query: chatMessagesQuerySchema },
  /** JSON `{message, medias?}` or multipart `medias` files and `body`. */
  'POST /chats/{id}/messages': { body: chatMessageSchema },
  'POST /chats/{id}/media-upload': { body: mediaUploadSchema },
  'POST /chats/{id}/read': { body: chatReadSchema },
  // announcements (issue 21 §3; spec 002 §7): every user reads the active ones, the super user all and writes
  'GET /announcements': { query: announcementsQuerySchema },
  'GET /announcements/{id}': {},
  'POST /announcements': { body: announcementSchema },
  'PUT /announcements/{id}': { body: announcementUpdateSchema },
  'DELETE /announcements/{id}': {},
  /** Multipart `file`: a .png, .jpg or .jpeg image, checked by its bytes, 5 MB at most. */
  'POST /announcements/{id}/media-upload': {},
  'DELETE /announcements/{id}/media-upload': {},
  // the external API (a connection's token)
  'POST /api/messages/send': {},
  // settings
  'GET /settings': {},
  'GET /settings/{key}': {},
  'PUT /settings/{key}': {},
  // billing (issue 22 §2)
  'GET /invoices/all': { query: invoiceListQuerySchema },
  'GET /invoices/{id}': {},
  'POST /subscription': { body: subscriptionSchema },
  // dashboard (admins)
  'GET /dashboard': { query: dashboardQuerySchema },
  'GET /dashboard/ticketsUsers': { query: dashboardChartQuerySchema },
  'GET /dashboard/ticketsDay': { query: dashboardChartQuerySchema },
} as const satisfies Record<string, { query?: z.ZodType; body?: z.ZodType }>;

export type ApiRoute = keyof typeof apiRoutes;

/** A page of a searchable list (`searchParam`, `pageNumber`): the spec's `{<name>, count, hasMore}`. */
export type ListPage<Name extends string, T> = { [K in Name]: T[] } & { count: number; hasMore: boolean };

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

/** The sign-in answer: the user, and the tokens when signing in with a password. */
export interface LoginAnswer {
  user: User;
  token?: string;
  idToken?: string;
  refreshToken?: string;
}

/** What each route answers. */
export interface ApiAnswers {
  'POST /auth/login': LoginAnswer;
  'POST /auth/refresh_token': { user: User };
  'GET /auth/me': User;
  'DELETE /auth/logout': void;
  'POST /forgetpassword/{email}': StatusMessage;
  'POST /resetpasswords/{email}/{token}/{newPassword}': StatusMessage;
  'POST /resetpasswords': StatusMessage;
  'GET /plans/list': PublicPlan[];
  'GET /plans/all': Plan[];
  'GET /plans': ListPage<'plans', Plan>;
  'POST /plans': Plan;
  'GET /plans/{id}': Plan;
  'PUT /plans/{id}': Plan;
  'DELETE /plans/{id}': void;
  /** The settings Help tab's pages (`searchParam` over title and description). */
  'GET /helps': ListPage<'records', ApiHelp>;
  /** The gallery: every help video, newest first. */
  'GET /helps/list': ApiHelp[];
  'POST /helps': ApiHelp;
  'GET /helps/{id}': ApiHelp;
  'PUT /helps/{id}': ApiHelp;
  'DELETE /helps/{id}': void;
  'POST /companies/cadastro': Company;
  'GET /companies/listPlan/{id}': Company & { plan: Plan | undefined };
  'GET /companies/list': Company[];
  'GET /companies': ListPage<'companies', Company>;
  'POST /companies': Company;
  'GET /companies/{id}': Company & { plan: Plan | undefined; settings: SettingItem[] };
  'PUT /companies/{id}': Company;
  'PUT /companies/{id}/schedules': { id: number; schedules: ScheduleEntry[] };
  'DELETE /companies/{id}': void;
  'GET /users': ListPage<'users', User>;
  'GET /users/list': { id: number; name: string }[];
  'GET /users/{id}': User;
  'POST /users': User;
  'PUT /users/{id}': User;
  'DELETE /users/{id}': void;
  'GET /queue': Queue[];
  'GET /queue/{id}': Queue;
  'POST /queue': Queue;
  'PUT /queue/{id}': Queue;
  'DELETE /queue/{id}': void;
  'GET /queue-options': QueueOption[];
  'GET /queue-options/{id}': QueueOption;
  'POST /queue-options': QueueOption;
  'PUT /queue-options/{id}': QueueOption;
  'DELETE /queue-options/{id}': void;
  'GET /whatsapp': Connection[];
  'GET /whatsapp/{id}': Connection;
  'POST /whatsapp': Connection;
  'PUT /whatsapp/{id}': Connection;
  'DELETE /whatsapp/{id}': void;
  'POST /whatsappsession/{id}': Connection;
  'PUT /whatsappsession/{id}': Connection;
  'POST /whatsappsession/reconnect/{id}': Connection;
  'DELETE /whatsappsession/{id}': Connection;
  'GET /messages/{ticketId}': MessagePage;
  /** One message, or several when one send carried several files. */
  'POST /messages/{ticketId}': ApiMessage & { messages?: ApiMessage[] };
  'POST /messages/retry/{messageId}': ApiMessage;
  'DELETE /messages/{ticketId}': ApiMessage;
  'POST /messages/{ticketId}/reactions': ApiMessage;
  'POST /messages/{ticketId}/media-upload': MediaUploadSlot;
  /** The ticket the messages went to (a new one, or the target's open ticket). */
  'POST /forward': { ticketId: number; ticketUuid: string; ticketStatus: TicketStatus; messages: ApiMessage[] };
  'GET /tickets': TicketPage;
  /** The tickets tab's badges: open assigned to me, open of others, pending. */
  'GET /tickets/counts': { me: number; others: number; pending: number };
  'GET /tickets/u/{uuid}': ApiTicket;
  'GET /ticket/kanban': ApiKanbanBoard;
  'GET /tickets/{id}': ApiTicket;
  'POST /tickets': ApiTicket;
  'PUT /tickets/{id}': ApiTicket;
  'DELETE /tickets/{id}': void;
  'POST /ticket-notes': TicketNote;
  'GET /ticket-notes/list': TicketNote[];
  'DELETE /ticket-notes/{id}': void;
  'GET /contacts': ListPage<'contacts', ApiContactFull>;
  'GET /contacts/list': (Pick<ApiContact, 'id' | 'name' | 'number' | 'email' | 'profilePicUrl' | 'isGroup'> & { tags?: TagRef[] })[];
  /** One slice of the export; `next` continues it. */
  'GET /contacts/export': { contacts: Pick<ApiContact, 'id' | 'name' | 'number' | 'email'>[]; next: string | null };
  /** With the connection it first wrote through. */
  'GET /contacts/{id}': ApiContactFull & { whatsapp: { id: number; name: string } | null };
  'POST /contacts': ApiContactFull;
  'PUT /contacts/{id}': ApiContactFull;
  'DELETE /contacts/{id}': void;
  /** One slice of the phone's address book; `next` continues it. */
  'POST /contacts/import': ImportResult & { total: number; next: string | null };
  'POST /contacts/importList': ImportResult;
  'POST /contacts/transferUser': { transferred: number; userIdSource: number; userIdDestination: number };
  'GET /tags': ListPage<'tags', ApiTag>;
  'GET /tags/list': (TagRef & { kanban: 0 | 1 })[];
  'GET /tags/kanban': { lista: ApiTag[] };
  'GET /tags/{id}': ApiTag;
  'POST /tags': ApiTag;
  'PUT /tags/{id}': ApiTag;
  'DELETE /tags/{id}': void;
  'POST /tags/sync': { ticketId: number; contactId?: number; tags: TagRef[] };
  'PUT /ticket-tags/{ticketId}/{tagId}': ApiTicket;
  'DELETE /ticket-tags/{ticketId}': void;
  'GET /quick-messages': ListPage<'records', ApiQuickMessage>;
  'GET /quick-messages/list': ApiQuickMessage[];
  'GET /quick-messages/{id}': ApiQuickMessage;
  'POST /quick-messages': ApiQuickMessage;
  'PUT /quick-messages/{id}': ApiQuickMessage;
  'DELETE /quick-messages/{id}': void;
  'POST /quick-messages/{id}/media-upload': ApiQuickMessage;
  'DELETE /quick-messages/{id}/media-upload': ApiQuickMessage;
  'GET /schedules': ListPage<'schedules', Schedule>;
  'GET /schedules/{id}': Schedule;
  'POST /schedules': Schedule;
  'PUT /schedules/{id}': Schedule;
  'DELETE /schedules/{id}': void;
  'POST /schedules/{id}/media-upload': Schedule;
  'DELETE /schedules/{id}/media-upload': Schedule;
  'GET /queueIntegration': ListPage<'queueIntegrations', ApiQueueIntegration>;
  'GET /queueIntegration/{id}': ApiQueueIntegration;
  'POST /queueIntegration': ApiQueueIntegration;
  'PUT /queueIntegration/{id}': ApiQueueIntegration;
  'DELETE /queueIntegration/{id}': void;
  'POST /queueIntegration/testSession': { ok: true; intent: string | null; reply: string };
  'GET /prompt': ListPage<'prompts', ApiPrompt>;
  'GET /prompt/{id}': ApiPrompt;
  'POST /prompt': ApiPrompt;
  'PUT /prompt/{id}': ApiPrompt;
  'DELETE /prompt/{id}': { message: string };
  'GET /contact-lists': ListPage<'records', ApiContactList>;
  'GET /contact-lists/list': ApiContactList[];
  'POST /contact-lists': ApiContactList;
  'GET /contact-lists/{id}': ApiContactList;
  'PUT /contact-lists/{id}': ApiContactList;
  'DELETE /contact-lists/{id}': void;
  /** Multipart `file` (.csv, .xls, .xlsx): 202 with the list, its `import` running in the background. */
  'POST /contact-lists/{id}/upload': ApiContactList;
  'GET /contact-list-items': ListPage<'contacts', ApiContactListItem>;
  'POST /contact-list-items': ApiContactListItem;
  'GET /contact-list-items/{id}': ApiContactListItem;
  'PUT /contact-list-items/{id}': ApiContactListItem;
  'DELETE /contact-list-items/{id}': void;
  'GET /campaigns': ListPage<'records', ApiCampaign>;
  'POST /campaigns': ApiCampaign;
  'GET /campaigns/{id}': ApiCampaign;
  'PUT /campaigns/{id}': ApiCampaign;
  'DELETE /campaigns/{id}': void;
  'POST /campaigns/{id}/cancel': ApiCampaign;
  'POST /campaigns/{id}/restart': ApiCampaign;
  /** Multipart `file` (as other attachments: type by its bytes, 16 MB at most). */
  'POST /campaigns/{id}/media-upload': ApiCampaign;
  'DELETE /campaigns/{id}/media-upload': ApiCampaign;
  'GET /files': ListPage<'files', ApiFileList>;
  'POST /files': ApiFileList;
  'GET /files/{id}': ApiFileList;
  'PUT /files/{id}': ApiFileList;
  'DELETE /files/{id}': void;
  /** The list with the uploaded files on their options. */
  'POST /files/uploadList/{id}': ApiFileList;
  /** The settings as the spec's key/value list, each value JSON-encoded, defaults filled. */
  'GET /campaign-settings': CampaignSettingEntry[];
  /** The settings as saved, in the same list. */
  'POST /campaign-settings': CampaignSettingEntry[];
  /** The caller's chats, latest activity first; `unreadChats` counts every chat of theirs with unread messages. */
  'GET /chats': ListPage<'records', ApiChat> & { unreadChats: number };
  'POST /chats': ApiChat;
  'PUT /chats/{id}': ApiChat;
  'DELETE /chats/{id}': void;
  /** Oldest first within the page; page 1 is the newest messages. */
  'GET /chats/{id}/messages': ListPage<'records', ApiChatMessage>;
  /** The first message sent, with every message when files made several. */
  'POST /chats/{id}/messages': ApiChatMessage & { messages?: ApiChatMessage[] };
  'POST /chats/{id}/media-upload': MediaUploadSlot;
  'POST /chats/{id}/read': ApiChat;
  /** Super users: every announcement (`status` narrows); the others: the active ones; in the popover's order. */
  'GET /announcements': ListPage<'records', ApiAnnouncement>;
  'GET /announcements/{id}': ApiAnnouncement;
  'POST /announcements': ApiAnnouncement;
  'PUT /announcements/{id}': ApiAnnouncement;
  'DELETE /announcements/{id}': void;
  'POST /announcements/{id}/media-upload': ApiAnnouncement;
  'DELETE /announcements/{id}/media-upload': ApiAnnouncement;
  'POST /api/messages/send': { mensagem: string };
  'GET /settings': SettingItem[];
  'GET /settings/{key}': SettingItem;
  'PUT /settings/{key}': SettingItem;
  'GET /invoices/all': { invoices: ApiInvoice[]; hasMore: boolean; count: number };
  'GET /invoices/{id}': ApiInvoice;
  'POST /subscription': PixCheckout;
  'GET /dashboard': DashboardResult;
  'GET /dashboard/ticketsUsers': DashboardTicketsUsers;
  'GET /dashboard/ticketsDay': DashboardTicketsDay;
}

/** The answer of the password-reset steps. */
export interface StatusMessage {
  status: number;
  message: string;
}

/** A plan as the public sign-up page lists it. */
export type PublicPlan = Pick<Plan, 'id' | 'name' | 'users' | 'connections' | 'queues' | 'value'>;

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
