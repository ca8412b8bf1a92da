import { proto, type AnyMessageContent, type MiscMessageGenerationOptions, type WAMessageKey } from '@whiskeysockets/baileys';
import { normalizeNumber, sameWhatsAppNumber, type Peer } from '@balcao/shared';
import type { SendCommand, SessionContext } from '../../provider.js';
import { RecentSet } from './caches.js';
import { idsOfJid, isJidGroup, jidOfPeer, timestampMs, vcardName } from './convert.js';
import type { PeerDirectory } from './peers.js';
import type { BaileysSocket, SessionOptions } from './socket.js';

/** The host's commands (send with media, read, edit, delete, react, reject, look up) on a connected socket. */
export class OutboundCommands {
  private sentIds = new RecentSet(5_000);

  constructor(
    private readonly ctx: SessionContext,
    private readonly opts: Pick<SessionOptions, 'transcodeVoice'>,
    private readonly peers: PeerDirectory,
  ) {}

  /**
   * A stored message's WhatsApp key: as the session saw it when it arrived (its chat jid, its
   * group author, whether it is ours), else rebuilt from what the table knows. Never guessed from
   * the id (a customer on WhatsApp Web has ids like ours; a message typed on our phone does not).
   */
  private async keyOf(id: string, chatJid: string): Promise<WAMessageKey> {
    const stored = await this.ctx.getMessage(id).catch(() => undefined);
    if (stored?.key) {
      const { remoteJid, participant, fromMe } = stored.key;
      return { remoteJid, id, fromMe, ...(participant && !fromMe ? { participant } : {}) };
    }
    const fromMe = stored ? stored.fromMe : this.sentIds.has(id);
    const participant = !fromMe && isJidGroup(chatJid) && stored?.participant ? await this.authorJid(chatJid, stored.participant) : undefined;
    return { remoteJid: chatJid, id, fromMe, ...(participant ? { participant } : {}) };
  }

  /** A group author's jid as the group addresses its members (LID-addressed groups by LID). */
  private async authorJid(groupJid: string, author: { number?: string; lid?: string }): Promise<string | undefined> {
    const byLid = (await this.peers.group(groupJid))?.addressingMode === 'lid';
    if (byLid && author.lid) return jidOfPeer({ lid: author.lid });
    if (author.number || author.lid) return jidOfPeer({ number: author.number, lid: author.lid });
    return undefined;
  }

  async send(sock: BaileysSocket, cmd: SendCommand): Promise<{ timestamp: number }> {
    const jid = jidOfPeer(cmd.to);
    // Fills the group cache Baileys reads (cachedGroupMetadata) instead of it querying per send.
    if (isJidGroup(jid)) await this.peers.group(jid);
    const options: MiscMessageGenerationOptions = { messageId: cmd.waMessageId };
    if (cmd.quotedWaId) {
      const stored = await this.ctx.getMessage(cmd.quotedWaId).catch(() => undefined);
      // Without the quoted body the reply still goes out, only unquoted.
      if (stored) {
        const kept = await this.ctx.protos.get(cmd.quotedWaId).catch(() => undefined);
        options.quoted = {
          key: await this.keyOf(cmd.quotedWaId, jid),
          message: kept ? proto.Message.decode(kept) : { conversation: stored.body },
        };
      }
    }
    const content = await this.content(cmd);
    const sent = await sock.sendMessage(jid, content, options);
    this.sentIds.add(cmd.waMessageId);
    // Kept for WhatsApp's retry requests (a phone that could not decrypt asks again, up to days
    // later): the proto re-encrypts as it was, media included. The send itself already happened.
    if (sent?.message) {
      await this.ctx.protos.put(cmd.waMessageId, proto.Message.encode(sent.message).finish()).catch((err) => this.ctx.log.warn({ err, id: cmd.waMessageId }, 'baileys: sent message not kept for retries'));
    }
    return { timestamp: sent?.messageTimestamp ? timestampMs(sent.messageTimestamp) : Date.now() };
  }

  private async content(cmd: SendCommand): Promise<AnyMessageContent> {
    if (cmd.vcard) {
      const displayName = vcardName(cmd.vcard) ?? cmd.body ?? '';
      return { contacts: { displayName, contacts: [{ displayName, vcard: cmd.vcard }] } };
    }
    const media = cmd.media;
    if (!media) return { text: cmd.body };
    const data = await this.ctx.readMedia(media.key);
    const caption = cmd.body || undefined;
    switch (media.mediaType) {
      case 'image':
        return { image: data, caption, mimetype: media.mimetype };
      case 'video':
        return { video: data, caption, mimetype: media.mimetype };
      case 'sticker':
        return { sticker: data, mimetype: media.mimetype };
      case 'audio':
        // Voice notes play in WhatsApp only as mono ogg/opus.
        if (media.ptt) return { audio: await this.opts.transcodeVoice(data), ptt: true, mimetype: 'audio/ogg; codecs=opus' };
        return { audio: data, mimetype: media.mimetype };
      default:
        return { document: data, mimetype: media.mimetype, fileName: media.fileName ?? 'file', caption };
    }
  }

  async markRead(sock: BaileysSocket, to: Peer, waMessageIds: string[]): Promise<void> {
    const remoteJid = jidOfPeer(to);
    // A group's receipts name each message's author: WhatsApp tells that author, not the group.
    const keys = await Promise.all(waMessageIds.map((id) => this.keyOf(id, remoteJid)));
    await sock.readMessages(keys.filter((k) => !k.fromMe));
  }

  async edit(sock: BaileysSocket, to: Peer, waMessageId: string, body: string): Promise<void> {
    const key = await this.keyOf(waMessageId, jidOfPeer(to));
    await sock.sendMessage(key.remoteJid!, { text: body, edit: { ...key, fromMe: true } });
  }

  async delete(sock: BaileysSocket, to: Peer, waMessageId: string): Promise<void> {
    const key = await this.keyOf(waMessageId, jidOfPeer(to));
    // For everyone (a revoke), not just on this device.
    await sock.sendMessage(key.remoteJid!, { delete: { ...key, fromMe: true } });
  }

  async react(sock: BaileysSocket, to: Peer, waMessageId: string, emoji: string): Promise<void> {
    const key = await this.keyOf(waMessageId, jidOfPeer(to));
    await sock.sendMessage(key.remoteJid!, { react: { text: emoji, key } });
  }

  async presence(sock: BaileysSocket, to: Peer, state: 'composing' | 'recording' | 'paused'): Promise<void> {
    await sock.sendPresenceUpdate(state, jidOfPeer(to));
  }

  async rejectCall(sock: BaileysSocket, callId: string, from: Peer): Promise<void> {
    // The jid the offer came from (possibly a LID) is the one WhatsApp expects back.
    await sock.rejectCall(callId, this.peers.callerOf(callId) ?? jidOfPeer(from));
  }

  async checkNumber(sock: BaileysSocket, number: string): Promise<{ exists: boolean; number?: string; lid?: string }> {
    const digits = normalizeNumber(number);
    const [hit] = (await sock.onWhatsApp(digits)) ?? [];
    if (!hit?.exists) return { exists: false };
    const found = idsOfJid(hit.jid).number ?? digits;
    // An RPC may afford the LID query that inbound messages avoid.
    const lid =
      this.peers.lidOfNumber(found) ?? idsOfJid(await sock.signalRepository.lidMapping.getLIDForPN(`${found}@s.whatsapp.net`).catch(() => null)).lid;
    if (lid) this.peers.rememberPair({ number: found, lid });
    return { exists: true, number: found, ...(lid ? { lid } : {}) };
  }

  /**
   * One USync query for many numbers: `onWhatsApp` answers only the accounts that exist, under
   * WhatsApp's own jid (a Brazilian mobile may come back without its ninth digit).
   */
  async checkNumbers(sock: BaileysSocket, numbers: string[]): Promise<{ number: string; exists: boolean }[]> {
    const asked = numbers.map(normalizeNumber);
    const found = ((await sock.onWhatsApp(...asked)) ?? []).filter((hit) => hit.exists).map((hit) => idsOfJid(hit.jid).number).filter((n): n is string => !!n);
    return asked.map((number) => ({ number, exists: found.some((f) => sameWhatsAppNumber(f, number)) }));
  }
}
