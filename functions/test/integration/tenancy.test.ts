import { describe, expect, it } from 'vitest';
import { member, superUser, tenant } from './client.js';

describe('tenant isolation', () => {
  it("answers 404 for another tenant's user and queue ids, and keeps settings apart", async () => {
    const a = await tenant();
    const b = await tenant();
    const userA = await member(a.admin);
    const queueA = await a.admin.post('/queue', { name: 'Fila A', color: '#AA0000' });
    for (const [method, path, body] of [
      ['get', `/users/${userA.id}`],
      ['put', `/users/${userA.id}`, { name: 'Hacker' }],
      ['del', `/users/${userA.id}`],
      ['get', `/queue/${queueA.body.id}`],
      ['put', `/queue/${queueA.body.id}`, { name: 'Hacker' }],
      ['del', `/queue/${queueA.body.id}`],
    ] as const) {
      const res = await (b.admin as any)[method](path, body);
      expect(res.status, `${method} ${path}`).toBe(404);
    }
    expect((await a.admin.get(`/users/${userA.id}`)).body.name).toBe('Agente Teste');
    expect((await a.admin.get(`/queue/${queueA.body.id}`)).body.name).toBe('Fila A');
    // A queue id of A given to B's user is not found in B.
    expect((await b.admin.post('/users', { name: 'Cross', email: `x${Date.now()}@e.test`, password: 'Senha123', queueIds: [queueA.body.id] })).status).toBe(400);

    await b.admin.put('/settings/userRating', { value: 'enabled' });
    const aRating = (await a.admin.get('/settings/userRating')).body.value;
    expect(aRating).toBe('disabled');
    expect((await b.admin.get('/users')).body.users.every((u: { companyId: number }) => u.companyId === b.companyId)).toBe(true);
    // A companyId in the body or the query does not move a non-super admin to another company.
    expect((await b.admin.get(`/users?companyId=${a.companyId}`)).body.users.every((u: { companyId: number }) => u.companyId === b.companyId)).toBe(true);
  });

  it('lets the super user administer users of another company through companyId', async () => {
    const a = await tenant();
    const sup = await superUser();
    const list = await sup.get(`/users/list?companyId=${a.companyId}`);
    expect(list.body.map((u: { email: string }) => u.email)).toContain(a.email);
  });
});

describe('profiles', () => {
  it('answers 403 to a Nível 1 user on admin routes', async () => {
    const t = await tenant();
    const agent = await member(t.admin);
    const q = await t.admin.post('/queue', { name: 'Fila', color: '#00AA00' });
    const attempts = [
      agent.api.post('/users', { name: 'Novo', email: 'n@e.test', password: 'Senha123' }),
      agent.api.del(`/users/${t.adminUser.id}`),
      agent.api.post('/queue', { name: 'Nova', color: '#0000AA' }),
      agent.api.put(`/queue/${q.body.id}`, { name: 'X' }),
      agent.api.del(`/queue/${q.body.id}`),
      agent.api.put('/settings/call', { value: 'enabled' }),
      agent.api.get('/plans/all'),
      agent.api.post('/companies', {}),
      agent.api.get('/users'),
    ];
    for (const res of await Promise.all(attempts)) {
      expect(res.status).toBe(403);
      expect(res.body.error).toBe('ERR_NO_PERMISSION');
    }
    expect((await agent.api.get('/users?searchParam=age')).status).toBe(200);
  });
});
