import { describe, expect, it } from 'vitest';
import { ANNOUNCEMENT_EVENT, FILE_CONTENT_MISMATCH, FILE_TYPE_NOT_ALLOWED } from '@balcao/shared';
import { member, socket, superUser, superUserToken, tenant, uniq } from './client.js';
import { PDF, PNG } from './messages-helpers.js';

/**
 * Announcements over the real stack (issue 21 §3; spec 002 §7; decision 58): the super user writes,
 * every company's users read the active ones (the popover) and hear them live on
 * `company-announcement`; bad input is a 400 naming the field with nothing changed; the image is
 * checked by its name and bytes. Announcements are the platform's, so other test files may add
 * their own meanwhile: every list here is narrowed by this run's own word.
 */

const JPEG = Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0x00, 0x10, 0x4a, 0x46, 0x49, 0x46]), Buffer.alloc(300, 9)]);
const GIF = Buffer.concat([Buffer.from('GIF89a'), Buffer.alloc(100, 3)]);
const imageForm = (data: Buffer, name: string, type: string) => {
  const form = new FormData();
  form.append('file', new Blob([new Uint8Array(data)], { type }), name);
  return form;
};
const titles = (body: { records: { title: string }[] }) => body.records.map((a) => a.title);

describe('announcements routes', () => {
  it('the super user publishes; users of every company read the active ones in priority order and hear them live; others may not write', async () => {
    const sup = await superUser();
    const word = uniq('aviso');
    const a = await tenant();
    const b = await tenant();
    const agentA = await member(a.admin, { name: 'Agente A', profile: 'Nível 1' });
    const wsAgent = await socket(agentA.token);
    const wsAdminB = await socket(b.adminToken);
    const wsSuper = await socket(await superUserToken());

    // Bad input: 400 naming the field with the spec's message; nothing is created.
    expect((await sup.post('/announcements', { text: `${word} sem título` })).body).toMatchObject({ error: 'ERR_VALIDATION', field: 'title', message: 'Obrigatório' });
    expect((await sup.post('/announcements', { title: `${word} sem texto`, text: '   ' })).body).toMatchObject({ error: 'ERR_VALIDATION', field: 'text', message: 'Obrigatório' });
    const badPriority = await sup.post('/announcements', { title: `${word} prioridade`, text: 'x', priority: 7 });
    expect(badPriority.status).toBe(400);
    expect(badPriority.body).toMatchObject({ error: 'ERR_VALIDATION', field: 'priority' });
    expect((await sup.get(`/announcements?searchParam=${word}`)).body).toEqual({ records: [], count: 0, hasMore: false });

    // Only the super user writes (a tenant's admin is refused, whatever the company).
    expect((await a.admin.post('/announcements', { title: `${word} do admin`, text: 'x' })).status).toBe(403);
    expect((await agentA.api.post('/announcements', { title: `${word} do agente`, text: 'x' })).status).toBe(403);

    const markAgent = wsAgent.mark();
    const markB = wsAdminB.mark();
    const low = await sup.post('/announcements', { title: `${word} baixa`, text: 'Manutenção domingo', mediaPath: '../outro/segredo.png' });
    expect(low.status).toBe(201);
    expect(low.body).toMatchObject({ title: `${word} baixa`, priority: 3, status: true, mediaPath: null, mediaUrl: null });
    expect(low.body.mediaKey).toBeUndefined();
    expect(low.body.PK).toBeUndefined();
    // Live, to users of both companies, on the one platform event.
    for (const [ws, mark] of [[wsAgent, markAgent], [wsAdminB, markB]] as const) {
      const ev = await ws.waitFor(ANNOUNCEMENT_EVENT, (d) => d.action === 'create' && d.record?.id === low.body.id, 20_000, mark);
      expect(ev.data.record).toMatchObject({ title: `${word} baixa`, text: 'Manutenção domingo' });
    }
    const high = (await sup.post('/announcements', { title: `${word} alta`, text: 'Urgente', priority: 1 })).body;
    const medium = (await sup.post('/announcements', { title: `${word} média`, text: 'Atenção', priority: '2' })).body;

    // An inactive one: the super user hears it, everyone else hears only that it is gone.
    const markSuper = wsSuper.mark();
    const markAgent2 = wsAgent.mark();
    const draft = (await sup.post('/announcements', { title: `${word} rascunho`, text: 'Ainda não', priority: 1, status: false })).body;
    expect(draft).toMatchObject({ status: false });
    expect((await wsSuper.waitFor(ANNOUNCEMENT_EVENT, (d) => d.record?.id === draft.id, 20_000, markSuper)).data).toMatchObject({ action: 'create', record: { status: false } });
    expect((await wsAgent.waitFor(ANNOUNCEMENT_EVENT, (d) => d.id === draft.id, 20_000, markAgent2)).data).toEqual({ action: 'delete', id: draft.id, updatedAt: draft.updatedAt });
    expect(wsAgent.frames.some((f) => f.event === ANNOUNCEMENT_EVENT && f.data.record?.id === draft.id)).toBe(false);

    // Everyone reads the active ones, in priority order; the super user also the inactive one.
    const popover = [`${word} alta`, `${word} média`, `${word} baixa`];
    for (const api of [agentA.api, b.admin, a.admin]) {
      expect(titles((await api.get(`/announcements?searchParam=${word}`)).body)).toEqual(popover);
      expect((await api.get(`/announcements?searchParam=${word}&status=false`)).body.records).toEqual([]);
      expect((await api.get(`/announcements/${draft.id}`)).status).toBe(404);
      expect((await api.get(`/announcements/${medium.id}`)).body).toMatchObject({ title: `${word} média`, priority: 2 });
    }
    expect(titles((await sup.get(`/announcements?searchParam=${word}`)).body)).toEqual([`${word} rascunho`, ...popover]);
    expect(titles((await sup.get(`/announcements?searchParam=${word}&status=true`)).body)).toEqual(popover);
    expect((await sup.get(`/announcements/${draft.id}`)).body).toMatchObject({ status: false });
    expect((await sup.get(`/announcements?pageNumber=abc`)).body).toMatchObject({ error: 'ERR_VALIDATION', field: 'pageNumber' });

    // Edits: the same rules, nothing changed by a refusal; an update is heard live.
    expect((await a.admin.put(`/announcements/${high.id}`, { title: 'Meu' })).status).toBe(403);
    expect((await sup.put(`/announcements/${high.id}`, { title: '' })).body).toMatchObject({ field: 'title', message: 'Obrigatório' });
    expect((await sup.put(`/announcements/${high.id}`, { status: 'talvez' })).body).toMatchObject({ field: 'status' });
    expect((await sup.get(`/announcements/${high.id}`)).body).toMatchObject({ title: `${word} alta`, status: true });
    const markAgent3 = wsAgent.mark();
    const lowered = await sup.put(`/announcements/${high.id}`, { priority: 3, text: 'Já resolvido' });
    expect(lowered.body).toMatchObject({ priority: 3, text: 'Já resolvido' });
    await wsAgent.waitFor(ANNOUNCEMENT_EVENT, (d) => d.action === 'update' && d.record?.id === high.id && d.record.priority === 3, 20_000, markAgent3);
    // Same priority: newest first.
    expect(titles((await agentA.api.get(`/announcements?searchParam=${word}`)).body)).toEqual([`${word} média`, `${word} alta`, `${word} baixa`]);
    // Published: the draft joins everyone's list.
    expect((await sup.put(`/announcements/${draft.id}`, { status: true })).status).toBe(200);
    expect(titles((await b.admin.get(`/announcements?searchParam=${word}`)).body)[0]).toBe(`${word} rascunho`);

    // Deletes: the super user only; heard by every company; gone for all.
    expect((await b.admin.del(`/announcements/${low.body.id}`)).status).toBe(403);
    const markB2 = wsAdminB.mark();
    expect((await sup.del(`/announcements/${low.body.id}`)).status).toBe(204);
    expect((await wsAdminB.waitFor(ANNOUNCEMENT_EVENT, (d) => d.action === 'delete' && d.id === low.body.id, 20_000, markB2)).data).toEqual({ action: 'delete', id: low.body.id });
    expect((await agentA.api.get(`/announcements/${low.body.id}`)).status).toBe(404);
    expect((await sup.del(`/announcements/${low.body.id}`)).status).toBe(404);
    expect((await sup.get('/announcements/abc')).status).toBe(404);

    for (const id of [high.id, medium.id, draft.id]) expect((await sup.del(`/announcements/${id}`)).status).toBe(204);
    expect((await sup.get(`/announcements?searchParam=${word}`)).body.count).toBe(0);
    wsAgent.close();
    wsAdminB.close();
    wsSuper.close();
  });

  it('the image: .png, .jpg or .jpeg whose bytes are that format; everyone reads it; the super user replaces and removes it', async () => {
    const sup = await superUser();
    const t = await tenant();
    const word = uniq('imagem');
    const a = (await sup.post('/announcements', { title: `${word} com imagem`, text: 'Veja a foto' })).body as { id: number };
    const path = `/announcements/${a.id}/media-upload`;

    // Refused by name, declared type or bytes: 400 naming the file, the announcement unchanged.
    const refusals: [Buffer, string, string, string][] = [
      [GIF, 'anim.gif', 'image/gif', FILE_TYPE_NOT_ALLOWED],
      [PDF, 'contrato.pdf', 'application/pdf', FILE_TYPE_NOT_ALLOWED],
      [PDF, 'disfarce.png', 'image/png', FILE_CONTENT_MISMATCH],
      [GIF, 'disfarce.jpg', 'image/jpeg', FILE_CONTENT_MISMATCH],
      [PNG, 'troca.jpg', 'image/jpeg', FILE_CONTENT_MISMATCH],
    ];
    for (const [data, name, type, message] of refusals) {
      const res = await sup.form('POST', path, imageForm(data, name, type));
      expect(res.status, name).toBe(400);
      expect(res.body, name).toMatchObject({ error: 'ERR_VALIDATION', field: 'file', message });
    }
    expect((await sup.form('POST', path, new FormData())).body).toMatchObject({ field: 'file', message: 'Obrigatório' });
    expect((await sup.get(`/announcements/${a.id}`)).body).toMatchObject({ mediaPath: null, mediaUrl: null });
    // Only the super user uploads.
    expect((await t.admin.form('POST', path, imageForm(PNG, 'foto.png', 'image/png'))).status).toBe(403);

    const png = await sup.form('POST', path, imageForm(PNG, 'foto do aviso.png', 'image/png'));
    expect(png.status, JSON.stringify(png.body)).toBe(200);
    expect(png.body).toMatchObject({ mediaPath: 'foto_do_aviso.png', mediaName: 'foto_do_aviso.png', mediaType: 'image/png' });
    // Another company's user reads the image with the announcement.
    const seen = await t.admin.get(`/announcements/${a.id}`);
    expect(Buffer.from(await (await fetch(seen.body.mediaUrl)).arrayBuffer()).equals(PNG)).toBe(true);

    const jpeg = await sup.form('POST', path, imageForm(JPEG, 'Foto.JPEG', 'image/jpeg'));
    expect(jpeg.body).toMatchObject({ mediaPath: 'Foto.JPEG', mediaType: 'image/jpeg' });
    expect(Buffer.from(await (await fetch(jpeg.body.mediaUrl)).arrayBuffer()).equals(JPEG)).toBe(true);
    // The replaced image is gone from storage.
    expect((await fetch(png.body.mediaUrl)).status).toBeGreaterThanOrEqual(400);

    expect((await t.admin.del(path)).status).toBe(403);
    const removed = await sup.del(path);
    expect(removed.body).toMatchObject({ mediaPath: null, mediaName: null, mediaType: null, mediaUrl: null });
    expect((await fetch(jpeg.body.mediaUrl)).status).toBeGreaterThanOrEqual(400);
    expect((await sup.del(`/announcements/${a.id}`)).status).toBe(204);
  });
});
