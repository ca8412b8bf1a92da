import { describe, expect, it } from 'vitest';
import { call, login, member, PASSWORD, superUser, tenant, uniq } from './client.js';

describe('plans', () => {
  it('lists plans publicly and lets the super user manage them', async () => {
    const sup = await superUser();
    const name = uniq('Plano ');
    const created = await sup.post('/plans', { name, users: 3, connections: 1, queues: 2, value: '49.90', useKanban: false });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ name, users: 3, value: 49.9, useKanban: false, useCampaigns: true });
    const pub = await call('GET', '/plans/list');
    expect(pub.body.find((p: { id: number }) => p.id === created.body.id)).toMatchObject({ name, users: 3, value: 49.9 });
    expect((await sup.get('/plans/all')).body.some((p: { id: number }) => p.id === created.body.id)).toBe(true);
    const paged = await sup.get(`/plans?searchParam=${encodeURIComponent(name)}`);
    expect(paged.body).toMatchObject({ count: 1, hasMore: false });
    expect((await sup.put(`/plans/${created.body.id}`, { value: 59.9, useKanban: true })).body).toMatchObject({ value: 59.9, useKanban: true });
    expect((await sup.post('/plans', { name })).status).toBe(409);
    expect((await sup.del(`/plans/${created.body.id}`)).status).toBe(204);
    expect((await sup.get(`/plans/${created.body.id}`)).status).toBe(404);
  });

  it('refuses to delete a plan in use, and non-super users', async () => {
    const t = await tenant();
    const sup = await superUser();
    const res = await sup.del(`/plans/${t.planId}`);
    expect(res.status).toBe(409);
    expect(res.body.error).toBe('ERR_PLAN_IN_USE');
    expect((await t.admin.get('/plans/all')).status).toBe(403);
    expect((await t.admin.post('/plans', { name: 'Meu' })).status).toBe(403);
  });
});

describe('companies', () => {
  it('super user creates, reads, lists, updates and deletes companies', async () => {
    const sup = await superUser();
    const plans = (await sup.get('/plans/all')).body;
    const email = `${uniq('co')}@empresa.test`;
    const created = await sup.post('/companies', { name: 'Padaria Central', email, phone: '11 3333-4444', planId: plans[0].id, password: PASSWORD, recurrence: 'TRIMESTRAL' });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ name: 'Padaria Central', email, status: true, recurrence: 'TRIMESTRAL', campaignsEnabled: true });
    const admin = await login(email, PASSWORD);
    expect(admin.user.profile).toBe('admin');
    const one = await sup.get(`/companies/${created.body.id}`);
    expect(one.body.plan.id).toBe(plans[0].id);
    expect(one.body.settings.length).toBeGreaterThan(5);
    const search = await sup.get('/companies?searchParam=padaria%20central');
    expect(search.body.companies.some((c: { id: number }) => c.id === created.body.id)).toBe(true);
    expect((await sup.get('/companies/list')).body.some((c: { id: number }) => c.id === created.body.id)).toBe(true);
    const upd = await sup.put(`/companies/${created.body.id}`, { name: 'Padaria Central Ltda', dueDate: '' });
    expect(upd.body).toMatchObject({ name: 'Padaria Central Ltda', dueDate: null });
    expect((await sup.post('/companies', { name: 'Outra', email, planId: plans[0].id })).status).toBe(409);
    expect((await sup.del(`/companies/${created.body.id}`)).status).toBe(204);
    expect((await sup.get(`/companies/${created.body.id}`)).status).toBe(404);
    expect((await call('GET', '/auth/me', { token: admin.token })).status).toBe(401);
  });

  it('answers a company its own plan flags and hides the others', async () => {
    const a = await tenant({ useKanban: false });
    const b = await tenant();
    const own = await a.admin.get(`/companies/listPlan/${a.companyId}`);
    expect(own.status).toBe(200);
    expect(own.body.plan).toMatchObject({ useKanban: false, useCampaigns: true });
    expect((await a.admin.get(`/companies/listPlan/${b.companyId}`)).status).toBe(404);
    expect((await a.admin.get(`/companies/${b.companyId}`)).status).toBe(404);
    expect((await a.admin.get('/companies')).status).toBe(403);
    const agent = await member(a.admin);
    expect((await agent.api.get(`/companies/listPlan/${a.companyId}`)).status).toBe(200);
  });

  it('validates the company form', async () => {
    const sup = await superUser();
    const res = await sup.post('/companies', { name: 'Sem Plano', email: `${uniq()}@e.test` });
    expect(res.status).toBe(400);
    expect(res.body.field).toBe('planId');
    const badPlan = await sup.post('/companies', { name: 'Plano Falso', email: `${uniq()}@e.test`, planId: 987654 });
    expect(badPlan.status).toBe(400);
    expect(badPlan.body.error).toBe('ERR_NO_PLAN_FOUND');
  });
});
