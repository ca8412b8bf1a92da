import { describe, expect, it } from 'vitest';
import { endpoints, member, superUser, superUserToken, tenant, uniq } from './client.js';

type Help = { id: number; title: string; video: string; description: string };

describe('help videos routes', () => {
  it('the super user manages them; every signed-in user lists them; others may not write', async () => {
    const sup = await superUser();
    const t = await tenant();
    const agent = await member(t.admin, { profile: 'Nível 1' });
    const title = uniq('Como transferir um atendimento ');

    // Bad input: 400 naming the field, with the form's message; nothing written.
    const before = (await sup.get<Help[]>('/helps/list')).body.length;
    expect((await sup.post('/helps', { video: 'dQw4w9WgXcQ' })).body).toMatchObject({ error: 'ERR_VALIDATION', field: 'title', message: 'Obrigatório' });
    expect((await sup.post('/helps', { title: '   ', video: 'dQw4w9WgXcQ' }))).toMatchObject({ status: 400, body: { field: 'title' } });
    const badVideo = await sup.post('/helps', { title, video: 'https://vimeo.com/12345' });
    expect(badVideo.status).toBe(400);
    expect(badVideo.body).toMatchObject({ error: 'ERR_VALIDATION', field: 'video' });
    expect(badVideo.body.message).toMatch(/^Código de vídeo inválido/);
    expect((await sup.post('/helps', { title, video: 'dQw4w9WgXc' })).body).toMatchObject({ field: 'video' });
    expect((await sup.post('/helps', { title: 'x'.repeat(101), video: 'dQw4w9WgXcQ' })).body).toMatchObject({ field: 'title', message: 'Too Long!' });
    expect((await sup.post('/helps', { title, video: 'dQw4w9WgXcQ', description: 42 })).body).toMatchObject({ field: 'description' });
    // Malformed bodies are the caller's error too (400, never 5xx).
    const raw = async (method: string, path: string, body: string) =>
      (await fetch(`${endpoints().apiUrl}${path}`, { method, headers: { authorization: `Bearer ${await superUserToken()}`, 'content-type': 'application/json' }, body })).status;
    // (A JSON value that is no object arrives as `{items}`: an edit of nothing, 404 for an unknown id.)
    for (const body of ['[1,2,3]', 'null', '"texto"', '{"title": ']) {
      expect(await raw('POST', '/helps', body)).toBe(400);
      expect(await raw('PUT', '/helps/2000000000', body)).toBe(body === '{"title": ' ? 400 : 404);
    }
    expect((await sup.get<Help[]>('/helps/list')).body.length).toBe(before);

    // A pasted YouTube address is kept as its video code; the description as the text it is.
    const made = await sup.post<Help>('/helps', { title: ` ${title} `, video: 'https://www.youtube.com/watch?v=dQw4w9WgXcQ&t=1s', description: '<b>Passo a passo</b>' });
    expect(made.status).toBe(201);
    expect(made.body).toMatchObject({ title, video: 'dQw4w9WgXcQ', description: '<b>Passo a passo</b>' });
    expect(made.body).not.toHaveProperty('PK');
    const id = made.body.id;

    // Not the super user: 403 for every write, nothing changed.
    for (const who of [t.admin, agent.api]) {
      expect((await who.post('/helps', { title: 'Intruso', video: 'dQw4w9WgXcQ' })).status).toBe(403);
      expect((await who.put(`/helps/${id}`, { title: 'Intruso' })).status).toBe(403);
      expect((await who.del(`/helps/${id}`)).status).toBe(403);
    }

    // Everyone signed in reads the gallery, the pages and one help.
    for (const who of [sup, t.admin, agent.api]) {
      const gallery = await who.get<Help[]>('/helps/list');
      expect(gallery.status).toBe(200);
      expect(gallery.body.find((h) => h.id === id)).toMatchObject({ title, video: 'dQw4w9WgXcQ' });
      const page = await who.get(`/helps?searchParam=${encodeURIComponent(title.toUpperCase())}&pageNumber=1`);
      expect(page.body).toMatchObject({ count: 1, hasMore: false, records: [{ id, title }] });
      expect((await who.get(`/helps/${id}`)).body).toMatchObject({ id, title });
    }
    expect((await t.admin.get('/helps?pageNumber=0')).body).toMatchObject({ error: 'ERR_VALIDATION', field: 'pageNumber' });

    // Edits: a bad one changes nothing; a good one changes only what it names.
    expect((await sup.put(`/helps/${id}`, { title: 'Novo', video: 'nope' })).body).toMatchObject({ field: 'video' });
    expect((await sup.get(`/helps/${id}`)).body).toMatchObject({ title, video: 'dQw4w9WgXcQ' });
    const edited = await sup.put<Help>(`/helps/${id}`, { video: 'https://youtu.be/a_b-C1d2E3f', description: 'Atualizado' });
    expect(edited.status).toBe(200);
    expect(edited.body).toMatchObject({ id, title, video: 'a_b-C1d2E3f', description: 'Atualizado' });

    // Unknown ids: 404.
    const gone = 2_000_000_000;
    expect((await sup.get(`/helps/${gone}`)).status).toBe(404);
    expect((await sup.put(`/helps/${gone}`, { title: 'Nada' })).status).toBe(404);
    expect((await sup.del(`/helps/${gone}`)).status).toBe(404);
    expect((await sup.get('/helps/abc')).status).toBe(404);

    expect((await sup.del(`/helps/${id}`)).status).toBe(204);
    expect((await sup.del(`/helps/${id}`)).status).toBe(404);
    expect((await agent.api.get(`/helps/${id}`)).status).toBe(404);
    expect((await agent.api.get<Help[]>('/helps/list')).body.some((h) => h.id === id)).toBe(false);
  });
});
