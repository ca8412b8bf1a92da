import { describe, expect, it } from 'vitest';
import { FILE_CONTENT_MISMATCH, FILE_TYPE_NOT_ALLOWED } from '@balcao/shared';
import { member, socket, tenant } from './client.js';
import { PDF, PNG } from './messages-helpers.js';

type Api = Awaited<ReturnType<typeof tenant>>['admin'];

const codes = (list: { shortcode: string }[]) => list.map((m) => m.shortcode).sort();
const mk = async (api: Api, body: Record<string, unknown>) => {
  const res = await api.post('/quick-messages', body);
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body as { id: number; shortcode: string };
};
const fileForm = (data: Buffer, name: string, type: string, typeArch: string | null = 'quickMessage') => {
  const form = new FormData();
  if (typeArch !== null) form.append('typeArch', typeArch);
  form.append('file', new Blob([new Uint8Array(data)], { type }), name);
  return form;
};

describe('quick replies routes', () => {
  it('creates with the dialog rules, shortcodes unique per owner, updates, pages, deletes; other tenants get 404', async () => {
    const t = await tenant();
    const ws = await socket(t.adminToken);
    // Validation: the spec's message, nothing written.
    expect((await t.admin.post('/quick-messages', { message: 'Olá' })).body).toMatchObject({ error: 'ERR_VALIDATION', field: 'shortcode', message: 'Obrigatório' });
    expect((await t.admin.post('/quick-messages', { shortcode: '   ', message: 'Olá' })).body).toMatchObject({ field: 'shortcode', message: 'Obrigatório' });
    expect((await t.admin.post('/quick-messages', { shortcode: 'x'.repeat(51) })).body).toMatchObject({ error: 'ERR_VALIDATION', field: 'shortcode' });
    expect((await t.admin.get('/quick-messages')).body).toEqual({ records: [], count: 0, hasMore: false });

    const mark = ws.mark();
    const made = await t.admin.post('/quick-messages', { shortcode: ' ola ', message: 'Olá, *tudo bem*?', mediaPath: '../../other-company/secret.png' });
    expect(made.status).toBe(201);
    expect(made.body).toMatchObject({
      shortcode: 'ola',
      message: 'Olá, *tudo bem*?',
      geral: false,
      status: true,
      isMedia: false,
      mediaPath: null,
      mediaName: null,
      mediaUrl: null,
      userId: t.adminUser.id,
    });
    expect(made.body.PK).toBeUndefined();
    expect(made.body.mediaKey).toBeUndefined();
    const id = made.body.id as number;
    const ev = await ws.waitFor(`company-${t.companyId}-quickmessage`, (d) => d.action === 'create' && d.record?.id === id, 20_000, mark);
    expect(ev.data.record.shortcode).toBe('ola');
    expect((await t.admin.get(`/quick-messages/${id}`)).body).toMatchObject({ id, shortcode: 'ola' });
    // A message may be empty (an attachment alone).
    expect((await t.admin.post('/quick-messages', { shortcode: 'vazio' })).body.message).toBe('');

    // The same owner cannot repeat a shortcode, whatever its case.
    const dup = await t.admin.post('/quick-messages', { shortcode: 'OLA', message: 'outra' });
    expect(dup.status).toBe(409);
    expect(dup.body).toMatchObject({ error: 'ERR_DUPLICATED_SHORTCODE', field: 'shortcode' });
    expect((await t.admin.get('/quick-messages')).body.count).toBe(2);

    const m2 = ws.mark();
    const upd = await t.admin.put(`/quick-messages/${id}`, { shortcode: 'bomdia', message: 'Bom dia!', status: false });
    expect(upd.status).toBe(200);
    expect(upd.body).toMatchObject({ id, shortcode: 'bomdia', message: 'Bom dia!', status: false });
    await ws.waitFor(`company-${t.companyId}-quickmessage`, (d) => d.action === 'update' && d.record?.shortcode === 'bomdia', 20_000, m2);
    expect((await t.admin.put(`/quick-messages/${id}`, { shortcode: '' })).body).toMatchObject({ field: 'shortcode', message: 'Obrigatório' });
    expect((await t.admin.put(`/quick-messages/${id}`, { shortcode: 'Vazio' })).body).toMatchObject({ error: 'ERR_DUPLICATED_SHORTCODE' });
    expect((await t.admin.get(`/quick-messages/${id}`)).body).toMatchObject({ shortcode: 'bomdia', message: 'Bom dia!' });
    // The old shortcode is free again; the new one is taken.
    const reuse = await mk(t.admin, { shortcode: 'ola', message: 'De novo' });
    expect((await t.admin.post('/quick-messages', { shortcode: 'BomDia' })).status).toBe(409);

    // Pages of 20 in shortcode order; search on shortcode and text.
    for (let i = 0; i < 19; i++) await mk(t.admin, { shortcode: `p${String(i).padStart(2, '0')}`, message: `Texto número ${i}` });
    const p1 = await t.admin.get('/quick-messages');
    expect(p1.body).toMatchObject({ count: 22, hasMore: true });
    expect(p1.body.records).toHaveLength(20);
    expect(p1.body.records[0].shortcode).toBe('bomdia');
    const p2 = await t.admin.get('/quick-messages?pageNumber=2');
    expect(p2.body).toMatchObject({ count: 22, hasMore: false });
    expect(codes(p2.body.records)).toEqual(['p18', 'vazio']);
    expect(codes((await t.admin.get('/quick-messages?searchParam=NUMERO 1')).body.records)).toEqual(['p01', 'p10', 'p11', 'p12', 'p13', 'p14', 'p15', 'p16', 'p17', 'p18']);
    expect(codes((await t.admin.get('/quick-messages?searchParam=bom')).body.records)).toEqual(['bomdia']);
    expect((await t.admin.get('/quick-messages?pageNumber=x')).body).toMatchObject({ error: 'ERR_VALIDATION', field: 'pageNumber' });
    // The composer's list leaves out inactive replies.
    const composer = await t.admin.get('/quick-messages/list');
    expect(composer.body).toHaveLength(21);
    expect(codes(composer.body)).not.toContain('bomdia');

    const stranger = await tenant();
    expect((await stranger.admin.get(`/quick-messages/${id}`)).status).toBe(404);
    expect((await stranger.admin.put(`/quick-messages/${id}`, { message: 'Hack' })).status).toBe(404);
    expect((await stranger.admin.del(`/quick-messages/${id}`)).status).toBe(404);
    expect((await stranger.admin.form('POST', `/quick-messages/${id}/media-upload`, fileForm(PNG, 'a.png', 'image/png'))).status).toBe(404);
    expect((await stranger.admin.del(`/quick-messages/${id}/media-upload`)).status).toBe(404);
    expect((await stranger.admin.get('/quick-messages')).body).toEqual({ records: [], count: 0, hasMore: false });
    expect((await stranger.admin.get('/quick-messages/list')).body).toEqual([]);
    expect((await stranger.admin.get(`/quick-messages/list?companyId=${t.companyId}`)).body).toEqual([]);
    // Shortcodes are per owner: another company (and another user) may use the same.
    expect((await stranger.admin.post('/quick-messages', { shortcode: 'ola' })).status).toBe(201);
    expect((await t.admin.get(`/quick-messages/${id}`)).body.message).toBe('Bom dia!');

    const m3 = ws.mark();
    expect((await t.admin.del(`/quick-messages/${reuse.id}`)).status).toBe(204);
    const gone = await ws.waitFor(`company-${t.companyId}-quickmessage`, (d) => d.action === 'delete', 20_000, m3);
    expect(gone.data.id).toBe(reuse.id);
    expect((await t.admin.get(`/quick-messages/${reuse.id}`)).status).toBe(404);
    expect((await t.admin.del(`/quick-messages/${reuse.id}`)).status).toBe(404);
    // Deleting frees the shortcode.
    expect((await t.admin.post('/quick-messages', { shortcode: 'ola' })).status).toBe(201);
    ws.close();
  });

  it('company replies reach everyone, personal ones their owner; only the owner or an admin changes them', async () => {
    const t = await tenant();
    const ana = await member(t.admin, { name: 'Ana', profile: 'Nível 1' });
    const bia = await member(t.admin, { name: 'Bia', profile: 'Nível 3' });
    const [wsAna, wsBia, wsAdmin] = await Promise.all([socket(ana.token), socket(bia.token), socket(t.adminToken)]);
    const ev = `company-${t.companyId}-quickmessage`;

    const anaOwn = await mk(ana.api, { shortcode: 'minha', message: 'Só da Ana' });
    const anaAll = await mk(ana.api, { shortcode: 'todos', message: 'Para todos', geral: true });
    const biaOwn = await mk(bia.api, { shortcode: 'minha', message: 'Só da Bia' });
    const adminAll = await mk(t.admin, { shortcode: 'empresa', message: 'Da empresa', geral: 'true' });
    const adminOwn = await mk(t.admin, { shortcode: 'admin', message: 'Do admin' });

    // Events: a company reply reaches everyone; a personal one only its owner.
    await wsBia.waitFor(ev, (d) => d.action === 'create' && d.record?.id === anaAll.id);
    await wsAna.waitFor(ev, (d) => d.action === 'create' && d.record?.id === adminAll.id);
    await wsAdmin.waitFor(ev, (d) => d.action === 'create' && d.record?.id === adminOwn.id);
    await wsAna.waitFor(ev, (d) => d.action === 'create' && d.record?.id === anaOwn.id);
    await wsBia.waitFor(ev, (d) => d.action === 'create' && d.record?.id === biaOwn.id);
    await wsBia.waitFor(ev, (d) => d.action === 'create' && d.record?.id === adminAll.id);
    const seen = (s: typeof wsAna) => s.frames.filter((f) => f.event === ev).map((f) => f.data.record?.id);
    expect(seen(wsBia)).not.toContain(anaOwn.id);
    expect(seen(wsBia)).not.toContain(adminOwn.id);
    expect(seen(wsAna)).not.toContain(biaOwn.id);
    expect(seen(wsAna)).not.toContain(adminOwn.id);

    const list = async (api: Api, qs = '') => {
      const res = await api.get(`/quick-messages${qs}`);
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      return (res.body.records ?? res.body).map((m: { id: number }) => m.id).sort((a: number, b: number) => a - b);
    };
    const sorted = (...xs: { id: number }[]) => xs.map((x) => x.id).sort((a, b) => a - b);
    expect(await list(ana.api)).toEqual(sorted(anaOwn, anaAll, adminAll));
    expect(await list(bia.api)).toEqual(sorted(anaAll, biaOwn, adminAll));
    expect(await list(t.admin)).toEqual(sorted(anaOwn, anaAll, biaOwn, adminAll, adminOwn));
    expect(await list(t.admin, `?userId=${ana.id}`)).toEqual(sorted(anaOwn, anaAll, adminAll));
    // An agent cannot look into someone else's replies with userId.
    expect(await list(bia.api, `?userId=${ana.id}`)).toEqual(sorted(anaAll, biaOwn, adminAll));
    expect(await list(ana.api, '/list')).toEqual(sorted(anaOwn, anaAll, adminAll));
    expect(await list(bia.api, `/list?userId=${ana.id}`)).toEqual(sorted(anaAll, biaOwn, adminAll));
    expect(await list(t.admin, '/list')).toEqual(sorted(anaAll, adminAll, adminOwn));
    expect(await list(t.admin, `/list?userId=${bia.id}`)).toEqual(sorted(anaAll, biaOwn, adminAll));

    expect((await bia.api.get(`/quick-messages/${anaOwn.id}`)).status).toBe(404);
    expect((await bia.api.get(`/quick-messages/${anaAll.id}`)).status).toBe(200);
    expect((await t.admin.get(`/quick-messages/${anaOwn.id}`)).body.message).toBe('Só da Ana');

    // Only the owner or an admin edits or deletes; a company reply is visible, not editable.
    expect((await bia.api.put(`/quick-messages/${anaAll.id}`, { message: 'Mudei' })).status).toBe(403);
    expect((await bia.api.del(`/quick-messages/${anaAll.id}`)).status).toBe(403);
    expect((await bia.api.form('POST', `/quick-messages/${anaAll.id}/media-upload`, fileForm(PNG, 'a.png', 'image/png'))).status).toBe(403);
    expect((await bia.api.put(`/quick-messages/${anaOwn.id}`, { message: 'Mudei' })).status).toBe(404);
    expect((await bia.api.del(`/quick-messages/${anaOwn.id}`)).status).toBe(404);
    expect((await ana.api.put(`/quick-messages/${adminAll.id}`, { message: 'Mudei' })).status).toBe(403);
    expect((await ana.api.get(`/quick-messages/${anaAll.id}`)).body.message).toBe('Para todos');
    expect((await ana.api.put(`/quick-messages/${anaAll.id}`, { message: 'Para todos!' })).body.message).toBe('Para todos!');
    // An admin edits an agent's reply; the shortcode stays unique among the agent's own.
    expect((await t.admin.put(`/quick-messages/${anaOwn.id}`, { message: 'Revisto' })).body).toMatchObject({ message: 'Revisto', userId: ana.id });
    expect((await t.admin.put(`/quick-messages/${anaOwn.id}`, { shortcode: 'todos' })).body).toMatchObject({ error: 'ERR_DUPLICATED_SHORTCODE' });
    expect((await t.admin.put(`/quick-messages/${anaOwn.id}`, { shortcode: 'empresa' })).status).toBe(200);
    expect((await ana.api.post('/quick-messages', { shortcode: 'Empresa' })).status).toBe(409);

    // A company reply made personal leaves the others' lists and is announced to them as gone.
    const mark = wsBia.mark();
    expect((await ana.api.put(`/quick-messages/${anaAll.id}`, { geral: false })).body.geral).toBe(false);
    await wsBia.waitFor(ev, (d) => d.action === 'delete' && d.id === anaAll.id, 20_000, mark);
    expect(await list(bia.api)).toEqual(sorted(biaOwn, adminAll));
    expect((await bia.api.get(`/quick-messages/${anaAll.id}`)).status).toBe(404);

    expect((await t.admin.del(`/quick-messages/${biaOwn.id}`)).status).toBe(204);
    expect(await list(bia.api)).toEqual(sorted(adminAll));
    // Her shortcode is free again.
    expect((await bia.api.post('/quick-messages', { shortcode: 'minha' })).status).toBe(201);
    for (const s of [wsAna, wsBia, wsAdmin]) s.close();
  });

  it('attachments: real images accepted, other types refused, names with underscores, readable URL, removal', async () => {
    const t = await tenant();
    const owner = await member(t.admin, { profile: 'Nível 1' });
    const ws = await socket(owner.token);
    const qm = await mk(owner.api, { shortcode: 'catalogo', message: 'Nosso catálogo' });
    const url = `/quick-messages/${qm.id}/media-upload`;

    // Refused: nothing stored.
    const fake = await owner.api.form('POST', url, fileForm(Buffer.from('not really a png'), 'foto.png', 'image/png'));
    expect(fake.status).toBe(400);
    expect(fake.body.fields[0]).toEqual({ field: 'file', message: FILE_CONTENT_MISMATCH });
    // Documents follow the message rules (any application/* goes as a document); a web page does not.
    const html = await owner.api.form('POST', url, fileForm(Buffer.from('<script>alert(1)</script>'), 'pagina.html', 'text/html'));
    expect(html.status).toBe(400);
    expect(html.body.fields[0]).toEqual({ field: 'file', message: FILE_TYPE_NOT_ALLOWED });
    expect((await owner.api.form('POST', url, fileForm(PNG, 'a.png', 'image/png', 'contact'))).body).toMatchObject({ error: 'ERR_VALIDATION', field: 'typeArch' });
    const noFile = new FormData();
    noFile.append('typeArch', 'quickMessage');
    expect((await owner.api.form('POST', url, noFile)).body).toMatchObject({ error: 'ERR_VALIDATION', field: 'file' });
    expect((await owner.api.form('POST', '/quick-messages/999999/media-upload', fileForm(PNG, 'a.png', 'image/png'))).status).toBe(404);
    expect((await owner.api.get(`/quick-messages/${qm.id}`)).body).toMatchObject({ isMedia: false, mediaPath: null, mediaUrl: null });

    const mark = ws.mark();
    const up = await owner.api.form('POST', url, fileForm(PNG, 'foto do catálogo.png', 'image/png'));
    expect(up.status, JSON.stringify(up.body)).toBe(200);
    expect(up.body).toMatchObject({ id: qm.id, isMedia: true, mediaType: 'image/png', mediaName: 'foto_do_catálogo.png', message: 'Nosso catálogo' });
    expect(up.body.mediaPath).not.toMatch(/\s/);
    expect(up.body.mediaPath).toMatch(/^foto_do_catalogo\.png$/);
    expect(up.body.mediaKey).toBeUndefined();
    const first = await fetch(up.body.mediaUrl);
    expect(first.status).toBe(200);
    expect(Buffer.from(await first.arrayBuffer()).equals(PNG)).toBe(true);
    await ws.waitFor(`company-${t.companyId}-quickmessage`, (d) => d.action === 'update' && d.record?.isMedia === true, 20_000, mark);
    // Reading it again answers a fresh URL to the same bytes; the lists carry it too.
    const again = await owner.api.get(`/quick-messages/${qm.id}`);
    expect(Buffer.from(await (await fetch(again.body.mediaUrl)).arrayBuffer()).equals(PNG)).toBe(true);
    expect((await owner.api.get('/quick-messages/list')).body[0]).toMatchObject({ isMedia: true, mediaName: 'foto_do_catálogo.png' });
    // Editing the text keeps the attachment.
    expect((await owner.api.put(`/quick-messages/${qm.id}`, { message: 'Catálogo novo', isMedia: false, mediaPath: 'x' })).body).toMatchObject({ isMedia: true, mediaName: 'foto_do_catálogo.png' });

    // A document replaces the image; the image's object goes.
    const pdf = await owner.api.form('POST', url, fileForm(PDF, 'tabela de preços.pdf', 'application/pdf'));
    expect(pdf.status, JSON.stringify(pdf.body)).toBe(200);
    expect(pdf.body).toMatchObject({ mediaType: 'application/pdf', mediaName: 'tabela_de_preços.pdf', mediaPath: 'tabela_de_precos.pdf' });
    expect(Buffer.from(await (await fetch(pdf.body.mediaUrl)).arrayBuffer()).equals(PDF)).toBe(true);
    expect((await fetch(up.body.mediaUrl)).status).toBe(404);

    // An admin may remove it; another agent may not.
    const other = await member(t.admin, { profile: 'Nível 3' });
    expect((await other.api.del(url)).status).toBe(404);
    const removed = await t.admin.del(url);
    expect(removed.status).toBe(200);
    expect(removed.body).toMatchObject({ isMedia: false, mediaPath: null, mediaName: null, mediaType: null, mediaUrl: null, message: 'Catálogo novo' });
    expect((await fetch(pdf.body.mediaUrl)).status).toBe(404);
    expect((await owner.api.get(`/quick-messages/${qm.id}`)).body.isMedia).toBe(false);

    // Deleting a reply removes its attachment.
    const withFile = await owner.api.form('POST', url, fileForm(PNG, 'x.png', 'image/png'));
    expect(withFile.status).toBe(200);
    expect((await owner.api.del(`/quick-messages/${qm.id}`)).status).toBe(204);
    expect((await fetch(withFile.body.mediaUrl)).status).toBe(404);
    ws.close();
  });
});
