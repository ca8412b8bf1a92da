import { describe, expect, it } from 'vitest';
import { member, socket, tenant } from './client.js';
import { sandbox, until } from './pipeline-helpers.js';

describe('connections', () => {
  it('makes the first connection the default and keeps exactly one default', async () => {
    const t = await tenant();
    const a = await t.admin.post('/whatsapp', { name: 'Loja Centro', provider: 'sandbox' });
    expect(a.status).toBe(201);
    expect(a.body).toMatchObject({ name: 'Loja Centro', isDefault: true, provider: 'sandbox', maxUseBotQueues: 3, hasToken: false, token: '' });
    const b = await t.admin.post('/whatsapp', { name: 'Loja Norte', provider: 'sandbox' });
    expect(b.body.isDefault).toBe(false);
    const undefault = await t.admin.put(`/whatsapp/${a.body.id}`, { isDefault: false });
    expect(undefault.status).toBe(400);
    expect(undefault.body.error).toBe('ERR_NO_OTHER_WHATSAPP');
    expect((await t.admin.put(`/whatsapp/${b.body.id}`, { isDefault: true })).body.isDefault).toBe(true);
    const list = await t.admin.get('/whatsapp?session=0');
    expect(list.body.filter((c: { isDefault: boolean }) => c.isDefault).map((c: { id: number }) => c.id)).toEqual([b.body.id]);
    // Deleting the default promotes another one.
    expect((await t.admin.del(`/whatsapp/${b.body.id}`)).status).toBe(204);
    expect((await t.admin.get(`/whatsapp/${a.body.id}`)).body.isDefault).toBe(true);
  });

  it('keeps names unique per company, enforces the plan limit and the greeting rule', async () => {
    const t = await tenant({ connections: 2 });
    const other = await tenant();
    expect((await t.admin.post('/whatsapp', { name: 'Atendimento', provider: 'sandbox' })).status).toBe(201);
    const dup = await t.admin.post('/whatsapp', { name: 'atendimento', provider: 'sandbox' });
    expect(dup.status).toBe(409);
    expect(dup.body.field).toBe('name');
    expect((await other.admin.post('/whatsapp', { name: 'Atendimento', provider: 'sandbox' })).status).toBe(201);
    const q1 = await t.admin.post('/queue', { name: 'Vendas', color: '#101010' });
    const q2 = await t.admin.post('/queue', { name: 'Suporte', color: '#202020', greetingMessage: 'Oi' });
    const noGreeting = await t.admin.post('/whatsapp', { name: 'Duas filas', provider: 'sandbox', queueIds: [q1.body.id, q2.body.id] });
    expect(noGreeting.status).toBe(400);
    expect(noGreeting.body.error).toBe('ERR_WAPP_GREETING_REQUIRED');
    const ok = await t.admin.post('/whatsapp', { name: 'Duas filas', provider: 'sandbox', queueIds: [q1.body.id, q2.body.id], greetingMessage: 'Escolha:' });
    expect(ok.status).toBe(201);
    expect(ok.body.queues.map((q: { name: string }) => q.name).sort()).toEqual(['Suporte', 'Vendas']);
    const over = await t.admin.post('/whatsapp', { name: 'Terceira', provider: 'sandbox' });
    expect(over.status).toBe(400);
    expect(over.body.message).toBe('Número máximo de conexões já alcançado: 2');
    const short = await t.admin.post('/whatsapp', { name: 'X' });
    expect(short.body).toMatchObject({ field: 'name', message: 'Too Short!' });
  });

  it('makes the API token itself (256 random bits), answers it once, stores it hashed, and refuses one chosen by hand', async () => {
    const t = await tenant();
    const c = await t.admin.post('/whatsapp', { name: 'Com token', provider: 'sandbox', generateToken: true });
    expect(c.status).toBe(201);
    expect(c.body.hasToken).toBe(true);
    const token = c.body.token as string;
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(JSON.stringify(await t.admin.get(`/whatsapp/${c.body.id}`))).not.toContain(token);
    expect(JSON.stringify(await t.admin.get('/whatsapp'))).not.toContain(token);
    // A short or chosen token could be guessed (one was, in 21 tries): the field only takes "".
    const chosen = await t.admin.put(`/whatsapp/${c.body.id}`, { token: 'a' });
    expect(chosen.status).toBe(400);
    expect(chosen.body).toMatchObject({ field: 'token', message: 'O token é gerado pelo sistema: use o botão Gerar' });
    // Saving without asking keeps the token; asking again replaces it.
    expect((await t.admin.put(`/whatsapp/${c.body.id}`, { name: 'Com token', token: '' })).body).toMatchObject({ hasToken: true, token: '' });
    const again = await t.admin.put(`/whatsapp/${c.body.id}`, { generateToken: true });
    expect(again.body.token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(again.body.token).not.toBe(token);
    // Nothing about another tenant's tokens can be learnt: there is nothing to choose, so no "already in use".
    const other = await tenant();
    const mine = await other.admin.post('/whatsapp', { name: 'Outro', provider: 'sandbox', generateToken: true });
    expect(mine.status).toBe(201);
    expect(mine.body.token).not.toBe(again.body.token);
  });

  it('is admin-only to change, visible to agents, and isolated between tenants', async () => {
    const a = await tenant();
    const b = await tenant();
    const c = await a.admin.post('/whatsapp', { name: 'Privada', provider: 'sandbox' });
    const agent = await member(a.admin);
    expect((await agent.api.get('/whatsapp?session=0')).body.map((x: { id: number }) => x.id)).toEqual([c.body.id]);
    expect((await agent.api.post('/whatsapp', { name: 'Minha' })).status).toBe(403);
    expect((await agent.api.del(`/whatsappsession/${c.body.id}`)).status).toBe(403);
    for (const res of [
      await b.admin.get(`/whatsapp/${c.body.id}`),
      await b.admin.put(`/whatsapp/${c.body.id}`, { name: 'Roubada' }),
      await b.admin.del(`/whatsapp/${c.body.id}`),
      await b.admin.post(`/whatsappsession/${c.body.id}`),
    ]) expect(res.status).toBe(404);
    expect((await b.admin.get('/whatsapp')).body).toEqual([]);
  });

  it('publishes connection changes live to the company', async () => {
    const t = await tenant();
    const ws = await socket(t.adminToken);
    const c = await t.admin.post('/whatsapp', { name: 'Ao vivo', provider: 'sandbox' });
    await ws.waitFor(`company-${t.companyId}-whatsapp`, (d) => d.action === 'create' && d.whatsapp.id === c.body.id);
    await t.admin.put(`/whatsapp/${c.body.id}`, { name: 'Ao vivo 2' });
    await ws.waitFor(`company-${t.companyId}-whatsapp`, (d) => d.action === 'update' && d.whatsapp.name === 'Ao vivo 2');
    await ws.waitFor(`company-${t.companyId}-whatsappSession`, (d) => d.session.id === c.body.id && d.session.status === 'qrcode', 20_000);
    await t.admin.del(`/whatsapp/${c.body.id}`);
    await ws.waitFor(`company-${t.companyId}-whatsapp`, (d) => d.action === 'delete' && d.whatsappId === c.body.id);
    ws.close();
  });

  it('starting a session twice keeps the device: create, "try again" and an immediate scan always end CONNECTED; New QR is explicit', async () => {
    const t = await tenant({ connections: 10 });
    const ws = await socket(t.adminToken);
    const ev = `company-${t.companyId}-whatsappSession`;
    const view = async (id: number) => (await sandbox<{ status: string; qr: string | null }>('GET', `/connections/${id}`)).body;
    for (let round = 0; round < 5; round++) {
      const created = await t.admin.post('/whatsapp', { name: `Loja ${round} ${Date.now()}`, provider: 'sandbox' });
      expect(created.status).toBe(201);
      const id = created.body.id as number;
      // The console's "try again" right after creating (the same session is starting).
      const again = await t.admin.post(`/whatsappsession/${id}`);
      expect(again.status).toBe(200);
      expect(['OPENING', 'qrcode']).toContain(again.body.status);
      await until(async () => (await view(id)).status === 'qr', 'a QR on the phone');
      const scan = await sandbox('POST', `/connections/${id}/scan`);
      expect(scan.status, JSON.stringify(scan.body)).toBe(200);
      await ws.waitFor(ev, (d) => d.session.id === id && d.session.status === 'CONNECTED', 20_000);
      // Still linked and CONNECTED a moment later: no second session dropped the link.
      await new Promise((r) => setTimeout(r, 1000));
      expect((await t.admin.get(`/whatsapp/${id}`)).body.status).toBe('CONNECTED');
      expect((await view(id)).status).toBe('linked');
    }

    // A connected session: "try again" answers it as it is, New QR and a pairing code are refused.
    const id = (await t.admin.get('/whatsapp?session=0')).body[0].id as number;
    const mark = ws.mark();
    const start = await t.admin.post(`/whatsappsession/${id}`);
    expect(start.body.status).toBe('CONNECTED');
    expect((await t.admin.put(`/whatsappsession/${id}`)).body).toMatchObject({ error: 'ERR_WAPP_ALREADY_CONNECTED' });
    expect((await t.admin.post(`/whatsappsession/${id}`, { pairingNumber: '5511977776666' })).status).toBe(409);
    await new Promise((r) => setTimeout(r, 1000));
    expect(ws.frames.slice(mark).some((f) => f.event === ev && f.data.session.id === id && f.data.session.status !== 'CONNECTED')).toBe(false);
    expect((await view(id)).status).toBe('linked');

    // Disconnected, New QR pressed twice: one new QR, and scanning it links.
    expect((await t.admin.del(`/whatsappsession/${id}`)).status).toBe(200);
    await ws.waitFor(ev, (d) => d.session.id === id && d.session.status === 'DISCONNECTED', 20_000);
    const [q1, q2] = await Promise.all([t.admin.put(`/whatsappsession/${id}`), t.admin.put(`/whatsappsession/${id}`)]);
    expect([q1.status, q2.status]).toEqual([200, 200]);
    await until(async () => (await view(id)).status === 'qr', 'the new QR');
    expect((await sandbox('POST', `/connections/${id}/scan`)).status).toBe(200);
    await ws.waitFor(ev, (d) => d.session.id === id && d.session.status === 'CONNECTED', 20_000, mark);
    await new Promise((r) => setTimeout(r, 1000));
    expect((await t.admin.get(`/whatsapp/${id}`)).body.status).toBe('CONNECTED');
    ws.close();
  });
});
