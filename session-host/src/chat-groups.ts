import type { Peer } from '@balcao/shared';

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
