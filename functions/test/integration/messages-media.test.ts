import { describe, expect, it } from 'vitest';
import { FILE_CONTENT_MISMATCH, FILE_NOT_FOUND, FILE_TYPE_NOT_ALLOWED } from '@balcao/shared';
import { tenant } from './client.js';
import { PDF, PNG, conversation, messagesOf, sandboxBytes, upload, wav } from './messages-helpers.js';

const fieldOf = (body: any) => body.fields?.[0]?.field;

describe('sending media, voice notes and contact cards', () => {
  it('an image, a document and a voice note uploaded with presigned PUTs reach the phone', async () => {
    const t = await conversation('5511976541001');
    const messageEvent = (pred: (m: any) => boolean) => t.ws.waitFor(`company-${t.companyId}-appMessage`, (d) => d.action === 'create' && pred(d.message));

    const imageKey = await upload(t.admin, t.ticketId, 'foto da loja.png', 'image/png', PNG);
    expect(imageKey).toMatch(new RegExp(`^tmp/uploads/${t.companyId}/[0-9a-f-]{36}/foto_da_loja\\.png$`));
    const pdfKey = await upload(t.admin, t.ticketId, 'orçamento.pdf', 'application/pdf', PDF);
    const sent = await t.admin.post(`/messages/${t.ticketId}`, {
      body: 'Segue a foto',
      medias: [
        { key: imageKey, name: 'foto da loja.png' },
        { key: pdfKey, name: 'orçamento.pdf', caption: 'E o orçamento' },
      ],
    });
    expect(sent.status, JSON.stringify(sent.body)).toBe(201);
    expect(sent.body.messages).toHaveLength(2);
    const [image, doc] = sent.body.messages;
    expect(image).toMatchObject({ fromMe: true, body: 'Segue a foto', mediaType: 'image', mediaName: 'foto da loja.png', mimetype: 'image/png', userId: t.adminUser.id });
    expect(image.user).toMatchObject({ id: t.adminUser.id });
    expect(doc).toMatchObject({ body: 'E o orçamento', mediaType: 'document', mediaName: 'orçamento.pdf', mimetype: 'application/pdf' });
    // The API hands out a short-lived URL to the moved object: the same bytes as uploaded.
    const fromApi = await fetch(image.mediaUrl);
    expect(Buffer.from(await fromApi.arrayBuffer()).equals(PNG)).toBe(true);
    await messageEvent((m) => m.id === doc.id);

    const onPhoneImage = await t.onPhone((m) => m.id === image.id && m.mediaUrl, 'the image on the phone');
    expect(onPhoneImage).toMatchObject({ fromMe: true, body: 'Segue a foto', mediaType: 'image', mimetype: 'image/png' });
    expect((await sandboxBytes(onPhoneImage.mediaUrl)).equals(PNG)).toBe(true);
    const onPhoneDoc = await t.onPhone((m) => m.id === doc.id, 'the document on the phone');
    expect(onPhoneDoc).toMatchObject({ mediaType: 'document', fileName: 'orçamento.pdf', body: 'E o orçamento' });
    expect((await sandboxBytes(onPhoneDoc.mediaUrl)).equals(PDF)).toBe(true);

    // Inert types are served as they are; a type a browser would run (XML here; HTML, SVG) is
    // served as a download, while the message keeps its type (issue 16 §3).
    expect((await fetch(doc.mediaUrl)).headers.get('content-type')).toBe('application/pdf');
    const xmlKey = await upload(t.admin, t.ticketId, 'nota.xml', 'application/xml', Buffer.from('<?xml version="1.0"?><a xmlns:h="http://www.w3.org/1999/xhtml"><h:script>alert(1)</h:script></a>'));
    const xml = await t.admin.post(`/messages/${t.ticketId}`, { medias: [{ key: xmlKey, name: 'nota.xml' }] });
    expect(xml.status, JSON.stringify(xml.body)).toBe(201);
    expect(xml.body).toMatchObject({ mediaType: 'document', mimetype: 'application/xml' });
    expect((await fetch(xml.body.mediaUrl)).headers.get('content-type')).toBe('application/octet-stream');

    // The upload was moved: the same key cannot be sent twice.
    const again = await t.admin.post(`/messages/${t.ticketId}`, { medias: [{ key: imageKey, name: 'foto.png' }] });
    expect(again.status).toBe(400);
    expect(again.body.fields[0]).toEqual({ field: 'medias.0.key', message: FILE_NOT_FOUND });

    // A voice note: the session host turns it into ogg/opus, played as ptt on the phone.
    const audio = wav();
    const audioKey = await upload(t.admin, t.ticketId, 'gravacao.wav', 'audio/wav', audio);
    const voice = await t.admin.post(`/messages/${t.ticketId}`, { medias: [{ key: audioKey, name: 'gravacao.wav', ptt: true }] });
    expect(voice.status, JSON.stringify(voice.body)).toBe(201);
    expect(voice.body).toMatchObject({ mediaType: 'audio', ptt: true, body: '' });
    const onPhoneVoice = await t.onPhone((m) => m.id === voice.body.id, 'the voice note on the phone');
    expect(onPhoneVoice).toMatchObject({ mediaType: 'audio', ptt: true, mimetype: 'audio/ogg; codecs=opus' });
    expect((await sandboxBytes(onPhoneVoice.mediaUrl)).subarray(0, 4).toString('latin1')).toBe('OggS');
    // Lists show a placeholder for media without a caption (server-behaviour §7).
    const ticket = await t.admin.get(`/tickets/${t.ticketId}`);
    expect(ticket.body.lastMessage).toBe('🎵 Áudio');
    t.ws.close();
  });

  it('a contact card, and small files in a multipart body', async () => {
    const t = await conversation('5511976541002');
    const card = await t.admin.post(`/messages/${t.ticketId}`, { contacts: [{ name: 'Ana Souza', number: '11 98765-0000' }] });
    expect(card.status, JSON.stringify(card.body)).toBe(201);
    expect(card.body).toMatchObject({ mediaType: 'contactMessage', fromMe: true });
    expect(card.body.body).toContain('FN:Ana Souza');
    expect(card.body.body).toContain('waid=5511987650000');
    const onPhone = await t.onPhone((m) => m.id === card.body.id, 'the contact card on the phone');
    expect(onPhone.vcard).toContain('BEGIN:VCARD');
    expect(onPhone.vcard).toContain('FN:Ana Souza');
    expect((await t.admin.get(`/tickets/${t.ticketId}`)).body.lastMessage).toBe('👤 Ana Souza');

    const form = new FormData();
    form.append('body', 'Pelo formulário');
    form.append('fromMe', 'true');
    form.append('medias', new Blob([new Uint8Array(PNG)], { type: 'image/png' }), 'pequena.png');
    const multi = await t.admin.form('POST', `/messages/${t.ticketId}`, form);
    expect(multi.status, JSON.stringify(multi.body)).toBe(201);
    expect(multi.body).toMatchObject({ mediaType: 'image', body: 'Pelo formulário', mediaName: 'pequena.png' });
    const img = await t.onPhone((m) => m.id === multi.body.id, 'the multipart image on the phone');
    expect((await sandboxBytes(img.mediaUrl)).equals(PNG)).toBe(true);

    // Multipart files are checked like uploads: bytes that are not a PNG are refused.
    const fake = new FormData();
    fake.append('medias', new Blob([new Uint8Array(PDF)], { type: 'image/png' }), 'falsa.png');
    const refused = await t.admin.form('POST', `/messages/${t.ticketId}`, fake);
    expect(refused.status).toBe(400);
    expect(refused.body.fields[0]).toEqual({ field: 'medias.0', message: FILE_CONTENT_MISMATCH });
    t.ws.close();
  });

  it('refuses wrong types, sizes and keys with the field, and changes nothing', async () => {
    const t = await conversation('5511976541003');
    const before = await messagesOf(t.admin, t.ticketId);
    const ask = (b: Record<string, unknown>) => t.admin.post(`/messages/${t.ticketId}/media-upload`, b);

    const html = await ask({ fileName: 'x.html', contentType: 'text/html', size: 10 });
    expect(html.status).toBe(400);
    expect(html.body.fields[0]).toEqual({ field: 'contentType', message: FILE_TYPE_NOT_ALLOWED });
    const big = await ask({ fileName: 'x.png', contentType: 'image/png', size: 6 * 1024 * 1024 });
    expect(big.status).toBe(400);
    expect(fieldOf(big.body)).toBe('size');
    expect(big.body.fields[0].message).toContain('5 MB');
    const bigVideo = await ask({ fileName: 'x.mp4', contentType: 'video/mp4', size: 17 * 1024 * 1024 });
    expect(fieldOf(bigVideo.body)).toBe('size');
    expect((await ask({ fileName: 'x.mp4', contentType: 'video/mp4', size: 15 * 1024 * 1024 })).status).toBe(201);
    expect((await ask({ fileName: 'big.zip', contentType: 'application/zip', size: 99 * 1024 * 1024 })).status).toBe(201);
    expect(fieldOf((await ask({ contentType: 'image/png', size: 10 })).body)).toBe('fileName');

    // Declared a PDF, but the bytes are a PNG.
    const liar = await upload(t.admin, t.ticketId, 'contrato.pdf', 'application/pdf', PNG);
    const r1 = await t.admin.post(`/messages/${t.ticketId}`, { medias: [{ key: liar, name: 'contrato.pdf' }] });
    expect(r1.status).toBe(400);
    expect(r1.body.fields[0]).toEqual({ field: 'medias.0.key', message: FILE_CONTENT_MISMATCH });
    // A voice note must be audio.
    const png = await upload(t.admin, t.ticketId, 'a.png', 'image/png', PNG);
    const r2 = await t.admin.post(`/messages/${t.ticketId}`, { medias: [{ key: png, name: 'a.png', ptt: true }] });
    expect(r2.body.fields[0].field).toBe('medias.0.ptt');
    // Keys outside the company's uploads, and uploads never made.
    for (const key of [`c/${t.companyId}/media/1/x.png`, `tmp/uploads/${t.companyId + 1}/00000000-0000-0000-0000-000000000000/a.png`, `tmp/uploads/${t.companyId}/00000000-0000-0000-0000-000000000000/a.png`]) {
      const r = await t.admin.post(`/messages/${t.ticketId}`, { medias: [{ key, name: 'a.png' }] });
      expect(r.status, key).toBe(400);
      expect(r.body.fields[0]).toEqual({ field: 'medias.0.key', message: FILE_NOT_FOUND });
    }
    // One bad file among good ones: nothing is sent, the good upload is still there to use.
    const r3 = await t.admin.post(`/messages/${t.ticketId}`, { medias: [{ key: png, name: 'a.png' }, { key: liar, name: 'contrato.pdf' }] });
    expect(r3.status).toBe(400);
    expect(r3.body.fields[0].field).toBe('medias.1.key');
    expect(await messagesOf(t.admin, t.ticketId)).toHaveLength(before.length);
    expect((await t.admin.post(`/messages/${t.ticketId}`, { medias: [{ key: png, name: 'a.png' }] })).status).toBe(201);
    // Blank text alone is ignored with Required (spec 001 §5).
    const blank = await t.admin.post(`/messages/${t.ticketId}`, { body: '   ' });
    expect(blank.body.fields[0]).toEqual({ field: 'body', message: 'Required' });
    t.ws.close();
  });

  it("another tenant's ticket, upload and message answer 404", async () => {
    const t = await conversation('5511976541004');
    const other = await tenant();
    const key = await upload(t.admin, t.ticketId, 'a.png', 'image/png', PNG);
    const sent = await t.admin.post(`/messages/${t.ticketId}`, { body: 'oi' });
    expect(sent.status).toBe(201);
    expect((await other.admin.post(`/messages/${t.ticketId}/media-upload`, { fileName: 'a.png', contentType: 'image/png', size: 10 })).status).toBe(404);
    expect((await other.admin.post(`/messages/${t.ticketId}`, { medias: [{ key, name: 'a.png' }] })).status).toBe(404);
    expect((await other.admin.del(`/messages/${sent.body.id}`)).status).toBe(404);
    expect((await other.admin.post(`/messages/${sent.body.id}/reactions`, { emoji: '👍' })).status).toBe(404);
    expect((await other.admin.post('/forward', { contactId: sent.body.contactId, messageId: sent.body.id })).status).toBe(404);
    t.ws.close();
  });
});
