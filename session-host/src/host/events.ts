import type { Peer } from '@balcao/shared';
import { ChatGroups } from '../chat-groups.js';

export { ChatGroups };
import type { ProviderEvent } from '../provider.js';

/**
 * SQS FIFO group and deduplication ids: at most 128 characters of alphanumerics and punctuation.
 * WhatsApp ids and LIDs are already in that set; anything else is replaced so a send never fails
 * on an id.
 */
export function sqsId(raw: string): string {
  return raw.replace(/[^\x21-\x7e]/g, '_').slice(0, 128);
}

const chatGroups = new ChatGroups();

/** One chat, however the event names it: the group, else the person's key (`ChatGroups`). */
export function chatKey(peer: Peer | undefined): string {
  return chatGroups.keyOf(peer);
}

/**
 * The FIFO group of an event: per chat, so one customer's messages, acks, edits and deletes stay
 * in order while different chats are ingested in parallel; session status on its own group.
 */
export function groupOf(connectionId: number, event: ProviderEvent): string {
  switch (event.type) {
    case 'session':
      return sqsId(`${connectionId}:session`);
    case 'contact':
      return sqsId(`${connectionId}:${chatKey(event.peer)}`);
    case 'sendResult':
      // The host emits these itself with the command's recipient (see shard.ts).
      return sqsId(`${connectionId}:session`);
    default:
      return sqsId(`${connectionId}:${chatKey(event.chat)}`);
  }
}
