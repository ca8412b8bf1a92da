import { describe, expect, it } from 'vitest';
import { CONTACTS_EXPORT_PAGE, IMPORT_MAX_ROWS, SAME_ATTENDANT } from '@balcao/shared';
import { member, socket, tenant, uniq } from './client.js';
import { connected, sandbox } from './pipeline-helpers.js';
import { customer, phone } from './tickets-helpers.js';

const ids = (r: { body: { contacts: { id: number }[] } }) => r.body.contacts.map((c) => c.id);

describe('contacts routes', () => {
  it('creates with the dialog rules, reads, updates, refuses duplicates; other tenants get 404', async () => {
    const t = await tenant();
    const ws = await socket(t.adminToken);
    // Validation: the spec's messages, nothing written.
    expect((await t.admin.post('/contacts', { number: '5511999990000' })).body).toMatchObject({ error: 'ERR_VALIDATION', field: 'name', message: 'Required' });
    expect((await t.admin.post('/contacts', { name: 'A', number: '5511999990000' })).body).toMatchObject({ field: 'name', message: 'Too Short!' });
    expect((await t.admin.post('/contacts', { name: 'x'.repeat(51), number: '5511999990000' })).body).toMatchObject({ field: 'name', message: 'Too Long!' });
    expect((await t.admin.post('/contacts', { name: 'Ana', number: '1234' })).body).toMatchObject({ field: 'number', message: 'Too Short!' });
    expect((await t.admin.post('/contacts', { name: 'Ana', number: '1'.repeat(51) })).body).toMatchObject({ field: 'number', message: 'Too Long!' });
    expect((await t.admin.post('/contacts', { name: 'Ana', number: '5511999990000', email: 'nope' })).body).toMatchObject({ field: 'email', message: 'Invalid email' });
    expect((await t.admin.post('/contacts', { name: 'Ana', number: '5511999990000', extraInfo: [{ value: 'x' }] })).body).toMatchObject({ field: 'extraInfo.0.name', message: 'Required' });
    expect((await t.admin.get('/contacts')).body).toMatchObject({ contacts: [], count: 0, hasMore: false });

    const mark = ws.mark();
    const made = await t.admin.post('/contacts', {
      name: '  João da Silva ',
      number: '(11) 98765-4321',
      email: 'Joao@Exemplo.com',
      extraInfo: [{ name: 'CPF', value: '123' }],
    });
    expect(made.status).toBe(201);
    expect(made.body).toMatchObject({ name: 'João da Silva', number: '5511987654321', email: 'joao@exemplo.com', extraInfo: [{ name: 'CPF', value: '123' }], tags: [], userId: null });
    expect(made.body.PK).toBeUndefined();
    const id = made.body.id as number;
    const ev = await ws.waitFor(`company-${t.companyId}-contact`, (d) => d.action === 'create' && d.contact.id === id, 20_000, mark);
    expect(ev.data.contact.number).toBe('5511987654321');

    // The number is unique per company, however it is typed.
    const dup = await t.admin.post('/contacts', { name: 'Outro', number: '+55 11 98765 4321' });
    expect(dup.status).toBe(409);
    expect(dup.body).toMatchObject({ error: 'ERR_DUPLICATED_CONTACT', field: 'number' });

    expect((await t.admin.get(`/contacts/${id}`)).body).toMatchObject({ id, name: 'João da Silva', tags: [], whatsapp: null });
    const upd = await t.admin.put(`/contacts/${id}`, { name: 'João Souza', email: '' });
    expect(upd.status).toBe(200);
    expect(upd.body).toMatchObject({ name: 'João Souza', email: '', number: '5511987654321' });
    expect((await t.admin.put(`/contacts/${id}`, { name: 'J' })).body).toMatchObject({ field: 'name', message: 'Too Short!' });
    expect((await t.admin.get(`/contacts/${id}`)).body.name).toBe('João Souza');

    // Moving the number frees the old one; taking another contact's number is refused.
    const other = await t.admin.post('/contacts', { name: 'Maria', number: '5511911112222' });
    expect((await t.admin.put(`/contacts/${id}`, { number: '5511911112222' })).status).toBe(409);
    expect((await t.admin.put(`/contacts/${id}`, { number: '5511933334444' })).body.number).toBe('5511933334444');
    expect((await t.admin.post('/contacts', { name: 'Reuso', number: '5511987654321' })).status).toBe(201);

    const stranger = await tenant();
    expect((await stranger.admin.get(`/contacts/${id}`)).status).toBe(404);
    expect((await stranger.admin.put(`/contacts/${id}`, { name: 'Hack' })).status).toBe(404);
    expect((await stranger.admin.del(`/contacts/${id}`)).status).toBe(404);
    expect((await stranger.admin.get('/contacts')).body.contacts).toEqual([]);
    expect((await stranger.admin.get('/contacts?searchParam=souza')).body.contacts).toEqual([]);
    // The same number is free in another company.
    expect((await stranger.admin.post('/contacts', { name: 'Maria', number: '5511911112222' })).status).toBe(201);
    expect((await t.admin.get('/contacts/abc')).status).toBe(404);
    expect((await t.admin.get(`/contacts/${other.body.id}`)).body.name).toBe('Maria');
    ws.close();
  });

  it('deletes only with contacts-page:deleteContact and not while a ticket is in progress', async () => {
    const t = await tenant();
    const agent = await member(t.admin, { profile: 'Nível 1' });
    const c = await agent.api.post('/contacts', { name: 'Cliente', number: phone() });
    expect(c.status).toBe(201);
    expect((await agent.api.del(`/contacts/${c.body.id}`)).status).toBe(403);
    expect((await t.admin.del(`/contacts/${c.body.id}`)).status).toBe(204);
    expect((await t.admin.get(`/contacts/${c.body.id}`)).status).toBe(404);
    expect((await t.admin.del(`/contacts/${c.body.id}`)).status).toBe(404);
    expect((await t.admin.post('/contacts', { name: 'De novo', number: c.body.number })).status).toBe(201);

    const conn = await t.admin.post('/whatsapp', { name: 'Loja', provider: 'sandbox' });
    const chat = await customer(t.companyId, conn.body.id, { name: 'Com Ticket' });
    const refused = await t.admin.del(`/contacts/${chat.contactId}`);
    expect(refused.status).toBe(409);
    expect(refused.body).toMatchObject({ error: 'ERR_OTHER_OPEN_TICKET', ticketId: chat.ticketId });
    expect((await t.admin.put(`/tickets/${chat.ticketId}`, { status: 'closed' })).status).toBe(200);
    expect((await t.admin.del(`/contacts/${chat.contactId}`)).status).toBe(204);
  });

  it('searches name words (prefix, accents, case) and digits; pages of 20 in name order', async () => {
    const t = await tenant();
    const names = ['Ângela Márcia Souza', 'Bruno Souza', 'Carla Dias', 'Zé Souza Neto'];
    const made: Record<string, { id: number; number: string }> = {};
    for (const name of names) {
      const res = await t.admin.post('/contacts', { name, number: phone() });
      expect(res.status).toBe(201);
      made[name] = res.body;
    }
    const search = (s: string) => t.admin.get(`/contacts?searchParam=${encodeURIComponent(s)}`);
    expect(ids(await search('souza'))).toEqual([made['Ângela Márcia Souza'].id, made['Bruno Souza'].id, made['Zé Souza Neto'].id]);
    expect(ids(await search('ANGE'))).toEqual([made['Ângela Márcia Souza'].id]);
    expect(ids(await search('marc sou'))).toEqual([made['Ângela Márcia Souza'].id]);
    expect(ids(await search('ze'))).toEqual([made['Zé Souza Neto'].id]);
    expect(ids(await search('souza carla'))).toEqual([]);
    const carla = made['Carla Dias'].number;
    expect(ids(await search(carla.slice(-8)))).toEqual([made['Carla Dias'].id]);
    expect(ids(await search(carla))).toEqual([made['Carla Dias'].id]);
    expect((await search('souza')).body.count).toBe(3);
    // A renamed contact is found by its new name only.
    await t.admin.put(`/contacts/${made['Bruno Souza'].id}`, { name: 'Bruno Lima' });
    expect(ids(await search('souza'))).not.toContain(made['Bruno Souza'].id);
    expect(ids(await search('lima'))).toEqual([made['Bruno Souza'].id]);

    for (let i = 0; i < 21; i++) expect((await t.admin.post('/contacts', { name: `Pessoa ${String(i).padStart(2, '0')}`, number: phone() })).status).toBe(201);
    const p1 = await t.admin.get('/contacts');
    expect(p1.body.contacts).toHaveLength(20);
    expect(p1.body).toMatchObject({ count: 25, hasMore: true });
    expect(p1.body.contacts[0].name).toBe('Ângela Márcia Souza');
    const p2 = await t.admin.get('/contacts?pageNumber=2');
    expect(p2.body.contacts).toHaveLength(5);
    expect(p2.body.hasMore).toBe(false);
    expect(new Set([...ids(p1), ...ids(p2)]).size).toBe(25);
    expect(p2.body.contacts.at(-1).name).toBe('Zé Souza Neto');
    expect((await t.admin.get('/contacts?pageNumber=0')).body).toMatchObject({ error: 'ERR_VALIDATION', field: 'pageNumber' });
    expect((await t.admin.get('/contacts?tagsContact=[x]')).status).toBe(400);
    const brief = await t.admin.get('/contacts/list');
    expect(brief.body).toHaveLength(25);
    expect(brief.body[0]).toMatchObject({ id: made['Ângela Márcia Souza'].id, name: 'Ângela Márcia Souza' });
  });

  it('filters by tags and attendants; transfers contacts between attendants', async () => {
    const t = await tenant();
    const a = await member(t.admin, { name: 'Atendente A' });
    const b = await member(t.admin, { name: 'Atendente B' });
    const vip = (await t.admin.post('/tags', { name: 'VIP', type: 'contact', color: '#ff0000' })).body.id as number;
    const late = (await t.admin.post('/tags', { name: 'Atrasado', type: 'contact' })).body.id as number;
    const ticketTag = (await t.admin.post('/tags', { name: 'Ticket', type: 'ticket' })).body.id as number;
    const c1 = (await t.admin.post('/contacts', { name: 'Um', number: phone(), tags: [vip, late], userId: a.id })).body;
    const c2 = (await t.admin.post('/contacts', { name: 'Dois', number: phone(), tags: [{ id: vip }], userId: a.id })).body;
    const c3 = (await t.admin.post('/contacts', { name: 'Tres', number: phone(), userId: b.id })).body;
    expect(c1.tags.map((x: { name: string }) => x.name).sort()).toEqual(['Atrasado', 'VIP']);
    expect(c2.tags).toEqual([{ id: vip, name: 'VIP', color: '#ff0000', type: 'contact' }]);
    // Only contact tags, and existing ones, may be put on contacts; a missing attendant is refused.
    expect((await t.admin.post('/contacts', { name: 'Xavier', number: phone(), tags: [ticketTag] })).body).toMatchObject({ error: 'ERR_VALIDATION', field: 'tags' });
    expect((await t.admin.post('/contacts', { name: 'Xavier', number: phone(), tags: [999999] })).status).toBe(400);
    expect((await t.admin.post('/contacts', { name: 'Xavier', number: phone(), userId: 999999 })).body).toMatchObject({ field: 'userId' });

    const q = (s: string) => t.admin.get(`/contacts?${s}`);
    expect(ids(await q(`tagsContact=${encodeURIComponent(JSON.stringify([vip]))}`)).sort()).toEqual([c1.id, c2.id].sort());
    expect(ids(await q(`tagsContact=${encodeURIComponent(JSON.stringify([vip, late]))}`))).toEqual([c1.id]);
    expect(ids(await q(`users=${encodeURIComponent(JSON.stringify([b.id]))}`))).toEqual([c3.id]);
    expect(ids(await q(`users=${encodeURIComponent(JSON.stringify([a.id, b.id]))}&tagsContact=${encodeURIComponent(JSON.stringify([late]))}`))).toEqual([c1.id]);
    expect((await t.admin.get(`/tags/${vip}`)).body.contactsCount).toBe(2);

    // Tags edited with the contact: counts follow.
    expect((await t.admin.put(`/contacts/${c2.id}`, { tags: [late] })).body.tags.map((x: { id: number }) => x.id)).toEqual([late]);
    expect((await t.admin.get(`/tags/${vip}`)).body.contactsCount).toBe(1);
    expect((await t.admin.get(`/tags/${late}`)).body.contactsCount).toBe(2);

    // Transfer: refused for the same attendant with the spec's text; admins only.
    const same = await t.admin.post('/contacts/transferUser', { userIdSource: a.id, userIdDestination: a.id });
    expect(same.status).toBe(400);
    expect(same.body.message).toBe(SAME_ATTENDANT);
    expect((await a.api.post('/contacts/transferUser', { userIdSource: a.id, userIdDestination: b.id })).status).toBe(403);
    expect((await t.admin.post('/contacts/transferUser', { userIdSource: a.id, userIdDestination: 999999 })).status).toBe(404);
    const moved = await t.admin.post('/contacts/transferUser', { userIdSource: a.id, userIdDestination: b.id });
    expect(moved.status).toBe(200);
    expect(moved.body.transferred).toBe(2);
    expect((await t.admin.get(`/contacts/${c1.id}`)).body.userId).toBe(b.id);
    expect(ids(await q(`users=${encodeURIComponent(JSON.stringify([a.id]))}`))).toEqual([]);
    expect(ids(await q(`users=${encodeURIComponent(JSON.stringify([b.id]))}`)).sort()).toEqual([c1.id, c2.id, c3.id].sort());
  });

  it('imports a list: created, updated, unchanged and refused rows with reasons; never a duplicate number', async () => {
    const t = await tenant();
    const existing = (await t.admin.post('/contacts', { name: 'Antigo Nome', number: '5511955550001' })).body;
    const rows = [
      { name: 'Novo Um', number: '5511955550002', email: 'um@x.com' },
      { name: 'Nome Atualizado', number: '(11) 95555-0001' },
      { name: 'Repetido', number: '5511955550002' },
      { name: 'Curto', number: '123' },
      { name: 'Email ruim', number: '5511955550003', email: 'nope' },
      { name: '', number: '5511955550004' },
    ];
    const res = await t.admin.post('/contacts/importList', rows);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ created: 2, updated: 1, unchanged: 0 });
    expect(res.body.refused).toEqual([
      { row: 3, number: '5511955550002', reason: 'ERR_DUPLICATED_CONTACT' },
      { row: 4, number: '123', reason: 'number: Too Short!' },
      { row: 5, number: '5511955550003', reason: 'email: Invalid email' },
    ]);
    expect(res.body.contacts.find((c: { row: number }) => c.row === 2)).toMatchObject({ contactId: existing.id, status: 'updated' });
    expect((await t.admin.get(`/contacts/${existing.id}`)).body.name).toBe('Nome Atualizado');
    const unnamed = res.body.contacts.find((c: { row: number }) => c.row === 6);
    expect((await t.admin.get(`/contacts/${unnamed.contactId}`)).body.name).toBe('5511955550004');
    // The same file again changes nothing.
    const again = await t.admin.post('/contacts/importList', { contacts: rows.slice(0, 2) });
    expect(again.body).toMatchObject({ created: 0, updated: 0, unchanged: 2 });
    expect((await t.admin.post('/contacts/importList', { nope: 1 })).status).toBe(400);
    expect((await t.admin.get('/contacts')).body.count).toBe(3);
  });

  it('two overlapping imports at once never duplicate a number; a call above the row limit is refused', async () => {
    const t = await tenant();
    const base = 5511970000000 + Math.floor(Math.random() * 1000) * 10_000;
    const rows = Array.from({ length: 60 }, (_, i) => ({ name: `Cliente ${uniq('n')} ${i}`, number: String(base + i), email: '' }));
    const tooMany = Array.from({ length: IMPORT_MAX_ROWS + 1 }, (_, i) => ({ name: 'Linha', number: String(base + i) }));
    expect((await t.admin.post('/contacts/importList', tooMany)).body).toMatchObject({ error: 'ERR_VALIDATION', field: 'body' });
    const batches = (list: typeof rows) => Array.from({ length: Math.ceil(list.length / 20) }, (_, i) => list.slice(i * 20, (i + 1) * 20));
    const results: { created: number; updated: number; unchanged: number; refused: unknown[]; contacts: { number: string; contactId: number }[] }[] = [];
    const times: number[] = [];
    // Two importers at once whose files overlap by 200 rows.
    await Promise.all(
      [rows.slice(0, 40), rows.slice(20)].map(async (file) => {
        for (const batch of batches(file)) {
          const started = Date.now();
          const res = await t.admin.post('/contacts/importList', batch);
          times.push(Date.now() - started);
          expect(res.status).toBe(200);
          results.push(res.body);
        }
      }),
    );
    expect(results.every((r) => r.refused.length === 0)).toBe(true);
    expect(results.reduce((n, r) => n + r.created, 0)).toBe(60);
    expect(results.reduce((n, r) => n + r.created + r.unchanged + r.updated, 0)).toBe(80);
    const all = new Map<string, number>();
    for (const c of results.flatMap((r) => r.contacts)) {
      if (all.has(c.number)) expect(all.get(c.number)).toBe(c.contactId);
      all.set(c.number, c.contactId);
    }
    expect(all.size).toBe(60);
    expect((await t.admin.get('/contacts')).body.count).toBe(60);
    expect(ids(await t.admin.get(`/contacts?searchParam=${base + 43}`))).toEqual([all.get(String(base + 43))]);
    console.log(`imports of 20 rows per call, two at once: ${times.join(', ')} ms`);
  }, 300_000);

  it('exports every contact in cursor pages, with the filters; a broken or foreign cursor is refused', async () => {
    const t = await tenant();
    type Row = { id: number; name: string; number: string; email: string };
    const exportAll = async (api: typeof t.admin, qs = '') => {
      const rows: Row[] = [];
      let cursor: string | null = null;
      let pages = 0;
      do {
        const res: { status: number; body: any } = await api.get(`/contacts/export?${qs}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
        expect(res.status, JSON.stringify(res.body).slice(0, 300)).toBe(200);
        expect(res.body.contacts.length).toBeLessThanOrEqual(CONTACTS_EXPORT_PAGE);
        rows.push(...res.body.contacts);
        cursor = res.body.next;
        pages++;
      } while (cursor && pages < 20);
      expect(new Set(rows.map((r) => r.id)).size, 'each contact once').toBe(rows.length);
      return { rows, pages };
    };

    // More than one page of contacts (imported 300 a call, as the console does).
    const size = CONTACTS_EXPORT_PAGE + 150;
    const book = Array.from({ length: size }, (_, i) => ({ name: `Exporta ${i + 1}`, number: phone(), email: i === 0 ? 'um@exporta.test' : '' }));
    for (let i = 0; i < size; i += IMPORT_MAX_ROWS) {
      const res = await t.admin.post('/contacts/importList', book.slice(i, i + IMPORT_MAX_ROWS));
      expect(res.body.created, JSON.stringify(res.body).slice(0, 300)).toBe(Math.min(IMPORT_MAX_ROWS, size - i));
    }
    const all = await exportAll(t.admin);
    expect(all.pages).toBe(2);
    expect(all.rows.map((r) => r.number).sort()).toEqual(book.map((b) => b.number).sort());
    expect(all.rows.find((r) => r.name === 'Exporta 1')).toMatchObject({ email: 'um@exporta.test', id: expect.any(Number) });
    expect(Object.keys(all.rows[0]).sort()).toEqual(['email', 'id', 'name', 'number']);

    // Filters as on the contacts page: a tag, attendants (any), a search; together.
    const ids = all.rows.map((r) => r.id);
    const tag = (await t.admin.post('/tags', { name: 'Exportar', type: 'contact' })).body.id as number;
    const a = await member(t.admin);
    const b = await member(t.admin);
    for (const id of ids.slice(0, 3)) expect((await t.admin.put(`/contacts/${id}`, { tags: [tag] })).status).toBe(200);
    for (const id of ids.slice(2, 5)) expect((await t.admin.put(`/contacts/${id}`, { userId: a.id })).status).toBe(200);
    for (const id of ids.slice(5, 7)) expect((await t.admin.put(`/contacts/${id}`, { userId: b.id })).status).toBe(200);
    const zuleica = await t.admin.post('/contacts', { name: 'Zuleica Exportável', number: phone(), tags: [tag] });
    expect(zuleica.status).toBe(201);
    const idsOf = (r: { rows: Row[] }) => r.rows.map((x) => x.id).sort((x, y) => x - y);
    const sorted = (list: number[]) => [...list].sort((x, y) => x - y);
    expect(idsOf(await exportAll(t.admin, `tagsContact=[${tag}]`))).toEqual(sorted([...ids.slice(0, 3), zuleica.body.id]));
    expect(idsOf(await exportAll(t.admin, `users=[${a.id},${b.id}]`))).toEqual(sorted(ids.slice(2, 7)));
    expect(idsOf(await exportAll(t.admin, `users=[${a.id}]&tagsContact=[${tag}]`))).toEqual([ids[2]]);
    expect(idsOf(await exportAll(t.admin, 'searchParam=zuleica'))).toEqual([zuleica.body.id]);
    expect(idsOf(await exportAll(t.admin, `searchParam=zuleica&users=[${a.id}]`))).toEqual([]);
    // An agent exports too (the page is everyone's); the whole company.
    expect((await exportAll(a.api)).rows.length).toBe(size + 1);

    // A cursor that is not one, or one of another company's export: 400 on the field, nothing read.
    const first = (await t.admin.get('/contacts/export')).body.next as string;
    expect(first).toEqual(expect.any(String));
    expect((await t.admin.get('/contacts/export?cursor=nope')).body).toMatchObject({ error: 'ERR_VALIDATION', field: 'cursor' });
    expect((await t.admin.get(`/contacts/export?cursor=${first}&tagsContact=[${tag}]`)).body).toMatchObject({ error: 'ERR_VALIDATION', field: 'cursor' });
    const other = await tenant();
    expect((await other.admin.get(`/contacts/export?cursor=${first}`)).body).toMatchObject({ error: 'ERR_VALIDATION', field: 'cursor' });
    expect((await other.admin.get('/contacts/export')).body).toEqual({ contacts: [], next: null });
    expect((await t.admin.get('/contacts/export?tagsContact=nope')).status).toBe(400);
  }, 300_000);

  it("imports the phone's address book through the connection", async () => {
    const t = await connected();
    const book = [
      { number: phone(), name: 'Agenda Um' },
      { number: phone(), name: 'Agenda Dois' },
    ];
    expect((await sandbox('PUT', `/connections/${t.connectionId}/contacts`, book)).status).toBeLessThan(300);
    const res = await t.admin.post('/contacts/import', {});
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ created: 2, refused: [] });
    const found = await t.admin.get('/contacts?searchParam=agenda');
    expect(found.body.contacts.map((c: { name: string }) => c.name)).toEqual(['Agenda Dois', 'Agenda Um']);
    expect(found.body.contacts[0].whatsappId).toBe(t.connectionId);
    expect((await t.admin.post('/contacts/import', {})).body).toMatchObject({ created: 0, unchanged: 2 });
    expect((await t.admin.post('/contacts/import', { whatsappId: 999999 })).status).toBe(404);
    t.ws.close();
  });

  it('imports an address book of more than IMPORT_MAX_ROWS entries in pages: every entry once, again changes nothing', async () => {
    const t = await connected();
    const size = 2 * IMPORT_MAX_ROWS + 50;
    const book = Array.from({ length: size }, (_, i) => ({ number: phone(), name: `Agenda Grande ${i + 1}` }));
    // One number is a contact already (with another name): the import updates it, never duplicates it.
    const known = book[IMPORT_MAX_ROWS + 7];
    expect((await t.admin.post('/contacts', { name: 'Nome Antigo', number: known.number })).status).toBe(201);
    expect((await sandbox('PUT', `/connections/${t.connectionId}/contacts`, book)).status).toBeLessThan(300);
    expect((await t.admin.post('/contacts/import', { after: 'x'.repeat(65) })).body).toMatchObject({ error: 'ERR_VALIDATION', field: 'after' });

    const importAll = async () => {
      const totals = { created: 0, updated: 0, unchanged: 0, refused: 0, calls: 0 };
      const ids = new Map<string, number>();
      const rows: number[] = [];
      let after: string | undefined;
      do {
        const res = await t.admin.post('/contacts/import', after ? { after } : {});
        expect(res.status, JSON.stringify(res.body).slice(0, 300)).toBe(200);
        expect(res.body.total).toBe(size);
        expect(res.body.contacts.length).toBeLessThanOrEqual(IMPORT_MAX_ROWS);
        for (const c of res.body.contacts) {
          expect(ids.has(c.number), `${c.number} twice`).toBe(false);
          ids.set(c.number, c.contactId);
          rows.push(c.row);
        }
        totals.created += res.body.created;
        totals.updated += res.body.updated;
        totals.unchanged += res.body.unchanged;
        totals.refused += res.body.refused.length;
        totals.calls++;
        after = res.body.next ?? undefined;
      } while (after && totals.calls < 10);
      return { totals, ids, rows };
    };

    const first = await importAll();
    expect(first.totals).toEqual({ created: size - 1, updated: 1, unchanged: 0, refused: 0, calls: 3 });
    expect(first.ids.size).toBe(size);
    // Rows are numbered through the whole book, not per call.
    expect([...first.rows].sort((a, b) => a - b)).toEqual(Array.from({ length: size }, (_, i) => i + 1));
    expect((await t.admin.get('/contacts')).body.count).toBe(size);
    const found = await t.admin.get(`/contacts?searchParam=${known.number}`);
    expect(found.body.contacts.map((c: { name: string }) => c.name)).toEqual([known.name]);

    // Importing again (a page repeated after a failure, or the whole book): nothing new.
    const again = await importAll();
    expect(again.totals).toEqual({ created: 0, updated: 0, unchanged: size, refused: 0, calls: 3 });
    expect([...again.ids]).toEqual([...first.ids]);
    expect((await t.admin.get('/contacts')).body.count).toBe(size);
    t.ws.close();
  }, 300_000);
});
