import type { GroupMetadata, WAMessageKey } from '@whiskeysockets/baileys';
import type { Peer } from '@balcao/shared';
import type { Logger } from '../../provider.js';
import { BoundedMap } from './caches.js';
import { groupIdOf, idsOfJid, isJidGroup, peerOfJids } from './convert.js';
import type { BaileysSocket } from './socket.js';

const GROUP_TTL_MS = 5 * 60_000;
/**
 * Bounds of what a session remembers (issue 17 §12): the busiest accounts talk to tens of thousands
 * of people; what falls out is asked again (Baileys' LID store, group metadata).
 */
export const PEER_LIMITS = { pairs: 20_000, groups: 1_000, calls: 200 };

/**
 * Who a jid is, as far as this session knows: a person's number and LID (WhatsApp addresses people
 * by either), group metadata, and the jid each call came from. In memory, per session; what the
 * socket knows is asked through `socket`, the session's current one.
 */
export class PeerDirectory {
  private groups = new BoundedMap<string, { meta: GroupMetadata; expires: number }>(PEER_LIMITS.groups);
  private lidToNumber = new BoundedMap<string, string>(PEER_LIMITS.pairs);
  private numberToLid = new BoundedMap<string, string>(PEER_LIMITS.pairs);
  private callFrom = new BoundedMap<string, string>(PEER_LIMITS.calls);
  /** The connection's own number and LID: never paired with anyone else's. */
  private own: { number?: string; lid?: string } = {};

  constructor(
    private readonly log: Logger,
    private readonly socket: () => BaileysSocket | undefined,
  ) {}

  // ---------------------------------------------------------------- number ↔ LID

  /** Our own account (from the open socket). */
  setOwn(own: { number?: string; lid?: string }): void {
    this.own = own;
    this.rememberPair(own);
  }

  rememberPair(peer: Peer): void {
    // A contact event or mapping that pairs our own number or LID with someone else's would send
    // their messages to us (or ours to them): refused.
    const ownNumber = !!this.own.number && peer.number === this.own.number;
    const ownLid = !!this.own.lid && peer.lid === this.own.lid;
    if (ownNumber !== ownLid) return;
    if (peer.number && peer.lid) {
      this.lidToNumber.set(peer.lid, peer.number);
      this.numberToLid.set(peer.number, peer.lid);
    }
  }

  numberOfLid(lid: string): string | undefined {
    return this.lidToNumber.get(lid);
  }

  lidOfNumber(number: string): string | undefined {
    return this.numberToLid.get(number);
  }

  /** Fills the other half of number/LID from what we learned or Baileys' LID mapping store. */
  async complete(peer: Peer): Promise<Peer> {
    if (peer.number && peer.lid) {
      this.rememberPair(peer);
      return peer;
    }
    if (peer.lid && !peer.number) {
      let number = this.lidToNumber.get(peer.lid);
      const sock = this.socket();
      if (!number && sock) {
        const pn = await sock.signalRepository.lidMapping.getPNForLID(`${peer.lid}@lid`).catch(() => null);
        number = idsOfJid(pn).number;
      }
      if (number) {
        peer = { ...peer, number };
        this.rememberPair(peer);
      }
    } else if (peer.number && !peer.lid) {
      // Only what is already known: asking WhatsApp for a LID per inbound message would be a query each.
      const lid = this.numberToLid.get(peer.number);
      if (lid) peer = { ...peer, lid };
    }
    return peer;
  }

  async chatOf(key: WAMessageKey, pushName?: string | null): Promise<Peer> {
    const jid = key.remoteJid!;
    if (isJidGroup(jid)) {
      const meta = await this.group(jid);
      return { groupId: groupIdOf(jid), ...(meta?.subject ? { name: meta.subject } : {}) };
    }
    const peer = await this.complete(peerOfJids(jid, key.remoteJidAlt));
    if (pushName && !key.fromMe) peer.name = pushName;
    return peer;
  }

  async senderOf(key: WAMessageKey, pushName?: string | null): Promise<Peer | undefined> {
    if (!isJidGroup(key.remoteJid ?? '') || key.fromMe || !key.participant) return undefined;
    const peer = await this.complete(peerOfJids(key.participant, key.participantAlt));
    if (pushName) peer.name = pushName;
    return peer;
  }

  // ---------------------------------------------------------------- calls

  rememberCaller(callId: string, jid: string): void {
    this.callFrom.set(callId, jid);
  }

  /** The jid a call offer came from (possibly a LID): the one WhatsApp expects back when rejecting. */
  callerOf(callId: string): string | undefined {
    return this.callFrom.get(callId);
  }

  // ---------------------------------------------------------------- groups

  setGroup(meta: GroupMetadata): void {
    this.groups.set(meta.id, { meta, expires: Date.now() + GROUP_TTL_MS });
  }

  updateGroup(update: Partial<GroupMetadata>): void {
    const cached = update.id ? this.groups.get(update.id) : undefined;
    if (cached) this.setGroup({ ...cached.meta, ...update } as GroupMetadata);
  }

  forgetGroup(jid: string): void {
    this.groups.delete(jid);
  }

  cachedGroup(jid: string): GroupMetadata | undefined {
    const hit = this.groups.get(jid);
    if (!hit) return undefined;
    if (hit.expires < Date.now()) {
      this.groups.delete(jid);
      return undefined;
    }
    return hit.meta;
  }

  async group(jid: string): Promise<GroupMetadata | undefined> {
    const cached = this.cachedGroup(jid);
    const sock = this.socket();
    if (cached || !sock) return cached;
    try {
      const meta = await sock.groupMetadata(jid);
      this.setGroup(meta);
      return meta;
    } catch (err) {
      this.log.debug({ err, jid }, 'baileys: group metadata unavailable');
      return undefined;
    }
  }
}
