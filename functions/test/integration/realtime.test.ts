import { describe, expect, it } from 'vitest';
import { applyStackEnv, as, login, member, PASSWORD, socket, socketRefusal, tenant, uniq } from './client.js';
import { until } from './ingest-helpers.js';

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
