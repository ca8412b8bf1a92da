import { describe, expect, it } from 'vitest';
import { RATING_REQUEST } from '@balcao/shared';
import { connected, sandbox, ticketOf, until } from './pipeline-helpers.js';

describe('rating answers from the customer', () => {
  it('records a reply 1-3 on the closed ticket without reopening it; another reply reopens by the normal rule', async () => {
    const t = await connected();
    expect((await t.admin.put('/settings/userRating', { value: 'enabled' })).status).toBe(200);
    const phone = async (customer: string) => (await sandbox<any[]>('GET', `/connections/${t.connectionId}/messages?peer=${customer}`)).body;

    const rated = '5511976549101';
    await sandbox('POST', `/connections/${t.connectionId}/messages`, { from: rated, body: 'Oi' });
    const ticket = await ticketOf(t, rated);
    expect((await t.admin.put(`/tickets/${ticket.id}`, { status: 'open' })).status).toBe(200);
    expect((await t.admin.put(`/tickets/${ticket.id}`, { status: 'closed' })).body.status).toBe('closed');
    await until(async () => (await phone(rated)).find((m) => m.fromMe && m.body === RATING_REQUEST), 'the rating request');
    await sandbox('POST', `/connections/${t.connectionId}/messages`, { from: rated, body: '2' });
    const stored = await until(async () => {
      const res = await t.admin.get(`/tickets/${ticket.id}`);
      return res.body.rating === 2 ? res.body : undefined;
    }, 'the rating on the ticket');
    expect(stored).toMatchObject({ status: 'closed', rating: 2, userId: t.adminUser.id });
    expect(stored.ratingAt).toBeTruthy();

    const other = '5511976549102';
    await sandbox('POST', `/connections/${t.connectionId}/messages`, { from: other, body: 'Olá' });
    const second = await ticketOf(t, other);
    await t.admin.put(`/tickets/${second.id}`, { status: 'open' });
    await t.admin.put(`/tickets/${second.id}`, { status: 'closed' });
    await until(async () => (await phone(other)).find((m) => m.fromMe && m.body === RATING_REQUEST), 'the second rating request');
    await sandbox('POST', `/connections/${t.connectionId}/messages`, { from: other, body: 'Ainda tenho uma dúvida' });
    const reopened = await until(async () => {
      const res = await t.admin.get(`/tickets/${second.id}`);
      return res.body.status === 'pending' ? res.body : undefined;
    }, 'the ticket reopened as pending');
    expect(reopened.rating ?? null).toBeNull();
    t.ws.close();
  });
});
