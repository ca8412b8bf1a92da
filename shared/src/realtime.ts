import type { ApiCampaign, ApiContact, ApiContactList, ApiContactListItem, ApiMessage, ApiPrompt, ApiQueueIntegration, ApiQuickMessage, ApiTag, ApiTicket, TagCounts } from './contracts.js';
import type { Company, Connection, Queue, SettingItem, User } from './entities.js';
import type { Schedule } from './schemas/schedules.js';
import type { ApiFileList } from './contracts.js';
import type { ApiChat, ApiChatMessage } from './contracts.js';
import type { ApiAnnouncement } from './contracts.js';

/**
 * The realtime channel (DESIGN §5). Frames are JSON.
 * server → client: {"event":"company-7-ticket","data":{"action":"update","ticket":{…}}}, or the
 *   events of one fan-out batch for that socket together: {"events":[{"event":…,"data":…},…]}
 *   (issue 23); `eventsOf` reads both.
 * client → server: {"action":"joinTickets","status":"open"} and the other actions below. Joining the
 *   chat box answers {"event":"joined","data":{"room":"ticket:<id>"}} once the socket is in the room.
 */
export const WS_CLIENT_ACTIONS = ['joinTickets', 'joinChatBox', 'joinNotification', 'userStatus', 'ping', 'leaveTickets', 'leaveChatBox'] as const;
export type WsClientAction = (typeof WS_CLIENT_ACTIONS)[number];

export type CompanyEventKind =
  | 'user'
  | 'whatsapp'
  | 'whatsappSession'
  | 'chat'
  | 'ticket'
  | 'appMessage'
  | 'notification'
  | 'auth'
  | 'contact'
  | 'queue'
  | 'payment'
  | 'settings'
  | 'tag'
  | 'quickmessage'
  | 'schedule'
  | 'queueIntegration'
  | 'prompt'
  | 'ContactList'
  | 'ContactListItem'
  | 'FileList'
  | 'Campaign';

/** The name of a company's event of one kind, typed so its payload can be looked up (`EventData`). */
export type CompanyEventName<K extends CompanyEventKind = CompanyEventKind> = `company-${number}-${K}`;
export const companyEvent = <K extends CompanyEventKind>(companyId: number, kind: K) => `company-${companyId}-${kind}` as CompanyEventName<K>;

/**
 * What each company event carries, by kind and action: publishers (functions) and listeners (the
 * console) are both typed from this map. Kinds whose feature does not exist yet carry nothing
 * (`never`): nothing may publish them until it is built.
 */
export interface CompanyEventData {
  user: { action: 'create' | 'update'; user: User } | { action: 'delete'; userId: number };
  whatsapp: { action: 'create' | 'update'; whatsapp: Connection } | { action: 'delete'; whatsappId: number };
  whatsappSession: { action: 'update'; session: Connection };
  /** `delete` names the ticket by id (the server's also carries it as it was). */
  /**
   * A new message in the ticket carries its summary (`message`): the lists and the notifications
   * need no more; the message itself goes to the ticket's room (`appMessage`).
   */
  ticket: { action: 'create' | 'update'; ticket: ApiTicket; message?: MessageSummary } | { action: 'delete'; ticketId: number; ticket?: ApiTicket };
  /** To the ticket's room (the sockets with its conversation open) only. */
  appMessage: { action: 'create'; message: ApiMessage; ticket: ApiTicket; contact?: ApiContact } | { action: 'update'; message: ApiMessage };
  /** `reload`: many contacts changed at once (an import); lists read again. */
  contact: { action: 'create' | 'update'; contact: ApiContact } | { action: 'delete'; contactId: number } | { action: 'reload' };
  queue: { action: 'create' | 'update'; queue: Queue } | { action: 'delete'; queueId: number };
  settings: { action: 'update'; setting: SettingItem };
  tag: { action: 'create' | 'update'; tag: ApiTag } | { action: 'delete'; tagId: number } | { action: 'counts'; counts: TagCounts[] };
  quickmessage: { action: 'create' | 'update'; record: ApiQuickMessage } | { action: 'delete'; id: number };
  schedule: { action: 'create' | 'update'; schedule: Schedule } | { action: 'delete'; scheduleId: number };
  /** The same user signed in elsewhere: this session ends (spec 000 §4). */
  auth: { action: 'anotherLogin'; user: { id: number }; session: { id: string } };
  /**
   * Internal chats (issue 21 §2), to the chat's members only (a user audience each): `new-message`
   * carries the chat with its counts; `delete` also reaches members an edit removed.
   */
  chat: { action: 'create' | 'update'; chat: ApiChat } | { action: 'delete'; chatId: number } | { action: 'new-message'; chat: ApiChat; message: ApiChatMessage };
  notification: never;
  /** An invoice paid (issue 22 §2): the company with its new due date (spec 003 §4). */
  payment: { action: 'CONCLUIDA'; company: Company; invoiceId: number };
  queueIntegration: { action: 'create' | 'update'; queueIntegration: ApiQueueIntegration } | { action: 'delete'; integrationId: number };
  prompt: { action: 'create' | 'update'; prompt: ApiPrompt } | { action: 'delete'; promptId: number };
  ContactList: { action: 'create' | 'update'; record: ApiContactList } | { action: 'delete'; id: number };
  /** Carries the item's list: a list's page keeps only its own. */
  ContactListItem: { action: 'create' | 'update'; record: ApiContactListItem } | { action: 'delete'; id: number; contactListId: number };
  FileList: { action: 'create' | 'update'; record: ApiFileList } | { action: 'delete'; id: number };
  /** Also each shipment's count change (the report refreshes live). */
  Campaign: { action: 'create' | 'update'; record: ApiCampaign } | { action: 'delete'; id: number };
}

/** The payload of the event named `E` (`unknown` for names outside the map). */
export type EventData<E extends string> = E extends typeof ANNOUNCEMENT_EVENT
  ? AnnouncementEventData
  : E extends typeof WS_JOINED_EVENT
    ? WsJoinedData
    : E extends `company-${number}-${infer K}`
    ? K extends CompanyEventKind
      ? CompanyEventData[K]
      : unknown
    : unknown;
/** The platform's announcements (spec 000 §7): one event name for every company (decision 58). */
export const ANNOUNCEMENT_EVENT = 'company-announcement';
/**
 * An announcement changed. Active ones reach everyone; an inactive one reaches super users as it is
 * and everyone else as a `delete` (they may not read inactive announcements).
 */
/**
 * `delete` also tells a user who may not read inactive announcements that one was turned off; its
 * `updatedAt` (absent for a real delete) lets a late event of an older state be told apart.
 */
export type AnnouncementEventData = { action: 'create' | 'update'; record: ApiAnnouncement } | { action: 'delete'; id: number; updatedAt?: string };

/** Rooms a connection may join. Tickets rooms are per status; the chat box is per ticket. */
export const room = {
  tickets: (status: string) => `tickets:${status}`,
  chatBox: (ticketId: number | string) => `ticket:${ticketId}`,
  notification: () => 'notification',
  user: (userId: number) => `user:${userId}`,
} as const;

/**
 * Who receives a published event. The fan-out worker resolves the audience to socket connections
 * and drops the ones that may not see it (tenancy always; ticket visibility when `ticket` is set).
 */
export type Audience =
  | { kind: 'company' }
  | { kind: 'admins' }
  | { kind: 'user'; userId: number }
  | { kind: 'room'; room: string }
  | { kind: 'connection'; connectionId: string }
  /** Every company's sockets; `supers` keeps only super users (true) or only the others (false). */
  | { kind: 'platform'; supers?: boolean };

export interface TicketVisibilityFacts {
  userId: number | null;
  queueId: number | null;
  status: string;
  isGroup?: boolean;
}

interface RealtimeMessageBase {
  audience: Audience[];
  /** When set, only users who may see this ticket receive the event (server-behaviour §14). */
  ticket?: TicketVisibilityFacts;
  /** Connections that must not receive it (e.g. the sender's own socket). */
  exceptConnectionIds?: string[];
}

/** One published event: its name and payload agree (`CompanyEventData`); platform events carry no company. */
export type RealtimeMessage =
  | {
      [K in CompanyEventKind]: RealtimeMessageBase & { companyId: number; event: CompanyEventName<K>; data: CompanyEventData[K] };
    }[CompanyEventKind]
  | (RealtimeMessageBase & { companyId: null; event: typeof ANNOUNCEMENT_EVENT; data: AnnouncementEventData })
  | (RealtimeMessageBase & { companyId: number; event: typeof WS_JOINED_EVENT; data: WsJoinedData });

export interface WsFrame {
  event: string;
  data: unknown;
}

/** What the server posts: one event, or the events of one fan-out batch for that socket. */
export type WsServerFrame = WsFrame | { events: WsFrame[] };

/** The events a frame carries, in order (unreadable frames carry none). */
export function eventsOf(frame: unknown): WsFrame[] {
  if (!frame || typeof frame !== 'object') return [];
  const events = (frame as { events?: unknown }).events;
  const list = Array.isArray(events) ? events : [frame];
  return list.filter((f): f is WsFrame => !!f && typeof f === 'object' && typeof (f as WsFrame).event === 'string');
}

/** The answer to `joinChatBox`: the socket is in the room from now on (the console reloads once). */
export const WS_JOINED_EVENT = 'joined';
export interface WsJoinedData {
  room: string;
}

/** A new message as the ticket lists and the notifications show it. */
export interface MessageSummary {
  id: string;
  body: string;
  fromMe: boolean;
  mediaType: ApiMessage['mediaType'];
  createdAt: string;
}

/**
 * JSON for a queue message body, escaped to ASCII. SQS refuses some characters (lone surrogates;
 * the local stand-in also emoji outside the BMP), while `\uXXXX` escapes round-trip through
 * `JSON.parse` unchanged: customer text with emoji must never be lost on its way.
 */
export function toQueueBody(value: unknown): string {
  return JSON.stringify(value).replace(/[\u007f-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
