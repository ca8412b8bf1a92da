/**
 * The realtime channel (DESIGN §5). Frames are JSON.
 * server → client: {"event":"company-7-ticket","data":{"action":"update","ticket":{…}}}
 * client → server: {"action":"joinTickets","status":"open"} and the other actions below.
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
  | 'queueIntegration';

export const companyEvent = (companyId: number, kind: CompanyEventKind) => `company-${companyId}-${kind}`;
export const ANNOUNCEMENT_EVENT = 'company-announcement';

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
  | { kind: 'platform' };

export interface TicketVisibilityFacts {
  userId: number | null;
  queueId: number | null;
  status: string;
  isGroup?: boolean;
}

export interface RealtimeMessage {
  /** Company of the event; `null` only for platform-wide events (announcements). */
  companyId: number | null;
  event: string;
  data: Record<string, unknown> & { action: string };
  audience: Audience[];
  /** When set, only users who may see this ticket receive the event (server-behaviour §14). */
  ticket?: TicketVisibilityFacts;
  /** Connections that must not receive it (e.g. the sender's own socket). */
  exceptConnectionIds?: string[];
}

export interface WsFrame {
  event: string;
  data: unknown;
}

/**
 * JSON for a queue message body, escaped to ASCII. SQS refuses some characters (lone surrogates;
 * the local stand-in also emoji outside the BMP), while `\uXXXX` escapes round-trip through
 * `JSON.parse` unchanged: customer text with emoji must never be lost on its way.
 */
export function toQueueBody(value: unknown): string {
  return JSON.stringify(value).replace(/[\u007f-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
