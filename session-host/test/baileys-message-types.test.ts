import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { aesEncryptGCM, getContentType, getKeyAuthor, hmacSign, jidNormalizedUser, proto, sha256, type WAMessageKey } from '@whiskeysockets/baileys';
import { CUSTOMER, GROUP, connected, settle, upsert, useBaileysTestHooks, wa } from './baileys-helpers.js';

useBaileysTestHooks();

/**
 * Issue 17 §2: no message type is dropped in silence. Known kinds are mapped (a video note is a
 * video, a poll is text with its options, a vote names what was chosen), and any other kind of
 * conversation reaches the agent as a placeholder naming it. Messages are Baileys' own protos.
 */

const messageOf = (t: Awaited<ReturnType<typeof connected>>, id: string) => t.events.find((e) => e.type === 'message' && e.waMessageId === id) as Record<string, unknown> | undefined;

/** A vote as WhatsApp encrypts it (the inverse of Baileys' decryptPollVote, with Baileys' own crypto). */
function encryptVote(opts: { secret: Uint8Array; pollId: string; creatorJid: string; voterJid: string; chosen: string[] }) {
  const sign = Buffer.concat([Buffer.from(opts.pollId), Buffer.from(opts.creatorJid), Buffer.from(opts.voterJid), Buffer.from('Poll Vote'), new Uint8Array([1])]);
  const key0 = hmacSign(opts.secret, new Uint8Array(32), 'sha256');
  const key = hmacSign(sign, key0, 'sha256');
  const iv = randomBytes(12);
  const plain = proto.Message.PollVoteMessage.encode({ selectedOptions: opts.chosen.map((o) => sha256(Buffer.from(o))) }).finish();
  return { encPayload: aesEncryptGCM(plain, key, iv, Buffer.from(`${opts.pollId}\u0000${opts.voterJid}`)), encIv: iv };
}

describe('baileys provider: message types (issue 17 §2)', () => {
  it('a round video note is stored as a video; an animated (Lottie) sticker as a sticker', async () => {
    // Baileys' downloader finds the media by the content's type: the sticker a Lottie message wraps.
    const downloaded: (string | undefined)[] = [];
    const t = await connected({
      downloadMedia: async (msg) => {
        downloaded.push(getContentType(msg.message ?? undefined));
        return Buffer.from('bytes');
      },
    });
    upsert(t.last(), [
      wa({ key: { remoteJid: CUSTOMER, id: 'PTV1', fromMe: false }, message: { ptvMessage: { mimetype: 'video/mp4', url: 'https://mmg.whatsapp.net/x', mediaKey: new Uint8Array(32), fileLength: 2048 } } }),
      wa({ key: { remoteJid: CUSTOMER, id: 'LOT1', fromMe: false }, message: { lottieStickerMessage: { message: { stickerMessage: { mimetype: 'application/was', isLottie: true, isAnimated: true, url: 'https://mmg.whatsapp.net/y', mediaKey: new Uint8Array(32), fileLength: 1024 } } } } }),
    ]);
    await settle();
    expect(messageOf(t, 'PTV1')).toMatchObject({ mediaType: 'video', body: '' });
    expect(messageOf(t, 'LOT1')).toMatchObject({ mediaType: 'sticker' });
    expect(downloaded).toEqual(['ptvMessage', 'stickerMessage']);
  });

  it('a poll is text with its options; a vote is decrypted with the kept poll and names the options, quoting the poll', async () => {
    const t = await connected();
    const s = t.last();
    const secret = randomBytes(32);
    const pollKey: WAMessageKey = { remoteJid: GROUP, id: 'POLL1', fromMe: false, participant: CUSTOMER };
    upsert(s, [
      wa({
        key: pollKey,
        message: {
          messageContextInfo: { messageSecret: secret },
          pollCreationMessageV3: { name: 'Melhor dia para a entrega?', options: [{ optionName: 'Segunda' }, { optionName: 'Terça' }, { optionName: 'Sábado' }], selectableOptionsCount: 0 },
        },
      }),
    ]);
    await settle();
    expect(messageOf(t, 'POLL1')).toMatchObject({ body: '📊 Melhor dia para a entrega?\n1. Segunda\n2. Terça\n3. Sábado' });
    expect(t.protos.has('POLL1')).toBe(true);

    // Another member votes for two options (Baileys normalised the poll key as our perspective).
    const voteKey: WAMessageKey = { remoteJid: GROUP, id: 'VOTE1', fromMe: false, participant: '5511955554444@s.whatsapp.net' };
    const me = jidNormalizedUser(s.user!.id);
    const vote = encryptVote({ secret, pollId: 'POLL1', creatorJid: getKeyAuthor(pollKey, me), voterJid: getKeyAuthor(voteKey, me), chosen: ['Terça', 'Sábado'] });
    upsert(s, [wa({ key: voteKey, message: { pollUpdateMessage: { pollCreationMessageKey: pollKey, vote, senderTimestampMs: 1_700_000_000_000 } } })]);
    await settle();
    expect(messageOf(t, 'VOTE1')).toMatchObject({ body: '🗳️ Terça, Sábado', quotedWaId: 'POLL1', sender: { number: '5511955554444' } });

    // A vote on a poll we never saw cannot be read: the agent still sees that something came.
    upsert(s, [wa({ key: { ...voteKey, id: 'VOTE2' }, message: { pollUpdateMessage: { pollCreationMessageKey: { ...pollKey, id: 'UNKNOWN' }, vote, senderTimestampMs: 1 } } })]);
    await settle();
    expect(messageOf(t, 'VOTE2')).toMatchObject({ mediaType: 'unsupported', body: 'pollUpdateMessage' });
  });

  it('a vote in a LID-addressed group is read whichever jid forms sealed it (creator by number, voter by LID; or both by LID)', async () => {
    const t = await connected();
    const s = t.last();
    const secret = randomBytes(32);
    const creatorLid = '77700011122233@lid'; // the fake socket maps it to 5511977776666
    const voterLid = '88800011122233@lid'; // no number known
    const pollKey: WAMessageKey = { remoteJid: GROUP, id: 'LPOLL', fromMe: false, participant: creatorLid };
    upsert(s, [wa({ key: pollKey, message: { messageContextInfo: { messageSecret: secret }, pollCreationMessageV3: { name: 'Cor?', options: [{ optionName: 'Azul' }, { optionName: 'Verde' }], selectableOptionsCount: 1 } } })]);
    await settle();
    const vote = (id: string, creatorJid: string, chosen: string[]) => {
      const key: WAMessageKey = { remoteJid: GROUP, id, fromMe: false, participant: voterLid };
      const enc = encryptVote({ secret, pollId: 'LPOLL', creatorJid, voterJid: voterLid, chosen });
      return wa({ key, message: { pollUpdateMessage: { pollCreationMessageKey: pollKey, vote: enc, senderTimestampMs: 1_700_000_000_000 } } });
    };
    upsert(s, [vote('LV1', '5511977776666@s.whatsapp.net', ['Verde']), vote('LV2', creatorLid, ['Azul'])]);
    await settle();
    expect(messageOf(t, 'LV1')).toMatchObject({ body: '🗳️ Verde', quotedWaId: 'LPOLL' });
    expect(messageOf(t, 'LV2')).toMatchObject({ body: '🗳️ Azul', quotedWaId: 'LPOLL' });
  });

  it('button and flow answers, group invites, orders, products and events become text', async () => {
    const t = await connected();
    upsert(t.last(), [
      wa({ key: { remoteJid: CUSTOMER, id: 'IR1', fromMe: false }, message: { interactiveResponseMessage: { body: { text: 'Quero falar com vendas' }, nativeFlowResponseMessage: { name: 'quick_reply', paramsJson: '{"id":"vendas"}', version: 3 } } } }),
      wa({ key: { remoteJid: CUSTOMER, id: 'IR2', fromMe: false }, message: { interactiveResponseMessage: { nativeFlowResponseMessage: { name: 'quick_reply', paramsJson: '{"display_text":"Suporte","id":"2"}', version: 3 } } } }),
      wa({ key: { remoteJid: CUSTOMER, id: 'INV1', fromMe: false }, message: { groupInviteMessage: { groupJid: GROUP, inviteCode: 'AbCd123', groupName: 'Clientes VIP', caption: 'Entra aí' } } }),
      wa({ key: { remoteJid: CUSTOMER, id: 'ORD1', fromMe: false }, message: { orderMessage: { orderId: '99', itemCount: 3, orderTitle: 'Pedido Loja', message: 'Para hoje', totalAmount1000: 129900, totalCurrencyCode: 'BRL' } } }),
      wa({ key: { remoteJid: CUSTOMER, id: 'PRD1', fromMe: false }, message: { productMessage: { product: { title: 'Camiseta', priceAmount1000: 59900, currencyCode: 'BRL', url: 'https://loja.example/camiseta' }, businessOwnerJid: CUSTOMER } } }),
      wa({ key: { remoteJid: CUSTOMER, id: 'EVT1', fromMe: false }, message: { eventMessage: { name: 'Inauguração', description: 'Venha!', startTime: 1_767_225_600 } } }),
    ]);
    await settle();
    expect(messageOf(t, 'IR1')).toMatchObject({ body: 'Quero falar com vendas' });
    expect(messageOf(t, 'IR2')).toMatchObject({ body: 'Suporte' });
    expect(messageOf(t, 'INV1')).toMatchObject({ body: '👥 Clientes VIP\nEntra aí\nhttps://chat.whatsapp.com/AbCd123' });
    expect(messageOf(t, 'ORD1')).toMatchObject({ body: '🛒 Pedido Loja (3)\nBRL 129.90\nPara hoje' });
    expect(messageOf(t, 'PRD1')).toMatchObject({ body: '🛍️ Camiseta\nBRL 59.90\nhttps://loja.example/camiseta' });
    expect(messageOf(t, 'EVT1')).toMatchObject({ body: '📅 Inauguração\nVenha!\n2026-01-01T00:00:00.000Z' });
  });

  it('any other conversation is a placeholder naming its type; keys, pins and sync are not conversation', async () => {
    const t = await connected();
    upsert(t.last(), [
      wa({ key: { remoteJid: CUSTOMER, id: 'Q1', fromMe: false }, message: { questionMessage: { message: { conversation: 'hm' } } } }),
      wa({ key: { remoteJid: CUSTOMER, id: 'PAY1', fromMe: false }, message: { requestPaymentMessage: { currencyCodeIso4217: 'BRL', amount1000: 1000 } } }),
      wa({ key: { remoteJid: CUSTOMER, id: 'PIN1', fromMe: false }, message: { pinInChatMessage: { key: { id: 'X' }, type: 1 } } }),
      wa({ key: { remoteJid: CUSTOMER, id: 'KIC1', fromMe: false }, message: { keepInChatMessage: { key: { id: 'X' } } } }),
    ]);
    await settle();
    expect(messageOf(t, 'Q1')).toMatchObject({ mediaType: 'unsupported', body: 'questionMessage' });
    expect(messageOf(t, 'PAY1')).toMatchObject({ mediaType: 'unsupported', body: 'requestPaymentMessage' });
    expect(t.events.filter((e) => e.type === 'message')).toHaveLength(2);
  });
});
