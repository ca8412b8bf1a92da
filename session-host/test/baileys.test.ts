import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import type { SendCommand } from '../src/provider.js';
import { CUSTOMER, GROUP, connected, setup, useBaileysTestHooks } from './baileys-helpers.js';

useBaileysTestHooks();

describe('baileys provider: commands', () => {
  const cmd = (over: Partial<SendCommand>): SendCommand => ({
    v: 1,
    type: 'send',
    commandId: 'c1',
    companyId: 1,
    connectionId: 7,
    ticketId: 3,
    waMessageId: '3EB0AABBCCDDEEFF0011',
    to: { number: '5511988887777', lid: '99887766554433' },
    body: 'Olá, tudo bem?',
    ...over,
  });

  it('throws when not connected', async () => {
    const t = setup();
    await t.session.start();
    await expect(t.session.send(cmd({}))).rejects.toThrow(/not connected/);
  });

  it('text with our WhatsApp id; resolves with the server timestamp', async () => {
    const t = await connected();
    const res = await t.session.send(cmd({}));
    expect(t.last().sendMessage).toHaveBeenCalledWith(CUSTOMER, { text: 'Olá, tudo bem?' }, { messageId: '3EB0AABBCCDDEEFF0011' });
    expect(res).toEqual({ timestamp: 1_700_000_123_000 });
  });

  it('quoted reply carries the quoted message from getMessage', async () => {
    const t = await connected();
    await t.session.send(cmd({ quotedWaId: 'QUOTED1' }));
    const [, , options] = t.last().sendMessage.mock.calls[0];
    expect(options).toEqual({
      messageId: '3EB0AABBCCDDEEFF0011',
      quoted: { key: { remoteJid: CUSTOMER, id: 'QUOTED1', fromMe: false }, message: { conversation: 'the quoted text' } },
    });
  });

  it('media: image with caption, document with name, sticker, group target', async () => {
    const t = await connected();
    t.files.set('out/1.jpg', Buffer.from('jpeg'));
    t.files.set('out/2.pdf', Buffer.from('pdf'));
    await t.session.send(cmd({ media: { key: 'out/1.jpg', mimetype: 'image/jpeg', size: 4, mediaType: 'image' }, body: 'legenda' }));
    await t.session.send(cmd({ media: { key: 'out/2.pdf', mimetype: 'application/pdf', size: 3, mediaType: 'document', fileName: 'a.pdf' }, body: '' }));
    await t.session.send(cmd({ media: { key: 'out/1.jpg', mimetype: 'image/webp', size: 4, mediaType: 'sticker' }, body: '', to: { groupId: '120363040000000001' } }));
    const calls = t.last().sendMessage.mock.calls;
    expect(calls[0]).toEqual([CUSTOMER, { image: Buffer.from('jpeg'), caption: 'legenda', mimetype: 'image/jpeg' }, { messageId: '3EB0AABBCCDDEEFF0011' }]);
    expect(calls[1][1]).toEqual({ document: Buffer.from('pdf'), mimetype: 'application/pdf', fileName: 'a.pdf', caption: undefined });
    expect(calls[2][0]).toBe(GROUP);
    // Group metadata is cached before the send so Baileys finds it in cachedGroupMetadata.
    expect(t.last().groupMetadata).toHaveBeenCalledWith(GROUP);
    expect((await t.last().config.cachedGroupMetadata!(GROUP))?.subject).toBe('Equipe Vendas');
    expect(calls[2][1]).toEqual({ sticker: Buffer.from('jpeg'), mimetype: 'image/webp' });
  });

  it('vCard contact card', async () => {
    const t = await connected();
    const vcard = 'BEGIN:VCARD\nVERSION:3.0\nFN:João Silva\nTEL;waid=5511955554444:+55 11 95555-4444\nEND:VCARD';
    await t.session.send(cmd({ vcard, body: '' }));
    expect(t.last().sendMessage.mock.calls[0][1]).toEqual({ contacts: { displayName: 'João Silva', contacts: [{ displayName: 'João Silva', vcard }] } });
  });

  const hasFfmpeg = spawnSync('ffmpeg', ['-version']).status === 0;

  it('voice note: transcoded to ogg/opus with ffmpeg and sent as ptt', async (testCtx) => {
    if (!hasFfmpeg) {
      testCtx.skip('ffmpeg is not installed: the ogg/opus transcode cannot be checked here (CI installs it)');
      return;
    }
    // The real transcoder (no injected one).
    const t = await connected({ transcodeVoice: undefined });
    t.files.set('out/voice.wav', wav(0.5));
    await t.session.send(cmd({ media: { key: 'out/voice.wav', mimetype: 'audio/wav', size: 1, mediaType: 'audio', ptt: true }, body: '' }));
    const [jid, content, options] = t.last().sendMessage.mock.calls[0] as [string, { audio: Buffer; ptt: boolean; mimetype: string }, object];
    expect(jid).toBe(CUSTOMER);
    expect(options).toEqual({ messageId: '3EB0AABBCCDDEEFF0011' });
    expect(content.ptt).toBe(true);
    expect(content.mimetype).toBe('audio/ogg; codecs=opus');
    expect(content.audio.subarray(0, 4).toString()).toBe('OggS');
    expect(content.audio.includes(Buffer.from('OpusHead'))).toBe(true);
    // Mono, 48 kHz as WhatsApp voice notes are (OpusHead: channel count at +9, input rate at +12).
    const head = content.audio.indexOf(Buffer.from('OpusHead'));
    expect(content.audio[head + 9]).toBe(1);
    expect(content.audio.readUInt32LE(head + 12)).toBe(48_000);
  }, 30_000);

  it('an audio file that is not a voice note goes as it is', async () => {
    const t = await connected();
    t.files.set('out/song.mp3', Buffer.from('mp3'));
    await t.session.send(cmd({ media: { key: 'out/song.mp3', mimetype: 'audio/mpeg', size: 3, mediaType: 'audio' }, body: '' }));
    expect(t.last().sendMessage.mock.calls[0][1]).toEqual({ audio: Buffer.from('mp3'), mimetype: 'audio/mpeg' });
  });

  it('markRead, edit, delete for everyone, react', async () => {
    const t = await connected();
    const to = { number: '5511988887777' };
    await t.session.markRead(to, ['IN1', 'IN2']);
    expect(t.last().readMessages).toHaveBeenCalledWith([
      { remoteJid: CUSTOMER, id: 'IN1', fromMe: false },
      { remoteJid: CUSTOMER, id: 'IN2', fromMe: false },
    ]);
    await t.session.edit(to, '3EB0MINE', 'novo texto');
    await t.session.delete(to, '3EB0MINE');
    await t.session.react(to, 'IN1', '❤️');
    const calls = t.last().sendMessage.mock.calls.map((c) => c.slice(0, 2));
    expect(calls).toEqual([
      [CUSTOMER, { text: 'novo texto', edit: { remoteJid: CUSTOMER, id: '3EB0MINE', fromMe: true } }],
      [CUSTOMER, { delete: { remoteJid: CUSTOMER, id: '3EB0MINE', fromMe: true } }],
      [CUSTOMER, { react: { text: '❤️', key: { remoteJid: CUSTOMER, id: 'IN1', fromMe: false } } }],
    ]);
    // "typing…" before an automated answer (issue 19): Baileys' own presence update to the chat's jid.
    await t.session.presence(to, 'composing');
    expect(t.last().sendPresenceUpdate).toHaveBeenCalledWith('composing', CUSTOMER);
  });

  it('checkNumber: exists with number and LID; unknown numbers do not exist', async () => {
    const t = await connected();
    expect(await t.session.checkNumber('(11) 95555-4444')).toEqual({ exists: true, number: '5511955554444', lid: '55544433322211' });
    expect(t.last().onWhatsApp).toHaveBeenCalledWith('5511955554444');
    expect(await t.session.checkNumber('5511900000000')).toEqual({ exists: false });
  });

  it('checkNumbers: one USync query; answers in the order asked, an old Brazilian account found without its ninth digit', async () => {
    const t = await connected();
    // Baileys answers only the accounts that exist, each under WhatsApp's own jid.
    t.last().onWhatsApp.mockImplementationOnce(async () => [
      { jid: '551155554444@s.whatsapp.net', exists: true },
      { jid: '5511933332222@s.whatsapp.net', exists: true },
    ]);
    expect(await t.session.checkNumbers(['(11) 95555-4444', '5511900000000', '5511933332222'])).toEqual([
      { number: '5511955554444', exists: true },
      { number: '5511900000000', exists: false },
      { number: '5511933332222', exists: true },
    ]);
    expect(t.last().onWhatsApp).toHaveBeenCalledTimes(1);
    expect(t.last().onWhatsApp).toHaveBeenCalledWith('5511955554444', '5511900000000', '5511933332222');
  });
});

/** A mono 16-bit PCM WAV of a 440 Hz tone, built here so the test needs no fixture. */
function wav(seconds: number, rate = 16_000): Buffer {
  const samples = Math.round(seconds * rate);
  const buf = Buffer.alloc(44 + samples * 2);
  buf.write('RIFF', 0);
  buf.writeUInt32LE(36 + samples * 2, 4);
  buf.write('WAVE', 8);
  buf.write('fmt ', 12);
  buf.writeUInt32LE(16, 16);
  buf.writeUInt16LE(1, 20);
  buf.writeUInt16LE(1, 22);
  buf.writeUInt32LE(rate, 24);
  buf.writeUInt32LE(rate * 2, 28);
  buf.writeUInt16LE(2, 32);
  buf.writeUInt16LE(16, 34);
  buf.write('data', 36);
  buf.writeUInt32LE(samples * 2, 40);
  for (let i = 0; i < samples; i++) buf.writeInt16LE(Math.round(Math.sin((2 * Math.PI * 440 * i) / rate) * 12_000), 44 + i * 2);
  return buf;
}
