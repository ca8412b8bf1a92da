import { describe, expect, it } from 'vitest';
import { generateWAMessageFromContent, proto, type WAMessageKey } from '@whiskeysockets/baileys';
import type { SendCommand } from '../src/provider.js';
import { CUSTOMER, GROUP, connected, settle, upsert, useBaileysTestHooks, wa } from './baileys-helpers.js';

useBaileysTestHooks();

/**
 * Issue 17 §3 and §5: keys of replies, reactions and read receipts are the message's own (a group's
 * author, who sent it), and WhatsApp's retry requests get back what was really sent.
 */

const AUTHOR = '5511955554444@s.whatsapp.net';
const AUTHOR_LID = '55544433322211@lid';
const send = (over: Partial<SendCommand>): SendCommand => ({
  v: 1,
  type: 'send',
  commandId: 'c1',
  companyId: 1,
  connectionId: 7,
  ticketId: 3,
  waMessageId: '3EB0AAAA000000000001',
  to: { groupId: '120363040000000001' },
  body: 'Resposta',
  ...over,
});

describe('baileys provider: message keys (issue 17 §3)', () => {
  it('a group message is published with its key; replies, reactions and read receipts are built from it', async () => {
    const t = await connected();
    upsert(t.last(), [wa({ key: { remoteJid: GROUP, id: 'G1', fromMe: false, participant: AUTHOR_LID }, message: { conversation: 'Oi grupo' }, pushName: 'Bia' }, { participantAlt: AUTHOR })]);
    await settle();
    const published = t.events.find((e) => e.type === 'message' && e.waMessageId === 'G1') as { waKey: unknown; body: string };
    expect(published.waKey).toEqual({ remoteJid: GROUP, participant: AUTHOR_LID, fromMe: false });
    // The table stores the key with the message (functions' ingest); the provider reads it back.
    t.stored.set('G1', { body: 'Oi grupo', fromMe: false, key: published.waKey as never });

    const s = t.last();
    await t.session.send(send({ quotedWaId: 'G1' }));
    expect(s.sendMessage.mock.calls[0]![2]).toMatchObject({ quoted: { key: { remoteJid: GROUP, id: 'G1', fromMe: false, participant: AUTHOR_LID } } });
    await t.session.react({ groupId: '120363040000000001' }, 'G1', '👍');
    expect(s.sendMessage.mock.calls[1]![1]).toEqual({ react: { text: '👍', key: { remoteJid: GROUP, id: 'G1', fromMe: false, participant: AUTHOR_LID } } });
    await t.session.markRead({ groupId: '120363040000000001' }, ['G1']);
    expect(s.readMessages).toHaveBeenCalledWith([{ remoteJid: GROUP, id: 'G1', fromMe: false, participant: AUTHOR_LID }]);
  });

  it('without a kept key: fromMe comes from the table (never from the id prefix) and the author from the stored participant', async () => {
    const t = await connected();
    const s = t.last();
    // A customer on WhatsApp Web: their ids start with 3EB0 too.
    t.stored.set('3EB0CUSTOMERWEB', { body: 'do cliente', fromMe: false });
    // Typed on our phone: ours, whatever its id.
    t.stored.set('ABCDEFPHONE', { body: 'do celular', fromMe: true });
    await t.session.react({ number: '5511988887777' }, '3EB0CUSTOMERWEB', '❤️');
    await t.session.react({ number: '5511988887777' }, 'ABCDEFPHONE', '❤️');
    expect(s.sendMessage.mock.calls.map((c) => (c[1] as { react: { key: WAMessageKey } }).react.key.fromMe)).toEqual([false, true]);

    // An older group message: its author as the group addresses members.
    t.stored.set('OLD1', { body: 'antiga', fromMe: false, participant: { number: '5511955554444', lid: '55544433322211' } });
    await t.session.markRead({ groupId: '120363040000000001' }, ['OLD1', 'ABCDEFPHONE']);
    // Ours are never "read" back; the group's metadata says it addresses members by phone number.
    expect(s.readMessages).toHaveBeenLastCalledWith([{ remoteJid: GROUP, id: 'OLD1', fromMe: false, participant: AUTHOR }]);
    s.groupMetadata.mockResolvedValueOnce({ id: '120363040000000002@g.us', subject: 'LID', participants: [], addressingMode: 'lid' } as never);
    await t.session.markRead({ groupId: '120363040000000002' }, ['OLD1']);
    expect(s.readMessages).toHaveBeenLastCalledWith([{ remoteJid: '120363040000000002@g.us', id: 'OLD1', fromMe: false, participant: AUTHOR_LID }]);
  });
});

describe('baileys provider: retries (issue 17 §5)', () => {
  it('keeps what it sent and answers WhatsApp retry requests with it, media and quote intact', async () => {
    const t = await connected();
    const s = t.last();
    // What Baileys' sendMessage really returns: the full message it built (here an image it uploaded).
    s.sendMessage.mockImplementationOnce(async (jid: string, _c: unknown, options?: { messageId?: string }) =>
      generateWAMessageFromContent(
        jid,
        { imageMessage: { url: 'https://mmg.whatsapp.net/o1', mimetype: 'image/jpeg', caption: 'Seu boleto', mediaKey: new Uint8Array(32).fill(7), fileLength: 1234 } },
        { userJid: s.user!.id, messageId: options?.messageId },
      ) as never,
    );
    t.files.set('out/b.jpg', Buffer.from('jpeg'));
    await t.session.send(send({ to: { number: '5511988887777' }, waMessageId: '3EB0IMG', body: 'Seu boleto', media: { key: 'out/b.jpg', mimetype: 'image/jpeg', size: 4, mediaType: 'image' } }));
    expect(t.protos.has('3EB0IMG')).toBe(true);

    // Baileys asks getMessage when the phone could not decrypt and requests a retry.
    const again = await s.config.getMessage!({ remoteJid: CUSTOMER, id: '3EB0IMG', fromMe: true });
    expect(again?.imageMessage).toMatchObject({ url: 'https://mmg.whatsapp.net/o1', caption: 'Seu boleto', mimetype: 'image/jpeg' });
    expect(again?.conversation ?? undefined).toBeUndefined();
    // Messages older than the kept protos still go back as their text.
    t.stored.set('OLDTXT', { body: 'texto antigo', fromMe: true });
    expect(await s.config.getMessage!({ remoteJid: CUSTOMER, id: 'OLDTXT', fromMe: true })).toEqual(proto.Message.create({ conversation: 'texto antigo' }));
  });

  it('passes one bounded retry counter per session to Baileys', async () => {
    const t = await connected();
    const cache = t.last().config.msgRetryCounterCache!;
    expect(cache).toBeDefined();
    for (let i = 0; i < 5_000; i++) cache.set(`id${i}`, 1);
    expect(cache.get('id0')).toBeUndefined();
    expect(cache.get('id4999')).toBe(1);
    const other = await connected();
    expect(other.last().config.msgRetryCounterCache).not.toBe(cache);
  });
});
