import type { QueueRef } from '@balcao/shared';

/** Client views of the API's ticket and message answers (functions/src/services/ticket-view.ts, messages.ts). */
export type TicketStatus = 'pending' | 'open' | 'closed';

export interface TagRef {
  id: number;
  name: string;
  color: string;
  type?: 'ticket' | 'contact';
}

export interface ApiTicket {
  id: number;
  uuid: string;
  companyId: number;
  status: TicketStatus;
  userId: number | null;
  queueId: number | null;
  contactId: number;
  whatsappId: number;
  unreadMessages: number;
  isGroup: boolean;
  lastMessage: string;
  lastSeq: number;
  chatbot: boolean;
  useIntegration: boolean;
  integrationId: number | null;
  promptId: number | null;
  tagIds: number[];
  tags?: TagRef[];
  queuedAt: string | null;
  startedAt: string | null;
  finishedAt: string | null;
  createdAt: string;
  updatedAt: string;
  contact: {
    id: number;
    name: string;
    number: string;
    email?: string | null;
    profilePicUrl?: string | null;
    isGroup?: boolean;
    tagIds: number[];
    tags?: TagRef[];
  } | null;
  user: { id: number; name: string } | null;
  queue: QueueRef | null;
  whatsapp: { id: number; name: string } | null;
}

export type MessageMediaType = 'image' | 'audio' | 'video' | 'application' | 'document' | 'sticker' | 'locationMessage' | 'contactMessage' | 'call_log';

export interface ApiMessage {
  id: string;
  seq: number;
  ticketId: number;
  contactId: number;
  body: string;
  fromMe: boolean;
  read: boolean;
  ack: number;
  mediaType: MessageMediaType | null;
  mediaUrl: string | null;
  fileName: string | null;
  mimetype: string | null;
  ptt: boolean;
  quotedMsg: { id: string; body: string; fromMe: boolean; mediaType?: string | null } | null;
  participant: { number?: string; lid?: string; name?: string } | null;
  isDeleted: boolean;
  isEdited: boolean;
  reactions: { emoji: string; fromMe: boolean; from?: string }[];
  error: string | null;
  userId: number | null;
  createdAt: string;
  updatedAt: string;
}
