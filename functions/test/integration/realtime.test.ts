import { describe, expect, it } from 'vitest';
import { applyStackEnv, as, login, member, PASSWORD, socket, socketRefusal, tenant, uniq } from './client.js';
import { until } from './ingest-helpers.js';
import { connected, sandbox, ticketOf } from './pipeline-helpers.js';

describe('realtime channel', () => {
  it('refuses a socket without a valid token or with an old session', async () => {
    expect(await socketRefusal('garbage')).toBe(401);
    const t = await tenant();
    const agent = await member(t.admin);
    await login(agent.email, PASSWORD);
    expect(await socketRefusal(agent.token)).toBe(401);
  });

  it('delivers company events to that company only', async () => {
    const a = await tenant();
    const b = await tenant();
    const wsA = await socket(a.adminToken);
    const wsB = await socket(b.adminToken);
    const created = await a.admin.post('/users', { name: 'Aparece', email: `ev${Date.now()}@e.test`, password: PASSWORD });
    const frame = await wsA.waitFor(`company-${a.companyId}-user`, (d) => d.action === 'create' && d.user.id === created.body.id);
    expect(frame.data.user).not.toHaveProperty('sub');
    await new Promise((r) => setTimeout(r, 500));
    expect(wsB.frames.some((f) => f.event.startsWith(`company-${a.companyId}-`))).toBe(false);
    wsA.close();
    wsB.close();
  });

  it('marks presence with the socket and the heartbeat, and offline when the last socket closes', async () => {
    const t = await tenant();
    const agent = await member(t.admin);
    await agent.api.del('/auth/logout');
    const session = await login(agent.email, PASSWORD);
    const adminWs = await socket(t.adminToken);
    const ws = await socket(session.token);
    ws.send({ action: 'userStatus' });
    ws.send({ action: 'joinNotification' });
    ws.send({ action: 'joinTickets', status: 'open' });
    ws.send({ action: 'ping' });
    expect((await as(session.token).get(`/users/${agent.id}`)).body.online).toBe(true);
    ws.close();
    await adminWs.waitFor(`company-${t.companyId}-user`, (d) => d.user?.id === agent.id && d.user.online === false);
    expect((await t.admin.get(`/users/${agent.id}`)).body.online).toBe(false);
    adminWs.close();
  });

  it('a heartbeat handled after its socket closed does not bring the user back online', async () => {
    const t = await tenant();
    const agent = await member(t.admin);
    applyStackEnv();
    const { registerConnection, getConnection, dropConnection, refreshConnection } = await import('../../src/services/presence.js');
    const { getItem } = await import('../../src/core/db.js');
    const { keys } = await import('../../src/table/keys.js');
    const userItem = async () => (await getItem<any>(keys.user(t.companyId, agent.id), true))!;
    const socketId = uniq('sock');
    await registerConnection(socketId, await userItem(), 'session');
    expect((await userItem()).online).toBe(true);
    // The heartbeat frame read its socket, then the disconnect ran before the heartbeat's writes.
    const conn = (await getConnection(socketId))!;
    const user = await userItem();
    await dropConnection(socketId);
    expect((await userItem()).online).toBe(false);
    await refreshConnection(conn, user);
    expect((await userItem()).online).toBe(false);
  });

  it('keeps a socket that answers Gone while its handshake may still be finishing, and drops one gone for longer', async () => {
    applyStackEnv();
    const { registerConnection, getConnection } = await import('../../src/services/presence.js');
    const { HANDSHAKE_GRACE_MS } = await import('../../src/workers/realtime-fanout.js');
    const { getItem, updateItem } = await import('../../src/core/db.js');
    const { keys } = await import('../../src/table/keys.js');
    const t = await tenant();
    const admin = (await getItem<import('../../src/table/items.js').UserItem>(keys.user(t.companyId, t.adminUser.id)))!;
    // Neither is a socket of the WebSocket API, so a post to either answers Gone, as API Gateway
    // does between $connect and the end of the handshake (when the socket's own presence event races it).
    const handshaking = uniq('hs-');
    const closed = uniq('closed-');
    await registerConnection(handshaking, admin, admin.session!.id);
    await registerConnection(closed, admin, admin.session!.id);
    await updateItem(keys.wsConnection(closed), { connectedAt: new Date(Date.now() - HANDSHAKE_GRACE_MS - 1000).toISOString() });
    // A company event for both.
    expect((await t.admin.post('/users', { name: 'Evento', email: `${uniq('ev')}@e.test`, password: PASSWORD })).status).toBe(201);
    await until(async () => ((await getConnection(closed)) ? undefined : true), 'the closed socket dropped');
    await new Promise((r) => setTimeout(r, 1000));
    expect(await getConnection(handshaking)).toMatchObject({ connectionId: handshaking, userId: admin.id });
  });
});

describe('the ticket room (issue 23)', () => {
  it("a socket in the room receives the conversation's messages; one of an agent who may not see the ticket receives nothing of it; the others get the lists' summary", async () => {
    const t = await connected();
    const customer = '5511976549001';
    const first = await sandbox<{ id: string }>('POST', `/connections/${t.connectionId}/messages`, { from: customer, name: 'Cliente Sala', body: 'Oi' });
    const ticket = await ticketOf(t, customer);
    // Watching: the admin with the conversation open. Listing: the admin's second console.
    // Blind: a Nível 1 agent without queues or allTicket, who may not see a ticket without a queue,
    // in the room too (joining alone shows nothing).
    const watching = t.ws;
    await watching.join(ticket.id);
    const listing = await socket(t.adminToken);
    const blindAgent = await member(t.admin, { name: 'Sem Acesso', profile: 'Nível 1', allTicket: 'desabled' });
    const blind = await socket(blindAgent.token);
    await blind.join(ticket.id);
    const marks = { watching: watching.mark(), listing: listing.mark() };

    const sent = await sandbox<{ id: string }>('POST', `/connections/${t.connectionId}/messages`, { from: customer, body: 'Tem na cor azul?' });
    const reply = await t.admin.post(`/messages/${ticket.id}`, { body: 'Temos sim!' });
    expect(reply.status).toBe(201);
    for (const id of [sent.body.id, reply.body.id]) {
      const msg = await watching.waitFor(`company-${t.companyId}-appMessage`, (d) => d.action === 'create' && d.message.id === id, 20_000, marks.watching);
      expect(msg.data.message.ticketId).toBe(ticket.id);
      const summary = await listing.waitFor(`company-${t.companyId}-ticket`, (d) => d.message?.id === id, 20_000, marks.listing);
      expect(summary.data.ticket.id).toBe(ticket.id);
    }
    expect((await watching.waitFor(`company-${t.companyId}-ticket`, (d) => d.message?.id === sent.body.id, 20_000, marks.watching)).data.message).toMatchObject({ body: 'Tem na cor azul?', fromMe: false });
    // The reply's acks reach the room.
    await watching.waitFor(`company-${t.companyId}-appMessage`, (d) => d.action === 'update' && d.message.id === reply.body.id && d.message.ack >= 2, 20_000, marks.watching);
    await new Promise((r) => setTimeout(r, 1000));
    // The console with only the lists open never gets the message stream.
    expect(listing.frames.slice(marks.listing).filter((f) => f.event.endsWith('-appMessage'))).toHaveLength(0);
    // The agent who may not see the ticket gets nothing of it, in the room or not.
    const ofTicket = (f: { event: string; data: any }) => f.data?.message?.ticketId === ticket.id || f.data?.ticket?.id === ticket.id || [first.body.id, sent.body.id, reply.body.id].includes(f.data?.message?.id);
    expect(blind.frames.filter(ofTicket)).toEqual([]);
    // Leaving the room ends the stream.
    watching.send({ action: 'leaveChatBox', ticketId: ticket.id });
    await new Promise((r) => setTimeout(r, 500));
    const afterLeave = watching.mark();
    const later = await sandbox<{ id: string }>('POST', `/connections/${t.connectionId}/messages`, { from: customer, body: 'Obrigado' });
    await watching.waitFor(`company-${t.companyId}-ticket`, (d) => d.message?.id === later.body.id, 20_000, afterLeave);
    await new Promise((r) => setTimeout(r, 500));
    expect(watching.frames.slice(afterLeave).filter((f) => f.event.endsWith('-appMessage'))).toEqual([]);
    for (const s of [watching, listing, blind]) s.close();
  });
});
