import { createHash } from 'node:crypto';
import {
  WAMessageStubType,
  type BaileysEventMap,
  type Contact,
  type MessageUserReceiptUpdate,
  type WACallEvent,
  type WAMessage,
  type WAMessageKey,
  type WAMessageUpdate,
} from '@whiskeysockets/baileys';
import type { ProviderEvent, SessionContext } from '../../provider.js';
import type { AddressBook } from './address-book.js';
import { RecentSet } from './caches.js';
import { ackOfReceipt, ackOfStatus, classify, isBroadcastJid, isJidGroup, peerOfJids, textOf, timestampMs } from './convert.js';
import type { BaileysLogger } from './logger.js';
import type { PeerDirectory } from './peers.js';
import type { BaileysSocket, SessionOptions } from './socket.js';

const short = (s: string) => createHash('sha1').update(s).digest('hex').slice(0, 16);

/**
 * Baileys' inbound events (messages, reactions, edits, deletes, acks, calls, contacts, history)
 * mapped to provider events and emitted once each. The session calls these one after another.
 */
export class InboundEvents {
  private emitted = new RecentSet(5_000);
  private knownContacts = new Map<string, { name?: string; pictureUrl?: string | null }>();

  constructor(
    private readonly ctx: SessionContext,
    private readonly opts: Pick<SessionOptions, 'downloadMedia'>,
    private readonly logger: BaileysLogger,
    private readonly peers: PeerDirectory,
    private readonly book: AddressBook,
  ) {}

  private async publish(e: ProviderEvent & { eventId: string }): Promise<void> {
    // Baileys reports some things twice (a reaction both in the upsert and in `messages.reaction`,
    // an edit as a protocol message and as an update): the same id goes out once. The id is also
    // the queue's deduplication id, shared by all connections: two of ours in the same WhatsApp
    // group see the same message id, hence the connection in it.
    const event = { ...e, eventId: `b${this.ctx.connectionId}:${e.eventId}` };
    if (this.emitted.has(event.eventId)) return;
    this.emitted.add(event.eventId);
    for (let attempt = 1; ; attempt++) {
      try {
        await this.ctx.emit(event);
        return;
      } catch (err) {
        if (attempt >= 3) {
          this.emitted.delete(event.eventId);
          throw err;
        }
        await new Promise((r) => setTimeout(r, 250 * attempt));
      }
    }
  }

  async onMessage(msg: WAMessage, sock: BaileysSocket): Promise<void> {
    const key = msg.key;
    const jid = key?.remoteJid;
    if (!jid || !key.id) return;
    // Status updates and newsletters are not conversations; dropping them here also spares
    // downloading their media (spec §2 step 2).
    if (isBroadcastJid(jid)) return;
    const c = classify(msg.message);
    if (c.kind === 'ignore') {
      this.ctx.log.debug({ id: key.id, why: c.why }, 'baileys: message ignored');
      return;
    }
    if (c.kind === 'reaction') return this.emitReaction(key, c.targetId, c.emoji);
    const chat = await this.peers.chatOf(key, msg.pushName);
    if (c.kind === 'edit') {
      await this.publish({ type: 'edit', eventId: `edit:${c.targetId}:${short(c.body)}`, chat, waMessageId: c.targetId, body: c.body });
      return;
    }
    if (c.kind === 'revoke') {
      await this.publish({ type: 'delete', eventId: `delete:${c.targetId}`, chat, waMessageId: c.targetId });
      return;
    }
    const sender = await this.peers.senderOf(key, msg.pushName);
    const base = {
      type: 'message' as const,
      eventId: `msg:${key.id}`,
      waMessageId: key.id,
      chat,
      ...(sender ? { sender } : {}),
      fromMe: !!key.fromMe,
      timestamp: timestampMs(msg.messageTimestamp),
      ...(c.quotedWaId ? { quotedWaId: c.quotedWaId } : {}),
    };
    if (c.kind === 'media') {
      let media;
      try {
        const data = await this.opts.downloadMedia(msg, sock, this.logger);
        // Stored before the event that names it is published (§2 "media first").
        const stored = await this.ctx.storeMedia(data, c.mimetype, c.fileName);
        media = c.ptt ? { ...stored, ptt: true } : stored;
      } catch (err) {
        // The message still counts; the agent sees it without the file rather than not at all.
        this.ctx.log.warn({ err, id: key.id }, 'baileys: media download failed');
      }
      await this.publish({ ...base, body: c.body, mediaType: c.mediaType, ...(media ? { media } : {}) });
      return;
    }
    const mediaType = c.kind === 'location' ? 'locationMessage' : c.kind === 'contact' ? 'contactMessage' : undefined;
    await this.publish({ ...base, body: c.body, ...(mediaType ? { mediaType } : {}) });
  }

  /** `reactionKey` is the reaction message's own key (its chat and author, our perspective). */
  async emitReaction(reactionKey: WAMessageKey, targetId: string, emoji: string): Promise<void> {
    if (!reactionKey.remoteJid || isBroadcastJid(reactionKey.remoteJid)) return;
    const chat = await this.peers.chatOf(reactionKey);
    const sender = (await this.peers.senderOf(reactionKey)) ?? (!reactionKey.fromMe && !chat.groupId ? { ...chat, name: undefined } : undefined);
    if (sender) delete sender.name;
    const eventId = reactionKey.id ? `reaction:${reactionKey.id}` : `reaction:${targetId}:${short(`${sender?.number ?? sender?.lid ?? 'me'}:${emoji}`)}`;
    await this.publish({ type: 'reaction', eventId, chat, ...(sender ? { sender } : {}), fromMe: !!reactionKey.fromMe, waMessageId: targetId, emoji });
  }

  async onMessageUpdate({ key, update }: WAMessageUpdate): Promise<void> {
    if (!key.remoteJid || !key.id || isBroadcastJid(key.remoteJid)) return;
    const ack = ackOfStatus(update.status);
    // Acks are about what we sent; the status of received messages (read on the phone) is not.
    if (ack !== undefined && key.fromMe) {
      await this.publish({ type: 'ack', eventId: `ack:${key.id}:${ack}`, chat: await this.peers.chatOf(key), waMessageIds: [key.id], ack });
    }
    // The same edits and revokes also arrive as protocol messages in the upsert; ids dedupe them.
    if (update.message?.editedMessage) {
      const body = textOf(update.message) ?? '';
      await this.publish({ type: 'edit', eventId: `edit:${key.id}:${short(body)}`, chat: await this.peers.chatOf(key), waMessageId: key.id, body });
    } else if (update.messageStubType === WAMessageStubType.REVOKE && update.message === null) {
      await this.publish({ type: 'delete', eventId: `delete:${key.id}`, chat: await this.peers.chatOf(key), waMessageId: key.id });
    }
  }

  async onReceipt({ key, receipt }: MessageUserReceiptUpdate): Promise<void> {
    if (!key.remoteJid || !key.id || !key.fromMe || isBroadcastJid(key.remoteJid)) return;
    const ack = ackOfReceipt(receipt);
    if (ack === undefined) return;
    await this.publish({ type: 'ack', eventId: `ack:${key.id}:${ack}`, chat: await this.peers.chatOf(key), waMessageIds: [key.id], ack });
  }

  async onCall(c: WACallEvent): Promise<void> {
    if (c.status !== 'offer') return;
    this.peers.rememberCaller(c.id, c.from);
    const chat = await this.peers.complete(peerOfJids(c.from, c.callerPn));
    await this.publish({ type: 'call', eventId: `call:${c.id}`, chat, callId: c.id, isVideo: !!c.isVideo, timestamp: c.date ? new Date(c.date).getTime() : Date.now() });
  }

  async onContact(c: Partial<Contact>, sock: BaileysSocket): Promise<void> {
    if (!c.id || isJidGroup(c.id) || isBroadcastJid(c.id)) return;
    const ids = { ...peerOfJids(c.lid, c.phoneNumber) };
    const own = peerOfJids(c.id);
    const peer = await this.peers.complete({ ...own, ...Object.fromEntries(Object.entries(ids).filter(([, v]) => v)) });
    if (!peer.number && !peer.lid) return;
    // `name` is how the phone's owner saved the contact: that is the address book.
    if (c.name && peer.number) this.book.add(peer.number, c.name);
    const name = c.name || c.notify || c.verifiedName || undefined;
    let pictureUrl: string | null | undefined;
    if (c.imgUrl === null) pictureUrl = null;
    else if (c.imgUrl === 'changed') pictureUrl = await sock.profilePictureUrl(c.id, 'image').then((u) => u ?? null, () => undefined);
    else if (typeof c.imgUrl === 'string') pictureUrl = c.imgUrl;
    const who = peer.number ?? peer.lid!;
    const known = this.knownContacts.get(who);
    // Every inbound message repeats the push name as a contact update: only changes go out.
    if ((name === undefined || name === known?.name) && (pictureUrl === undefined || pictureUrl === known?.pictureUrl)) return;
    this.knownContacts.set(who, { name: name ?? known?.name, pictureUrl: pictureUrl === undefined ? known?.pictureUrl : pictureUrl });
    await this.publish({
      type: 'contact',
      eventId: `contact:${short(`${who}:${name ?? ''}:${pictureUrl ?? ''}`)}`,
      peer,
      ...(name ? { name } : {}),
      ...(pictureUrl !== undefined ? { pictureUrl } : {}),
    });
  }

  /** History is not conversation (never published); only its address book and LID pairs are kept. */
  onHistory({ contacts, lidPnMappings }: BaileysEventMap['messaging-history.set']): void {
    for (const { lid, pn } of lidPnMappings ?? []) this.peers.rememberPair(peerOfJids(pn, lid));
    for (const c of contacts) {
      const ids = peerOfJids(c.id, c.phoneNumber ?? c.lid);
      const number = ids.number ?? (ids.lid ? this.peers.numberOfLid(ids.lid) : undefined);
      if (c.name && number) this.book.add(number, c.name);
    }
  }
}
