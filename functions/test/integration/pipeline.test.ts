import { describe, expect, it } from 'vitest';
import { endpoints } from './client.js';
import { connected, sandbox, ticketOf, until } from './pipeline-helpers.js';

describe('the message pipeline through the sandbox', () => {
  it('connects, receives a customer message live, and the reply reaches the phone with rising acks', async () => {
    const t = await connected();
    expect((await sandbox('POST', `/connections/${t.connectionId}/scan`)).status).toBe(409);
    const customer = '5511976540001';
    const sent = await sandbox<{ id: string }>('POST', `/connections/${t.connectionId}/messages`, { from: customer, name: 'Dona Maria', body: 'Bom dia! Vocês entregam hoje? 🚚' });
    expect(sent.status).toBeLessThan(300);
    // A new ticket's first message reaches the lists as the ticket's update carrying its summary.
    const msg = await t.ws.waitFor(`company-${t.companyId}-ticket`, (d) => d.message?.id === sent.body.id, 20_000);
    expect(msg.data.message).toMatchObject({ body: 'Bom dia! Vocês entregam hoje? 🚚', fromMe: false });
    expect(msg.data.ticket.contact).toMatchObject({ name: 'Dona Maria', number: customer });
    const ticket = await ticketOf(t, customer);
    expect(ticket).toMatchObject({ status: 'pending', unreadMessages: 1 });
    await t.ws.join(ticket.id);

    const reply = await t.admin.post(`/messages/${ticket.id}`, { body: 'Entregamos sim! 😊', quotedMsg: { id: sent.body.id } });
    expect(reply.status).toBe(201);
    const onPhone = await until(async () => {
      const conv = await sandbox<any[]>('GET', `/connections/${t.connectionId}/messages?peer=${customer}`);
      return conv.body.find((m) => m.id === reply.body.id && m.fromMe);
    }, 'the reply on the phone');
    expect(onPhone).toMatchObject({ body: 'Entregamos sim! 😊', quotedId: sent.body.id });
    await t.ws.waitFor(`company-${t.companyId}-appMessage`, (d) => d.message.id === reply.body.id && d.message.ack >= 2, 20_000);
    await sandbox('POST', `/connections/${t.connectionId}/receipts`, { peer: customer, ids: [reply.body.id], status: 'read' });
    await t.ws.waitFor(`company-${t.companyId}-appMessage`, (d) => d.message.id === reply.body.id && d.message.ack === 4, 20_000);
    // Redelivery of the same WhatsApp id changes nothing.
    await sandbox('POST', `/connections/${t.connectionId}/messages`, { from: customer, body: 'Bom dia! Vocês entregam hoje? 🚚', id: sent.body.id });
    await new Promise((r) => setTimeout(r, 1500));
    const page = await t.admin.get(`/messages/${ticket.id}`);
    expect(page.body.messages.filter((m: { id: string }) => m.id === sent.body.id)).toHaveLength(1);
    t.ws.close();
  });

  it('fails a send while the phone is disconnected, and the retry goes through after reconnecting', async () => {
    const t = await connected();
    const customer = '5511976540002';
    await sandbox('POST', `/connections/${t.connectionId}/messages`, { from: customer, body: 'Oi' });
    const ticket = await ticketOf(t, customer);
    await t.ws.join(ticket.id);
    let mark = t.ws.mark();
    await sandbox('POST', `/connections/${t.connectionId}/disconnect`, { reason: 'loggedOut' });
    await t.ws.waitFor(`company-${t.companyId}-whatsappSession`, (d) => d.session.id === t.connectionId && d.session.status === 'DISCONNECTED', 20_000, mark);
    const reply = await t.admin.post(`/messages/${ticket.id}`, { body: 'Vou verificar' });
    await t.ws.waitFor(`company-${t.companyId}-appMessage`, (d) => d.message.id === reply.body.id && d.message.error === 'ERR_SENDING_WAPP_MSG', 20_000);
    // New QR, scan again, then retry.
    mark = t.ws.mark();
    expect((await t.admin.put(`/whatsappsession/${t.connectionId}`)).status).toBe(200);
    await t.ws.waitFor(`company-${t.companyId}-whatsappSession`, (d) => d.session.id === t.connectionId && d.session.status === 'qrcode' && d.session.qrcode, 20_000, mark);
    expect((await sandbox('POST', `/connections/${t.connectionId}/scan`)).status).toBeLessThan(300);
    await t.ws.waitFor(`company-${t.companyId}-whatsappSession`, (d) => d.session.id === t.connectionId && d.session.status === 'CONNECTED', 20_000, mark);
    expect((await t.admin.post(`/messages/retry/${reply.body.id}`)).status).toBe(200);
    await until(async () => {
      const conv = await sandbox<any[]>('GET', `/connections/${t.connectionId}/messages?peer=${customer}`);
      return conv.body.some((m) => m.id === reply.body.id);
    }, 'the retried message on the phone');
    t.ws.close();
  });

  it('shows messages typed on the linked phone as ours', async () => {
    const t = await connected();
    const customer = '5511976540030';
    await sandbox('POST', `/connections/${t.connectionId}/messages`, { from: customer, body: 'Oi, tudo bem?' });
    const ticket = await ticketOf(t, customer);
    await t.ws.join(ticket.id);
    const typed = await sandbox<{ id: string }>('POST', `/connections/${t.connectionId}/phone-messages`, { to: customer, body: 'Respondi pelo celular' });
    expect(typed.status).toBeLessThan(300);
    const frame = await t.ws.waitFor(`company-${t.companyId}-appMessage`, (d) => d.message.body === 'Respondi pelo celular', 20_000);
    expect(frame.data.message).toMatchObject({ fromMe: true, ticketId: ticket.id });
    t.ws.close();
  });

  it('sends through the external API with the connection token', async () => {
    const t = await connected();
    const generated = await t.admin.put(`/whatsapp/${t.connectionId}`, { generateToken: true });
    expect(generated.body.hasToken).toBe(true);
    const token = generated.body.token as string;
    const api = (auth: string, body: unknown) =>
      fetch(`${endpoints().apiUrl}/api/messages/send`, { method: 'POST', headers: { authorization: `Bearer ${auth}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
    const ok = await api(token, { number: '5511976540020', body: 'Seu pedido saiu para entrega.' });
    expect(ok.status).toBe(200);
    expect(await ok.json()).toEqual({ mensagem: 'Mensagem enviada' });
    await until(async () => {
      const conv = await sandbox<any[]>('GET', `/connections/${t.connectionId}/messages?peer=5511976540020`);
      return conv.body.some((m) => m.fromMe && m.body === 'Seu pedido saiu para entrega.');
    }, 'the API message on the phone');
    expect((await api('token-que-nao-existe', { number: '5511976540020', body: 'x' })).status).toBe(401);
    await sandbox('PUT', '/phones/5511976540099', { onWhatsApp: false });
    const notOnWhatsApp = await api(token, { number: '5511976540099', body: 'x' });
    expect(notOnWhatsApp.status).toBe(400);
    expect(((await notOnWhatsApp.json()) as { error: string }).error).toBe('ERR_CHECK_NUMBER');
    t.ws.close();
  });
});
