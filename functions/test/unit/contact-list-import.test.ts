import { describe, expect, it } from 'vitest';
import { memoryAgent, memoryWorld, run, refusal } from '../fakes/world.js';
import { fakePhone } from '../fakes/phone.js';

/**
 * Spreadsheet imports into a contact list (issue 20 §2) on in-memory ports: real .csv, .xls and
 * .xlsx files made with the spreadsheet library, whole files refused with their reason and nothing
 * imported, the row report, WhatsApp asked in batches through the default connection, chunks
 * handed on when time runs out, and nothing added twice when a chunk is redone.
 */
const lists = await import('../../src/services/campaign-contact-lists.js');
const imports = await import('../../src/services/contact-list-import.js');
const { writeSpreadsheet, sniffSpreadsheet } = await import('../../src/services/spreadsheets.js');
const { getItem, putItem, updateItem } = await import('../../src/core/db.js');
const { connectionKey, contactListKey } = await import('../../src/table/keys.js');

type World = Awaited<ReturnType<typeof memoryWorld>>;
const file = (data: Buffer, fileName = 'lista.xlsx') => [{ field: 'file', fileName, mimeType: 'application/octet-stream', data }];

async function setup(connected = true) {
  const w = await memoryWorld();
  const fake = fakePhone(w.ports, new Set(['5511900000001', '5511900000002']));
  const me = await memoryAgent(w, 'Ana', { profile: 'admin' });
  if (connected) await run(w, () => updateItem(connectionKey(w.companyId, w.connectionId), { status: 'CONNECTED', isDefault: true }));
  const list = await run(w, () => lists.createContactList(me, { name: 'Clientes' }));
  return { w, me, list, fake };
}

/** Runs the import's queued steps as the worker would, `hasTime` deciding when a step hands on. */
async function drain(w: World, hasTime: () => boolean = () => true) {
  const outcomes: string[] = [];
  for (let i = 0; i < w.ports.enqueued.length; i++) {
    const e = w.ports.enqueued[i];
    if (e.queue !== 'contact-list-imports') continue;
    outcomes.push(await run(w, () => imports.runContactListImport(imports.contactListImportJobSchema.parse(e.body), hasTime)));
  }
  return outcomes;
}

describe('contact-list import', () => {
  it('tells the kinds by their bytes', () => {
    expect(sniffSpreadsheet(writeSpreadsheet('xlsx', [['numero'], ['5511999990000']]))).toBe('xlsx');
    expect(sniffSpreadsheet(writeSpreadsheet('xls', [['numero'], ['5511999990000']]))).toBe('xls');
    expect(sniffSpreadsheet(writeSpreadsheet('csv', [['numero'], ['5511999990000']]))).toBe('csv');
    expect(sniffSpreadsheet(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13]))).toBeUndefined();
  });

  it('refuses whole files with their reason, and imports nothing from them', async () => {
    const { w, me, list, fake } = await setup();
    fake.stop();
    const png = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13]), Buffer.alloc(200, 1)]);
    const cases: [Buffer, string][] = [
      [Buffer.alloc(0), 'ERR_SPREADSHEET_EMPTY'],
      [png, 'ERR_SPREADSHEET_TYPE'],
      // A zip that is no workbook.
      [Buffer.concat([Buffer.from('PK\x03\x04'), Buffer.alloc(100, 7)]), 'ERR_SPREADSHEET_TYPE'],
      [writeSpreadsheet('xlsx', [['nome', 'email'], ['Ana', 'ana@example.com']]), 'ERR_SPREADSHEET_NO_NUMBER_COLUMN'],
      [writeSpreadsheet('xls', [['nome', 'numero']]), 'ERR_SPREADSHEET_EMPTY'],
      [Buffer.from(`numero\n${'5511999990000\n'.repeat(50_001)}`), 'ERR_SPREADSHEET_TOO_MANY_ROWS'],
      [Buffer.from(`numero\n${'5511999990000\n'.repeat(810_000)}`), 'ERR_SPREADSHEET_TOO_LARGE'],
    ];
    for (const [data, code] of cases) {
      expect(await refusal(run(w, () => imports.uploadContactList(me, list.id, file(data, 'lista.csv'))))).toEqual({ status: 400, code, fields: [{ field: 'file', message: code }] });
    }
    expect(await refusal(run(w, () => imports.uploadContactList(me, list.id, [])))).toMatchObject({ status: 400, fields: [{ field: 'file' }] });
    expect(await refusal(run(w, () => imports.uploadContactList(me, 999, file(writeSpreadsheet('csv', [['numero'], ['5511999990000']])))))).toMatchObject({ status: 404 });
    expect(await run(w, () => lists.getContactList(me, list.id))).toEqual(expect.not.objectContaining({ import: expect.anything() }));
    expect(w.ports.enqueued).toEqual([]);
  });

  for (const kind of ['csv', 'xls', 'xlsx'] as const) {
    it(`imports a .${kind}: any header order and case, the row report, WhatsApp answers in batches`, async () => {
      const { w, me, list, fake } = await setup();
      await run(w, () => lists.createContactListItem(me, { name: 'Já Estava', number: '5511900000007', contactListId: list.id }));
      const rows: (string | number)[][] = [['E-MAIL', 'Número', 'Nome']];
      for (let i = 0; i < 150; i++) rows.push([i % 50 === 0 ? `c${i}@example.com` : '', 5511900000000 + i, `Cliente ${i}`]);
      rows.push(['', '123', 'Número Curto']); // row 152
      rows.push(['não é email', '5511988880000', 'Email Ruim']); // row 153
      rows.push(['', '5511900000003', 'Repetido No Arquivo']); // row 154
      rows.push(['', '(11) 98888-1111', '']); // row 155: named by its number
      rows.push(['', '5511988882222', 'N'.repeat(51)]); // row 156
      try {
        const started = await run(w, () => imports.uploadContactList(me, list.id, file(writeSpreadsheet(kind, rows), `lista.${kind}`)));
        expect(started.import).toMatchObject({ status: 'running', fileName: `lista.${kind}`, total: 155, processed: 4, invalid: 3, duplicated: 1 });
        expect(started).not.toHaveProperty('importRun');
        expect(await drain(w)).toEqual(['done']);
      } finally {
        fake.stop();
      }
      // 151 good rows: 100 per question.
      expect(fake.questions()).toBe(2);
      const done = await run(w, () => lists.getContactList(me, list.id));
      expect(done.contactsCount).toBe(1 + 150);
      expect(done.import).toMatchObject({ status: 'done', total: 155, processed: 155, imported: 150, duplicated: 2, invalid: 3, whatsappValid: 148, whatsappInvalid: 2 });
      expect(done.import!.finishedAt).toBeTruthy();
      expect(done.import!.errors).toEqual([
        { row: 9, reason: 'duplicated' },
        { row: 152, reason: 'numberInvalid' },
        { row: 153, reason: 'emailInvalid' },
        { row: 154, reason: 'duplicatedInFile' },
        { row: 156, reason: 'nameTooLong' },
      ]);
      const page = await run(w, () => lists.listContactListItems(me, { contactListId: String(list.id), searchParam: '5511988881111' }));
      expect(page.contacts).toEqual([expect.objectContaining({ name: '5511988881111', number: '5511988881111', isWhatsappValid: true })]);
      const c1 = await run(w, () => lists.listContactListItems(me, { contactListId: String(list.id), searchParam: 'c50@example.com' }));
      expect(c1.contacts).toEqual([expect.objectContaining({ name: 'Cliente 50', email: 'c50@example.com' })]);
      const absent = await run(w, () => lists.listContactListItems(me, { contactListId: String(list.id), searchParam: '5511900000002' }));
      expect(absent.contacts[0]).toMatchObject({ isWhatsappValid: false });
      // Every item can be reached by its id, as the routes name it.
      expect(await run(w, () => lists.getContactListItem(me, page.contacts[0].id))).toMatchObject({ number: '5511988881111' });
      // The progress reached the console with the list's updates.
      expect(w.ports.published.filter((m) => m.data && (m.data as { record?: { import?: unknown } }).record?.import).length).toBeGreaterThanOrEqual(2);
    });
  }

  it('leaves numbers unchecked without a connected default connection', async () => {
    const { w, me, list, fake } = await setup(false);
    fake.stop();
    await run(w, () => imports.uploadContactList(me, list.id, file(writeSpreadsheet('csv', [['numero'], ['5511900000001']]))));
    await drain(w);
    const done = await run(w, () => lists.listContactListItems(me, { contactListId: String(list.id) }));
    expect(done.contacts).toEqual([expect.objectContaining({ isWhatsappValid: null })]);
    expect(w.ports.sentCommands.filter((c) => c.type === 'rpc')).toEqual([]);
  });

  it('runs in chunks, hands on when time runs out, refuses a second import meanwhile, and adds nothing twice when a chunk is redone', async () => {
    const { w, me, list, fake } = await setup(false);
    fake.stop();
    const rows: (string | number)[][] = [['nome', 'numero']];
    for (let i = 0; i < 1200; i++) rows.push([`Cliente ${i}`, 5511900000000 + i]);
    await run(w, () => imports.uploadContactList(me, list.id, file(writeSpreadsheet('xlsx', rows))));
    expect(await refusal(run(w, () => imports.uploadContactList(me, list.id, file(writeSpreadsheet('xlsx', rows)))))).toMatchObject({ status: 409, code: 'ERR_IMPORT_RUNNING' });

    // One chunk per step: the step hands the rest to the next job (FIFO, deduplicated by chunk).
    let budget = 0;
    const outcomes = await drain(w, () => budget++ % 2 === 0);
    expect(outcomes).toEqual(['continued', 'continued', 'done']);
    expect(w.ports.enqueued.filter((e) => e.queue === 'contact-list-imports').map((e) => e.dedupId?.split('-').pop())).toEqual(['0', '1', '2']);
    const done = await run(w, () => lists.getContactList(me, list.id));
    expect(done).toMatchObject({ contactsCount: 1200, import: { status: 'done', imported: 1200, processed: 1200, duplicated: 0 } });

    // A crash after a chunk's items were written but before its counts moved: the chunk is redone.
    const stored = await run(w, () => getItem<Record<string, unknown>>(contactListKey(w.companyId, list.id)));
    const runState = stored!.importRun as { nextChunk: number };
    await run(w, () =>
      updateItem(contactListKey(w.companyId, list.id), {
        importRun: { ...runState, nextChunk: 2 },
        import: { ...(stored!.import as object), status: 'running', processed: 1000, imported: 1000 },
        contactsCount: 1000,
      }),
    );
    // The chunk's rows were deleted once recorded; put them back as they were.
    const third = rows.slice(1001).map((r, i) => ({ row: 1002 + i, name: String(r[0]), number: String(r[1]), email: '' }));
    const { contactListImportChunkKey } = await import('../../src/table/keys.js');
    await run(w, () => putItem({ ...contactListImportChunkKey(w.companyId, list.id, done.import!.id, 2), entity: 'contactListImportChunk', rows: third, ttl: 0 }));
    expect(await run(w, () => imports.runContactListImport({ companyId: w.companyId, contactListId: list.id, importId: done.import!.id }))).toBe('done');
    expect(await run(w, () => lists.getContactList(me, list.id))).toMatchObject({ contactsCount: 1200, import: { imported: 1200, duplicated: 0, status: 'done' } });
    // And a job of a finished import does nothing.
    expect(await run(w, () => imports.runContactListImport({ companyId: w.companyId, contactListId: list.id, importId: done.import!.id }))).toBe('done');
  });
});

describe('the example spreadsheets', () => {
  for (const kind of ['csv', 'xls', 'xlsx'] as const) {
    it(`contact-list-example.${kind} (web/public/examples) imports as its rows`, async () => {
      const { readFileSync } = await import('node:fs');
      const { readContactListSpreadsheet, CONTACT_LIST_EXAMPLE_ROWS } = await import('../../src/services/spreadsheets.js');
      const data = readFileSync(new URL(`../../../web/public/examples/contact-list-example.${kind}`, import.meta.url));
      const { kind: read, rows } = readContactListSpreadsheet(data);
      expect(read).toBe(kind);
      expect(rows.map((r) => [r.name, r.number, r.email ?? ''])).toEqual(CONTACT_LIST_EXAMPLE_ROWS.slice(1));
    });
  }
});
