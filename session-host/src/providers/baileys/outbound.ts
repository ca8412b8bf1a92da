import type { AnyMessageContent, MiscMessageGenerationOptions } from '@whiskeysockets/baileys';
import { normalizeNumber, type Peer } from '@balcao/shared';
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

  /** Whether a message id is ours: sent by this session, else WhatsApp Web's id prefix. */
  private isOurs(id: string): boolean {
    return this.sentIds.has(id) || id.startsWith('3EB0');
  }

  async send(sock: BaileysSocket, cmd: SendCommand): Promise<{ timestamp: number }> {
    const jid = jidOfPeer(cmd.to);
    // Fills the group cache Baileys reads (cachedGroupMetadata) instead of it querying per send.
    if (isJidGroup(jid)) await this.peers.group(jid);
    const options: MiscMessageGenerationOptions = { messageId: cmd.waMessageId };
    if (cmd.quotedWaId) {
      const stored = await this.ctx.getMessage(cmd.quotedWaId);
      // Without the quoted body the reply still goes out, only unquoted.
      if (stored) {
        options.quoted = {
          key: { remoteJid: jid, id: cmd.quotedWaId, fromMe: this.isOurs(cmd.quotedWaId) },
          message: { conversation: stored.body },
        };
      }
    }
    const content = await this.content(cmd);
    const sent = await sock.sendMessage(jid, content, options);
    this.sentIds.add(cmd.waMessageId);
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
    await sock.readMessages(waMessageIds.map((id) => ({ remoteJid, id, fromMe: false })));
  }

  async edit(sock: BaileysSocket, to: Peer, waMessageId: string, body: string): Promise<void> {
    const remoteJid = jidOfPeer(to);
    await sock.sendMessage(remoteJid, { text: body, edit: { remoteJid, id: waMessageId, fromMe: true } });
  }

  async delete(sock: BaileysSocket, to: Peer, waMessageId: string): Promise<void> {
    const remoteJid = jidOfPeer(to);
    // For everyone (a revoke), not just on this device.
    await sock.sendMessage(remoteJid, { delete: { remoteJid, id: waMessageId, fromMe: true } });
  }

  async react(sock: BaileysSocket, to: Peer, waMessageId: string, emoji: string): Promise<void> {
    const remoteJid = jidOfPeer(to);
    await sock.sendMessage(remoteJid, { react: { text: emoji, key: { remoteJid, id: waMessageId, fromMe: this.isOurs(waMessageId) } } });
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
}
