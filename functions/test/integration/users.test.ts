import { describe, expect, it } from 'vitest';
import { as, call, cognitoSignIn, login, member, PASSWORD, tenant, uniq } from './client.js';

// A 1x1 PNG: real bytes, so the upload check (by content, not by name) accepts it.
const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==', 'base64');

describe('users', () => {
  it('creates a user (default Nível 1) who can sign in, and lists, searches and reads it', async () => {
    const t = await tenant();
    const email = `${uniq('maria')}@empresa.test`;
    const created = await t.admin.post('/users', { name: 'Maria Souza', email, password: PASSWORD });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ name: 'Maria Souza', email, profile: 'Nível 1', companyId: t.companyId, queues: [], allTicket: 'desabled', super: false });
    expect(created.body).not.toHaveProperty('sub');
    expect(created.body).not.toHaveProperty('PK');
    await expect(login(email, PASSWORD)).resolves.toBeTruthy();

    const page = await t.admin.get('/users?searchParam=souza&pageNumber=1');
    expect(page.status).toBe(200);
    expect(page.body).toMatchObject({ count: 1, hasMore: false });
    expect(page.body.users[0].email).toBe(email);
    const list = await t.admin.get('/users/list');
    expect(list.body.map((u: { email: string }) => u.email)).toEqual(expect.arrayContaining([email, t.email]));
    expect((await t.admin.get(`/users/${created.body.id}`)).body.email).toBe(email);
  });

  it('pages users 20 at a time with hasMore', async () => {
    const t = await tenant({ users: 30 });
    await Promise.all(Array.from({ length: 21 }, (_, i) => t.admin.post('/users', { name: `Pessoa ${String(i).padStart(2, '0')}`, email: `${uniq('p')}@empresa.test`, password: PASSWORD })));
    const first = await t.admin.get('/users?pageNumber=1');
    expect(first.body.users).toHaveLength(20);
    expect(first.body).toMatchObject({ count: 22, hasMore: true });
    const second = await t.admin.get('/users?pageNumber=2');
    expect(second.body.users).toHaveLength(2);
    expect(second.body.hasMore).toBe(false);
  });

  it('accepts multipart with a photo and answers a readable photo URL', async () => {
    const t = await tenant();
    const form = new FormData();
    form.set('name', 'Com Foto');
    form.set('email', `${uniq('foto')}@empresa.test`);
    form.set('password', PASSWORD);
    form.set('profile', 'Nível 2');
    form.set('queueIds', '[]');
    form.set('sendGreetingAccepted', 'true');
    form.set('photo', new Blob([PNG], { type: 'image/png' }), 'eu.png');
    const res = await t.admin.form('POST', '/users', form);
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ profile: 'Nível 2', sendGreetingAccepted: true });
    const photo = await fetch(res.body.photoUrl);
    expect(photo.status).toBe(200);
    expect(Buffer.from(await photo.arrayBuffer()).equals(PNG)).toBe(true);

    const notImage = new FormData();
    notImage.set('name', 'Sem Foto');
    notImage.set('email', `${uniq('x')}@empresa.test`);
    notImage.set('password', PASSWORD);
    notImage.set('photo', new Blob(['<script>alert(1)</script>'], { type: 'image/png' }), 'x.png');
    const refused = await t.admin.form('POST', '/users', notImage);
    expect(refused.status).toBe(415);
    expect((await t.admin.get('/users')).body.count).toBe(2);
  });

  it('refuses a duplicate e-mail (any company) and bad input, creating nothing', async () => {
    const a = await tenant();
    const b = await tenant();
    const email = `${uniq('dup')}@empresa.test`;
    expect((await a.admin.post('/users', { name: 'Primeiro', email, password: PASSWORD })).status).toBe(201);
    const dup = await b.admin.post('/users', { name: 'Segundo', email: email.toUpperCase(), password: PASSWORD });
    expect(dup.status).toBe(409);
    expect(dup.body.error).toBe('ERR_EMAIL_ALREADY_EXISTS');
    const short = await a.admin.post('/users', { name: 'X', email: `${uniq()}@e.test`, password: PASSWORD });
    expect(short.status).toBe(400);
    expect(short.body).toMatchObject({ field: 'name', message: 'Too Short!' });
    const weak = await a.admin.post('/users', { name: 'Fraca', email: `${uniq()}@e.test`, password: '12345' });
    expect(weak.status).toBe(400);
    expect(weak.body.field).toBe('password');
    const badQueue = await a.admin.post('/users', { name: 'Fila', email: `${uniq()}@e.test`, password: PASSWORD, queueIds: [999] });
    expect(badQueue.status).toBe(400);
    expect(badQueue.body.error).toBe('ERR_NO_QUEUE_FOUND');
    expect((await b.admin.get('/users')).body.count).toBe(1);
  });

  it('enforces the plan user limit, also under concurrent creates', async () => {
    const t = await tenant({ users: 3 });
    const attempts = await Promise.all(
      Array.from({ length: 4 }, (_, i) => t.admin.post('/users', { name: `Concorrente ${i}`, email: `${uniq('c')}@empresa.test`, password: PASSWORD })),
    );
    const ok = attempts.filter((r) => r.status === 201);
    const refused = attempts.filter((r) => r.status === 400);
    expect(ok).toHaveLength(2);
    expect(refused).toHaveLength(2);
    expect(refused[0].body.message).toBe('Número máximo de usuários já alcançado: 3');
    expect((await t.admin.get('/users')).body.count).toBe(3);
  });

  it('lets agents edit themselves but not their profile or queues, nor other users', async () => {
    const t = await tenant();
    const agent = await member(t.admin);
    const other = await member(t.admin);
    const rename = await agent.api.put(`/users/${agent.id}`, { name: 'Novo Nome' });
    expect(rename.status).toBe(200);
    expect(rename.body.name).toBe('Novo Nome');
    expect((await agent.api.put(`/users/${agent.id}`, { profile: 'admin' })).status).toBe(403);
    expect((await agent.api.put(`/users/${other.id}`, { name: 'Invasor' })).status).toBe(403);
    expect((await t.admin.get(`/users/${agent.id}`)).body.profile).toBe('Nível 1');
  });

  it('admin changes profile, queues, e-mail and password', async () => {
    const t = await tenant();
    const q = await t.admin.post('/queue', { name: 'Suporte', color: '#123456', greetingMessage: 'Oi' });
    const agent = await member(t.admin);
    const newEmail = `${uniq('novo')}@empresa.test`;
    const res = await t.admin.put(`/users/${agent.id}`, { profile: 'Nível 2', queueIds: [q.body.id], email: newEmail, password: 'Trocada99', allTicket: 'enabled' });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ profile: 'Nível 2', email: newEmail, allTicket: 'enabled', queues: [{ id: q.body.id, name: 'Suporte', color: '#123456' }] });
    await expect(cognitoSignIn(agent.email, PASSWORD)).rejects.toThrow();
    await expect(login(newEmail, 'Trocada99')).resolves.toBeTruthy();
  });

  it('deletes a user everywhere: records, sign-in and the plan slot', async () => {
    const t = await tenant({ users: 2 });
    const agent = await member(t.admin);
    expect((await t.admin.post('/users', { name: 'Cheio', email: `${uniq()}@e.test`, password: PASSWORD })).status).toBe(400);
    expect((await t.admin.del(`/users/${agent.id}`)).status).toBe(204);
    expect((await t.admin.get(`/users/${agent.id}`)).status).toBe(404);
    await expect(cognitoSignIn(agent.email, PASSWORD)).rejects.toThrow();
    expect((await agent.api.get('/auth/me')).status).toBe(401);
    expect((await t.admin.post('/users', { name: 'Cabe', email: `${uniq()}@e.test`, password: PASSWORD })).status).toBe(201);
    expect((await t.admin.del(`/users/${t.adminUser.id}`)).status).toBe(400);
  });

  it('answers 404 for ids that are not numbers or do not exist', async () => {
    const t = await tenant();
    expect((await t.admin.get('/users/abc')).status).toBe(404);
    expect((await t.admin.get('/users/99999')).status).toBe(404);
    expect((await call('GET', '/users', { token: t.adminToken })).status).toBe(200);
    void as;
  });
});
