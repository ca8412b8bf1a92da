import { afterAll, describe, expect, it } from 'vitest';
import { expectCountersMatchTickets, watchCounters } from './tickets-helpers.js';
import { EDIT_WINDOW_EXPIRED } from '@balcao/shared';
import { member, socket } from './client.js';
import { PNG, conversation, messagesOf, sandboxBytes, setMessageFields, upload } from './messages-helpers.js';
import { sandbox, ticketOf, until } from './pipeline-helpers.js';

describe('edit, delete and reactions', () => {
  it('edits within 15 minutes only, on WhatsApp too', async () => {
    const t = await conversation('5511976542001');
    const sent = await t.admin.post(`/messages/${t.ticketId}`, { body: 'Preço: R$ 10' });
    expect(sent.status).toBe(201);
    await t.onPhone((m) => m.id === sent.body.id, 'the message on the phone');

    const mark = t.ws.mark();
    const edited = await t.admin.post(`/messages/${t.ticketId}`, { body: 'Preço: R$ 12', editMsg: { id: sent.body.id } });
    expect(edited.status, JSON.stringify(edited.body)).toBe(200);
    expect(edited.body).toMatchObject({ id: sent.body.id, body: 'Preço: R$ 12', isEdited: true });
    const update = await t.ws.waitFor(`company-${t.companyId}-appMessage`, (d) => d.action === 'update' && d.message.id === sent.body.id && d.message.isEdited, 20_000, mark);
    expect(update.data.message).toMatchObject({ body: 'Preço: R$ 12', isEdited: true });
    await t.onPhone((m) => m.id === sent.body.id && m.edited && m.body === 'Preço: R$ 12', 'the edit on the phone');
    // It was the last message: the ticket lists show the new text.
    expect((await t.admin.get(`/tickets/${t.ticketId}`)).body.lastMessage).toBe('Preço: R$ 12');
    // The edit is a change of that message, not a new one.
    const list = await messagesOf(t.admin, t.ticketId);
    expect(list.filter((m) => m.id === sent.body.id)).toHaveLength(1);

    expect((await t.admin.post(`/messages/${t.ticketId}`, { body: ' ', editMsg: { id: sent.body.id } })).body.fields[0].field).toBe('body');
    // Sixteen minutes later the window is over.
    await setMessageFields(t.companyId, sent.body.id, { createdAt: new Date(Date.now() - 16 * 60_000).toISOString() });
    const late = await t.admin.post(`/messages/${t.ticketId}`, { body: 'Preço: R$ 15', editMsg: { id: sent.body.id } });
    expect(late.status).toBe(400);
    expect(late.body.fields[0]).toEqual({ field: 'editMsg', message: EDIT_WINDOW_EXPIRED });
    // Fourteen minutes is still inside it.
    await setMessageFields(t.companyId, sent.body.id, { createdAt: new Date(Date.now() - 14 * 60_000).toISOString() });
    expect((await t.admin.post(`/messages/${t.ticketId}`, { body: 'Preço: R$ 11', editMsg: { id: sent.body.id } })).status).toBe(200);
    // The customer's messages and other people's are not ours to edit.
    expect((await t.admin.post(`/messages/${t.ticketId}`, { body: 'x', editMsg: { id: t.customerMessageId } })).status).toBe(403);
    t.ws.close();
  });

  it('deletes for everyone: own messages, any of ours for admins; idempotent', async () => {
    const t = await conversation('5511976542002');
    const agent = await member(t.admin, { name: 'Agente Dois', profile: 'Nível 3' });
    const mine = await agent.api.post(`/messages/${t.ticketId}`, { body: 'Mensagem do agente' });
    expect(mine.status).toBe(201);
    const admins = await t.admin.post(`/messages/${t.ticketId}`, { body: 'Mensagem do admin' });
    await t.onPhone((m) => m.id === admins.body.id, 'both messages on the phone');

    // Not one's own: refused for an agent; the customer's message can never be deleted for everyone.
    expect((await agent.api.del(`/messages/${admins.body.id}`)).status).toBe(403);
    expect((await t.admin.del(`/messages/${t.customerMessageId}`)).status).toBe(403);
    // An agent edits only their own text.
    expect((await agent.api.post(`/messages/${t.ticketId}`, { body: 'x', editMsg: { id: admins.body.id } })).status).toBe(403);

    const deleted = await agent.api.del(`/messages/${mine.body.id}`);
    expect(deleted.status).toBe(200);
    expect(deleted.body).toMatchObject({ id: mine.body.id, isDeleted: true, body: '' });
    await t.onPhone((m) => m.id === mine.body.id && m.deleted, 'the delete on the phone');
    // Not the last message: the list preview stays.
    expect((await t.admin.get(`/tickets/${t.ticketId}`)).body.lastMessage).toBe('Mensagem do admin');
    const again = await agent.api.del(`/messages/${mine.body.id}`);
    expect(again.status).toBe(200);
    expect(again.body.isDeleted).toBe(true);
    // Admins may delete any message we sent in a ticket they see.
    expect((await t.admin.del(`/messages/${mine.body.id}`)).status).toBe(200);
    const byAdmin = await t.admin.del(`/messages/${admins.body.id}`);
    expect(byAdmin.body.isDeleted).toBe(true);
    expect((await t.admin.get(`/tickets/${t.ticketId}`)).body.lastMessage).toBe('🚫 Mensagem apagada');
    const listed = (await messagesOf(t.admin, t.ticketId)).find((m) => m.id === mine.body.id);
    expect(listed).toMatchObject({ isDeleted: true, body: '' });
    // A deleted message cannot be edited any more.
    expect((await agent.api.post(`/messages/${t.ticketId}`, { body: 'y', editMsg: { id: mine.body.id } })).status).toBe(400);
    t.ws.close();
  });

  it('reactions both ways, one per sender; the customer edits and deletes show the same way', async () => {
    const t = await conversation('5511976542003');
    const target = t.customerMessageId;
    const react = (emoji: string) => t.admin.post(`/messages/${target}/reactions`, { emoji });

    const r1 = await react('👍');
    expect(r1.status).toBe(200);
    expect(r1.body.reactions).toEqual([{ emoji: '👍', fromMe: true }]);
    await t.onPhone((m) => m.id === target && m.reactions.some((r: any) => r.fromMe && r.emoji === '👍'), 'our reaction on the phone');
    const r2 = await react('❤️');
    expect(r2.body.reactions).toEqual([{ emoji: '❤️', fromMe: true }]);
    await t.onPhone((m) => m.id === target && m.reactions.length === 1 && m.reactions[0].emoji === '❤️', 'the changed reaction on the phone');

    // The customer reacts to our message.
    const ours = await t.admin.post(`/messages/${t.ticketId}`, { body: 'Pode confirmar?' });
    await t.onPhone((m) => m.id === ours.body.id, 'our message on the phone');
    const mark = t.ws.mark();
    expect((await sandbox('POST', `/connections/${t.connectionId}/events`, { type: 'reaction', from: t.customer, targetId: ours.body.id, emoji: '🙏' })).status).toBeLessThan(300);
    const ev = await t.ws.waitFor(`company-${t.companyId}-appMessage`, (d) => d.action === 'update' && d.message.id === ours.body.id && d.message.reactions.length, 20_000, mark);
    expect(ev.data.message.reactions).toEqual([{ emoji: '🙏', fromMe: false, sender: t.customer }]);
    // We react to the same message: both reactions are kept.
    const both = await t.admin.post(`/messages/${ours.body.id}/reactions`, { emoji: '✅' });
    expect(both.body.reactions).toEqual(expect.arrayContaining([{ emoji: '🙏', fromMe: false, sender: t.customer }, { emoji: '✅', fromMe: true }]));
    expect(both.body.reactions).toHaveLength(2);

    // Removing ours leaves theirs.
    const removed = await t.admin.post(`/messages/${ours.body.id}/reactions`, { emoji: '' });
    expect(removed.body.reactions).toEqual([{ emoji: '🙏', fromMe: false, sender: t.customer }]);
    await t.onPhone((m) => m.id === ours.body.id && !m.reactions.some((r: any) => r.fromMe), 'our reaction removed on the phone');

    // The customer edits, then deletes, their own message.
    expect((await sandbox('POST', `/connections/${t.connectionId}/events`, { type: 'edit', from: t.customer, targetId: target, body: 'Olá, boa tarde' })).status).toBeLessThan(300);
    await until(async () => (await messagesOf(t.admin, t.ticketId)).find((m) => m.id === target && m.isEdited && m.body === 'Olá, boa tarde'), 'the customer edit');
    expect((await sandbox('POST', `/connections/${t.connectionId}/events`, { type: 'delete', from: t.customer, targetId: target })).status).toBeLessThan(300);
    await until(async () => (await messagesOf(t.admin, t.ticketId)).find((m) => m.id === target && m.isDeleted && m.body === ''), 'the customer delete');
    // A deleted message takes no reaction.
    expect((await react('👍')).status).toBe(400);
    t.ws.close();
  });
});

describe('forward', () => {
  it("copies text and media to another contact's new ticket, open and assigned to the forwarder", async () => {
    const t = await conversation('5511976543001');
    watchCounters(t.companyId);
    const text = await t.admin.post(`/messages/${t.ticketId}`, { body: 'Nosso endereço: Rua A, 10' });
    const key = await upload(t.admin, t.ticketId, 'mapa.png', 'image/png', PNG);
    const image = await t.admin.post(`/messages/${t.ticketId}`, { medias: [{ key, name: 'mapa.png', caption: 'Mapa' }] });
    expect(image.status).toBe(201);

    // A second customer, whose conversation is then closed by the agent long ago (no reopen).
    const other = '5511976543002';
    await sandbox('POST', `/connections/${t.connectionId}/messages`, { from: other, name: 'Bia Lima', body: 'Oi' });
    const otherTicket = await ticketOf(t, other);
    expect((await t.admin.put(`/tickets/${otherTicket.id}`, { status: 'closed', isJustFinish: true })).status).toBe(200);
    const contactId = (await t.admin.get(`/tickets/${otherTicket.id}`)).body.contactId;

    const fwd = await t.admin.post('/forward', { contactId, messageIds: [text.body.id, image.body.id] });
    expect(fwd.status, JSON.stringify(fwd.body)).toBe(201);
    expect(fwd.body.messages).toHaveLength(2);
    // Closed minutes ago: the same conversation is reopened, now open with the forwarder.
    expect(fwd.body.ticketId).toBe(otherTicket.id);
    const reopened = await t.admin.get(`/tickets/${otherTicket.id}`);
    expect(reopened.body).toMatchObject({ status: 'open', userId: t.adminUser.id });
    expect(fwd.body.messages[0]).toMatchObject({ body: 'Nosso endereço: Rua A, 10', fromMe: true, ticketId: otherTicket.id });
    expect(fwd.body.messages[1]).toMatchObject({ body: 'Mapa', mediaType: 'image' });
    const phoneB = async () => (await sandbox<any[]>('GET', `/connections/${t.connectionId}/messages?peer=${other}`)).body;
    const img = await until(async () => (await phoneB()).find((m) => m.id === fwd.body.messages[1].id && m.mediaUrl), 'the forwarded image on the other phone');
    expect((await sandboxBytes(img.mediaUrl)).equals(PNG)).toBe(true);
    await until(async () => (await phoneB()).find((m) => m.body === 'Nosso endereço: Rua A, 10'), 'the forwarded text on the other phone');

    // A contact with no conversation yet gets a new ticket, open, assigned to the forwarder.
    const { applyStackEnv } = await import('./client.js');
    applyStackEnv();
    const { findOrCreateContact } = await import('../../src/services/contacts.js');
    const fresh = await findOrCreateContact(t.companyId, { number: '5511976543003' }, { pushName: 'Caio Reis' });
    const fwd2 = await t.admin.post('/forward', { contactId: fresh.id, messageId: text.body.id });
    expect(fwd2.status).toBe(201);
    expect(fwd2.body.ticketId).not.toBe(t.ticketId);
    expect((await t.admin.get(`/tickets/${fwd2.body.ticketId}`)).body).toMatchObject({ status: 'open', userId: t.adminUser.id, contactId: fresh.id });
    await until(async () => (await sandbox<any[]>('GET', `/connections/${t.connectionId}/messages?peer=5511976543003`)).body.find((m) => m.body === 'Nosso endereço: Rua A, 10'), 'the forward to a new conversation');

    expect((await t.admin.post('/forward', { contactId: 999999, messageId: text.body.id })).status).toBe(404);
    expect((await t.admin.post('/forward', { contactId })).body.fields[0].field).toBe('messageId');
    t.ws.close();
  });
});

describe('visibility', () => {
  it("a Nível 1 agent cannot act on others' tickets (404), nor upload to them", async () => {
    const t = await conversation('5511976544001');
    const n1 = await member(t.admin, { name: 'Nivel Um', profile: 'Nível 1' });
    const ws = await socket(n1.token);
    // Joining the room is allowed (membership alone shows nothing): every event is still filtered.
    await ws.join(t.ticketId);
    const sent = await t.admin.post(`/messages/${t.ticketId}`, { body: 'Só do admin' });
    expect(sent.status).toBe(201);
    expect((await n1.api.post(`/messages/${t.ticketId}/media-upload`, { fileName: 'a.png', contentType: 'image/png', size: 10 })).status).toBe(404);
    expect((await n1.api.post(`/messages/${t.ticketId}`, { body: 'oi' })).status).toBe(404);
    expect((await n1.api.del(`/messages/${sent.body.id}`)).status).toBe(404);
    expect((await n1.api.post(`/messages/${sent.body.id}/reactions`, { emoji: '👍' })).status).toBe(404);
    const contactId = (await t.admin.get(`/tickets/${t.ticketId}`)).body.contactId;
    expect((await n1.api.post('/forward', { contactId, messageId: sent.body.id })).status).toBe(404);
    // Nor does anything of the ticket reach the Nível 1 console: not its messages, not their changes.
    await t.admin.post(`/messages/${sent.body.id}/reactions`, { emoji: '👍' });
    await t.ws.waitFor(`company-${t.companyId}-appMessage`, (d) => d.message.id === sent.body.id && d.message.reactions.length);
    await new Promise((r) => setTimeout(r, 1000));
    expect(ws.frames.filter((f) => f.event.endsWith('-appMessage') || (f.event.endsWith('-ticket') && f.data.ticket?.id === t.ticketId))).toHaveLength(0);
    ws.close();
    t.ws.close();
  });
});

// Every write path these tests went through kept the tab-badge counters exact.
afterAll(expectCountersMatchTickets, 60_000);

describe('variables in what agents send (server-behaviour §3, issue 14 §6)', () => {
  it('a quick reply, typed text or a caption with {{name}}, {{firstName}}, {{ms}}, {{agent}}, {{queue}} reaches the customer filled', async () => {
    const t = await conversation('5511976542090', 'Maria Clara Souza');
    const queue = await t.admin.post('/queue', { name: 'Vendas', color: '#0E7490' });
    expect(queue.status, JSON.stringify(queue.body)).toBe(201);
    expect((await t.admin.put(`/tickets/${t.ticketId}`, { queueId: queue.body.id, userId: t.adminUser.id, status: 'open' })).status).toBe(200);
    const reply = await t.admin.post('/quick-messages', { shortcode: 'saudacao', message: '{{ms}} {{firstName}}! Sou {{agent}}, de {{queue}}. Pedido de {{ name }}. {{desconhecida}}' });
    expect(reply.status, JSON.stringify(reply.body)).toBe(201);

    // What the composer sends when the agent picks the quick reply without filling it (an API client, an old console).
    const sent = await t.admin.post(`/messages/${t.ticketId}`, { body: reply.body.message });
    expect(sent.status, JSON.stringify(sent.body)).toBe(201);
    const filled = new RegExp(`^(Bom dia|Boa tarde|Boa noite|Boa madrugada) Maria! Sou ${t.adminUser.name}, de Vendas\\. Pedido de Maria Clara Souza\\. \\{\\{desconhecida\\}\\}$`);
    expect(sent.body.body).toMatch(filled);
    await t.onPhone((m) => m.id === sent.body.id && filled.test(m.body), 'the filled text on the phone');
    expect((await messagesOf(t.admin, t.ticketId)).find((m) => m.id === sent.body.id)?.body).toMatch(filled);

    // A file's caption too (a quick reply with an attachment sends its text as the caption).
    const form = new FormData();
    form.append('medias', new Blob([new Uint8Array(PNG)], { type: 'image/png' }), 'comprovante.png');
    form.append('body', '{{firstName}}, segue o comprovante');
    const withFile = await t.admin.form('POST', `/messages/${t.ticketId}`, form);
    expect(withFile.status, JSON.stringify(withFile.body)).toBe(201);
    await t.onPhone((m) => m.mediaType === 'image' && m.body === 'Maria, segue o comprovante', 'the filled caption on the phone');

    // An edit is filled the same way.
    const edited = await t.admin.post(`/messages/${t.ticketId}`, { body: 'Obrigado, {{firstName}}!', editMsg: { id: sent.body.id } });
    expect(edited.body.body).toBe('Obrigado, Maria!');
    await t.onPhone((m) => m.id === sent.body.id && m.body === 'Obrigado, Maria!', 'the filled edit on the phone');
    t.ws.close();
  });
});
