import type { TagRef } from '../tickets/types';

/** A contact as `GET /contacts` and `GET /contacts/{id}` answer it (spec 001 §3 "Contact"). */
export interface Contact {
  id: number;
  name: string;
  number: string;
  email: string;
  isGroup?: boolean;
  profilePicUrl: string | null;
  extraInfo: { name: string; value: string }[];
  tagIds: number[];
  tags: TagRef[];
  userId: number | null;
  whatsappId?: number | null;
  whatsapp?: { id: number; name: string } | null;
  createdAt: string;
  updatedAt?: string;
}

export interface ContactsPage {
  contacts: Contact[];
  count: number;
  hasMore: boolean;
}

/** The answer of one `POST /contacts/importList` or `POST /contacts/import` call. */
export interface ImportResult {
  created: number;
  updated: number;
  unchanged: number;
  refused: { row: number; number: string; reason: string }[];
}
