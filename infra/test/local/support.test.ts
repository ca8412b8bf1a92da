import { describe, expect, it } from 'vitest';
import { api, createTenant, createUser, superLogin, wsClient, wsRefusal } from '../support/index.js';

/* The helpers other test files rely on, checked against the real routes. This file is the only
   one signing in as the seeded super user (one session per user). */
describe('test support helpers', () => {
  it('signs the seeded super user in, creates a tenant and a user, and connects them to the realtime API', async () => {
    const sup = await superLogin();
    expect((await sup.api.get('/auth/me')).status).toBe(200);

    const t = await createTenant({ superApi: sup.api, planOverrides: { users: 3 } });
    expect(typeof t.companyId).toBe('number');
    const me = await api(t.admin.token).get('/auth/me');
    expect(me.status).toBe(200);
    expect(me.body).toMatchObject({ email: t.admin.email, companyId: t.companyId, profile: 'admin' });

    const agent = await createUser(t.admin.token, { profile: 'Nível 1' });
    const agentMe = await agent.api.get('/auth/me');
    expect(agentMe.body).toMatchObject({ email: agent.email, profile: 'Nível 1', companyId: t.companyId });
    expect((await agent.api.post('/users', { name: 'x', email: 'x@y.z', password: 'Senha1234' })).status).toBe(403);

    const socket = await wsClient(agent.token);
    await socket.close();
    expect(await wsRefusal('bad')).toBe(401);
  });
});
