import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { member, socket } from './client.js';
import { customer, expectCountersMatchTickets, ids, world } from './tickets-helpers.js';

/**
 * Visibility per server-behaviour §14 on lists, single reads and events, one company:
 * A pending q1, B pending q2, C pending without queue (no unread), D open q1 (Nível 1's),
 * E open q2 (admin's), F open without queue (admin's).
 */
describe('ticket visibility (§14)', () => {
  let w: Awaited<ReturnType<typeof world>>;
  let n1: Awaited<ReturnType<typeof member>>;
  let n2: Awaited<ReturnType<typeof member>>;
  let n3: Awaited<ReturnType<typeof member>>;
  let allT: Awaited<ReturnType<typeof member>>;
  const T: Record<string, number> = {};
  const numbers: Record<string, string> = {};

  beforeAll(async () => {
    w = await world();
    n1 = await member(w.admin, { name: 'Nivel Um', profile: 'Nível 1', queueIds: [w.q1] });
    n2 = await member(w.admin, { name: 'Nivel Dois', profile: 'Nível 2', queueIds: [w.q1] });
    n3 = await member(w.admin, { name: 'Nivel Tres', profile: 'Nível 3', queueIds: [] });
    allT = await member(w.admin, { name: 'Todos', profile: 'Nível 1', queueIds: [], allTicket: 'enabled' });
    const a = await customer(w.companyId, w.connectionId);
    await w.admin.put(`/tickets/${a.ticketId}`, { status: 'pending', queueId: w.q1 });
    const b = await customer(w.companyId, w.connectionId);
    await w.admin.put(`/tickets/${b.ticketId}`, { status: 'pending', queueId: w.q2 });
    const c = await customer(w.companyId, w.connectionId, { text: null });
    const d = await customer(w.companyId, w.connectionId, { text: null });
    const e = await customer(w.companyId, w.connectionId, { text: null });
    const f = await customer(w.companyId, w.connectionId, { text: null });
    // The customers' own pending tickets of D, E, F are closed first: the agents open new ones.
    for (const x of [d, e, f]) await w.admin.put(`/tickets/${x.ticketId}`, { status: 'closed', isJustFinish: true });
    const dOpen = await n1.api.post('/tickets', { contactId: d.contactId, queueId: w.q1, status: 'open' });
    expect(dOpen.status).toBe(201);
    const eOpen = await w.admin.post('/tickets', { contactId: e.contactId, queueId: w.q2, status: 'open' });
    const fOpen = await w.admin.post('/tickets', { contactId: f.contactId, status: 'open' });
    expect([eOpen.status, fOpen.status]).toEqual([201, 201]);
    Object.assign(numbers, { A: a.number, B: b.number, C: c.number });
    Object.assign(T, { A: a.ticketId, B: b.ticketId, C: c.ticketId, D: dOpen.body.id, E: eOpen.body.id, F: fOpen.body.id });
  }, 120_000);

  const list = async (api: typeof w.admin, qs: string) => {
    const res = await api.get(`/tickets?${qs}`);
    expect(res.status).toBe(200);
    return ids(res.body.tickets);
  };
  const sorted = (...names: string[]) => names.map((n) => T[n]).sort((a, b) => a - b);

  it('pending lists', async () => {
    expect(await list(w.admin, 'status=pending')).toEqual(sorted('A', 'B', 'C'));
    expect(await list(n3.api, 'status=pending')).toEqual(sorted('A', 'B', 'C'));
    expect(await list(n1.api, 'status=pending')).toEqual(sorted('A'));
    expect(await list(n2.api, 'status=pending')).toEqual(sorted('A'));
    expect(await list(allT.api, 'status=pending')).toEqual(sorted('C'));
  });

  it('open lists: mine by default, everything visible with showAll, assigned=others', async () => {
    expect(await list(w.admin, 'status=open')).toEqual(sorted('E', 'F'));
    expect(await list(n1.api, 'status=open')).toEqual(sorted('D'));
    expect(await list(w.admin, 'status=open&showAll=true')).toEqual(sorted('D', 'E', 'F'));
    expect(await list(n3.api, 'status=open&showAll=true')).toEqual(sorted('D', 'E', 'F'));
    expect(await list(n1.api, 'status=open&showAll=true')).toEqual(sorted('D'));
    expect(await list(n2.api, 'status=open&showAll=true')).toEqual(sorted('D'));
    expect(await list(allT.api, 'status=open&showAll=true')).toEqual([]);
    expect(await list(w.admin, 'status=open&assigned=others')).toEqual(sorted('D'));
    expect(await list(w.admin, `status=open&showAll=true&users=${encodeURIComponent(JSON.stringify([n1.id]))}`)).toEqual(sorted('D'));
    // `users` is an admin filter: an agent's list ignores it.
    expect(await list(n1.api, `status=open&users=[${w.adminUser.id}]`)).toEqual(sorted('D'));
    expect(await list(w.admin, `status=open&showAll=true&queueIds=[${w.q2}]`)).toEqual(sorted('E', 'F'));
  });

  it('search tab status filter, unread filter', async () => {
    expect(await list(w.admin, 'isUseStatusFilter=true&statusFilter=["pending","open"]&showAll=true')).toEqual(sorted('A', 'B', 'C', 'D', 'E', 'F'));
    expect(await list(n2.api, 'isUseStatusFilter=true&statusFilter=["pending","open"]&showAll=true')).toEqual(sorted('A', 'D'));
    expect(await list(w.admin, 'status=pending&withUnreadMessages=true')).toEqual(sorted('A', 'B'));
  });

  it('search follows the same rule', async () => {
    expect(await list(w.admin, `searchParam=${numbers.B}`)).toEqual(sorted('B'));
    expect(await list(n1.api, `searchParam=${numbers.B}`)).toEqual([]);
    expect(await list(n1.api, `searchParam=${numbers.A}`)).toEqual(sorted('A'));
    expect(await list(allT.api, `searchParam=${numbers.C}`)).toEqual(sorted('C'));
    expect(await list(allT.api, `searchParam=${numbers.A}`)).toEqual([]);
  });

  it('single reads', async () => {
    const status = async (api: typeof w.admin, name: string) => (await api.get(`/tickets/${T[name]}`)).status;
    for (const name of ['A', 'B', 'C', 'D', 'E', 'F']) {
      expect(await status(w.admin, name)).toBe(200);
      expect(await status(n3.api, name)).toBe(200);
    }
    expect(await Promise.all(['A', 'B', 'C', 'D', 'E', 'F'].map((x) => status(n1.api, x)))).toEqual([200, 404, 404, 200, 404, 404]);
    expect(await Promise.all(['A', 'B', 'C', 'D', 'E', 'F'].map((x) => status(n2.api, x)))).toEqual([200, 404, 404, 200, 404, 404]);
    expect(await Promise.all(['A', 'B', 'C', 'D', 'E', 'F'].map((x) => status(allT.api, x)))).toEqual([404, 404, 200, 404, 404, 404]);
    // Nor may they change what they cannot see.
    expect((await n1.api.put(`/tickets/${T.B}`, { status: 'closed' })).status).toBe(404);
    expect((await allT.api.post('/ticket-notes', { note: 'olá', ticketId: T.A, contactId: 1 })).status).toBe(404);
  });

  it('events reach only who may see the ticket', async () => {
    const sockets = await Promise.all([n1, n2, allT, n3].map((u) => socket(u.token)));
    const [s1, s2, sAll, s3] = sockets;
    const ev = `company-${w.companyId}-ticket`;
    // B (queue 2) changes first, then A (queue 1) and C (no queue).
    await w.admin.put(`/tickets/${T.B}`, { unreadMessages: 0 });
    await w.admin.put(`/tickets/${T.A}`, { unreadMessages: 0 });
    await w.admin.put(`/tickets/${T.C}`, { status: 'pending', queueId: null });
    await s3.waitFor(ev, (d) => d.ticket.id === T.B);
    await s1.waitFor(ev, (d) => d.ticket.id === T.A);
    await s2.waitFor(ev, (d) => d.ticket.id === T.A);
    await sAll.waitFor(ev, (d) => d.ticket.id === T.C);
    await s3.waitFor(ev, (d) => d.ticket.id === T.C);
    await new Promise((r) => setTimeout(r, 1500));
    const seen = (s: (typeof sockets)[number]) => new Set(s.frames.filter((f) => f.event === ev).map((f) => f.data.ticket.id));
    expect(seen(s1).has(T.B)).toBe(false);
    expect(seen(s1).has(T.C)).toBe(false);
    expect(seen(s2).has(T.B)).toBe(false);
    expect(seen(sAll).has(T.A)).toBe(false);
    expect(seen(sAll).has(T.B)).toBe(false);
    sockets.forEach((s) => s.close());
  });
});

// Every write path these tests went through kept the tab-badge counters exact.
afterAll(expectCountersMatchTickets, 60_000);
