import {
  getContentType,
  isHostedLidUser,
  isHostedPnUser,
  isJidBroadcast,
  isJidGroup,
  isJidNewsletter,
  isLidUser,
  isPnUser,
  jidDecode,
  normalizeMessageContent,
  proto,
  toNumber,
} from '@whiskeysockets/baileys';
import type { MediaType, Peer } from '@balcao/shared';

/**
 * Pure translations between Baileys' shapes (jids, proto messages, statuses) and ours.
 *
 * Peers: `number` is the phone number's digits (the contact's identity, spec §2 step 3); `lid` is
 * the user part of the `@lid` jid (without the suffix, as `groupId` is without `@g.us`).
 */

const NUMBER = /^\d{6,20}$/;

/** The number or LID a single jid carries (device and agent parts dropped). */
export function idsOfJid(jid: string | null | undefined): { number?: string; lid?: string } {
  if (!jid) return {};
  const decoded = jidDecode(jid);
  if (!decoded?.user) return {};
  if (isLidUser(jid) || isHostedLidUser(jid)) return { lid: decoded.user };
  if (isPnUser(jid) || isHostedPnUser(jid) || decoded.server === 'c.us') return NUMBER.test(decoded.user) ? { number: decoded.user } : {};
  return {};
}

/** Number and LID from a jid and its alternate (Baileys 7: `remoteJidAlt`/`participantAlt`). */
export function peerOfJids(jid: string | null | undefined, alt?: string | null): Peer {
  const a = idsOfJid(jid);
  const b = idsOfJid(alt);
  const peer: Peer = {};
  const number = a.number ?? b.number;
  const lid = a.lid ?? b.lid;
  if (number) peer.number = number;
  if (lid) peer.lid = lid;
  return peer;
}

export function groupIdOf(jid: string): string {
  return jid.split('@')[0];
}

/** The jid to send to: a group, else the number (our identity), else the LID. */
export function jidOfPeer(peer: Peer): string {
  if (peer.groupId) return peer.groupId.includes('@') ? peer.groupId : `${peer.groupId}@g.us`;
  if (peer.number) return `${peer.number}@s.whatsapp.net`;
  if (peer.lid) return peer.lid.includes('@') ? peer.lid : `${peer.lid}@lid`;
  throw new Error('peer without number, lid or group');
}

/** Status broadcasts, broadcast lists and newsletters: not conversations (spec §2 step 2). */
export function isBroadcastJid(jid: string): boolean {
  return !!(isJidBroadcast(jid) || isJidNewsletter(jid));
}

export { isJidGroup };

export const timestampMs = (t: proto.IWebMessageInfo['messageTimestamp'] | undefined): number => {
  const s = t === null || t === undefined ? 0 : toNumber(t as number);
  return s > 0 ? s * 1000 : Date.now();
};

export const mapsLink = (lat: number, lng: number) => `https://maps.google.com/maps?q=${lat},${lng}&z=17`;

/** The WhatsApp media kinds we download and store, by proto field. */
export const MEDIA_FIELDS = {
  imageMessage: 'image',
  videoMessage: 'video',
  audioMessage: 'audio',
  documentMessage: 'document',
  stickerMessage: 'sticker',
  // A round video note: a video to everyone but the phone's UI.
  ptvMessage: 'video',
} as const satisfies Partial<Record<keyof proto.IMessage, MediaType>>;
export type MediaField = keyof typeof MEDIA_FIELDS;

/** What a chat message is, before any media is fetched. */
export type Classified =
  | { kind: 'text'; body: string; quotedWaId?: string }
  | {
      kind: 'media';
      field: MediaField;
      mediaType: MediaType;
      body: string;
      quotedWaId?: string;
      mimetype: string;
      fileName?: string;
      ptt?: boolean;
      /** The content to download when the message wraps it (a Lottie sticker). */
      content?: proto.IMessage;
    }
  | { kind: 'location'; body: string; quotedWaId?: string }
  | { kind: 'contact'; body: string; quotedWaId?: string }
  | { kind: 'reaction'; targetId: string; emoji: string }
  | { kind: 'edit'; targetId: string; body: string }
  | { kind: 'revoke'; targetId: string }
  /** A vote on a poll: encrypted with the poll's secret, decrypted by the session (it keeps the poll). */
  | { kind: 'pollVote'; pollKey: proto.IMessageKey; vote: proto.Message.IPollEncValue }
  /** Conversation WhatsApp can carry that we cannot show: the agent sees a placeholder naming it. */
  | { kind: 'unsupported'; type: string; quotedWaId?: string }
  | { kind: 'ignore'; why: string };

const DEFAULT_MIME: Record<MediaField, string> = {
  imageMessage: 'image/jpeg',
  videoMessage: 'video/mp4',
  audioMessage: 'audio/ogg; codecs=opus',
  documentMessage: 'application/octet-stream',
  stickerMessage: 'image/webp',
  ptvMessage: 'video/mp4',
};

/**
 * Content types that are not conversation (keys, sync, pins, receipts of other features): skipped
 * without a placeholder. Anything else unknown is conversation we cannot show, and gets one.
 */
const NOT_CONVERSATION = new Set([
  'senderKeyDistributionMessage',
  'fastRatchetKeySenderKeyDistributionMessage',
  'messageContextInfo',
  'keepInChatMessage',
  'pinInChatMessage',
  'stickerSyncRmrMessage',
  'deviceSentMessage',
  'placeholderMessage',
  'messageHistoryBundle',
  'messageHistoryNotice',
  'botTaskMessage',
  'encReactionMessage',
  'encEventResponseMessage',
  'encCommentMessage',
  'secretEncryptedMessage',
  'albumMessage',
  'call',
  'chat',
  'bcallMessage',
  'callLogMesssage',
  'scheduledCallEditMessage',
  'expectedImageCount',
  'expectedVideoCount',
  'contextInfo',
]);

const POLL_FIELDS = ['pollCreationMessage', 'pollCreationMessageV2', 'pollCreationMessageV3', 'pollCreationMessageV5'] as const;

/** A poll as text: its question and numbered options (the votes follow as their own messages). */
export function pollText(poll: proto.Message.IPollCreationMessage): string {
  const options = (poll.options ?? []).map((o, i) => `${i + 1}. ${o.optionName ?? ''}`);
  return [`📊 ${poll.name ?? ''}`, ...options].join('\n');
}

/** The poll inside a message content, whichever version carries it. */
export function pollOf(content: proto.IMessage | null | undefined): proto.Message.IPollCreationMessage | undefined {
  if (!content) return undefined;
  for (const f of POLL_FIELDS) if (content[f]) return content[f]!;
  return content.pollCreationMessageV4?.message ? pollOf(content.pollCreationMessageV4.message) : undefined;
}

const money = (amount1000: number | Long | null | undefined, currency: string | null | undefined) =>
  amount1000 === null || amount1000 === undefined ? '' : `${currency ?? ''} ${(toNumber(amount1000 as number) / 1000).toFixed(2)}`.trim();
type Long = Parameters<typeof toNumber>[0];

const lines = (...parts: (string | null | undefined | false)[]) => parts.filter((p): p is string => !!p && !!p.trim()).join('\n');

/** Plain text of a message content (used for edits too: the edited content is a message). */
export function textOf(content: proto.IMessage | null | undefined): string | undefined {
  const c = normalizeMessageContent(content);
  if (!c) return undefined;
  return (
    c.conversation ??
    c.extendedTextMessage?.text ??
    c.imageMessage?.caption ??
    c.videoMessage?.caption ??
    c.documentMessage?.caption ??
    c.buttonsResponseMessage?.selectedDisplayText ??
    c.templateButtonReplyMessage?.selectedDisplayText ??
    c.listResponseMessage?.title ??
    undefined
  ) ?? undefined;
}

export function classify(message: proto.IMessage | null | undefined): Classified {
  const content = normalizeMessageContent(message);
  if (!content) return { kind: 'ignore', why: 'no content' };

  const protocol = content.protocolMessage;
  if (protocol) {
    const targetId = protocol.key?.id;
    if (!targetId) return { kind: 'ignore', why: 'protocol message without target' };
    if (protocol.type === proto.Message.ProtocolMessage.Type.REVOKE) return { kind: 'revoke', targetId };
    if (protocol.type === proto.Message.ProtocolMessage.Type.MESSAGE_EDIT) return { kind: 'edit', targetId, body: textOf(protocol.editedMessage) ?? '' };
    return { kind: 'ignore', why: `protocol ${protocol.type}` };
  }
  // An animated (Lottie) sticker wraps an ordinary sticker message.
  if (content.lottieStickerMessage?.message) {
    const inner = classify(content.lottieStickerMessage.message);
    return inner.kind === 'media' ? { ...inner, content: content.lottieStickerMessage.message } : inner;
  }
  if (content.reactionMessage) {
    const targetId = content.reactionMessage.key?.id;
    if (!targetId) return { kind: 'ignore', why: 'reaction without target' };
    // An empty text is a removed reaction.
    return { kind: 'reaction', targetId, emoji: content.reactionMessage.text ?? '' };
  }

  const type = getContentType(content);
  if (!type) return { kind: 'ignore', why: 'unknown content' };
  const contextInfo = (content[type] as { contextInfo?: proto.IContextInfo | null } | null | undefined)?.contextInfo;
  const quotedWaId = contextInfo?.stanzaId ?? undefined;

  if (type in MEDIA_FIELDS) {
    const field = type as MediaField;
    const m = content[field] as proto.Message.IImageMessage & proto.Message.IDocumentMessage & proto.Message.IAudioMessage;
    return {
      kind: 'media',
      field,
      mediaType: MEDIA_FIELDS[field],
      body: m.caption ?? '',
      quotedWaId,
      mimetype: m.mimetype || DEFAULT_MIME[field],
      fileName: field === 'documentMessage' ? m.fileName || m.title || undefined : undefined,
      ptt: field === 'audioMessage' ? !!m.ptt : undefined,
    };
  }
  switch (type) {
    case 'conversation':
      return { kind: 'text', body: content.conversation ?? '' };
    case 'extendedTextMessage':
      return { kind: 'text', body: content.extendedTextMessage?.text ?? '', quotedWaId };
    case 'locationMessage':
    case 'liveLocationMessage': {
      const loc = (content.locationMessage ?? content.liveLocationMessage)!;
      return { kind: 'location', body: mapsLink(loc.degreesLatitude ?? 0, loc.degreesLongitude ?? 0), quotedWaId };
    }
    case 'contactMessage':
      return { kind: 'contact', body: content.contactMessage?.vcard ?? '', quotedWaId };
    case 'contactsArrayMessage': {
      const cards = (content.contactsArrayMessage?.contacts ?? []).map((c) => c.vcard ?? '').filter(Boolean);
      return { kind: 'contact', body: cards.join('\n'), quotedWaId };
    }
    case 'buttonsResponseMessage':
    case 'templateButtonReplyMessage':
    case 'listResponseMessage': {
      const body = textOf(content);
      return body ? { kind: 'text', body, quotedWaId } : { kind: 'ignore', why: type };
    }
    case 'pollCreationMessage':
    case 'pollCreationMessageV2':
    case 'pollCreationMessageV3':
    case 'pollCreationMessageV4':
    case 'pollCreationMessageV5': {
      const poll = pollOf(content);
      return poll ? { kind: 'text', body: pollText(poll), quotedWaId } : { kind: 'unsupported', type };
    }
    case 'pollUpdateMessage': {
      const u = content.pollUpdateMessage!;
      if (!u.pollCreationMessageKey?.id || !u.vote?.encPayload || !u.vote.encIv) return { kind: 'ignore', why: 'poll vote without poll' };
      return { kind: 'pollVote', pollKey: u.pollCreationMessageKey, vote: u.vote };
    }
    case 'interactiveResponseMessage': {
      const r = content.interactiveResponseMessage!;
      const body = r.body?.text || nativeFlowText(r.nativeFlowResponseMessage);
      return body ? { kind: 'text', body, quotedWaId } : { kind: 'unsupported', type, quotedWaId };
    }
    case 'groupInviteMessage': {
      const g = content.groupInviteMessage!;
      return { kind: 'text', body: lines(`👥 ${g.groupName ?? ''}`, g.caption, g.inviteCode && `https://chat.whatsapp.com/${g.inviteCode}`), quotedWaId };
    }
    case 'orderMessage': {
      const o = content.orderMessage!;
      return { kind: 'text', body: lines(`🛒 ${o.orderTitle ?? ''}${o.itemCount ? ` (${o.itemCount})` : ''}`, money(o.totalAmount1000, o.totalCurrencyCode), o.message), quotedWaId };
    }
    case 'productMessage': {
      const p = content.productMessage!.product;
      return { kind: 'text', body: lines(`🛍️ ${p?.title ?? ''}`, p?.description, money(p?.priceAmount1000, p?.currencyCode), p?.url, content.productMessage!.body), quotedWaId };
    }
    case 'eventMessage': {
      const e = content.eventMessage!;
      const start = e.startTime ? new Date(toNumber(e.startTime as number) * 1000).toISOString() : undefined;
      return { kind: 'text', body: lines(`📅 ${e.name ?? ''}`, e.description, start, e.location?.name, e.joinLink), quotedWaId };
    }
    case 'templateMessage':
    case 'buttonsMessage':
    case 'listMessage':
    case 'interactiveMessage': {
      const body = businessText(content);
      return body ? { kind: 'text', body, quotedWaId } : { kind: 'unsupported', type, quotedWaId };
    }
    default:
      // Calls come from the `call` event; keys, sync and pins are not conversation.
      if (NOT_CONVERSATION.has(type)) return { kind: 'ignore', why: String(type) };
      return { kind: 'unsupported', type: String(type), quotedWaId };
  }
}

/** A button or flow answer whose body is empty: the flow's own description of the answer. */
function nativeFlowText(flow: proto.Message.InteractiveResponseMessage.INativeFlowResponseMessage | null | undefined): string | undefined {
  if (!flow?.paramsJson) return flow?.name ?? undefined;
  try {
    const params = JSON.parse(flow.paramsJson) as Record<string, unknown>;
    const text = ['display_text', 'title', 'description', 'id'].map((k) => params[k]).find((v) => typeof v === 'string' && v);
    return (text as string | undefined) ?? flow.name ?? undefined;
  } catch {
    return flow.name ?? undefined;
  }
}

/** The text of a business message (template, buttons, list, interactive): what the customer's phone shows. */
function businessText(content: proto.IMessage): string | undefined {
  const t = content.templateMessage?.hydratedTemplate ?? content.templateMessage?.hydratedFourRowTemplate;
  const b = content.buttonsMessage;
  const l = content.listMessage;
  const i = content.interactiveMessage;
  return (
    lines(
      t?.hydratedTitleText,
      t?.hydratedContentText,
      t?.hydratedFooterText,
      b?.text,
      b?.contentText,
      b?.footerText,
      l?.title,
      l?.description,
      ...(l?.sections ?? []).flatMap((s) => (s.rows ?? []).map((r) => r.title && `• ${r.title}`)),
      i?.header?.title,
      i?.body?.text,
      i?.footer?.text,
    ) || undefined
  );
}

/** `messages.update` statuses are WhatsApp's acks already (ERROR 0 … PLAYED 5). */
export function ackOfStatus(status: proto.WebMessageInfo.Status | null | undefined): number | undefined {
  if (status === null || status === undefined) return undefined;
  return status >= 0 && status <= 5 ? status : undefined;
}

/** A per-user receipt: played 5, read 4, delivered 3. */
export function ackOfReceipt(receipt: proto.IUserReceipt): number | undefined {
  if (receipt.playedTimestamp) return 5;
  if (receipt.readTimestamp) return 4;
  if (receipt.receiptTimestamp) return 3;
  return undefined;
}

/** The display name inside a vCard (FN), for the contact card's caption. */
export function vcardName(vcard: string): string | undefined {
  const m = /^FN(?:;[^:]*)?:(.*)$/im.exec(vcard);
  return m?.[1]?.trim() || undefined;
}
