import { afterAll, describe, expect, it } from 'vitest';
import { CLOSE_NOT_YOURS, dayInputValue, RATING_REQUEST } from '@balcao/shared';
import { applyStackEnv, member, socket, tenant } from './client.js';
import { customer, expectCountersMatchTickets, patchConnection, setSetting, ticketItem, world } from './tickets-helpers.js';

const bodies = async (api: { get: (p: string) => Promise<{ body: any }> }, ticketId: number) =>
  ((await api.get(`/messages/${ticketId}`)).body.messages as { body: string }[]).map((m) => m.body);

describe('ticket routes', () => {
  it('lists, reads by id and uuid with contact, queue, connection; other tenants get 404', async () => {
    const w = await world();
    const c = await customer(w.companyId, w.connectionId, { name: 'Maria Souza', text: 'Quero um orçamento' });
    const list = await w.admin.get('/tickets?status=pending');
    expect(list.status).toBe(200);
    expect(list.body).toMatchObject({ count: 1, hasMore: false });
    const t = list.body.tickets[0];
    expect(t).toMatchObject({
      id: c.ticketId,
      status: 'pending',
      unreadMessages: 1,
      lastMessage: 'Quero um orçamento',
      contact: { name: 'Maria Souza', number: c.number, profilePicUrl: null },
      whatsapp: { id: w.connectionId, name: 'Loja' },
      user: null,
      queue: null,
    });
    expect(t.PK).toBeUndefined();
    expect(t.updatedAt).toBeTruthy();
    expect((await w.admin.get(`/tickets/${c.ticketId}`)).body).toMatchObject({ id: c.ticketId, uuid: t.uuid });
    expect((await w.admin.get(`/tickets/u/${t.uuid}`)).body).toMatchObject({ id: c.ticketId });

    const other = await tenant();
    expect((await other.admin.get(`/tickets/${c.ticketId}`)).status).toBe(404);
    expect((await other.admin.get(`/tickets/u/${t.uuid}`)).status).toBe(404);
    expect((await other.admin.put(`/tickets/${c.ticketId}`, { status: 'closed' })).status).toBe(404);
    expect((await other.admin.del(`/tickets/${c.ticketId}`)).status).toBe(404);
    expect((await other.admin.get('/tickets?status=pending')).body.tickets).toEqual([]);
    expect((await w.admin.get('/tickets/abc')).status).toBe(404);
    expect((await w.admin.get('/tickets?status=nope')).body).toMatchObject({ error: 'ERR_VALIDATION', field: 'status' });
    expect((await w.admin.get('/tickets?queueIds=[x]')).status).toBe(400);
    // Search: name prefix (accents and case folded) or the exact number; visibility still applies.
    const found = (r: { body: { tickets: { id: number }[] } }) => r.body.tickets.map((x) => x.id);
    expect(found(await w.admin.get('/tickets?searchParam=m%C3%A1ria'))).toEqual([c.ticketId]);
    expect(found(await w.admin.get(`/tickets?searchParam=${c.number}`))).toEqual([c.ticketId]);
    expect(found(await w.admin.get('/tickets?searchParam=souza%20x'))).toEqual([]);
    expect(found(await w.admin.get('/tickets?searchParam=maria&status=closed'))).toEqual([]);
    expect(found(await other.admin.get('/tickets?searchParam=maria'))).toEqual([]);
  });

  it('pages of 40, newest first, by cursor or pageNumber; filters by queue, unread and date', async () => {
    const w = await world();
    const made: number[] = [];
    for (let i = 0; i < 43; i++) made.push((await customer(w.companyId, w.connectionId, { text: i % 2 ? 'oi' : null })).ticketId);
    const p1 = await w.admin.get('/tickets?status=pending');
    expect(p1.body.tickets).toHaveLength(40);
    expect(p1.body.hasMore).toBe(true);
    expect(p1.body.tickets[0].id).toBe(made[42]);
    const p2 = await w.admin.get(`/tickets?status=pending&cursor=${encodeURIComponent(p1.body.nextCursor)}`);
    expect(p2.body.tickets.map((t: { id: number }) => t.id)).toEqual([made[2], made[1], made[0]]);
    expect(p2.body.hasMore).toBe(false);
    const byNumber = await w.admin.get('/tickets?status=pending&pageNumber=2');
    expect(byNumber.body.tickets.map((t: { id: number }) => t.id)).toEqual([made[2], made[1], made[0]]);
    // A first page that does not end the list counts only on request (withCount: from the
    // counters); a later page knows it only when it ends the list.
    expect(p1.body.count).toBeUndefined();
    expect((await w.admin.get('/tickets?status=pending&withCount=true')).body.count).toBe(43);
    expect(p2.body.count).toBeUndefined();
    expect(byNumber.body.count).toBe(43);
    const unread = await w.admin.get('/tickets?status=pending&withUnreadMessages=true');
    expect(unread.body.tickets.every((t: { unreadMessages: number }) => t.unreadMessages > 0)).toBe(true);
    expect(unread.body.tickets).toHaveLength(21);
    // Move two into queue 1: the queue filter lists them (and tickets without a queue), not queue 2's.
    await w.admin.put(`/tickets/${made[0]}`, { status: 'pending', queueId: w.q1 });
    await w.admin.put(`/tickets/${made[1]}`, { status: 'pending', queueId: w.q2 });
    const q1 = await w.admin.get(`/tickets?status=pending&queueIds=${encodeURIComponent(JSON.stringify([w.q1]))}`);
    const listed = q1.body.tickets.map((t: { id: number }) => t.id);
    expect(listed).toContain(made[0]);
    expect(listed).not.toContain(made[1]);
    // The company's calendar day (America/Sao_Paulo by default), not UTC's: they differ from 21:00 to midnight there.
    const today = dayInputValue(new Date().toISOString());
    expect((await w.admin.get(`/tickets?status=pending&updatedAt=${today}`)).body.tickets).toHaveLength(40);
    expect((await w.admin.get('/tickets?status=pending&updatedAt=2001-01-01')).body.tickets).toHaveLength(0);
    expect((await w.admin.get('/tickets?status=pending&date=2001-01-01')).body.tickets).toHaveLength(0);
  });

  it('POST /tickets: queue required unless admin, default connection, one non-closed ticket per chat (409 with the holder)', async () => {
    const w = await world();
    const agent = await member(w.admin, { name: 'Ana Agente', profile: 'Nível 1', queueIds: [w.q1] });
    const c = await customer(w.companyId, w.connectionId, { text: null });
    await w.admin.put(`/tickets/${c.ticketId}`, { status: 'closed', isJustFinish: true });
    const noQueue = await agent.api.post('/tickets', { contactId: c.contactId, status: 'open' });
    expect(noQueue.status).toBe(400);
    expect(noQueue.body).toMatchObject({ field: 'queueId', message: 'Selecione uma fila' });
    const made = await agent.api.post('/tickets', { contactId: c.contactId, queueId: w.q1, status: 'open', userId: agent.id });
    expect(made.status).toBe(201);
    expect(made.body).toMatchObject({ status: 'open', whatsappId: w.connectionId, user: { id: agent.id, name: 'Ana Agente' }, queue: { id: w.q1 } });
    const again = await w.admin.post('/tickets', { contactId: c.contactId, status: 'open' });
    expect(again.status).toBe(409);
    expect(again.body).toMatchObject({ error: 'ERR_OTHER_OPEN_TICKET', holder: { id: agent.id, name: 'Ana Agente' }, ticketId: made.body.id });
    expect((await w.admin.post('/tickets', { contactId: 999999, status: 'open' })).status).toBe(404);
    expect((await w.admin.post('/tickets', { status: 'open' })).body).toMatchObject({ field: 'contactId' });
    const other = await tenant();
    expect((await other.admin.post('/tickets', { contactId: c.contactId, status: 'open' })).status).toBe(404);
  });
});

describe('ticket lifecycle (server-behaviour §6)', () => {
  it('accept with greeting, second accept 409 with the holder, return to pending, close rules, reopen', async () => {
    const w = await world();
    await setSetting(w.admin, 'sendGreetingAccepted', 'enabled');
    const a = await member(w.admin, { name: 'Alice', profile: 'Nível 2', queueIds: [w.q1], sendGreetingAccepted: true });
    const b = await member(w.admin, { name: 'Bruno', profile: 'Nível 2', queueIds: [w.q1] });
    const c = await customer(w.companyId, w.connectionId, { name: 'Carla Dias' });
    await w.admin.put(`/tickets/${c.ticketId}`, { status: 'pending', queueId: w.q1 });
    const ws = await socket(b.token);
    const accepted = await a.api.put(`/tickets/${c.ticketId}`, { status: 'open', userId: a.id });
    expect(accepted.status).toBe(200);
    expect(accepted.body).toMatchObject({ status: 'open', userId: a.id, queueId: w.q1, user: { name: 'Alice' } });
    expect(accepted.body.startedAt).toBeTruthy();
    // Nível 2 sees open tickets of its queues: Bruno's console gets the change.
    await ws.waitFor(`company-${w.companyId}-ticket`, (d) => d.ticket.id === c.ticketId && d.ticket.status === 'open');
    ws.close();
    const greeting = (await bodies(a.api, c.ticketId)).at(-1)!;
    expect(greeting).toMatch(/^(Bom dia|Boa tarde|Boa noite|Boa madrugada) Carla Dias, meu nome é Alice e vou prosseguir com seu atendimento!$/);

    const late = await b.api.put(`/tickets/${c.ticketId}`, { status: 'open', userId: b.id });
    expect(late.status).toBe(409);
    expect(late.body).toMatchObject({ error: 'ERR_OTHER_OPEN_TICKET', holder: { id: a.id, name: 'Alice' } });
    const notYours = await b.api.put(`/tickets/${c.ticketId}`, { status: 'closed' });
    expect(notYours.status).toBe(403);
    expect(notYours.body.message).toBe(CLOSE_NOT_YOURS);

    const back = await a.api.put(`/tickets/${c.ticketId}`, { status: 'pending' });
    expect(back.body).toMatchObject({ status: 'pending', userId: null, user: null, queueId: w.q1 });
    // A pending ticket may be closed by anyone who sees it.
    const closed = await b.api.put(`/tickets/${c.ticketId}`, { status: 'closed' });
    expect(closed.status).toBe(200);
    expect(closed.body.finishedAt).toBeTruthy();
    const marker = await markerOf(w.companyId, w.connectionId, c.contactId);
    expect(marker).toMatchObject({ ticketId: c.ticketId, status: 'closed' });
    expect(marker!.closedAt).toBeTruthy();
    // Reopen by an agent.
    const reopened = await b.api.put(`/tickets/${c.ticketId}`, { status: 'open' });
    expect(reopened.body).toMatchObject({ status: 'open', userId: b.id, finishedAt: null });
    // Admin closes anybody's ticket.
    expect((await w.admin.put(`/tickets/${c.ticketId}`, { status: 'closed' })).status).toBe(200);
    // Within 2 hours a customer message reopens the same ticket as pending.
    const next = await customer(w.companyId, w.connectionId, { number: c.number });
    expect(next.ticketId).toBe(c.ticketId);
    expect((await w.admin.get(`/tickets/${c.ticketId}`)).body.status).toBe('pending');
  });

  it('two agents accepting at once: one wins, the other gets 409 with the winner', async () => {
    const w = await world();
    const a = await member(w.admin, { name: 'Agente A', profile: 'Nível 1', queueIds: [w.q1] });
    const b = await member(w.admin, { name: 'Agente B', profile: 'Nível 1', queueIds: [w.q1] });
    for (let round = 0; round < 3; round++) {
      const c = await customer(w.companyId, w.connectionId);
      await w.admin.put(`/tickets/${c.ticketId}`, { status: 'pending', queueId: w.q1 });
      const [ra, rb] = await Promise.all([a.api.put(`/tickets/${c.ticketId}`, { status: 'open', userId: a.id }), b.api.put(`/tickets/${c.ticketId}`, { status: 'open', userId: b.id })]);
      const statuses = [ra.status, rb.status].sort();
      expect(statuses).toEqual([200, 409]);
      const winner = ra.status === 200 ? a : b;
      const loser = ra.status === 200 ? rb : ra;
      expect(loser.body).toMatchObject({ error: 'ERR_OTHER_OPEN_TICKET', holder: { id: winner.id } });
      expect((await ticketItem(w.companyId, c.ticketId))!.userId).toBe(winner.id);
      await w.admin.put(`/tickets/${c.ticketId}`, { status: 'closed', isJustFinish: true });
    }
  });

  it('reopen refused while the chat has another non-closed ticket; reopen racing an inbound message keeps one ticket', async () => {
    const w = await world();
    const agent = await member(w.admin, { name: 'Dora', profile: 'Nível 1', queueIds: [w.q1] });
    const c = await customer(w.companyId, w.connectionId);
    await w.admin.put(`/tickets/${c.ticketId}`, { status: 'closed', isJustFinish: true });
    const fresh = await agent.api.post('/tickets', { contactId: c.contactId, queueId: w.q1, status: 'open' });
    expect(fresh.status).toBe(201);
    const refused = await w.admin.put(`/tickets/${c.ticketId}`, { status: 'open' });
    expect(refused.status).toBe(409);
    expect(refused.body).toMatchObject({ error: 'ERR_OTHER_OPEN_TICKET', ticketId: fresh.body.id, holder: { id: agent.id, name: 'Dora' } });

    for (let round = 0; round < 3; round++) {
      const d = await customer(w.companyId, w.connectionId);
      await w.admin.put(`/tickets/${d.ticketId}`, { status: 'closed', isJustFinish: true });
      const [reopen, inbound] = await Promise.all([w.admin.put(`/tickets/${d.ticketId}`, { status: 'open' }), customer(w.companyId, w.connectionId, { number: d.number, text: `corrida ${round}` })]);
      expect(inbound.ticketId).toBe(d.ticketId);
      expect(reopen.status).toBe(200);
      const item = await ticketItem(w.companyId, d.ticketId);
      // Whichever came first, the agent holds it open and the message is in it.
      expect(item).toMatchObject({ status: 'open', userId: w.adminUser.id, lastMessage: `corrida ${round}` });
      expect(await markerOf(w.companyId, w.connectionId, d.contactId)).toMatchObject({ ticketId: d.ticketId });
    }
  });

  it('transfer: to a queue without agent → pending; with agent → open; notice per setting', async () => {
    const w = await world();
    await setSetting(w.admin, 'sendMsgTransfTicket', 'enabled');
    const a = await member(w.admin, { name: 'Edu', profile: 'Nível 1', queueIds: [w.q1] });
    const b = await member(w.admin, { name: 'Fabi', profile: 'Nível 1', queueIds: [w.q2] });
    const c = await customer(w.companyId, w.connectionId, { name: 'Gil' });
    await w.admin.put(`/tickets/${c.ticketId}`, { status: 'pending', queueId: w.q1 });
    await a.api.put(`/tickets/${c.ticketId}`, { status: 'open', userId: a.id });
    const ws = await socket(a.token);
    const toQueue = await a.api.put(`/tickets/${c.ticketId}`, { status: 'pending', queueId: w.q2, userId: null });
    expect(toQueue.status).toBe(200);
    // Edu saw it before: his console hears the new state (and drops the ticket it may no longer see).
    await ws.waitFor(`company-${w.companyId}-ticket`, (d) => d.ticket.id === c.ticketId && d.ticket.queueId === w.q2);
    ws.close();
    expect(toQueue.body).toMatchObject({ status: 'pending', userId: null, queueId: w.q2 });
    expect((await bodies(w.admin, c.ticketId)).at(-1)).toMatch(/, seu atendimento foi transferido\. Departamento: Suporte\. Atendente: \.$/);
    // Edu no longer sees it (queue 2, not his).
    expect((await a.api.get(`/tickets/${c.ticketId}`)).status).toBe(404);
    const toAgent = await w.admin.put(`/tickets/${c.ticketId}`, { status: 'open', queueId: w.q2, userId: b.id });
    expect(toAgent.body).toMatchObject({ status: 'open', userId: b.id, queueId: w.q2, user: { name: 'Fabi' } });
    expect((await bodies(w.admin, c.ticketId)).at(-1)).toMatch(/Gil, seu atendimento foi transferido\. Departamento: Suporte\. Atendente: Fabi\.$/);
    expect((await w.admin.put(`/tickets/${c.ticketId}`, { queueId: 999999 })).body).toMatchObject({ field: 'queueId' });
  });

  it('moving a ticket to another connection moves the chat marker; refused when that chat has an open ticket', async () => {
    const w = await world();
    const second = await w.admin.post('/whatsapp', { name: 'Loja 2', provider: 'sandbox' });
    expect(second.status).toBe(201);
    const c = await customer(w.companyId, w.connectionId);
    const moved = await w.admin.put(`/tickets/${c.ticketId}`, { whatsappId: second.body.id });
    expect(moved.body).toMatchObject({ whatsappId: second.body.id, whatsapp: { name: 'Loja 2' }, status: 'pending' });
    expect(await markerOf(w.companyId, w.connectionId, c.contactId)).toBeUndefined();
    expect(await markerOf(w.companyId, second.body.id, c.contactId)).toMatchObject({ ticketId: c.ticketId });
    // The customer writes again on the first connection: a new ticket there.
    const again = await customer(w.companyId, w.connectionId, { number: c.number });
    expect(again.ticketId).not.toBe(c.ticketId);
    await w.admin.put(`/tickets/${again.ticketId}`, { status: 'open' });
    const refused = await w.admin.put(`/tickets/${c.ticketId}`, { whatsappId: w.connectionId });
    expect(refused.status).toBe(409);
    expect(refused.body).toMatchObject({ error: 'ERR_OTHER_OPEN_TICKET', ticketId: again.ticketId, holder: { id: w.adminUser.id } });
    // Clearing the agent alone returns it to the queue.
    expect((await w.admin.put(`/tickets/${again.ticketId}`, { userId: null })).body).toMatchObject({ status: 'pending', userId: null });
  });

  it('close: completion message; Finalizar silent; rating request, answer 1-3 recorded, other replies end the wait', async () => {
    const w = await world();
    await patchConnection(w.companyId, w.connectionId, { complationMessage: 'Obrigado, {{firstName}}!', ratingMessage: 'Avalie nosso atendimento' });
    const agent = await member(w.admin, { name: 'Hugo', profile: 'Nível 1', queueIds: [w.q1] });
    const open = async () => {
      const c = await customer(w.companyId, w.connectionId, { name: 'Iara Lima' });
      await w.admin.put(`/tickets/${c.ticketId}`, { status: 'pending', queueId: w.q1 });
      await agent.api.put(`/tickets/${c.ticketId}`, { status: 'open' });
      return c;
    };
    const c1 = await open();
    await agent.api.put(`/tickets/${c1.ticketId}`, { status: 'closed' });
    expect((await bodies(w.admin, c1.ticketId)).at(-1)).toBe('Obrigado, Iara!');
    const c2 = await open();
    const before = (await bodies(w.admin, c2.ticketId)).length;
    await agent.api.put(`/tickets/${c2.ticketId}`, { status: 'closed', isJustFinish: true });
    expect(await bodies(w.admin, c2.ticketId)).toHaveLength(before);

    await setSetting(w.admin, 'userRating', 'enabled');
    const c3 = await open();
    const closed = await agent.api.put(`/tickets/${c3.ticketId}`, { status: 'closed' });
    expect(closed.body.status).toBe('closed');
    expect(closed.body.awaitingRatingUntil).toBeTruthy();
    expect((await bodies(w.admin, c3.ticketId)).slice(-2)).toEqual(['Avalie nosso atendimento', RATING_REQUEST]);
    applyStackEnv();
    const { handleRatingAnswer, ticketAwaitingRating } = await import('../../src/services/ticket-rating.js');
    const waiting = await ticketAwaitingRating(w.companyId, w.connectionId, c3.contactId);
    expect(waiting?.id).toBe(c3.ticketId);
    expect(await handleRatingAnswer(waiting as never, ' 2 ')).toBe(true);
    expect(await ticketItem(w.companyId, c3.ticketId)).toMatchObject({ rating: 2, ratingUserId: agent.id, awaitingRatingUntil: null, status: 'closed' });
    expect((await ticketItem(w.companyId, c3.ticketId))!.ratingAt).toBeTruthy();
    expect((await bodies(w.admin, c3.ticketId)).at(-1)).toBe('Obrigado, Iara!');
    // Answered once: a second "3" is not a rating any more.
    expect(await handleRatingAnswer((await ticketItem(w.companyId, c3.ticketId)) as never, '3')).toBe(false);

    const c4 = await open();
    await agent.api.put(`/tickets/${c4.ticketId}`, { status: 'closed' });
    const t4 = await ticketAwaitingRating(w.companyId, w.connectionId, c4.contactId);
    expect(await handleRatingAnswer(t4 as never, 'quero falar de novo')).toBe(false);
    expect(await ticketItem(w.companyId, c4.ticketId)).toMatchObject({ awaitingRatingUntil: null });
    expect(await ticketAwaitingRating(w.companyId, w.connectionId, c4.contactId)).toBeUndefined();
  });

  it('opening the ticket clears its unread count and marks the messages read', async () => {
    const w = await world();
    const c = await customer(w.companyId, w.connectionId, { text: 'um' });
    await customer(w.companyId, w.connectionId, { number: c.number, text: 'dois' });
    expect((await w.admin.get(`/tickets/${c.ticketId}`)).body.unreadMessages).toBe(2);
    const ws = await socket(w.adminToken);
    const read = await w.admin.put(`/tickets/${c.ticketId}`, { unreadMessages: 0 });
    expect(read.status).toBe(200);
    expect(read.body.unreadMessages).toBe(0);
    expect(read.body.status).toBe('pending');
    await ws.waitFor(`company-${w.companyId}-ticket`, (d) => d.ticket.id === c.ticketId && d.ticket.unreadMessages === 0);
    ws.close();
    const msgs = (await w.admin.get(`/messages/${c.ticketId}`)).body.messages as { read: boolean }[];
    expect(msgs.every((m) => m.read)).toBe(true);
  });

  it('delete is for admins; the ticket, its messages and its event go', async () => {
    const w = await world();
    const agent = await member(w.admin, { profile: 'Nível 3' });
    const c = await customer(w.companyId, w.connectionId);
    expect((await agent.api.del(`/tickets/${c.ticketId}`)).status).toBe(403);
    const ws = await socket(w.adminToken);
    expect((await w.admin.del(`/tickets/${c.ticketId}`)).status).toBe(204);
    await ws.waitFor(`company-${w.companyId}-ticket`, (d) => d.action === 'delete' && d.ticketId === c.ticketId);
    ws.close();
    expect((await w.admin.get(`/tickets/${c.ticketId}`)).status).toBe(404);
    expect(await markerOf(w.companyId, w.connectionId, c.contactId)).toBeUndefined();
    // The chat starts over with a new ticket.
    const next = await customer(w.companyId, w.connectionId, { number: c.number });
    expect(next.ticketId).not.toBe(c.ticketId);
  });
});

describe('ticket notes', () => {
  it('add (≥ 2 characters), list with author and date, delete by author or admin, tenancy', async () => {
    const w = await world();
    const a = await member(w.admin, { name: 'Joana', profile: 'Nível 2', queueIds: [w.q1] });
    const b = await member(w.admin, { name: 'Kleber', profile: 'Nível 2', queueIds: [w.q1] });
    const c = await customer(w.companyId, w.connectionId);
    await w.admin.put(`/tickets/${c.ticketId}`, { status: 'pending', queueId: w.q1 });
    const short = await a.api.post('/ticket-notes', { note: 'x', ticketId: c.ticketId, contactId: c.contactId });
    expect(short.status).toBe(400);
    expect(short.body).toMatchObject({ field: 'note' });
    const made = await a.api.post('/ticket-notes', { note: 'Cliente prefere ligação', ticketId: c.ticketId, contactId: c.contactId });
    expect(made.status).toBe(201);
    expect(made.body).toMatchObject({ note: 'Cliente prefere ligação', user: { id: a.id, name: 'Joana' }, ticketId: c.ticketId, contactId: c.contactId });
    expect(made.body.createdAt).toBeTruthy();
    await b.api.post('/ticket-notes', { note: 'Segunda nota', ticketId: c.ticketId, contactId: c.contactId });
    const list = await b.api.get(`/ticket-notes/list?ticketId=${c.ticketId}&contactId=${c.contactId}`);
    expect(list.body.map((n: { note: string; user: { name: string } }) => [n.note, n.user.name])).toEqual([
      ['Cliente prefere ligação', 'Joana'],
      ['Segunda nota', 'Kleber'],
    ]);
    expect((await b.api.del(`/ticket-notes/${made.body.id}`)).status).toBe(403);
    const other = await tenant();
    expect((await other.admin.del(`/ticket-notes/${made.body.id}`)).status).toBe(404);
    expect((await other.admin.get(`/ticket-notes/list?ticketId=${c.ticketId}&contactId=${c.contactId}`)).status).toBe(404);
    expect((await other.admin.post('/ticket-notes', { note: 'intrusa', ticketId: c.ticketId, contactId: c.contactId })).status).toBe(404);
    expect((await a.api.del(`/ticket-notes/${made.body.id}`)).status).toBe(204);
    expect((await w.admin.get(`/ticket-notes/list?ticketId=${c.ticketId}&contactId=${c.contactId}`)).body).toHaveLength(1);
  });
});

async function markerOf(companyId: number, connectionId: number, contactId: number) {
  applyStackEnv();
  const { getItem } = await import('../../src/core/db.js');
  const { currentMarker } = await import('../../src/table/keys.js');
  return getItem<{ ticketId: number; status: string; closedAt?: string }>(currentMarker(companyId, connectionId, contactId), true);
}

// Every write path these tests went through kept the tab-badge counters exact.
afterAll(expectCountersMatchTickets, 60_000);
