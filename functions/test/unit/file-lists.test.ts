import { describe, expect, it } from 'vitest';
import { memoryAgent, memoryWorld, run, refusal, SAMPLE_FILES } from '../fakes/world.js';

/**
 * File lists (issue 20 §3; spec 002 §5, §7) on in-memory ports: the name and message rules, name
 * order and pages, options kept, renamed, added and removed by an edit, uploads by option id or
 * position checked by their bytes and size before anything is stored, files removed with what named
 * them, another company's list not found, what the campaign dispatcher reads, and the admin gate.
 */
const s = await import('../../src/services/file-lists.js');
const { deleteCompany, createCompany } = await import('../../src/services/companies.js');
const { authorizeRoute } = await import('../../src/core/identity.js');
const { routes } = await import('../../src/routes.js');

type World = Awaited<ReturnType<typeof memoryWorld>>;

const PNG = SAMPLE_FILES.png;
const PDF = SAMPLE_FILES.pdf;
const file = (fileName: string, mimeType: string, data: Buffer, field = 'files') => ({ field, fileName, mimeType, data });
const stored = (w: World) => [...w.ports.objects.keys()].filter((k) => k.includes('/file-lists/'));

async function admin() {
  const w = await memoryWorld();
  const me = await memoryAgent(w, 'Ana', { profile: 'admin' });
  return { w, me };
}

describe('file lists', () => {
  it('name required and at least 3 characters ("nome muito curto"), message required; lists by name with pages and search', async () => {
    const { w, me } = await admin();
    expect(await refusal(run(w, () => s.createFileList(me, { message: 'Olá' })))).toMatchObject({ status: 400, fields: [{ field: 'name', message: 'Required' }] });
    expect(await refusal(run(w, () => s.createFileList(me, { name: '  ', message: 'Olá' })))).toMatchObject({ status: 400, fields: [{ field: 'name', message: 'Required' }] });
    expect(await refusal(run(w, () => s.createFileList(me, { name: 'Ab', message: 'Olá' })))).toMatchObject({ status: 400, fields: [{ field: 'name', message: 'nome muito curto' }] });
    expect(await refusal(run(w, () => s.createFileList(me, { name: 'Catálogo' })))).toMatchObject({ status: 400, fields: [{ field: 'message', message: 'Required' }] });
    expect(await refusal(run(w, () => s.createFileList(me, { name: 'Catálogo', message: '   ' })))).toMatchObject({ status: 400, fields: [{ field: 'message', message: 'Required' }] });
    expect(await refusal(run(w, () => s.createFileList(me, { name: 'Catálogo', message: 'Olá', options: [{ name: '' }] })))).toMatchObject({ status: 400, fields: [{ field: 'options.0.name', message: 'Required' }] });
    const many = Array.from({ length: 21 }, (_, i) => ({ name: `Arquivo ${i}` }));
    expect(await refusal(run(w, () => s.createFileList(me, { name: 'Catálogo', message: 'Olá', options: many })))).toMatchObject({ status: 400, fields: [{ field: 'options' }] });

    for (let i = 0; i < 21; i++) await run(w, () => s.createFileList(me, { name: `Lista ${String(21 - i).padStart(2, '0')}`, message: 'Veja os arquivos' }));
    const catalog = await run(w, () => s.createFileList(me, { name: 'Ábaco de preços', message: 'Segue nosso catálogo', options: [{ name: 'Tabela' }, { name: 'Foto', path: 'evil/key', mediaType: 'image/png' }] }));
    // Options get ids in the list; a path or type sent by the client is not taken.
    expect(catalog.options).toEqual([
      { id: 1, name: 'Tabela', path: null, mediaName: null, mediaType: null, mediaUrl: null },
      { id: 2, name: 'Foto', path: null, mediaName: null, mediaType: null, mediaUrl: null },
    ]);
    const first = await run(w, () => s.listFileLists(me, {}));
    expect(first).toMatchObject({ count: 22, hasMore: true });
    expect(first.files[0].name).toBe('Ábaco de preços');
    expect((await run(w, () => s.listFileLists(me, { pageNumber: '2' }))).files.map((l) => l.name)).toEqual(['Lista 20', 'Lista 21']);
    expect((await run(w, () => s.listFileLists(me, { searchParam: 'abaco' }))).files.map((l) => l.id)).toEqual([catalog.id]);
    expect(w.ports.events(`company-${w.companyId}-FileList`).at(-1)).toMatchObject({ action: 'create', record: { id: catalog.id } });
    expect(w.ports.published.at(-1)?.audience).toEqual([{ kind: 'admins' }]);
  });

  it('uploads one file per option by id or by position, checked by bytes and size before anything is stored', async () => {
    const { w, me } = await admin();
    const l = await run(w, () => s.createFileList(me, { name: 'Catálogo', message: 'Segue', options: [{ name: 'Tabela' }, { name: 'Foto' }, { name: 'Vídeo' }] }));

    // By position: the first file to the first option, the second to the second.
    const byPosition = await run(w, () =>
      s.uploadFileListFiles(me, l.id, [file('tabela de preços.pdf', 'application/pdf', PDF), file('foto.png', 'image/png', PNG)], { fileId: String(l.id), typeArch: 'fileList', mediaType: ['application/pdf', 'image/png'], name: ['Tabela', 'Foto'] }),
    );
    expect(byPosition.options.map((o) => [o.name, o.path, o.mediaName, o.mediaType])).toEqual([
      ['Tabela', 'tabela_de_precos.pdf', 'tabela_de_preços.pdf', 'application/pdf'],
      ['Foto', 'foto.png', 'foto.png', 'image/png'],
      ['Vídeo', null, null, null],
    ]);
    expect(byPosition.options[0].mediaUrl).toMatch(/^memory:\/\/read\/c\/\d+\/file-lists\/\d+\/1\//);
    expect(stored(w)).toHaveLength(2);

    // By id: a new file for option 2 replaces its old one (the old stored file goes).
    const oldFoto = stored(w).find((k) => k.includes(`/file-lists/${l.id}/2/`))!;
    w.ports.advance(1000);
    const byId = await run(w, () => s.uploadFileListFiles(me, l.id, [file('nova.png', 'image/png', PNG)], { id: '2' }));
    expect(byId.options[1]).toMatchObject({ id: 2, path: 'nova.png' });
    expect(stored(w)).toHaveLength(2);
    expect(stored(w)).not.toContain(oldFoto);

    // Refusals, none of which stores anything or changes the list.
    const before = await run(w, () => s.getFileList(me, l.id));
    const refusals = [
      // A PNG that is not one (its bytes are text).
      [[file('falsa.png', 'image/png', Buffer.from('isto não é uma imagem, é texto puro....'))], {}, { status: 400, fields: [{ field: 'files', message: 'O conteúdo do arquivo não corresponde ao tipo informado' }] }],
      // A type WhatsApp does not take as media.
      [[file('pagina.html', 'text/html', Buffer.from('<html></html>'))], {}, { status: 400, fields: [{ field: 'files', message: 'Tipo de arquivo não permitido' }] }],
      // Over the 5 MB of one option's file.
      [[file('grande.pdf', 'application/pdf', Buffer.concat([PDF, Buffer.alloc(5 * 1024 * 1024)]))], {}, { status: 413, code: 'ERR_PAYLOAD_TOO_LARGE' }],
      // A good file with a bad one: nothing is stored.
      [[file('ok.png', 'image/png', PNG), file('falsa.pdf', 'application/pdf', Buffer.from('texto'))], { id: ['3', '1'] }, { status: 400, fields: [{ field: 'files' }] }],
      // An option of no list of ours, and a position beyond the options.
      [[file('ok.png', 'image/png', PNG)], { id: '99' }, { status: 400, fields: [{ field: 'id', message: 'ERR_NOT_FOUND' }] }],
      [[file('a.png', 'image/png', PNG), file('b.png', 'image/png', PNG), file('c.png', 'image/png', PNG), file('d.png', 'image/png', PNG)], {}, { status: 400, fields: [{ field: 'id' }] }],
      // Two files for one option.
      [[file('a.png', 'image/png', PNG), file('b.png', 'image/png', PNG)], { id: ['2', '2'] }, { status: 400, fields: [{ field: 'id' }] }],
      // No file; another list's id; another kind of upload.
      [[], {}, { status: 400, fields: [{ field: 'files' }] }],
      [[file('ok.png', 'image/png', PNG)], { fileId: String(l.id + 1) }, { status: 400, fields: [{ field: 'fileId' }] }],
      [[file('ok.png', 'image/png', PNG)], { typeArch: 'quickMessage' }, { status: 400, fields: [{ field: 'typeArch' }] }],
    ] as const;
    for (const [files, body, expected] of refusals) {
      expect(await refusal(run(w, () => s.uploadFileListFiles(me, l.id, [...files], { ...body })))).toMatchObject(expected);
    }
    expect(stored(w)).toHaveLength(2);
    expect(await run(w, () => s.getFileList(me, l.id))).toEqual(before);
  });

  it('an edit keeps, renames, adds and removes options (a removed option’s file goes); deleting the list removes its files', async () => {
    const { w, me } = await admin();
    const l = await run(w, () => s.createFileList(me, { name: 'Catálogo', message: 'Segue', options: [{ name: 'Tabela' }, { name: 'Foto' }] }));
    await run(w, () => s.uploadFileListFiles(me, l.id, [file('t.pdf', 'application/pdf', PDF), file('f.png', 'image/png', PNG)], {}));
    const edited = await run(w, () => s.updateFileList(me, l.id, { name: 'Catálogo 2026', options: [{ id: 2, name: 'Foto da loja' }, { name: 'Novo' }] }));
    expect(edited).toMatchObject({ name: 'Catálogo 2026', message: 'Segue' });
    expect(edited.options.map((o) => [o.id, o.name, o.path])).toEqual([
      [2, 'Foto da loja', 'f.png'],
      [3, 'Novo', null],
    ]);
    expect(stored(w).map((k) => k.split('/')[4])).toEqual(['2']);
    // An option id the list does not have is refused; a short name too.
    expect(await refusal(run(w, () => s.updateFileList(me, l.id, { options: [{ id: 1, name: 'Tabela' }] })))).toMatchObject({ status: 400, fields: [{ field: 'options.0.id' }] });
    expect(await refusal(run(w, () => s.updateFileList(me, l.id, { name: 'No' })))).toMatchObject({ status: 400, fields: [{ field: 'name', message: 'nome muito curto' }] });
    // Without options, the options stay.
    expect((await run(w, () => s.updateFileList(me, l.id, { message: 'Novo texto' }))).options).toHaveLength(2);

    await run(w, () => s.deleteFileList(me, l.id));
    expect(stored(w)).toEqual([]);
    expect(await refusal(run(w, () => s.getFileList(me, l.id)))).toMatchObject({ status: 404 });
    expect(await refusal(run(w, () => s.deleteFileList(me, l.id)))).toMatchObject({ status: 404 });
    expect(w.ports.events(`company-${w.companyId}-FileList`).at(-1)).toEqual({ action: 'delete', id: l.id });
  });

  it('what the campaign dispatcher reads: the message and each option’s stored file; null once gone', async () => {
    const { w, me } = await admin();
    const l = await run(w, () => s.createFileList(me, { name: 'Catálogo', message: 'Segue o catálogo', options: [{ name: 'Tabela' }, { name: 'Sem arquivo' }, { name: 'Foto' }] }));
    await run(w, () => s.uploadFileListFiles(me, l.id, [file('tabela.pdf', 'application/pdf', PDF), file('foto.png', 'image/png', PNG)], { id: ['1', '3'] }));
    const sending = await run(w, () => s.fileListForSending(w.companyId, l.id));
    expect(sending).toMatchObject({ id: l.id, message: 'Segue o catálogo' });
    expect(sending!.options).toEqual([
      { id: 1, name: 'Tabela', path: 'tabela.pdf', media: { key: expect.stringMatching(/\/file-lists\/\d+\/1\/\d+-tabela\.pdf$/), mimetype: 'application/pdf', fileName: 'tabela.pdf', size: PDF.length, mediaType: 'document' } },
      { id: 3, name: 'Foto', path: 'foto.png', media: { key: expect.stringMatching(/\/3\/\d+-foto\.png$/), mimetype: 'image/png', fileName: 'foto.png', size: PNG.length, mediaType: 'image' } },
    ]);
    expect(w.ports.objects.get(sending!.options[1].media.key)?.contentType).toBe('image/png');
    expect(await run(w, () => s.fileListExists(w.companyId, l.id))).toBe(true);
    await run(w, () => s.deleteFileList(me, l.id));
    expect(await run(w, () => s.fileListForSending(w.companyId, l.id))).toBeNull();
    expect(await run(w, () => s.fileListExists(w.companyId, l.id))).toBe(false);
  });

  it("another company's list is not found on any route; deleting a company removes its lists and files", async () => {
    const { w, me } = await admin();
    const other = await run(w, () => createCompany({ name: 'Outra Loja', email: 'outra@example.com', planId: w.plan.id }));
    const intruder = await memoryAgent({ ...w, companyId: other.company.id }, 'Invasor', { profile: 'admin' });
    const mine = await run(w, () => s.createFileList(me, { name: 'Catálogo', message: 'Segue', options: [{ name: 'Tabela' }] }));
    await run(w, () => s.uploadFileListFiles(me, mine.id, [file('t.pdf', 'application/pdf', PDF)], {}));
    const theirs = await run(w, () => s.createFileList(intruder, { name: 'Deles', message: 'Segue', options: [{ name: 'Foto' }] }));
    await run(w, () => s.uploadFileListFiles(intruder, theirs.id, [file('f.png', 'image/png', PNG)], {}));
    // Ids are per company: the intruder's own first list has the same id; a further id is simply not found.
    const second = await run(w, () => s.createFileList(me, { name: 'Segunda', message: 'Segue' }));
    expect(await refusal(run(w, () => s.getFileList(intruder, second.id)))).toMatchObject({ status: 404 });
    expect(await refusal(run(w, () => s.updateFileList(intruder, second.id, { name: 'Invadida' })))).toMatchObject({ status: 404 });
    expect(await refusal(run(w, () => s.uploadFileListFiles(intruder, second.id, [file('x.png', 'image/png', PNG)], {})))).toMatchObject({ status: 404 });
    expect(await refusal(run(w, () => s.deleteFileList(intruder, second.id)))).toMatchObject({ status: 404 });
    expect((await run(w, () => s.listFileLists(intruder, {}))).files.map((l) => l.name)).toEqual(['Deles']);
    expect(await run(w, () => s.fileListForSending(other.company.id, second.id))).toBeNull();
    expect(await run(w, () => s.getFileList(me, second.id))).toMatchObject({ name: 'Segunda' });

    await run(w, () => deleteCompany(other.company.id, w.companyId));
    expect(w.ports.table.all().filter((i) => String(i.PK) === `C#${other.company.id}#FLIST`)).toEqual([]);
    expect(stored(w).filter((k) => k.startsWith(`c/${other.company.id}/`))).toEqual([]);
    expect(stored(w).filter((k) => k.startsWith(`c/${w.companyId}/`))).toHaveLength(1);
    expect((await run(w, () => s.listFileLists(me, {}))).count).toBe(2);
  });

  it('the routes are for admins, without the campaigns gate (the administration section)', async () => {
    const { w, me } = await admin();
    const agent = await memoryAgent(w, 'Beto');
    const mine = routes.filter((r) => r.handler === 'files');
    expect(mine.map((r) => `${r.method} ${r.path}`).sort()).toEqual(['DELETE /files/{id}', 'GET /files', 'GET /files/{id}', 'POST /files', 'POST /files/uploadList/{id}', 'PUT /files/{id}']);
    for (const route of mine) {
      expect(() => authorizeRoute(me, route)).not.toThrow();
      expect(() => authorizeRoute({ ...me, plan: { ...me.plan!, useCampaigns: false }, company: { ...me.company, campaignsEnabled: false } }, route)).not.toThrow();
      expect(() => authorizeRoute(agent, route)).toThrow('ERR_NO_PERMISSION');
    }
  });
});
