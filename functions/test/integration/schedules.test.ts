import { describe, expect, it } from 'vitest';
import { FILE_CONTENT_MISMATCH, SCHEDULE_MEDIA_REFUSED } from '@balcao/shared';
import { applyStackEnv, member, socket, tenant, uniq } from './client.js';
import { PDF, PNG } from './messages-helpers.js';
import { connected, linkSandboxConnection, sandbox, ticketOf, until } from './pipeline-helpers.js';

/*
 * Scheduled messages (spec 001 §3-§7, server-behaviour §8). Time is moved by giving a schedule a
 * sendAt already past and calling the sweep with the current instant, never by waiting; the
 * stack's schedules worker runs the jobs and the sandbox phone receives the message. The stack's
 * own one-minute sweeper may take a due schedule first: every assertion accepts either sweep.
 */

type Api = Awaited<ReturnType<typeof tenant>>['admin'];

let n = 0;
const customerNumber = () => `5531${String(Date.now() % 1e5).padStart(5, '0')}${String(++n).padStart(4, '0')}`;
const inAnHour = () => new Date(Date.now() + 3_600_000).toISOString();

async function contact(api: Api, name: string, number = customerNumber()) {
  const res = await api.post('/contacts', { name, number });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body as { id: number; name: string; number: string };
}
async function schedule(api: Api, body: Record<string, unknown>) {
  const res = await api.post('/schedules', body);
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body as { id: number; status: string };
}
const fileForm = (data: Buffer, name: string, type: string) => {
  const form = new FormData();
  form.append('file', new Blob([new Uint8Array(data)], { type }), name);
  return form;
};
async function services() {
  applyStackEnv();
  return import('../../src/services/schedules.js');
}

describe('schedules routes', () => {
  it('creates with the dialog rules, searches, updates, attaches png/jpg only, deletes; limits and tenancy', async () => {
    const t = await tenant({ schedules: 3 });
    const ws = await socket(t.adminToken);
    const maria = await contact(t.admin, 'Maria Clara', '5511987001122');
    const joao = await contact(t.admin, 'João Pedro');

    // Validation: the spec's messages, nothing written.
    const sendAt = inAnHour();
    expect((await t.admin.post('/schedules', { contactId: maria.id, sendAt })).body).toMatchObject({ error: 'ERR_VALIDATION', field: 'body', message: 'Obrigatório' });
    expect((await t.admin.post('/schedules', { body: '  oi  ', contactId: maria.id, sendAt })).body).toMatchObject({ field: 'body', message: 'Mensagem muito curta' });
    expect((await t.admin.post('/schedules', { body: 'Lembrete da consulta', sendAt })).body).toMatchObject({ field: 'contactId', message: 'Obrigatório' });
    expect((await t.admin.post('/schedules', { body: 'Lembrete da consulta', contactId: maria.id })).body).toMatchObject({ field: 'sendAt', message: 'Obrigatório' });
    expect((await t.admin.post('/schedules', { body: 'Lembrete da consulta', contactId: maria.id, sendAt: 'amanhã' })).body).toMatchObject({ field: 'sendAt', message: 'Data inválida' });
    expect((await t.admin.post('/schedules', { body: 'Lembrete da consulta', contactId: 999999, sendAt })).status).toBe(404);
    expect((await t.admin.post('/schedules', { body: 'Lembrete da consulta', contactId: maria.id, sendAt, whatsappId: 999999 })).status).toBe(404);
    expect((await t.admin.get('/schedules')).body).toEqual({ schedules: [], count: 0, hasMore: false });

    const mark = ws.mark();
    const made = await t.admin.post('/schedules', { body: 'Olá {{name}}, lembrete da consulta', contactId: maria.id, sendAt, mediaPath: '../other/secret.png' });
    expect(made.status).toBe(201);
    expect(made.body).toMatchObject({
      body: 'Olá {{name}}, lembrete da consulta',
      contactId: maria.id,
      contact: { id: maria.id, name: 'Maria Clara', number: '5511987001122' },
      sendAt,
      sentAt: null,
      status: 'PENDENTE',
      reason: null,
      reasonCode: null,
      reasonParams: null,
      whatsappId: null,
      userId: t.adminUser.id,
      mediaPath: null,
      mediaUrl: null,
    });
    expect(made.body.PK).toBeUndefined();
    expect(made.body.GSI4PK).toBeUndefined();
    const id = made.body.id as number;
    await ws.waitFor(`company-${t.companyId}-schedule`, (d) => d.action === 'create' && d.schedule?.id === id, 20_000, mark);
    expect((await t.admin.get(`/schedules/${id}`)).body).toMatchObject({ id, status: 'PENDENTE' });

    const later = await schedule(t.admin, { body: 'Sua encomenda chegou', contactId: joao.id, sendAt: new Date(Date.now() + 7_200_000).toISOString() });
    // Ordered by send time; search in the contact's name, number and the text.
    const ids = async (q = '') => ((await t.admin.get(`/schedules${q}`)).body.schedules as { id: number }[]).map((s) => s.id);
    expect(await ids()).toEqual([id, later.id]);
    expect(await ids('?searchParam=maria')).toEqual([id]);
    expect(await ids('?searchParam=JOÃO')).toEqual([later.id]);
    expect(await ids('?searchParam=87001')).toEqual([id]);
    expect(await ids('?searchParam=encomenda')).toEqual([later.id]);
    expect(await ids(`?contactId=${joao.id}`)).toEqual([later.id]);
    expect((await t.admin.get('/schedules?pageNumber=0')).body).toMatchObject({ error: 'ERR_VALIDATION', field: 'pageNumber' });

    const m2 = ws.mark();
    const moved = new Date(Date.now() + 10_800_000).toISOString();
    const upd = await t.admin.put(`/schedules/${id}`, { body: 'Lembrete: consulta amanhã', sendAt: moved });
    expect(upd.status).toBe(200);
    expect(upd.body).toMatchObject({ id, body: 'Lembrete: consulta amanhã', sendAt: moved, status: 'PENDENTE' });
    await ws.waitFor(`company-${t.companyId}-schedule`, (d) => d.action === 'update' && d.schedule?.body === 'Lembrete: consulta amanhã', 20_000, m2);
    expect((await t.admin.put(`/schedules/${id}`, { body: 'abc' })).body).toMatchObject({ field: 'body', message: 'Mensagem muito curta' });
    expect((await t.admin.put(`/schedules/${id}`, { sendAt: 'x' })).body).toMatchObject({ field: 'sendAt', message: 'Data inválida' });
    expect((await t.admin.get(`/schedules/${id}`)).body).toMatchObject({ body: 'Lembrete: consulta amanhã', sendAt: moved });
    expect(await ids()).toEqual([later.id, id]);

    // Attachments: png, jpg, jpeg only, checked by their bytes too.
    const pdf = await t.admin.form('POST', `/schedules/${id}/media-upload`, fileForm(PDF, 'boleto.pdf', 'application/pdf'));
    expect(pdf.status).toBe(400);
    expect(pdf.body).toMatchObject({ field: 'file', message: SCHEDULE_MEDIA_REFUSED });
    const fake = await t.admin.form('POST', `/schedules/${id}/media-upload`, fileForm(PDF, 'foto.png', 'image/png'));
    expect(fake.body).toMatchObject({ field: 'file', message: FILE_CONTENT_MISMATCH });
    expect((await t.admin.form('POST', `/schedules/${id}/media-upload`, new FormData())).body).toMatchObject({ field: 'file', message: 'Obrigatório' });
    const up = await t.admin.form('POST', `/schedules/${id}/media-upload`, fileForm(PNG, 'cartão consulta.png', 'image/png'));
    expect(up.status).toBe(200);
    expect(up.body).toMatchObject({ mediaName: 'cartão_consulta.png' });
    expect(up.body.mediaPath).toMatch(/\.png$/);
    const img = await fetch(up.body.mediaUrl);
    expect(img.status).toBe(200);
    expect(Buffer.from(await img.arrayBuffer()).equals(PNG)).toBe(true);
    const unattached = await t.admin.del(`/schedules/${id}/media-upload`);
    expect(unattached.status).toBe(200);
    expect(unattached.body).toMatchObject({ mediaName: null, mediaPath: null, mediaUrl: null });

    // The plan's limit (3): the fourth is refused with the spec's message; deleting frees a slot.
    const third = await schedule(t.admin, { body: 'Terceiro agendamento', contactId: joao.id, sendAt });
    const over = await t.admin.post('/schedules', { body: 'Quarto agendamento', contactId: joao.id, sendAt });
    expect(over.status).toBe(400);
    expect(over.body).toMatchObject({ error: 'ERR_PLAN_LIMIT', message: 'Número máximo de agendamentos já alcançado: 3' });
    const m3 = ws.mark();
    expect((await t.admin.del(`/schedules/${third.id}`)).status).toBe(204);
    await ws.waitFor(`company-${t.companyId}-schedule`, (d) => d.action === 'delete' && d.scheduleId === third.id, 20_000, m3);
    expect((await t.admin.get(`/schedules/${third.id}`)).status).toBe(404);
    expect((await t.admin.del(`/schedules/${third.id}`)).status).toBe(404);
    await schedule(t.admin, { body: 'Quarto agendamento', contactId: joao.id, sendAt });

    // Another tenant: 404 everywhere, nothing listed, nothing changed.
    const stranger = await tenant();
    expect((await stranger.admin.get(`/schedules/${id}`)).status).toBe(404);
    expect((await stranger.admin.put(`/schedules/${id}`, { body: 'Invadido agora' })).status).toBe(404);
    expect((await stranger.admin.del(`/schedules/${id}`)).status).toBe(404);
    expect((await stranger.admin.form('POST', `/schedules/${id}/media-upload`, fileForm(PNG, 'a.png', 'image/png'))).status).toBe(404);
    expect((await stranger.admin.del(`/schedules/${id}/media-upload`)).status).toBe(404);
    expect((await stranger.admin.get('/schedules')).body).toEqual({ schedules: [], count: 0, hasMore: false });
    // Its own schedule cannot name our contact.
    expect((await stranger.admin.post('/schedules', { body: 'Olá de fora', contactId: maria.id, sendAt })).status).toBe(404);
    expect((await t.admin.get(`/schedules/${id}`)).body.body).toBe('Lembrete: consulta amanhã');
    ws.close();
  });

  it('is refused when the plan has no schedules', async () => {
    const t = await tenant({ useSchedules: false });
    const c = await contact(t.admin, 'Ana Lima');
    for (const res of [
      await t.admin.get('/schedules'),
      await t.admin.post('/schedules', { body: 'Lembrete da consulta', contactId: c.id, sendAt: inAnHour() }),
      await t.admin.get('/schedules/1'),
      await t.admin.del('/schedules/1'),
    ]) {
      expect(res.status).toBe(403);
      expect(res.body).toMatchObject({ error: 'ERR_PLAN_FEATURE_DISABLED' });
    }
  });

  it('Nível 1 and 2 see and change their own schedules; admins and Nível 3 all of them; events follow', async () => {
    const t = await tenant();
    const ana = await member(t.admin, { name: 'Ana', profile: 'Nível 1' });
    const bia = await member(t.admin, { name: 'Bia', profile: 'Nível 1' });
    const caio = await member(t.admin, { name: 'Caio', profile: 'Nível 3' });
    const [wsAna, wsBia, wsCaio, wsAdmin] = await Promise.all([socket(ana.token), socket(bia.token), socket(caio.token), socket(t.adminToken)]);
    const ev = `company-${t.companyId}-schedule`;
    const c = await contact(t.admin, 'Cliente Fiel');

    const marks = [wsAna.mark(), wsBia.mark(), wsCaio.mark(), wsAdmin.mark()];
    const own = await schedule(ana.api, { body: 'Mensagem da Ana', contactId: c.id, sendAt: inAnHour() });
    await wsAna.waitFor(ev, (d) => d.schedule?.id === own.id, 20_000, marks[0]);
    await wsCaio.waitFor(ev, (d) => d.schedule?.id === own.id, 20_000, marks[2]);
    await wsAdmin.waitFor(ev, (d) => d.schedule?.id === own.id, 20_000, marks[3]);
    const biaOwn = await schedule(bia.api, { body: 'Mensagem da Bia', contactId: c.id, sendAt: inAnHour() });
    // Bia's own event came after Ana's would have: Ana's never reached her.
    await wsBia.waitFor(ev, (d) => d.schedule?.id === biaOwn.id, 20_000, marks[1]);
    expect(wsBia.frames.slice(marks[1]).some((f) => f.event === ev && f.data.schedule?.id === own.id)).toBe(false);

    const listed = async (api: Api) => ((await api.get('/schedules')).body.schedules as { id: number }[]).map((s) => s.id).sort((a, b) => a - b);
    expect(await listed(ana.api)).toEqual([own.id]);
    expect(await listed(bia.api)).toEqual([biaOwn.id]);
    expect(await listed(caio.api)).toEqual([own.id, biaOwn.id].sort((a, b) => a - b));
    expect(await listed(t.admin)).toEqual([own.id, biaOwn.id].sort((a, b) => a - b));

    expect((await bia.api.get(`/schedules/${own.id}`)).status).toBe(404);
    expect((await bia.api.put(`/schedules/${own.id}`, { body: 'Mudado pela Bia' })).status).toBe(404);
    expect((await bia.api.del(`/schedules/${own.id}`)).status).toBe(404);
    expect((await bia.api.form('POST', `/schedules/${own.id}/media-upload`, fileForm(PNG, 'a.png', 'image/png'))).status).toBe(404);
    expect((await ana.api.put(`/schedules/${own.id}`, { body: 'Mensagem da Ana, revista' })).status).toBe(200);
    expect((await caio.api.put(`/schedules/${own.id}`, { body: 'Revisada pelo supervisor' })).status).toBe(200);
    expect((await t.admin.del(`/schedules/${biaOwn.id}`)).status).toBe(204);
    expect((await ana.api.get(`/schedules/${own.id}`)).body.body).toBe('Revisada pelo supervisor');
    for (const w of [wsAna, wsBia, wsCaio, wsAdmin]) w.close();
  });
});

describe('schedule dispatch (server-behaviour §8)', () => {
  it('a schedule saved within its last minute is handed over after the save and goes within 5 s of its time, with no sweep', async () => {
    const t = await connected();
    const c = await contact(t.admin, 'Paula Dias');
    const sendAt = new Date(Math.ceil((Date.now() + 8_000) / 1000) * 1000);
    const mark = t.ws.mark();
    const s = await schedule(t.admin, { body: 'Na hora certa', contactId: c.id, sendAt: sendAt.toISOString() });
    // Its handoff job went with the save (5 s later): AGENDADA before any sweep, the send waiting in SQS for its second.
    await t.ws.waitFor(`company-${t.companyId}-schedule`, (d) => d.schedule?.id === s.id && d.schedule.status === 'AGENDADA', 10_000, mark);
    const sent = await t.ws.waitFor(`company-${t.companyId}-schedule`, (d) => d.schedule?.id === s.id && d.schedule.status === 'ENVIADA', 30_000, mark);
    const late = Date.parse(sent.data.schedule.sentAt) - sendAt.getTime();
    expect(late).toBeGreaterThanOrEqual(-1_000);
    expect(late).toBeLessThan(5_000);
    t.ws.close();
  });

  it('a schedule saved beyond its timer\'s minute goes within 5 s of its time by itself (its timer, or the sweeper as the net)', { timeout: 120_000 }, async () => {
    const t = await connected();
    const c = await contact(t.admin, 'Paulo Dias');
    const sendAt = new Date(Math.ceil((Date.now() + 65_000) / 1000) * 1000);
    const mark = t.ws.mark();
    const s = await schedule(t.admin, { body: 'Na hora certa, sem ajuda', contactId: c.id, sendAt: sendAt.toISOString() });
    const sent = await t.ws.waitFor(`company-${t.companyId}-schedule`, (d) => d.schedule?.id === s.id && d.schedule.status === 'ENVIADA', 100_000, mark);
    const late = Date.parse(sent.data.schedule.sentAt) - sendAt.getTime();
    expect(late).toBeGreaterThanOrEqual(-1_000);
    expect(late).toBeLessThan(5_000);
    t.ws.close();
  });

  it('a due schedule is sent once in the contact ticket, variables filled, with its image; ENVIADA live; then read-only', async () => {
    const t = await connected();
    const { sweepSchedules, runScheduleJob } = await services();
    const c = await contact(t.admin, 'Renata Souza');
    const future = await schedule(t.admin, { body: 'Ainda não é hora', contactId: c.id, sendAt: inAnHour() });
    const s = await schedule(t.admin, { body: 'Olá {{name}}, sua consulta é amanhã às 9h.', contactId: c.id, sendAt: new Date(Date.now() - 1000).toISOString() });
    expect((await t.admin.form('POST', `/schedules/${s.id}/media-upload`, fileForm(PNG, 'mapa.png', 'image/png'))).status).toBe(200);

    const mark = t.ws.mark();
    const jobs = (await sweepSchedules(Date.now())).filter((j) => j.companyId === t.companyId);
    // Either this sweep or the stack's own took it; the future one stays.
    expect(jobs.map((j) => j.scheduleId).filter((id) => id !== s.id)).toEqual([]);
    const sent = await t.ws.waitFor(`company-${t.companyId}-schedule`, (d) => d.schedule?.id === s.id && d.schedule.status === 'ENVIADA', 30_000, mark);
    expect(sent.data.schedule.sentAt).toBeTruthy();
    expect(sent.data.schedule.whatsappId).toBe(t.connectionId);
    const text = 'Olá Renata Souza, sua consulta é amanhã às 9h.';
    const onPhone = await until(async () => {
      const conv = (await sandbox<any[]>('GET', `/connections/${t.connectionId}/messages?peer=${c.number}`)).body;
      const found = conv.filter((m) => m.fromMe && m.body === text);
      return found.length ? found : undefined;
    }, 'the scheduled message on the phone');
    expect(onPhone[0].mediaType).toBe('image');
    // In the contact's ticket, like an agent's message.
    const one = (await t.admin.get(`/schedules/${s.id}`)).body;
    expect(one).toMatchObject({ status: 'ENVIADA', reason: null });
    const msgs = (await t.admin.get(`/messages/${one.ticketId}`)).body.messages as { body: string; fromMe: boolean }[];
    expect(msgs.some((m) => m.fromMe && m.body === text)).toBe(true);
    expect((await t.admin.get(`/schedules/${future.id}`)).body.status).toBe('PENDENTE');

    // The job again, and another sweep: nothing more is sent.
    expect(await runScheduleJob({ v: 1, companyId: t.companyId, scheduleId: s.id })).toBe('skipped');
    expect((await sweepSchedules(Date.now())).some((j) => j.scheduleId === s.id && j.companyId === t.companyId)).toBe(false);
    await new Promise((r) => setTimeout(r, 1500));
    const conv = (await sandbox<any[]>('GET', `/connections/${t.connectionId}/messages?peer=${c.number}`)).body;
    expect(conv.filter((m) => m.fromMe && m.body === text)).toHaveLength(1);

    // Sent: read-only.
    const edit = await t.admin.put(`/schedules/${s.id}`, { body: 'Outro texto qualquer' });
    expect(edit.status).toBe(400);
    expect(edit.body).toMatchObject({ field: 'sentAt' });
    expect((await t.admin.form('POST', `/schedules/${s.id}/media-upload`, fileForm(PNG, 'b.png', 'image/png'))).status).toBe(400);
    expect((await t.admin.del(`/schedules/${s.id}/media-upload`)).status).toBe(400);
    expect((await t.admin.get(`/schedules/${s.id}`)).body.body).toBe('Olá {{name}}, sua consulta é amanhã às 9h.');
    t.ws.close();
  });

  it('ERRO with the reason for a number not on WhatsApp and for a connection that is not connected; editing schedules it again', async () => {
    const t = await connected();
    const { sweepSchedules } = await services();
    const ghostNumber = customerNumber();
    await sandbox('PUT', `/phones/${ghostNumber}`, { onWhatsApp: false });
    const ghost = await contact(t.admin, 'Sem Zap', ghostNumber);
    const offline = await t.admin.post('/whatsapp', { name: uniq('Parada '), provider: 'sandbox' });
    expect(offline.status).toBe(201);
    const c = await contact(t.admin, 'Paulo Reis');
    const past = new Date(Date.now() - 1000).toISOString();
    const a = await schedule(t.admin, { body: 'Mensagem para ninguém', contactId: ghost.id, sendAt: past });
    const b = await schedule(t.admin, { body: 'Mensagem pela conexão parada', contactId: c.id, sendAt: past, whatsappId: offline.body.id });

    const mark = t.ws.mark();
    await sweepSchedules(Date.now());
    const ev = `company-${t.companyId}-schedule`;
    const errA = await t.ws.waitFor(ev, (d) => d.schedule?.id === a.id && d.schedule.status === 'ERRO', 30_000, mark);
    expect(errA.data.schedule.reason).toBe('O número não está no WhatsApp');
    // The code the console translates (pt/en/es), next to the Portuguese text.
    expect(errA.data.schedule).toMatchObject({ reasonCode: 'NOT_ON_WHATSAPP', reasonParams: null });
    expect(errA.data.schedule.sentAt).toBeNull();
    const errB = await t.ws.waitFor(ev, (d) => d.schedule?.id === b.id && d.schedule.status === 'ERRO', 30_000, mark);
    expect(errB.data.schedule.reason).toBe(`A conexão ${offline.body.name} não está conectada`);
    expect(errB.data.schedule).toMatchObject({ reasonCode: 'CONNECTION_DOWN', reasonParams: { connection: offline.body.name } });
    expect((await t.admin.get(`/schedules/${b.id}`)).body).toMatchObject({ status: 'ERRO', reasonCode: 'CONNECTION_DOWN' });
    const conv = (await sandbox<any[]>('GET', `/connections/${t.connectionId}/messages?peer=${c.number}`)).body;
    expect(conv.some((m) => m.body === 'Mensagem pela conexão parada')).toBe(false);

    // Fixing it (another connection, a new time) puts it back to PENDENTE without the reason.
    const fixed = await t.admin.put(`/schedules/${b.id}`, { whatsappId: t.connectionId, sendAt: inAnHour() });
    expect(fixed.status).toBe(200);
    expect(fixed.body).toMatchObject({ status: 'PENDENTE', reason: null, reasonCode: null, reasonParams: null, whatsappId: t.connectionId });
    t.ws.close();
  });

  it('goes out on the connection of the ticket it was made from, in that ticket (reopened when closed); "default" is the user\'s then the company\'s', async () => {
    const t = await connected(); // the tenant's first connection: the company's default
    const { sweepSchedules } = await services();
    const centro = await linkSandboxConnection(t, t.ws, uniq('Loja Centro '));
    const number = customerNumber();
    expect((await sandbox('POST', `/connections/${centro.id}/messages`, { from: number, name: 'Cliente Centro', body: 'Oi, loja do centro' })).status).toBeLessThan(300);
    const ticket = await ticketOf(t, number);
    const contactId = (await t.admin.get(`/tickets/${ticket.id}`)).body.contactId as number;
    const phone = async (connectionId: number) => (await sandbox<any[]>('GET', `/connections/${connectionId}/messages?peer=${number}`)).body.filter((m) => m.fromMe);
    const ev = `company-${t.companyId}-schedule`;
    const dueNow = () => new Date(Date.now() - 1000).toISOString();
    const sendDue = async (id: number) => {
      const mark = t.ws.mark();
      await sweepSchedules(Date.now());
      return (await t.ws.waitFor(ev, (d) => d.schedule?.id === id && d.schedule.status !== 'PENDENTE' && d.schedule.status !== 'AGENDADA', 30_000, mark)).data.schedule;
    };

    // From the ticket screen without naming a connection: the ticket's connection, the ticket's conversation.
    const fromTicket = await t.admin.post('/schedules', { body: 'Seu pedido saiu para entrega', contactId, sendAt: dueNow(), ticketId: ticket.id });
    expect(fromTicket.status, JSON.stringify(fromTicket.body)).toBe(201);
    expect(fromTicket.body).toMatchObject({ whatsappId: centro.id, whatsapp: { id: centro.id, name: centro.name }, ticketId: ticket.id });
    expect(await sendDue(fromTicket.body.id)).toMatchObject({ status: 'ENVIADA', whatsappId: centro.id, ticketId: ticket.id });
    expect((await phone(centro.id)).map((m) => m.body)).toContain('Seu pedido saiu para entrega');
    expect(await phone(t.connectionId)).toEqual([]);
    const open = (await t.admin.get(`/tickets?status=pending&showAll=true`)).body.tickets as { id: number; contactId: number }[];
    expect(open.filter((x) => x.contactId === contactId).map((x) => x.id)).toEqual([ticket.id]);

    // Closed meanwhile: reopened by the inbound rule (closed less than two hours ago), not a second ticket.
    const later = await t.admin.post('/schedules', { body: 'Lembrete: retire na loja', contactId, sendAt: inAnHour(), ticketId: ticket.id });
    expect(later.status).toBe(201);
    expect((await t.admin.put(`/tickets/${ticket.id}`, { status: 'closed', isJustFinish: true })).status).toBe(200);
    expect((await t.admin.put(`/schedules/${later.body.id}`, { sendAt: dueNow() })).status).toBe(200);
    expect(await sendDue(later.body.id)).toMatchObject({ status: 'ENVIADA', whatsappId: centro.id, ticketId: ticket.id });
    expect((await t.admin.get(`/tickets/${ticket.id}`)).body.status).toBe('pending');
    expect(await phone(t.connectionId)).toEqual([]);

    // "Conexão padrão" chosen in the dialog of that ticket (whatsappId null) means the default connection.
    const chosenDefault = await t.admin.post('/schedules', { body: 'Aviso pela conexão padrão', contactId, sendAt: inAnHour(), whatsappId: null, ticketId: ticket.id });
    expect(chosenDefault.status).toBe(201);
    expect(chosenDefault.body).toMatchObject({ whatsappId: null, ticketId: ticket.id });
    expect((await t.admin.del(`/schedules/${chosenDefault.body.id}`)).status).toBe(204);

    // A ticket of another contact, or one this tenant does not have: refused, nothing stored.
    const other = await contact(t.admin, 'Outra Pessoa');
    expect((await t.admin.post('/schedules', { body: 'Mensagem trocada', contactId: other.id, sendAt: inAnHour(), ticketId: ticket.id })).body).toMatchObject({ field: 'ticketId' });
    const stranger = await tenant();
    const theirs = await contact(stranger.admin, 'Cliente Deles');
    expect((await stranger.admin.post('/schedules', { body: 'Mensagem de fora', contactId: theirs.id, sendAt: inAnHour(), ticketId: ticket.id })).status).toBe(404);

    // "Conexão padrão" from the schedules page: the scheduling user's own default connection, else the company's.
    expect((await t.admin.put(`/users/${t.adminUser.id}`, { whatsappId: centro.id })).status).toBe(200);
    const fresh = await contact(t.admin, 'Cliente Novo');
    const byDefault = await schedule(t.admin, { body: 'Bem-vindo à loja do centro', contactId: fresh.id, sendAt: dueNow() });
    expect(await sendDue(byDefault.id)).toMatchObject({ status: 'ENVIADA', whatsappId: centro.id });
    const viaCentro = (await sandbox<any[]>('GET', `/connections/${centro.id}/messages?peer=${fresh.number}`)).body;
    expect(viaCentro.map((m) => m.body)).toContain('Bem-vindo à loja do centro');
    // The new-ticket dialog's default is the same rule.
    const agentTicket = await t.admin.post('/tickets', { contactId: other.id, status: 'open' });
    expect(agentTicket.status, JSON.stringify(agentTicket.body)).toBe(201);
    expect(agentTicket.body.whatsappId).toBe(centro.id);
    t.ws.close();
  });
});
