import type { QueueRef, TicketFields } from './entities.js';
import type { MediaType } from './whatsapp.js';

/**
 * The API's answers for tickets and messages: produced by the functions (`toApiTicket`,
 * `toApiMessage`, typed against these) and read by the console, so neither side keeps its own copy.
 */

export interface TagRef {
  id: number;
  name: string;
  color: string;
  type?: 'ticket' | 'contact';
}

/** A ticket as the API answers it: its own fields and the names the screens show. */
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

export type MessageMediaType = MediaType;

/** A message as the API answers it. A deleted one shows only that it was deleted (server-behaviour §7). */
export interface ApiMessage {
  id: string;
  seq: number;
  companyId: number;
  ticketId: number;
  contactId: number;
  whatsappId: number;
  body: string;
  fromMe: boolean;
  read: boolean;
  ack: number;
  mediaType: MessageMediaType | null;
  mediaUrl: string | null;
  mediaName: string | null;
  fileName: string | null;
  mimetype: string | null;
  ptt: boolean;
  quotedMsg: { id: string; body: string; fromMe: boolean; mediaType?: MediaType | null } | null;
  participant: { number?: string; lid?: string; name?: string } | null;
  isDeleted: boolean;
  isEdited: boolean;
  /** Ours (`fromMe`) and one per contact (`sender`: number or LID). */
  reactions: { emoji: string; fromMe: boolean; sender?: string }[];
  error: string | null;
  userId: number | null;
  /** The agent who sent it, when one did. */
  user: { id: number; name: string } | null;
  createdAt: string;
  updatedAt: string;
}
