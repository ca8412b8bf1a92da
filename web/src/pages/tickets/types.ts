import type { QueueRef, TicketFields } from '@balcao/shared';

/** Client views of the API's ticket and message answers (functions/src/services/ticket-view.ts, messages.ts). */
export type { TicketStatus } from '@balcao/shared';

export interface TagRef {
  id: number;
  name: string;
  color: string;
  type?: 'ticket' | 'contact';
}

/** A ticket as the API answers it: its own fields (shared) and the names the screens show. */
export interface ApiTicket extends TicketFields {
  tags?: TagRef[];
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
