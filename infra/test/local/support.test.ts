import { describe, expect, it } from 'vitest';
import { api, createTenant, createUser, endpoints, superLogin, wsClient, wsRefusal } from '../support/index.js';

/* The helpers other test files rely on, checked against the real routes. This file is the only
   one signing in as the seeded super user (one session per user). */
describe('test support helpers', () => {
  it('signs the seeded super user in, creates a tenant and a user, and connects them to the realtime API', async () => {
    const sup = await superLogin();
    expect((await sup.api.get('/auth/me')).status).toBe(200);

    // The first start linked the demo company's sandbox connection (issue 14 §2): a newcomer finds it
    // CONNECTED, and the simulator shows it linked, instead of a QR that timed out meanwhile.
    type Row = { id: number; name: string; status: string; number: string };
    let demo: Row | undefined;
    for (let waited = 0; waited < 20_000 && demo?.status !== 'CONNECTED'; waited += 250) {
      if (waited) await new Promise((r) => setTimeout(r, 250));
      demo = ((await sup.api.get('/whatsapp?session=0')).body as Row[]).find((c) => c.name === 'WhatsApp Sandbox');
    }
    expect(demo).toMatchObject({ status: 'CONNECTED', number: `55119${String(demo?.id).padStart(8, '0')}` });
    const onPhone = (await (await fetch(`${endpoints().sandboxUrl}/connections/${demo!.id}`)).json()) as { status: string; online: boolean };
    expect(onPhone).toMatchObject({ status: 'linked', online: true });

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
