import type { PlanFlag } from '@balcao/shared';

/**
 * The one route table (issue 2 §3): read by the CDK app (infra/lib/api-stack.ts) and by the local
 * gateway (infra/local/gateway.ts). Paths are written exactly as the spec writes them, without the
 * trailing slash. `handler` names the router module `functions/src/http/<handler>/index.ts`, which
 * becomes one Lambda per domain.
 */
export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'DELETE' | 'PATCH';
export type RouteAuth =
  /** No token. */
  | 'public'
  /** Cognito bearer token (JWT authorizer), then the user record from the table. */
  | 'user'
  /** `Authorization: Bearer {connection token}` checked by the handler (external API). */
  | 'connectionToken';

export interface RouteDef {
  method: HttpMethod;
  path: string;
  handler: string;
  auth: RouteAuth;
  planFlag?: PlanFlag;
  admin?: boolean;
  super?: boolean;
  /** Multipart uploads: the largest body accepted, in bytes. */
  maxBodyBytes?: number;
}

const r = (
  method: HttpMethod,
  path: string,
  handler: string,
  opts: Partial<Omit<RouteDef, 'method' | 'path' | 'handler'>> = {},
): RouteDef => ({ method, path, handler, auth: 'user', ...opts });

export const routes: RouteDef[] = [
  // auth
  r('POST', '/auth/login', 'auth', { auth: 'public' }),
  r('POST', '/auth/refresh_token', 'auth'),
  r('GET', '/auth/me', 'auth'),
  r('DELETE', '/auth/logout', 'auth'),
  r('POST', '/forgetpassword/{email}', 'auth', { auth: 'public' }),
  r('POST', '/resetpasswords/{email}/{token}/{newPassword}', 'auth', { auth: 'public' }),
  r('POST', '/resetpasswords', 'auth', { auth: 'public' }),

  // plans
  r('GET', '/plans/list', 'plans', { auth: 'public' }),
  r('GET', '/plans/all', 'plans', { super: true }),
  r('GET', '/plans', 'plans', { super: true }),
  r('POST', '/plans', 'plans', { super: true }),
  r('GET', '/plans/{id}', 'plans', { super: true }),
  r('PUT', '/plans/{id}', 'plans', { super: true }),
  r('DELETE', '/plans/{id}', 'plans', { super: true }),

  // help videos (spec 003 §7): platform-wide; every signed-in user reads them, the super user writes
  // dashboard (spec 000 §2.5; admins)
  r('GET', '/dashboard', 'dashboard', { admin: true }),
  r('GET', '/dashboard/ticketsUsers', 'dashboard', { admin: true }),
  r('GET', '/dashboard/ticketsDay', 'dashboard', { admin: true }),
  r('GET', '/helps', 'helps'),
  r('GET', '/helps/list', 'helps'),
  r('POST', '/helps', 'helps', { super: true }),
  r('GET', '/helps/{id}', 'helps'),
  r('PUT', '/helps/{id}', 'helps', { super: true }),
  r('DELETE', '/helps/{id}', 'helps', { super: true }),

  // companies
  r('POST', '/companies/cadastro', 'companies', { auth: 'public' }),
  r('GET', '/companies/listPlan/{id}', 'companies'),
  r('GET', '/companies/list', 'companies', { super: true }),
  r('GET', '/companies', 'companies', { super: true }),
  r('POST', '/companies', 'companies', { super: true }),
  r('GET', '/companies/{id}', 'companies'),
  r('PUT', '/companies/{id}', 'companies', { super: true }),
  r('DELETE', '/companies/{id}', 'companies', { super: true }),
  r('PUT', '/companies/{id}/schedules', 'companies', { admin: true }),

  // users
  r('GET', '/users', 'users'),
  r('GET', '/users/list', 'users'),
  r('GET', '/users/{id}', 'users'),
  r('POST', '/users', 'users', { admin: true, maxBodyBytes: 6 * 1024 * 1024 }),
  r('PUT', '/users/{id}', 'users', { maxBodyBytes: 6 * 1024 * 1024 }),
  r('DELETE', '/users/{id}', 'users', { admin: true }),

  // queues
  r('GET', '/queue', 'queues'),
  r('GET', '/queue/{id}', 'queues'),
  r('POST', '/queue', 'queues', { admin: true }),
  r('PUT', '/queue/{id}', 'queues', { admin: true }),
  r('DELETE', '/queue/{id}', 'queues', { admin: true }),
  r('GET', '/queue-options', 'queues'),
  r('GET', '/queue-options/{id}', 'queues'),
  r('POST', '/queue-options', 'queues', { admin: true }),
  r('PUT', '/queue-options/{id}', 'queues', { admin: true }),
  r('DELETE', '/queue-options/{id}', 'queues', { admin: true }),

  // WhatsApp connections and their sessions
  r('GET', '/whatsapp', 'whatsapp'),
  r('GET', '/whatsapp/{id}', 'whatsapp'),
  r('POST', '/whatsapp', 'whatsapp', { admin: true }),
  r('PUT', '/whatsapp/{id}', 'whatsapp', { admin: true }),
  r('DELETE', '/whatsapp/{id}', 'whatsapp', { admin: true }),
  r('POST', '/whatsappsession/{id}', 'whatsapp', { admin: true }),
  r('PUT', '/whatsappsession/{id}', 'whatsapp', { admin: true }),
  r('POST', '/whatsappsession/reconnect/{id}', 'whatsapp', { admin: true }),
  r('DELETE', '/whatsappsession/{id}', 'whatsapp', { admin: true }),

  // messages
  r('GET', '/messages/{ticketId}', 'messages'),
  r('POST', '/messages/{ticketId}', 'messages', { maxBodyBytes: 6 * 1024 * 1024 }),
  r('POST', '/messages/retry/{messageId}', 'messages'),
  // API Gateway allows one variable name per path level: `{ticketId}` here names the message.
  r('DELETE', '/messages/{ticketId}', 'messages'),
  r('POST', '/messages/{ticketId}/reactions', 'messages'),
  r('POST', '/messages/{ticketId}/media-upload', 'messages'),
  r('POST', '/forward', 'messages'),

  // tickets (issue 4)
  r('GET', '/tickets', 'tickets'),
  r('GET', '/tickets/counts', 'tickets'),
  r('GET', '/ticket/kanban', 'tickets', { planFlag: 'useKanban' }),
  r('GET', '/tickets/u/{uuid}', 'tickets'),
  r('GET', '/tickets/{id}', 'tickets'),
  r('POST', '/tickets', 'tickets'),
  r('PUT', '/tickets/{id}', 'tickets'),
  r('DELETE', '/tickets/{id}', 'tickets', { admin: true }),
  r('POST', '/ticket-notes', 'ticketNotes'),
  r('GET', '/ticket-notes/list', 'ticketNotes'),
  r('DELETE', '/ticket-notes/{id}', 'ticketNotes'),

  // contacts, tags, quick replies (issue 5)
  r('GET', '/contacts', 'contacts'),
  r('GET', '/contacts/list', 'contacts'),
  r('GET', '/contacts/export', 'contacts'),
  r('GET', '/contacts/{id}', 'contacts'),
  r('POST', '/contacts', 'contacts'),
  r('PUT', '/contacts/{id}', 'contacts'),
  r('DELETE', '/contacts/{id}', 'contacts'),
  r('POST', '/contacts/import', 'contacts'),
  r('POST', '/contacts/importList', 'contacts', { maxBodyBytes: 4 * 1024 * 1024 }),
  r('POST', '/contacts/transferUser', 'contacts', { admin: true }),
  r('GET', '/tags', 'tags'),
  r('GET', '/tags/list', 'tags'),
  r('GET', '/tags/kanban', 'tags', { planFlag: 'useKanban' }),
  r('GET', '/tags/{id}', 'tags'),
  r('POST', '/tags', 'tags'),
  r('PUT', '/tags/{id}', 'tags'),
  r('DELETE', '/tags/{id}', 'tags'),
  r('POST', '/tags/sync', 'tags'),
  r('PUT', '/ticket-tags/{ticketId}/{tagId}', 'tags', { planFlag: 'useKanban' }),
  r('DELETE', '/ticket-tags/{ticketId}', 'tags', { planFlag: 'useKanban' }),
  r('GET', '/quick-messages', 'quickMessages'),
  r('GET', '/quick-messages/list', 'quickMessages'),
  r('GET', '/quick-messages/{id}', 'quickMessages'),
  r('POST', '/quick-messages', 'quickMessages'),
  r('PUT', '/quick-messages/{id}', 'quickMessages'),
  r('DELETE', '/quick-messages/{id}', 'quickMessages'),
  r('POST', '/quick-messages/{id}/media-upload', 'quickMessages', { maxBodyBytes: 6 * 1024 * 1024 }),
  r('DELETE', '/quick-messages/{id}/media-upload', 'quickMessages'),
  // scheduled messages (issue 5 §4): the plan's useSchedules gates every route
  r('GET', '/schedules', 'schedules', { planFlag: 'useSchedules' }),
  r('GET', '/schedules/{id}', 'schedules', { planFlag: 'useSchedules' }),
  r('POST', '/schedules', 'schedules', { planFlag: 'useSchedules' }),
  r('PUT', '/schedules/{id}', 'schedules', { planFlag: 'useSchedules' }),
  r('DELETE', '/schedules/{id}', 'schedules', { planFlag: 'useSchedules' }),
  r('POST', '/schedules/{id}/media-upload', 'schedules', { planFlag: 'useSchedules', maxBodyBytes: 6 * 1024 * 1024 }),
  r('DELETE', '/schedules/{id}/media-upload', 'schedules', { planFlag: 'useSchedules' }),

  // queue integrations and AI prompts (issue 19): admins, behind their plan flags
  r('GET', '/queueIntegration', 'integrations', { admin: true, planFlag: 'useIntegrations' }),
  r('POST', '/queueIntegration', 'integrations', { admin: true, planFlag: 'useIntegrations' }),
  r('POST', '/queueIntegration/testSession', 'integrations', { admin: true, planFlag: 'useIntegrations' }),
  r('GET', '/queueIntegration/{id}', 'integrations', { admin: true, planFlag: 'useIntegrations' }),
  r('PUT', '/queueIntegration/{id}', 'integrations', { admin: true, planFlag: 'useIntegrations' }),
  r('DELETE', '/queueIntegration/{id}', 'integrations', { admin: true, planFlag: 'useIntegrations' }),
  r('GET', '/prompt', 'integrations', { admin: true, planFlag: 'useOpenAi' }),
  r('POST', '/prompt', 'integrations', { admin: true, planFlag: 'useOpenAi' }),
  r('GET', '/prompt/{id}', 'integrations', { admin: true, planFlag: 'useOpenAi' }),
  r('PUT', '/prompt/{id}', 'integrations', { admin: true, planFlag: 'useOpenAi' }),
  r('DELETE', '/prompt/{id}', 'integrations', { admin: true, planFlag: 'useOpenAi' }),

  // contact lists for campaigns (issue 20 §2): admins, behind useCampaigns and the company's campaignsEnabled
  r('GET', '/contact-lists', 'contactLists', { admin: true, planFlag: 'useCampaigns' }),
  r('GET', '/contact-lists/list', 'contactLists', { admin: true, planFlag: 'useCampaigns' }),
  r('POST', '/contact-lists', 'contactLists', { admin: true, planFlag: 'useCampaigns' }),
  r('GET', '/contact-lists/{id}', 'contactLists', { admin: true, planFlag: 'useCampaigns' }),
  r('PUT', '/contact-lists/{id}', 'contactLists', { admin: true, planFlag: 'useCampaigns' }),
  r('DELETE', '/contact-lists/{id}', 'contactLists', { admin: true, planFlag: 'useCampaigns' }),
  r('POST', '/contact-lists/{id}/upload', 'contactLists', { admin: true, planFlag: 'useCampaigns', maxBodyBytes: 11 * 1024 * 1024 }),
  r('GET', '/contact-list-items', 'contactLists', { admin: true, planFlag: 'useCampaigns' }),
  r('POST', '/contact-list-items', 'contactLists', { admin: true, planFlag: 'useCampaigns' }),
  r('GET', '/contact-list-items/{id}', 'contactLists', { admin: true, planFlag: 'useCampaigns' }),
  r('PUT', '/contact-list-items/{id}', 'contactLists', { admin: true, planFlag: 'useCampaigns' }),
  r('DELETE', '/contact-list-items/{id}', 'contactLists', { admin: true, planFlag: 'useCampaigns' }),
  r('GET', '/campaigns', 'campaigns', { admin: true, planFlag: 'useCampaigns' }),
  r('POST', '/campaigns', 'campaigns', { admin: true, planFlag: 'useCampaigns' }),
  r('GET', '/campaigns/{id}', 'campaigns', { admin: true, planFlag: 'useCampaigns' }),
  r('PUT', '/campaigns/{id}', 'campaigns', { admin: true, planFlag: 'useCampaigns' }),
  r('DELETE', '/campaigns/{id}', 'campaigns', { admin: true, planFlag: 'useCampaigns' }),
  r('POST', '/campaigns/{id}/cancel', 'campaigns', { admin: true, planFlag: 'useCampaigns' }),
  r('POST', '/campaigns/{id}/restart', 'campaigns', { admin: true, planFlag: 'useCampaigns' }),
  r('POST', '/campaigns/{id}/media-upload', 'campaigns', { admin: true, planFlag: 'useCampaigns', maxBodyBytes: 17 * 1024 * 1024 }),
  r('DELETE', '/campaigns/{id}/media-upload', 'campaigns', { admin: true, planFlag: 'useCampaigns' }),

  // file lists (issue 20 §3; spec 002 §7): the administration section (spec 000 §2.2), not behind the campaigns gate
  r('GET', '/files', 'files', { admin: true }),
  r('POST', '/files', 'files', { admin: true }),
  r('GET', '/files/{id}', 'files', { admin: true }),
  r('PUT', '/files/{id}', 'files', { admin: true }),
  r('DELETE', '/files/{id}', 'files', { admin: true }),
  r('POST', '/files/uploadList/{id}', 'files', { admin: true, maxBodyBytes: 6 * 1024 * 1024 }),
  // campaign settings (issue 20 §3): admins, behind useCampaigns and the company's campaignsEnabled
  r('GET', '/campaign-settings', 'campaignSettings', { admin: true, planFlag: 'useCampaigns' }),
  r('POST', '/campaign-settings', 'campaignSettings', { admin: true, planFlag: 'useCampaigns' }),

  // internal chat (issue 21 §2; spec 002 §7): every user of a plan with useInternalChat; members only (decision 57)
  r('GET', '/chats', 'chats', { planFlag: 'useInternalChat' }),
  r('POST', '/chats', 'chats', { planFlag: 'useInternalChat' }),
  r('PUT', '/chats/{id}', 'chats', { planFlag: 'useInternalChat' }),
  r('DELETE', '/chats/{id}', 'chats', { planFlag: 'useInternalChat' }),
  r('GET', '/chats/{id}/messages', 'chats', { planFlag: 'useInternalChat' }),
  r('POST', '/chats/{id}/messages', 'chats', { planFlag: 'useInternalChat', maxBodyBytes: 6 * 1024 * 1024 }),
  r('POST', '/chats/{id}/media-upload', 'chats', { planFlag: 'useInternalChat' }),
  r('POST', '/chats/{id}/read', 'chats', { planFlag: 'useInternalChat' }),

  // announcements (issue 21 §3; spec 002 §7; decision 58): platform-wide; every signed-in user reads the
  // active ones (the top bar's popover), the super user reads all and writes
  r('GET', '/announcements', 'announcements'),
  r('GET', '/announcements/{id}', 'announcements'),
  r('POST', '/announcements', 'announcements', { super: true }),
  r('PUT', '/announcements/{id}', 'announcements', { super: true }),
  r('DELETE', '/announcements/{id}', 'announcements', { super: true }),
  r('POST', '/announcements/{id}/media-upload', 'announcements', { super: true, maxBodyBytes: 6 * 1024 * 1024 }),
  r('DELETE', '/announcements/{id}/media-upload', 'announcements', { super: true }),

  // external API (connection token)
  r('POST', '/api/messages/send', 'externalApi', { auth: 'connectionToken', maxBodyBytes: 6 * 1024 * 1024 }),

  // billing (issue 22 §2; decision 61): a company's admins see and pay its invoices, the super user every company's;
  // the provider's webhook is public, authenticated by its `asaas-access-token` header
  r('GET', '/invoices/all', 'invoices', { admin: true }),
  r('GET', '/invoices/{id}', 'invoices', { admin: true }),
  r('POST', '/subscription', 'invoices', { admin: true }),
  r('POST', '/subscription/webhook', 'invoices', { auth: 'public' }),

  // settings
  r('GET', '/settings', 'settings'),
  r('GET', '/settings/{key}', 'settings'),
  r('PUT', '/settings/{key}', 'settings', { admin: true }),
];

/** `GET /users/{id}` — the API Gateway v2 route key. */
export const routeKey = (route: Pick<RouteDef, 'method' | 'path'>) => `${route.method} ${route.path}`;

export const routeHandlers = () => [...new Set(routes.map((x) => x.handler))];
