import { describe, expect, it } from 'vitest';
import { DEFAULT_TIME_ZONE, zonedDayKey } from '@balcao/shared';
import { member, tenant } from './client.js';
import { connected, sandbox, ticketOf, until } from './pipeline-helpers.js';

/*
 * The dashboard through the API on the real stack (issue 22 §1): customers write from the sandbox,
 * an agent accepts and closes, and the cards and charts move with those writes; admins only; a call
 * without a filter is refused with the spec's text. The exact numbers of a scripted history are
 * proved on in-memory ports (functions/test/unit/dashboard.test.ts).
 */

let n = 0;
const customerNumber = () => `5541${String(Date.now() % 1e5).padStart(5, '0')}${String(++n).padStart(4, '0')}`;

describe('dashboard routes', () => {
  it('counts what the tickets do: waiting, in service, closed per agent, queue and connection, new contacts', async () => {
    const t = await connected();
    const today = zonedDayKey(Date.now(), DEFAULT_TIME_ZONE);
    const before = (await t.admin.get(`/dashboard?days=7`)).body;
    expect(before.counters).toMatchObject({ supportHappening: 0, supportPending: 0, supportFinished: 0, opened: 0, newContacts: 0 });

    const numbers = [customerNumber(), customerNumber()];
    for (const [i, number] of numbers.entries()) {
      expect((await sandbox('POST', `/connections/${t.connectionId}/messages`, { from: number, name: `Cliente Painel ${i}`, body: 'Olá, quero um orçamento' })).status).toBeLessThan(300);
    }
    const [first, second] = [await ticketOf(t, numbers[0]), await ticketOf(t, numbers[1])];
    const pending = await until(async () => {
      const d = (await t.admin.get(`/dashboard?days=7`)).body;
      return d.counters.supportPending === 2 ? d : undefined;
    }, 'two tickets waiting');
    expect(pending.counters).toMatchObject({ opened: 2, newContacts: 2, supportHappening: 0 });

    expect((await t.admin.put(`/tickets/${first.id}`, { status: 'open', userId: t.adminUser.id })).status).toBe(200);
    expect((await t.admin.put(`/tickets/${second.id}`, { status: 'open', userId: t.adminUser.id })).status).toBe(200);
    expect((await t.admin.put(`/tickets/${first.id}`, { status: 'closed' })).status).toBe(200);
    const after = (await t.admin.get(`/dashboard?date_from=${today}&date_to=${today}`)).body;
    expect(after.counters).toMatchObject({ supportPending: 0, supportHappening: 1, supportFinished: 1, opened: 2, newContacts: 2 });
    expect(after.counters.avgWaitTime).toBeGreaterThanOrEqual(0);
    expect(after.counters.avgSupportTime).toBeGreaterThanOrEqual(0);
    expect(after.attendants.find((a: { id: number }) => a.id === t.adminUser.id)).toMatchObject({ tickets: 1, online: expect.any(Boolean) });
    expect(after.byConnection).toEqual([expect.objectContaining({ id: t.connectionId, finished: 1 })]);

    const users = (await t.admin.get(`/dashboard/ticketsUsers?initialDate=${today}&finalDate=${today}`)).body;
    expect(users).toEqual({ data: [{ nome: expect.any(String), quantidade: 1 }], count: 1 });
    const hours = (await t.admin.get(`/dashboard/ticketsDay?initialDate=${today}&finalDate=${today}`)).body;
    expect(hours.count).toBe(2);
    expect(hours.data).toHaveLength(24);
    t.ws.close();
  });

  it('is for admins; needs a filter; another company sees only its own numbers', async () => {
    const t = await tenant();
    const agent = await member(t.admin, { name: 'Agente Painel', profile: 'Nível 1' });
    expect((await agent.api.get(`/dashboard?days=7`)).status).toBe(403);
    expect((await agent.api.get('/dashboard/ticketsUsers')).status).toBe(403);
    expect((await agent.api.get('/dashboard/ticketsDay')).status).toBe(403);
    const none = await t.admin.get('/dashboard');
    expect(none.status).toBe(400);
    expect(none.body).toMatchObject({ error: 'ERR_VALIDATION', field: 'days', message: 'Parametrize o filtro' });
    expect((await t.admin.get(`/dashboard?date_from=2026-13-01`)).body).toMatchObject({ field: 'date_from', message: 'Data inválida' });
    const empty = (await t.admin.get(`/dashboard?days=90`)).body;
    expect(empty.counters).toMatchObject({ supportFinished: 0, opened: 0, newContacts: 0, supportPending: 0, avgSupportTime: null });
  });
});
