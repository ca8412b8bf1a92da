import { createHash } from 'node:crypto';
import {
  decryptPollVote,
  getKeyAuthor,
  isLidUser,
  jidNormalizedUser,
  normalizeMessageContent,
  proto,
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
import { BoundedMap, RecentSet } from './caches.js';
import { receiveMedia } from './media.js';
import { ackOfReceipt, ackOfStatus, classify, isBroadcastJid, isJidGroup, peerOfJids, pollOf, textOf, timestampMs } from './convert.js';
import type { BaileysLogger } from './logger.js';
import type { PeerDirectory } from './peers.js';
import type { BaileysSocket, SessionOptions } from './socket.js';

const short = (s: string) => createHash('sha1').update(s).digest('hex').slice(0, 16);

/** 250 ms doubling to 30 s, with jitter so a task's sessions do not retry in step. */
export const publishBackoff = (attempt: number) => {
  const step = Math.min(30_000, 250 * 2 ** (attempt - 1));
  return Math.round(step / 2 + Math.random() * (step / 2));
};

/**
 * Baileys' inbound events (messages, reactions, edits, deletes, acks, calls, contacts, history)
 * mapped to provider events and emitted once each. The session calls these one after another.
 */
export class InboundEvents {
  private emitted = new RecentSet(5_000);
  /** What was last published per contact (only changes go out); bounded: a forgotten one is published again once. */
  private knownContacts = new BoundedMap<string, { name?: string; pictureUrl?: string | null }>(20_000);

  constructor(
    private readonly ctx: SessionContext,
    private readonly opts: Pick<SessionOptions, 'downloadMedia'>,
    private readonly logger: BaileysLogger,
    private readonly peers: PeerDirectory,
    private readonly book: AddressBook,
    /** Whether the session still runs (publishing is retried until it stops). */
    private readonly running: () => boolean = () => true,
  ) {}

  private async publish(e: ProviderEvent & { eventId: string }): Promise<void> {
    // Baileys reports some things twice (a reaction both in the upsert and in `messages.reaction`,
    // an edit as a protocol message and as an update): the same id goes out once. The id is also
    // the queue's deduplication id, shared by all connections: two of ours in the same WhatsApp
    // group see the same message id, hence the connection in it.
    const event = { ...e, eventId: `b${this.ctx.connectionId}:${e.eventId}` };
    if (this.emitted.has(event.eventId)) return;
    this.emitted.add(event.eventId);
    // WhatsApp was already told we received it (Baileys sends the receipt before emitting): the
    // queue is now its only way to the ticket, so it is retried for as long as the session runs.
    for (let attempt = 1; ; attempt++) {
      try {
        await this.ctx.emit(event);
        return;
      } catch (err) {
        const invalid = (err as { name?: string } | undefined)?.name === 'ZodError';
        if (invalid || !this.running()) {
          this.emitted.delete(event.eventId);
          throw err;
        }
        if (attempt === 3) this.ctx.log.warn({ err, eventId: event.eventId }, 'baileys: the inbound queue refuses events; retrying until it takes them');
        await new Promise((r) => setTimeout(r, publishBackoff(attempt)));
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
      // Replies, reactions and read receipts need the key exactly as WhatsApp gave it (a group's author).
      waKey: { remoteJid: jid, ...(key.participant ? { participant: key.participant } : {}), fromMe: !!key.fromMe },
      ...(c.kind !== 'pollVote' && c.quotedWaId ? { quotedWaId: c.quotedWaId } : {}),
    };
    if (c.kind === 'pollVote') {
      const body = await this.pollVoteText(msg, c.pollKey, c.vote, sock);
      if (body === undefined) await this.publish({ ...base, body: 'pollUpdateMessage', mediaType: 'unsupported' });
      else await this.publish({ ...base, body, quotedWaId: c.pollKey.id! });
      return;
    }
    if (c.kind === 'unsupported') {
      this.ctx.log.info({ id: key.id, type: c.type }, 'baileys: unsupported message shown as a placeholder');
      await this.publish({ ...base, body: c.type, mediaType: 'unsupported' });
      return;
    }
    // A poll's votes are encrypted with its secret: kept so they can be read when they come.
    if (pollOf(normalizeMessageContent(msg.message))) await this.keepProto(key.id, msg.message!);
    if (c.kind === 'media') {
      // Within the size and time limits, streamed to storage before the event that names it is
      // published (§2 "media first"); else a note for the agent. The message counts either way.
      // A wrapped kind (a Lottie sticker) downloads as the message it wraps.
      const message = c.content ? { ...msg, message: c.content } : msg;
      const { media, mediaError } = await receiveMedia({ message, sock, logger: this.logger, ctx: this.ctx, download: this.opts.downloadMedia, mimetype: c.mimetype, fileName: c.fileName });
      await this.publish({
        ...base,
        body: c.body,
        mediaType: c.mediaType,
        ...(media ? { media: c.ptt ? { ...media, ptt: true } : media } : {}),
        ...(mediaError ? { mediaError } : {}),
      });
      return;
    }
    const mediaType = c.kind === 'location' ? 'locationMessage' : c.kind === 'contact' ? 'contactMessage' : undefined;
    await this.publish({ ...base, body: c.body, ...(mediaType ? { mediaType } : {}) });
  }

  private async keepProto(id: string, message: proto.IMessage): Promise<void> {
    try {
      await this.ctx.protos.put(id, proto.Message.encode(message).finish());
    } catch (err) {
      // Only its votes would be unreadable: not worth holding the chat.
      this.ctx.log.warn({ err, id }, 'baileys: poll not kept');
    }
  }

  /**
   * A vote as text: the options chosen, quoting the poll; `—` when the voter withdrew. Undefined
   * when the poll is unknown (older than a week, or created elsewhere): the vote cannot be read.
   */
  private async pollVoteText(msg: WAMessage, pollKey: proto.IMessageKey, vote: proto.Message.IPollEncValue, sock: BaileysSocket): Promise<string | undefined> {
    const data = await this.ctx.protos.get(pollKey.id!).catch(() => undefined);
    const poll = data ? proto.Message.decode(data) : undefined;
    const secret = poll?.messageContextInfo?.messageSecret;
    const options = pollOf(poll)?.options ?? [];
    if (!poll || !secret) return undefined;
    const meId = jidNormalizedUser(sock.user?.id ?? '');
    // The vote is sealed with the creator's and the voter's jids. Which form a LID-addressed group
    // uses is not settled (Baileys' own event responses use the creator's number and the responder's
    // key as received): each form is tried, and AES-GCM's tag tells the right one.
    const forms = async (jid: string) => {
      const pn = isLidUser(jid) ? await sock.signalRepository.lidMapping.getPNForLID(jid).catch(() => null) : null;
      return [...new Set([pn, jid].filter((j): j is string => !!j).map(jidNormalizedUser))];
    };
    const creators = await forms(getKeyAuthor(pollKey, meId));
    const voters = await forms(getKeyAuthor(msg.key, meId));
    try {
      let decrypted: proto.Message.PollVoteMessage | undefined;
      let lastErr: unknown;
      for (const pollCreatorJid of creators) {
        for (const voterJid of voters) {
          try {
            decrypted ??= decryptPollVote(vote as { encPayload: Uint8Array; encIv: Uint8Array }, { pollCreatorJid, pollMsgId: pollKey.id!, pollEncKey: secret, voterJid });
          } catch (err) {
            lastErr = err;
          }
        }
      }
      if (!decrypted) throw lastErr;
      const byHash = new Map(options.map((o) => [createHash('sha256').update(o.optionName ?? '').digest('hex'), o.optionName ?? '']));
      const chosen = (decrypted.selectedOptions ?? []).map((h) => byHash.get(Buffer.from(h).toString('hex')) ?? '?');
      return `🗳️ ${chosen.length ? chosen.join(', ') : '—'}`;
    } catch (err) {
      this.ctx.log.warn({ err, id: msg.key.id }, 'baileys: poll vote not decrypted');
      return undefined;
    }
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
