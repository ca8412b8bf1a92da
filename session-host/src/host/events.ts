import type { Peer } from '@balcao/shared';
import type { ProviderEvent } from '../provider.js';

/**
 * SQS FIFO group and deduplication ids: at most 128 characters of alphanumerics and punctuation.
 * WhatsApp ids and LIDs are already in that set; anything else is replaced so a send never fails
 * on an id.
 */
export function sqsId(raw: string): string {
  return raw.replace(/[^\x21-\x7e]/g, '_').slice(0, 128);
}

/**
 * The FIFO group key of each person's chat, as this process has used it. A person is addressed by
 * a LID and/or a phone number, and which halves an event carries changes over time (Baileys 7
 * sends a chat's first messages by LID alone until it learns the number, or by number alone until
 * it learns the LID). The ingest keeps a chat's order only within one group, so:
 * - a chat seen for the first time is keyed by its LID when the event has one (WhatsApp's stable id
 *   for a person), else by its number;
 * - once a key is in use, an event that carries the other half too keeps that key, and the other
 *   half is remembered as naming it, so a chat first seen by number that later shows its LID (or
 *   the other way round) stays in its group;
 * - when both halves already name different keys (seen apart before they were paired), the LID's
 *   key wins: it is what a fresh process picks too.
 * The memory is per process and bounded (least recently used forgotten), so a chat can change
 * group only at a restart or a shard handover, when its earlier events have mostly been ingested.
 * The pair is the person's whatever the connection, so one map serves every session.
 */
export class ChatGroups {
  private readonly keys = new Map<string, string>();

  constructor(private readonly limit = 50_000) {}

  keyOf(peer: Peer | undefined): string {
    if (!peer) return 'unknown';
    if (peer.groupId) return `g${peer.groupId}`;
    const byLid = peer.lid ? `l${peer.lid}` : undefined;
    const byNumber = peer.number ? `n${peer.number}` : undefined;
    const key = (byLid && this.keys.get(byLid)) || (byNumber && this.keys.get(byNumber)) || byLid || byNumber;
    if (!key) return 'unknown';
    if (byLid) this.remember(byLid, key);
    if (byNumber) this.remember(byNumber, key);
    return key;
  }

  private remember(alias: string, key: string) {
    this.keys.delete(alias);
    this.keys.set(alias, key);
    if (this.keys.size > this.limit) this.keys.delete(this.keys.keys().next().value as string);
  }
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
