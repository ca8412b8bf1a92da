import { describe, expect, it } from 'vitest';
import { WAMessageStubType, proto } from '@whiskeysockets/baileys';
import type { ProviderEvent } from '../src/provider.js';
import { CUSTOMER, CUSTOMER_LID, GROUP, connected, settle, upsert, useBaileysTestHooks, wa } from './baileys-helpers.js';

useBaileysTestHooks();

describe('baileys provider: inbound messages', () => {
  it('text with LID alternate: message with number and LID, push name, ms timestamp', async () => {
    const t = await connected();
    upsert(t.last(), [wa({ key: { remoteJid: CUSTOMER, id: 'TXT1', fromMe: false }, message: { conversation: 'Olá' }, pushName: 'Ana' }, { remoteJidAlt: CUSTOMER_LID })]);
    await settle();
    expect(t.events).toEqual([
      {
        type: 'message',
        eventId: 'b7:msg:TXT1',
        waMessageId: 'TXT1',
        chat: { number: '5511988887777', lid: '99887766554433', name: 'Ana' },
        fromMe: false,
        body: 'Olá',
        timestamp: 1_700_000_000_000,
        waKey: { remoteJid: CUSTOMER, fromMe: false },
      },
    ]);
  });

  it('a chat addressed by LID only gets its number from what was learned or the LID mapping store', async () => {
    const t = await connected();
    const s = t.last();
    upsert(s, [wa({ key: { remoteJid: CUSTOMER, id: 'A1', fromMe: false }, message: { conversation: 'a' } }, { remoteJidAlt: CUSTOMER_LID })]);
    upsert(s, [wa({ key: { remoteJid: CUSTOMER_LID, id: 'A2', fromMe: false }, message: { conversation: 'b' } })]);
    upsert(s, [wa({ key: { remoteJid: '77700011122233@lid', id: 'A3', fromMe: false }, message: { conversation: 'c' } })]);
    await settle();
    const chatOf = (id: string) => t.events.flatMap((e) => (e.type === 'message' && e.waMessageId === id ? [e.chat] : []))[0];
    expect(chatOf('A2')).toEqual({ number: '5511988887777', lid: '99887766554433' });
    expect(chatOf('A3')).toEqual({ number: '5511977776666', lid: '77700011122233' });
    expect(s.signalRepository.lidMapping.getPNForLID).toHaveBeenCalledWith('77700011122233@lid');
  });

  it('extended text with a quote → quotedWaId', async () => {
    const t = await connected();
    upsert(t.last(), [
      wa({
        key: { remoteJid: CUSTOMER, id: 'EXT1', fromMe: false },
        message: { extendedTextMessage: { text: 'respondendo', contextInfo: { stanzaId: 'ORIG1', participant: CUSTOMER, quotedMessage: { conversation: 'orig' } } } },
      }),
    ]);
    await settle();
    expect(t.events[0]).toMatchObject({ type: 'message', waMessageId: 'EXT1', body: 'respondendo', quotedWaId: 'ORIG1' });
  });

  it('image with caption: downloaded and stored before the event is emitted', async () => {
    const t = await connected();
    upsert(t.last(), [
      wa({ key: { remoteJid: CUSTOMER, id: 'IMG1', fromMe: false }, message: { imageMessage: { caption: 'minha foto', mimetype: 'image/jpeg', mediaKey: Buffer.alloc(32), directPath: '/v/x' } } }),
    ]);
    await settle();
    expect(t.journal).toEqual(['storeMedia', 'emit:message']);
    expect(t.events[0]).toMatchObject({
      type: 'message',
      waMessageId: 'IMG1',
      body: 'minha foto',
      mediaType: 'image',
      media: { key: 'media/1', mimetype: 'image/jpeg', size: Buffer.from('bytes of IMG1').length },
    });
    expect(t.files.get('media/1')?.toString()).toBe('bytes of IMG1');
  });

  it('ptt audio, document, sticker: stored with their kind; a voice note is flagged ptt', async () => {
    const t = await connected();
    upsert(t.last(), [
      wa({ key: { remoteJid: CUSTOMER, id: 'PTT1', fromMe: false }, message: { audioMessage: { mimetype: 'audio/ogg; codecs=opus', ptt: true, seconds: 3 } } }),
      wa({ key: { remoteJid: CUSTOMER, id: 'DOC1', fromMe: false }, message: { documentMessage: { mimetype: 'application/pdf', fileName: 'boleto.pdf' } } }),
      wa({
        key: { remoteJid: CUSTOMER, id: 'DOC2', fromMe: false },
        message: { documentWithCaptionMessage: { message: { documentMessage: { mimetype: 'application/pdf', fileName: 'nota.pdf', caption: 'segue a nota' } } } },
      }),
      wa({ key: { remoteJid: CUSTOMER, id: 'STK1', fromMe: false }, message: { stickerMessage: { mimetype: 'image/webp' } } }),
    ]);
    await settle();
    expect(t.journal).toEqual(['storeMedia', 'emit:message', 'storeMedia', 'emit:message', 'storeMedia', 'emit:message', 'storeMedia', 'emit:message']);
    const [ptt, doc, doc2, stk] = t.events as Extract<ProviderEvent, { type: 'message' }>[];
    expect(ptt).toMatchObject({ mediaType: 'audio', body: '', media: { mimetype: 'audio/ogg; codecs=opus', ptt: true } });
    expect(doc).toMatchObject({ mediaType: 'document', body: '', media: { mimetype: 'application/pdf', fileName: 'boleto.pdf' } });
    expect(doc2).toMatchObject({ mediaType: 'document', body: 'segue a nota', media: { fileName: 'nota.pdf' } });
    expect(stk).toMatchObject({ mediaType: 'sticker', media: { mimetype: 'image/webp' } });
    expect(stk.media?.ptt).toBeUndefined();
  });

  it('a failed download still delivers the message, without media', async () => {
    const t = await connected({
      downloadMedia: async () => {
        throw new Error('410 gone');
      },
    });
    upsert(t.last(), [wa({ key: { remoteJid: CUSTOMER, id: 'IMG2', fromMe: false }, message: { imageMessage: { caption: 'x', mimetype: 'image/png' } } })]);
    await settle();
    expect(t.events[0]).toMatchObject({ type: 'message', mediaType: 'image', body: 'x' });
    expect((t.events[0] as { media?: unknown }).media).toBeUndefined();
  });

  it('location (map link) and contact card (vCard)', async () => {
    const t = await connected();
    const vcard = 'BEGIN:VCARD\nVERSION:3.0\nFN:João Silva\nTEL;type=CELL;waid=5511955554444:+55 11 95555-4444\nEND:VCARD';
    upsert(t.last(), [
      wa({ key: { remoteJid: CUSTOMER, id: 'LOC1', fromMe: false }, message: { locationMessage: { degreesLatitude: -23.5505, degreesLongitude: -46.6333, name: 'Sé' } } }),
      wa({ key: { remoteJid: CUSTOMER, id: 'VC1', fromMe: false }, message: { contactMessage: { displayName: 'João Silva', vcard } } }),
    ]);
    await settle();
    expect(t.events[0]).toMatchObject({ waMessageId: 'LOC1', mediaType: 'locationMessage', body: 'https://maps.google.com/maps?q=-23.5505,-46.6333&z=17' });
    expect(t.events[1]).toMatchObject({ waMessageId: 'VC1', mediaType: 'contactMessage', body: vcard });
    expect(t.downloads).toEqual([]);
  });

  it('reaction → one reaction event although Baileys reports it twice (upsert and messages.reaction)', async () => {
    const t = await connected();
    const s = t.last();
    const key = { remoteJid: CUSTOMER, id: 'REACT1', fromMe: false };
    upsert(s, [wa({ key, message: { reactionMessage: { key: { remoteJid: '5511999990000@s.whatsapp.net', id: 'MINE1', fromMe: true }, text: '👍' } } })]);
    s.emit('messages.reaction', [{ key: { remoteJid: CUSTOMER, id: 'MINE1', fromMe: true }, reaction: { key, text: '👍' } }]);
    // A removed reaction: empty emoji.
    upsert(s, [wa({ key: { ...key, id: 'REACT2' }, message: { reactionMessage: { key: { remoteJid: CUSTOMER, id: 'MINE1', fromMe: true }, text: '' } } })]);
    await settle();
    expect(t.events).toEqual([
      { type: 'reaction', eventId: 'b7:reaction:REACT1', chat: { number: '5511988887777' }, sender: { number: '5511988887777' }, fromMe: false, waMessageId: 'MINE1', emoji: '👍' },
      { type: 'reaction', eventId: 'b7:reaction:REACT2', chat: { number: '5511988887777' }, sender: { number: '5511988887777' }, fromMe: false, waMessageId: 'MINE1', emoji: '' },
    ]);
  });

  it('edit (MESSAGE_EDIT) and revoke → edit and delete, once each though updates repeat them', async () => {
    const t = await connected();
    const s = t.last();
    upsert(s, [
      wa({
        key: { remoteJid: CUSTOMER, id: 'P1', fromMe: false },
        message: {
          editedMessage: {
            message: {
              protocolMessage: { key: { remoteJid: CUSTOMER, id: 'TXT9', fromMe: false }, type: proto.Message.ProtocolMessage.Type.MESSAGE_EDIT, editedMessage: { conversation: 'corrigido' } },
            },
          },
        },
      }),
      wa({ key: { remoteJid: CUSTOMER, id: 'P2', fromMe: false }, message: { protocolMessage: { key: { remoteJid: CUSTOMER, id: 'TXT8', fromMe: false }, type: proto.Message.ProtocolMessage.Type.REVOKE } } }),
    ]);
    // What Baileys' processMessage emits for the same two protocol messages.
    s.emit('messages.update', [
      { key: { remoteJid: CUSTOMER, id: 'TXT9', fromMe: false }, update: { message: { editedMessage: { message: { conversation: 'corrigido' } } } } },
      { key: { remoteJid: CUSTOMER, id: 'TXT8', fromMe: false }, update: { message: null, messageStubType: WAMessageStubType.REVOKE } },
    ]);
    await settle();
    expect(t.events.map((e) => e.type)).toEqual(['edit', 'delete']);
    expect(t.events[0]).toMatchObject({ type: 'edit', chat: { number: '5511988887777' }, waMessageId: 'TXT9', body: 'corrigido' });
    expect(t.events[1]).toMatchObject({ type: 'delete', chat: { number: '5511988887777' }, waMessageId: 'TXT8' });
  });

  it('group message: chat is the group (subject from cached metadata), sender is the participant with LID and number', async () => {
    const t = await connected();
    const s = t.last();
    const msg = (id: string) =>
      wa({ key: { remoteJid: GROUP, id, fromMe: false, participant: '44455566677788@lid' }, message: { conversation: `grupo ${id}` }, pushName: 'Bia' }, { participantAlt: '5521977778888@s.whatsapp.net' });
    upsert(s, [msg('G1'), msg('G2')]);
    await settle();
    expect(t.events[0]).toMatchObject({
      type: 'message',
      chat: { groupId: '120363040000000001', name: 'Equipe Vendas' },
      sender: { number: '5521977778888', lid: '44455566677788', name: 'Bia' },
      body: 'grupo G1',
    });
    expect(t.events[1]).toMatchObject({ chat: { groupId: '120363040000000001' }, body: 'grupo G2' });
    expect(s.groupMetadata).toHaveBeenCalledTimes(1);
  });

  it('status broadcasts and newsletters are skipped without downloading their media', async () => {
    const t = await connected();
    upsert(t.last(), [
      wa({ key: { remoteJid: 'status@broadcast', id: 'ST1', fromMe: false, participant: CUSTOMER }, message: { imageMessage: { mimetype: 'image/jpeg' } } }),
      wa({ key: { remoteJid: '120363000000000009@newsletter', id: 'NL1', fromMe: false }, message: { conversation: 'news' } }),
    ]);
    await settle();
    expect(t.events).toEqual([]);
    expect(t.downloads).toEqual([]);
  });

  it('messages typed on the phone (append, fromMe) and offline ones (append) are conversation too', async () => {
    const t = await connected();
    upsert(t.last(), [wa({ key: { remoteJid: CUSTOMER, id: 'ME1', fromMe: true }, message: { conversation: 'digitei no celular' }, pushName: 'Loja' })], 'append');
    upsert(t.last(), [wa({ key: { remoteJid: CUSTOMER, id: 'OFF1', fromMe: false }, message: { conversation: 'enquanto offline' } })], 'append');
    await settle();
    expect(t.events[0]).toMatchObject({ type: 'message', waMessageId: 'ME1', fromMe: true, chat: { number: '5511988887777' } });
    expect((t.events[0] as { chat: { name?: string } }).chat.name).toBeUndefined();
    expect(t.events[1]).toMatchObject({ waMessageId: 'OFF1', fromMe: false });
  });

  it('keeps the order of a chat even when an earlier message waits for its media', async () => {
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const t = await connected({ downloadMedia: async () => (await gate, Buffer.from('late')) });
    upsert(t.last(), [wa({ key: { remoteJid: CUSTOMER, id: 'SLOW', fromMe: false }, message: { imageMessage: { mimetype: 'image/jpeg' } } })]);
    upsert(t.last(), [wa({ key: { remoteJid: CUSTOMER, id: 'FAST', fromMe: false }, message: { conversation: 'depois' } })]);
    await settle();
    expect(t.events).toEqual([]);
    release();
    await settle();
    expect(t.events.map((e) => (e as { waMessageId: string }).waMessageId)).toEqual(['SLOW', 'FAST']);
  });
});
