import { describe, expect, it } from 'vitest';
import { ANNOUNCEMENT_EVENT, ANNOUNCEMENTS_PAGE, FILE_CONTENT_MISMATCH, FILE_TYPE_NOT_ALLOWED } from '@balcao/shared';
import { memoryAgent, memoryWorld, run, refusal, SAMPLE_FILES } from '../fakes/world.js';

/**
 * Announcements (issue 21 §3; spec 002 §5, §7, §9; decision 58) on in-memory ports: the dialog's
 * rules and defaults, super-only writes, what other users read (active ones only, in the popover's
 * order: priority, then newest), search and pages, the events (inactive ones reach only super
 * users), the image checked by its name, bytes and size before anything is stored, and the routes' gates.
 */
const s = await import('../../src/services/announcements.js');
const { authorizeRoute } = await import('../../src/core/identity.js');
const { routes } = await import('../../src/routes.js');

type World = Awaited<ReturnType<typeof memoryWorld>>;

const PNG = SAMPLE_FILES.png;
const JPEG = SAMPLE_FILES.jpeg;
const GIF = SAMPLE_FILES.gif;
const PDF = SAMPLE_FILES.pdf;
const file = (fileName: string, mimeType: string, data: Buffer) => ({ field: 'file', fileName, mimeType, data });
const stored = (w: World) => [...w.ports.objects.keys()].filter((k) => k.startsWith('p/announcements/'));

async function world() {
  const w = await memoryWorld();
  const admin = await memoryAgent(w, 'Ana', { profile: 'admin' });
  const agent = await memoryAgent(w, 'Beto');
  // The platform's super user (a user of a company with the flag on).
  const sup = { ...admin, isSuper: true, user: { ...admin.user, super: true } };
  return { w, sup, admin, agent };
}

describe('announcements', () => {
  it('title and text required ("Obrigatório"), priority 1-3; active and low priority by default; stored names ignored', async () => {
    const { w, sup } = await world();
    expect(await refusal(run(w, () => s.createAnnouncement(sup, { text: 'Olá' })))).toMatchObject({ status: 400, fields: [{ field: 'title', message: 'Obrigatório' }] });
    expect(await refusal(run(w, () => s.createAnnouncement(sup, { title: '   ', text: 'Olá' })))).toMatchObject({ status: 400, fields: [{ field: 'title', message: 'Obrigatório' }] });
    expect(await refusal(run(w, () => s.createAnnouncement(sup, { title: 'Aviso', text: ' ' })))).toMatchObject({ status: 400, fields: [{ field: 'text', message: 'Obrigatório' }] });
    expect(await refusal(run(w, () => s.createAnnouncement(sup, { title: 'Aviso', text: 'Olá', priority: 4 })))).toMatchObject({ status: 400, fields: [{ field: 'priority' }] });
    expect(await refusal(run(w, () => s.createAnnouncement(sup, { title: 'Aviso', text: 'Olá', status: 'talvez' })))).toMatchObject({ status: 400, fields: [{ field: 'status' }] });
    // Nothing was written by the refusals.
    expect((await run(w, () => s.listAnnouncements(sup, {}))).count).toBe(0);

    const made = await run(w, () => s.createAnnouncement(sup, { title: ' Manutenção ', text: 'Domingo às 22h', mediaPath: '../secret.png', mediaName: 'x' }));
    expect(made).toMatchObject({ title: 'Manutenção', text: 'Domingo às 22h', priority: 3, status: true, mediaPath: null, mediaName: null, mediaType: null, mediaUrl: null });
    expect(made).not.toHaveProperty('mediaKey');
    expect(made).not.toHaveProperty('userId');
    expect(made).not.toHaveProperty('PK');
    // Multipart-style text values are taken too.
    expect(await run(w, () => s.createAnnouncement(sup, { title: 'Outro', text: 'Texto', priority: '1', status: 'false' }))).toMatchObject({ priority: 1, status: false });
  });

  it('only the super user writes; everyone reads the active ones in priority order, then newest; inactive ones are for the super user', async () => {
    const { w, sup, admin, agent } = await world();
    for (const who of [admin, agent]) {
      expect(await refusal(run(w, () => s.createAnnouncement(who, { title: 'Aviso', text: 'Olá' })))).toMatchObject({ status: 403, code: 'ERR_NO_PERMISSION' });
    }
    const mk = async (title: string, priority: number, status = true) => {
      w.ports.advance(1000);
      return run(w, () => s.createAnnouncement(sup, { title, text: `Texto de ${title}`, priority, status }));
    };
    const lowOld = await mk('Baixa antiga', 3);
    const high = await mk('Alta', 1);
    const lowNew = await mk('Baixa nova', 3);
    const medium = await mk('Média', 2);
    const hidden = await mk('Rascunho', 1, false);
    for (const who of [admin, agent]) {
      expect(await refusal(run(w, () => s.updateAnnouncement(who, high.id, { title: 'Meu' })))).toMatchObject({ status: 403 });
      expect(await refusal(run(w, () => s.deleteAnnouncement(who, high.id)))).toMatchObject({ status: 403 });
      expect(await refusal(run(w, () => s.uploadAnnouncementMedia(who, high.id, [file('a.png', 'image/png', PNG)])))).toMatchObject({ status: 403 });
      expect(await refusal(run(w, () => s.deleteAnnouncementMedia(who, high.id)))).toMatchObject({ status: 403 });
    }

    const titles = (r: { records: { title: string }[] }) => r.records.map((a) => a.title);
    const popoverOrder = ['Alta', 'Média', 'Baixa nova', 'Baixa antiga'];
    expect(titles(await run(w, () => s.listAnnouncements(agent, {})))).toEqual(popoverOrder);
    expect(titles(await run(w, () => s.listAnnouncements(admin, { status: 'false' })))).toEqual([]);
    expect(titles(await run(w, () => s.listAnnouncements(sup, {})))).toEqual(['Rascunho', ...popoverOrder]);
    expect(titles(await run(w, () => s.listAnnouncements(sup, { status: 'true' })))).toEqual(popoverOrder);
    expect(titles(await run(w, () => s.listAnnouncements(sup, { status: 'false' })))).toEqual(['Rascunho']);
    expect(await refusal(run(w, () => s.getAnnouncement(agent, hidden.id)))).toMatchObject({ status: 404 });
    expect(await run(w, () => s.getAnnouncement(sup, hidden.id))).toMatchObject({ title: 'Rascunho', status: false });
    expect(await run(w, () => s.getAnnouncement(agent, medium.id))).toMatchObject({ title: 'Média' });
    expect(await refusal(run(w, () => s.getAnnouncement(agent, 999_999)))).toMatchObject({ status: 404 });

    // Turning one off takes it out of everyone else's list; on again, back in its place.
    await run(w, () => s.updateAnnouncement(sup, lowNew.id, { status: false }));
    expect(titles(await run(w, () => s.listAnnouncements(agent, {})))).toEqual(['Alta', 'Média', 'Baixa antiga']);
    await run(w, () => s.updateAnnouncement(sup, lowNew.id, { status: true, priority: 1 }));
    expect(titles(await run(w, () => s.listAnnouncements(agent, {})))).toEqual(['Baixa nova', 'Alta', 'Média', 'Baixa antiga']);
    expect(await refusal(run(w, () => s.updateAnnouncement(sup, lowNew.id, { title: '' })))).toMatchObject({ status: 400, fields: [{ field: 'title', message: 'Obrigatório' }] });
    expect(await run(w, () => s.getAnnouncement(sup, lowNew.id))).toMatchObject({ title: 'Baixa nova' });

    await run(w, () => s.deleteAnnouncement(sup, lowOld.id));
    expect(titles(await run(w, () => s.listAnnouncements(agent, {})))).toEqual(['Baixa nova', 'Alta', 'Média']);
    expect(await refusal(run(w, () => s.deleteAnnouncement(sup, lowOld.id)))).toMatchObject({ status: 404 });
  });

  it('searches title and text without accents or case, in pages of 20', async () => {
    const { w, sup, agent } = await world();
    for (let i = 0; i < ANNOUNCEMENTS_PAGE + 2; i++) {
      w.ports.advance(1000);
      await run(w, () => s.createAnnouncement(sup, { title: `Aviso ${i}`, text: i % 2 ? 'Promoção de verão' : 'Horário novo' }));
    }
    const first = await run(w, () => s.listAnnouncements(agent, {}));
    expect(first).toMatchObject({ count: 22, hasMore: true });
    expect(first.records).toHaveLength(20);
    expect(first.records[0].title).toBe('Aviso 21');
    const second = await run(w, () => s.listAnnouncements(agent, { pageNumber: '2' }));
    expect(second).toMatchObject({ count: 22, hasMore: false });
    expect(second.records.map((a) => a.title)).toEqual(['Aviso 1', 'Aviso 0']);
    expect((await run(w, () => s.listAnnouncements(agent, { searchParam: 'PROMOCAO' }))).count).toBe(11);
    expect((await run(w, () => s.listAnnouncements(sup, { searchParam: 'aviso 2' }))).records.map((a) => a.title)).toEqual(['Aviso 21', 'Aviso 20', 'Aviso 2']);
    expect(await refusal(run(w, () => s.listAnnouncements(agent, { pageNumber: '0' })))).toMatchObject({ status: 400, fields: [{ field: 'pageNumber' }] });
  });

  it('publishes to every company: active ones to all, inactive ones as they are to super users and as gone to the others', async () => {
    const { w, sup } = await world();
    w.ports.forgetRecords();
    const a = await run(w, () => s.createAnnouncement(sup, { title: 'Aviso', text: 'Olá' }));
    expect(w.ports.published).toEqual([expect.objectContaining({ companyId: null, event: ANNOUNCEMENT_EVENT, audience: [{ kind: 'platform' }], data: { action: 'create', record: expect.objectContaining({ id: a.id, title: 'Aviso' }) } })]);

    w.ports.forgetRecords();
    const off = await run(w, () => s.updateAnnouncement(sup, a.id, { status: false }));
    expect(w.ports.published).toEqual([
      expect.objectContaining({ companyId: null, event: ANNOUNCEMENT_EVENT, audience: [{ kind: 'platform', supers: true }], data: { action: 'update', record: expect.objectContaining({ id: a.id, status: false }) } }),
      // With the time it was turned off: a late event of the older, active state is told apart.
      expect.objectContaining({ companyId: null, event: ANNOUNCEMENT_EVENT, audience: [{ kind: 'platform', supers: false }], data: { action: 'delete', id: a.id, updatedAt: off.updatedAt } }),
    ]);

    w.ports.forgetRecords();
    await run(w, () => s.deleteAnnouncement(sup, a.id));
    expect(w.ports.published).toEqual([expect.objectContaining({ companyId: null, audience: [{ kind: 'platform' }], data: { action: 'delete', id: a.id } })]);
  });

  it('takes a .png, .jpg or .jpeg image whose bytes are that format, 5 MB at most; replaced and removed images leave storage', async () => {
    const { w, sup, agent } = await world();
    const a = await run(w, () => s.createAnnouncement(sup, { title: 'Com imagem', text: 'Veja' }));
    const refused = async (f: ReturnType<typeof file>[], status: number, message?: string) => {
      expect(await refusal(run(w, () => s.uploadAnnouncementMedia(sup, a.id, f)))).toMatchObject({ status, fields: [{ field: 'file', ...(message ? { message } : {}) }] });
      expect(stored(w)).toEqual([]);
    };
    await refused([], 400, 'Obrigatório');
    await refused([file('anim.gif', 'image/gif', GIF)], 400, FILE_TYPE_NOT_ALLOWED);
    await refused([file('foto.webp', 'image/webp', PNG)], 400, FILE_TYPE_NOT_ALLOWED);
    await refused([file('foto.png', 'image/gif', GIF)], 400, FILE_TYPE_NOT_ALLOWED);
    // The name and type say PNG, the bytes are a PDF (or a GIF): refused by the bytes.
    await refused([file('foto.png', 'image/png', PDF)], 400, FILE_CONTENT_MISMATCH);
    await refused([file('foto.jpg', 'image/jpeg', GIF)], 400, FILE_CONTENT_MISMATCH);
    await refused([file('foto.jpg', 'image/jpeg', PNG)], 400, FILE_CONTENT_MISMATCH);
    await refused([file('grande.png', 'image/png', Buffer.concat([PNG, Buffer.alloc(5 * 1024 * 1024)]))], 413);
    expect(await run(w, () => s.getAnnouncement(sup, a.id))).toMatchObject({ mediaPath: null });

    const withPng = await run(w, () => s.uploadAnnouncementMedia(sup, a.id, [file('foto do aviso.png', 'image/png', PNG)]));
    expect(withPng).toMatchObject({ mediaPath: 'foto_do_aviso.png', mediaName: 'foto_do_aviso.png', mediaType: 'image/png' });
    expect(withPng.mediaUrl).toMatch(/^memory:\/\/read\/p\/announcements\/\d+\//);
    expect(stored(w)).toHaveLength(1);
    // Everyone reads the image with the announcement.
    expect((await run(w, () => s.getAnnouncement(agent, a.id))).mediaUrl).toMatch(/^memory:\/\/read\/p\/announcements\//);

    // A JPEG sent without a type is taken by its bytes; it replaces the PNG, which leaves storage.
    w.ports.advance(1000);
    const withJpeg = await run(w, () => s.uploadAnnouncementMedia(sup, a.id, [file('Foto.JPEG', '', JPEG)]));
    expect(withJpeg).toMatchObject({ mediaPath: 'Foto.JPEG', mediaType: 'image/jpeg' });
    expect(stored(w)).toHaveLength(1);
    expect(stored(w)[0]).toContain('Foto.JPEG');

    const without = await run(w, () => s.deleteAnnouncementMedia(sup, a.id));
    expect(without).toMatchObject({ mediaPath: null, mediaName: null, mediaType: null, mediaUrl: null });
    expect(stored(w)).toEqual([]);

    await run(w, () => s.uploadAnnouncementMedia(sup, a.id, [file('b.jpg', 'image/jpeg', JPEG)]));
    expect(stored(w)).toHaveLength(1);
    await run(w, () => s.deleteAnnouncement(sup, a.id));
    expect(stored(w)).toEqual([]);
  });

  it('the routes: every signed-in user reads, only the super user writes', async () => {
    const { sup, admin, agent } = await world();
    const mine = routes.filter((r) => r.handler === 'announcements');
    expect(mine.map((r) => `${r.method} ${r.path}`).sort()).toEqual([
      'DELETE /announcements/{id}',
      'DELETE /announcements/{id}/media-upload',
      'GET /announcements',
      'GET /announcements/{id}',
      'POST /announcements',
      'POST /announcements/{id}/media-upload',
      'PUT /announcements/{id}',
    ]);
    for (const route of mine) {
      expect(() => authorizeRoute(sup, route)).not.toThrow();
      for (const who of [admin, agent]) {
        if (route.method === 'GET') expect(() => authorizeRoute(who, route)).not.toThrow();
        else expect(() => authorizeRoute(who, route)).toThrow('ERR_NO_PERMISSION');
      }
    }
  });
});
