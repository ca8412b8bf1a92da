import { describe, expect, it } from 'vitest';
import { RATING_REQUEST } from '@balcao/shared';
import { connected, sandbox, ticketOf, until } from './pipeline-helpers.js';

describe('ticket lifecycle through the sandbox phone', () => {
  it('opening the ticket sends read receipts; the accept greeting and the rating request reach the phone', async () => {
    const t = await connected();
    expect((await t.admin.put('/settings/sendGreetingAccepted', { value: 'enabled' })).status).toBe(200);
    expect((await t.admin.put('/settings/userRating', { value: 'enabled' })).status).toBe(200);
    expect((await t.admin.put(`/users/${t.adminUser.id}`, { sendGreetingAccepted: true })).status).toBe(200);
    const customer = '5511976549001';
    const sent = await sandbox<{ id: string }>('POST', `/connections/${t.connectionId}/messages`, { from: customer, name: 'Rita Melo', body: 'Oi, preciso de ajuda' });
    expect(sent.status).toBeLessThan(300);
    const ticket = await ticketOf(t, customer);
    const phone = async () => (await sandbox<any[]>('GET', `/connections/${t.connectionId}/messages?peer=${customer}`)).body;

    const read = await t.admin.put(`/tickets/${ticket.id}`, { unreadMessages: 0 });
    expect(read.body.unreadMessages).toBe(0);
    await until(async () => (await phone()).find((m) => m.id === sent.body.id && m.ack === 4), 'the read receipt on the phone');

    const accepted = await t.admin.put(`/tickets/${ticket.id}`, { status: 'open' });
    expect(accepted.body).toMatchObject({ status: 'open', userId: t.adminUser.id });
    await until(async () => (await phone()).find((m) => m.fromMe && /Rita Melo, meu nome é .+ e vou prosseguir com seu atendimento!$/.test(m.body)), 'the greeting on the phone');

    const closed = await t.admin.put(`/tickets/${ticket.id}`, { status: 'closed' });
    expect(closed.body.status).toBe('closed');
    await until(async () => (await phone()).find((m) => m.fromMe && m.body === RATING_REQUEST), 'the rating request on the phone');
    t.ws.close();
  });
});
