import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { IMPORT_MAX_ROWS, parseContactsCsv } from '@balcao/shared';
import { connected, sandbox } from '../../functions/test/integration/pipeline-helpers.js';
import { endpoints, member, PASSWORD } from '../../functions/test/integration/client.js';
import { emit, msg } from '../../functions/test/integration/ingest-helpers.js';
import { launch, NARROW, newContext, screenshot, signInUi, WIDE } from './support/browser.js';

// Issue 5 §1 (client side): the contacts page, the contact dialog, CSV import/export, the phone's
// address book, starting a ticket from a row, transfer between attendants, the delete permission.

let browser: Browser;
let t: Awaited<ReturnType<typeof connected>>;
let ana: Awaited<ReturnType<typeof member>>;
let bruno: Awaited<ReturnType<typeof member>>;
let carla: Awaited<ReturnType<typeof member>>;
let vip: number;
let maria: number;
const web = () => endpoints().webUrl;
const rnd = () => String(Math.floor(Math.random() * 1e8)).padStart(8, '0');
const MARIA = `55119${rnd()}`;
const JOAO = `55219${rnd()}`;

beforeAll(async () => {
  browser = await launch();
  t = await connected();
  // Browser users of their own: a browser sign-in replaces the user's API session.
  ana = await member(t.admin, { name: 'Ana Admin', profile: 'admin' });
  bruno = await member(t.admin, { name: 'Bruno Lima', profile: 'Nível 1' });
  carla = await member(t.admin, { name: 'Carla Nunes', profile: 'Nível 2' });
  const tag = await t.admin.post('/tags', { name: 'Cliente VIP', color: '#8e24aa', type: 'contact' });
  expect(tag.status, JSON.stringify(tag.body)).toBe(201);
  vip = tag.body.id;
  const m = await t.admin.post('/contacts', { name: 'Maria Souza', number: MARIA, email: 'maria@exemplo.com', tags: [vip], userId: bruno.id });
  expect(m.status, JSON.stringify(m.body)).toBe(201);
  maria = m.body.id;
  expect((await t.admin.post('/contacts', { name: 'João Pereira', number: JOAO })).status).toBe(201);
}, 180_000);
afterAll(async () => {
  t?.ws.close();
  await browser?.close();
});

async function signedIn(who: { email: string }, opts: Parameters<typeof newContext>[1] = {}): Promise<Page> {
  const ctx = await newContext(browser, { ...opts });
  const page = await ctx.newPage();
  await signInUi(page, web(), who.email, PASSWORD);
  return page;
}

const rows = (page: Page) => page.locator('.contact-row');
const names = async (page: Page) => (await page.getByTestId('contact-name').allTextContents()).sort();
const row = (page: Page, name: string) => rows(page).filter({ has: page.getByTestId('contact-name').getByText(name, { exact: true }) });
const formatted = (n: string) => `+${n.slice(0, 2)} (${n.slice(2, 4)}) ${n.slice(4, 9)}-${n.slice(9)}`;

async function pick(page: Page, testId: string, option: string) {
  await page.getByTestId(testId).locator('.msel-btn').click();
  await page.getByTestId(testId).getByRole('option', { name: option }).getByRole('checkbox').check();
  // Closed with its own button: Escape would also close a dialog around it.
  await page.getByTestId(testId).locator('.msel-btn').click();
}

describe('contacts page', () => {
  it('lists, searches, filters (also by ?tag= and ?user=), adds and edits with the form messages, refuses a taken number, deletes', { timeout: 240_000 }, async () => {
    const page = await signedIn(ana);
    await page.getByRole('navigation', { name: 'menu' }).getByRole('link', { name: 'Contatos', exact: true }).click();
    await page.waitForURL(/\/contacts$/);
    await row(page, 'Maria Souza').waitFor({ timeout: 20_000 });
    expect(await names(page)).toEqual(['João Pereira', 'Maria Souza']);
    const m = row(page, 'Maria Souza');
    expect(await m.getByTestId('contact-number').textContent()).toBe(formatted(MARIA));
    expect(await m.getByTestId('contact-number').getAttribute('href')).toBe(`tel:+${MARIA}`);
    expect(await m.getByText('maria@exemplo.com').count()).toBe(1);
    expect(await m.getByText('Cliente VIP').count()).toBe(1);
    // An admin may delete and start tickets.
    await m.getByRole('button', { name: 'Excluir Maria Souza' }).waitFor();
    await m.getByRole('button', { name: 'Iniciar atendimento com Maria Souza' }).waitFor();
    await screenshot(page, 'contacts-light-wide');

    // Search by name, then by digits of the number.
    await page.getByPlaceholder('Pesquisar nome, número ou email').fill('maria');
    await expect.poll(() => names(page), { timeout: 10_000 }).toEqual(['Maria Souza']);
    await page.getByPlaceholder('Pesquisar nome, número ou email').fill(JOAO.slice(-6));
    await expect.poll(() => names(page), { timeout: 10_000 }).toEqual(['João Pereira']);
    await page.getByPlaceholder('Pesquisar nome, número ou email').fill('');
    await expect.poll(() => names(page), { timeout: 10_000 }).toEqual(['João Pereira', 'Maria Souza']);

    // Tag filter, attendant filter.
    await pick(page, 'contacts-tag-filter', 'Cliente VIP');
    await expect.poll(() => names(page), { timeout: 10_000 }).toEqual(['Maria Souza']);
    await page.getByTestId('contacts-tag-filter').locator('.msel-btn').click();
    await page.getByTestId('contacts-tag-filter').getByRole('option', { name: 'Cliente VIP' }).getByRole('checkbox').uncheck();
    await page.keyboard.press('Escape');
    await expect.poll(() => names(page), { timeout: 10_000 }).toEqual(['João Pereira', 'Maria Souza']);
    await pick(page, 'contacts-user-filter', 'Bruno Lima');
    await expect.poll(() => names(page), { timeout: 10_000 }).toEqual(['Maria Souza']);

    // The query parameters preselect the filters.
    await page.goto(`${web()}/contacts?tag=${vip}`);
    await expect.poll(() => names(page), { timeout: 15_000 }).toEqual(['Maria Souza']);
    expect(await page.getByTestId('contacts-tag-filter').locator('.msel-value').textContent()).toBe('Cliente VIP');
    await page.goto(`${web()}/contacts?user=${carla.id}`);
    await page.getByText('Nenhum registro encontrado').waitFor({ timeout: 15_000 });
    expect(await page.getByTestId('contacts-user-filter').locator('.msel-value').textContent()).toBe('Carla Nunes');
    await page.goto(`${web()}/contacts?user=${bruno.id}`);
    await expect.poll(() => names(page), { timeout: 15_000 }).toEqual(['Maria Souza']);
    await page.goto(`${web()}/contacts`);
    await row(page, 'João Pereira').waitFor({ timeout: 15_000 });

    // Add: the form's messages, then the taken number (typed differently) answers ERR_DUPLICATED_CONTACT.
    await page.getByRole('button', { name: 'Adicionar contato' }).click();
    const dialog = page.getByRole('dialog', { name: 'Adicionar contato' });
    await dialog.getByRole('button', { name: 'Salvar' }).click();
    await expect.poll(() => dialog.getByText('Obrigatório').count()).toBe(2);
    await dialog.getByLabel('Nome', { exact: true }).fill('A');
    await dialog.getByLabel('Número', { exact: true }).fill('1234567');
    await dialog.getByLabel('Email', { exact: true }).fill('nao-e-email@');
    await dialog.getByRole('button', { name: 'Salvar' }).click();
    await expect.poll(() => dialog.getByText('Muito curto!').count()).toBe(2);
    await dialog.getByText('Email inválido').waitFor();
    await dialog.getByLabel('Nome', { exact: true }).fill('x'.repeat(51));
    await dialog.getByRole('button', { name: 'Salvar' }).click();
    await dialog.getByText('Muito longo!').waitFor();
    await dialog.getByLabel('Nome', { exact: true }).fill('Paula Reis');
    await dialog.getByLabel('Número', { exact: true }).fill(formatted(MARIA));
    await dialog.getByLabel('Email', { exact: true }).fill('paula@exemplo.com');
    await dialog.getByRole('button', { name: 'Adicionar informação' }).click();
    await dialog.getByLabel('Nome do campo', { exact: true }).fill('CPF');
    await dialog.getByLabel('Valor', { exact: true }).fill('123.456.789-00');
    await pick(page, 'contact-dialog-tags', 'Cliente VIP');
    await dialog.getByLabel('Atendente', { exact: true }).selectOption({ label: 'Carla Nunes' });
    await screenshot(page, 'contacts-dialog-light-wide');
    await dialog.getByRole('button', { name: 'Salvar' }).click();
    await dialog.getByText('Já existe um contato com este número.').waitFor({ timeout: 10_000 });
    const paulaNumber = `55319${rnd()}`;
    await dialog.getByLabel('Número', { exact: true }).fill(`+${paulaNumber}`);
    await dialog.getByRole('button', { name: 'Salvar' }).click();
    await dialog.waitFor({ state: 'hidden', timeout: 10_000 });
    const paula = row(page, 'Paula Reis');
    await paula.waitFor({ timeout: 10_000 });
    expect(await paula.getByTestId('contact-number').getAttribute('href')).toBe(`tel:+${paulaNumber}`);
    const paulaId = Number((await paula.getAttribute('data-testid'))!.replace('contact-row-', ''));
    const stored = (await t.admin.get(`/contacts/${paulaId}`)).body;
    expect(stored).toMatchObject({ name: 'Paula Reis', number: paulaNumber, email: 'paula@exemplo.com', userId: carla.id, extraInfo: [{ name: 'CPF', value: '123.456.789-00' }] });
    expect(stored.tags.map((x: { id: number }) => x.id)).toEqual([vip]);

    // Edit: the dialog loads the contact; the change shows in the row.
    await paula.getByRole('button', { name: 'Editar Paula Reis' }).click();
    const edit = page.getByRole('dialog', { name: 'Editar contato' });
    await expect.poll(() => edit.getByLabel('Nome', { exact: true }).inputValue(), { timeout: 10_000 }).toBe('Paula Reis');
    expect(await edit.getByLabel('Valor', { exact: true }).inputValue()).toBe('123.456.789-00');
    await edit.getByLabel('Nome', { exact: true }).fill('Paula Reis Costa');
    await edit.getByRole('button', { name: 'Salvar' }).click();
    await edit.waitFor({ state: 'hidden', timeout: 10_000 });
    await row(page, 'Paula Reis Costa').waitFor({ timeout: 10_000 });

    // A contact created elsewhere appears live, and the total follows.
    const before = Number((await page.getByTestId('contacts-count').textContent())!.replace(/\D/g, ''));
    const live = await t.admin.post('/contacts', { name: 'Rafael Live', number: `55419${rnd()}` });
    expect(live.status).toBe(201);
    await row(page, 'Rafael Live').waitFor({ timeout: 15_000 });
    await expect.poll(() => page.getByTestId('contacts-count').textContent()).toBe(`(${before + 1})`);

    // Delete.
    await row(page, 'Paula Reis Costa').getByRole('button', { name: 'Excluir Paula Reis Costa' }).click();
    await page.getByRole('dialog', { name: 'Excluir Paula Reis Costa?' }).getByRole('button', { name: 'Confirmar' }).click();
    await row(page, 'Paula Reis Costa').waitFor({ state: 'detached', timeout: 10_000 });
    await expect.poll(() => page.getByTestId('contacts-count').textContent()).toBe(`(${before})`);
    expect((await t.admin.get(`/contacts/${paulaId}`)).status).toBe(404);
    await page.context().close();
  });

  it('imports a CSV (header, quotes, empty cells) without duplicating numbers, then exports contacts.csv with the same contacts', { timeout: 240_000 }, async () => {
    const page = await signedIn(ana);
    await page.goto(`${web()}/contacts`);
    await row(page, 'Maria Souza').waitFor({ timeout: 20_000 });
    const n = [`55119${rnd()}`, `55119${rnd()}`, `55119${rnd()}`];
    const csv = [
      '"nome";"numero";"email"',
      `"Ana Importada";"${n[0]}";"ana@importada.com"`,
      `Bruno Importado;${n[1]};`,
      `;${n[2]};`,
      ';;',
      'Curto;123;',
      `Maria Souza Nova;${MARIA};maria@nova.com`,
      `Repetida;${n[0]};`,
    ].join('\r\n');
    const importOnce = async () => {
      await page.getByRole('button', { name: 'Importar CSV' }).click();
      const dialog = page.getByRole('dialog', { name: 'Importar contatos de um CSV' });
      await dialog.getByTestId('import-csv-file').setInputFiles({ name: 'clientes.csv', mimeType: 'text/csv', buffer: Buffer.from(csv, 'utf8') });
      await expect.poll(() => dialog.getByTestId('import-csv-summary').textContent()).toBe('clientes.csv — 6 linhas');
      await dialog.getByRole('button', { name: 'Importar' }).click();
      await expect.poll(() => dialog.getByTestId('import-result').getAttribute('data-finished'), { timeout: 60_000 }).toBe('true');
      expect(await dialog.getByTestId('import-progress').textContent()).toBe('6 / 6');
      return dialog;
    };
    const first = await importOnce();
    const result = first.getByTestId('import-result');
    expect(await result.textContent()).toContain('Criados: 3 · Atualizados: 1 · Sem mudança: 0 · Recusados: 2');
    // The reasons name the file's lines (the blank line 5 was skipped, not counted).
    expect(await result.getByRole('list', { name: 'Linhas recusadas' }).getByRole('listitem').allTextContents()).toEqual([
      'Linha 6 (123): Número: Muito curto!',
      `Linha 8 (${n[0]}): Já existe um contato com este número.`,
    ]);
    await screenshot(page, 'contacts-import-light-wide');
    await first.getByRole('button', { name: 'Fechar' }).click();
    await row(page, 'Ana Importada').waitFor({ timeout: 15_000 });
    await row(page, n[2]).waitFor();
    await row(page, 'Maria Souza Nova').waitFor();

    // The same file again creates nothing.
    const second = await importOnce();
    expect(await second.getByTestId('import-result').textContent()).toContain('Criados: 0 · Atualizados: 0 · Sem mudança: 4 · Recusados: 2');
    await second.getByRole('button', { name: 'Fechar' }).click();
    for (const num of n) expect((await t.admin.get(`/contacts?searchParam=${num}`)).body.contacts.length).toBe(1);
    const ana1 = (await t.admin.get(`/contacts?searchParam=${n[0]}`)).body.contacts[0];
    expect(ana1).toMatchObject({ name: 'Ana Importada', email: 'ana@importada.com' });

    // Export: contacts.csv for Excel pt-BR (UTF-8 BOM, name;number;email, numbers as text
    // formulas so no digit is lost), the company's contacts exactly.
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Exportar CSV' }).click()]);
    expect(download.suggestedFilename()).toBe('contacts.csv');
    const file = fs.readFileSync((await download.path())!);
    expect([...file.subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
    const lines = file.toString('utf8').slice(1).split(/\r\n/).filter(Boolean);
    expect(lines[0]).toBe('name;number;email');
    expect(lines).toContain(`Ana Importada;"=""${n[0]}""";ana@importada.com`);
    const exported = parseContactsCsv(file);
    expect(exported.delimiter).toBe(';');
    expect(exported.rows).toContainEqual({ name: 'Ana Importada', number: n[0], email: 'ana@importada.com' });
    expect(exported.rows).toContainEqual({ name: 'Maria Souza Nova', number: MARIA, email: 'maria@nova.com' });
    expect(exported.rows).toContainEqual({ name: n[2], number: n[2] });
    const all = (await t.admin.get('/contacts/list')).body as { number: string }[];
    expect(exported.rows.map((r) => r.number).sort()).toEqual(all.map((c) => c.number).sort());

    // Round trip: the exported file imported back changes nothing.
    await page.getByRole('button', { name: 'Importar CSV' }).click();
    const back = page.getByRole('dialog', { name: 'Importar contatos de um CSV' });
    await back.getByTestId('import-csv-file').setInputFiles({ name: 'contacts.csv', mimeType: 'text/csv', buffer: file });
    await back.getByRole('button', { name: 'Importar' }).click();
    await expect.poll(() => back.getByTestId('import-result').getAttribute('data-finished'), { timeout: 60_000 }).toBe('true');
    expect(await back.getByTestId('import-result').textContent()).toContain(`Criados: 0 · Atualizados: 0 · Sem mudança: ${all.length} · Recusados: 0`);
    await page.context().close();
  });

  it('a contact WhatsApp names only by a LID is renamed with the number left blank, and gets a number when one is typed (issue 17)', { timeout: 120_000 }, async () => {
    const lid = `19${rnd()}${rnd()}`.slice(0, 15);
    await emit([msg(t.companyId, t.connectionId, '', 'Oi, só pelo LID', { chat: { lid, name: 'Cliente Só LID' } })]);
    const page = await signedIn(ana);
    await page.goto(`${web()}/contacts`);
    const lidRow = row(page, 'Cliente Só LID');
    await lidRow.waitFor({ timeout: 20_000 });
    // The row may show before its number cell settles (a live event, then the page): wait for the text.
    await expect.poll(() => lidRow.getByText('Contato sem número').count(), { timeout: 10_000 }).toBeGreaterThan(0);

    await lidRow.getByRole('button', { name: 'Editar Cliente Só LID' }).click();
    const edit = page.getByRole('dialog', { name: 'Editar contato' });
    await expect.poll(() => edit.getByLabel('Nome', { exact: true }).inputValue(), { timeout: 10_000 }).toBe('Cliente Só LID');
    await edit.getByText('O WhatsApp ainda não informou o número deste contato: deixe em branco ou informe-o.').waitFor();
    await edit.getByLabel('Nome', { exact: true }).fill('Cliente Renomeado');
    await edit.getByRole('button', { name: 'Salvar' }).click();
    await edit.waitFor({ state: 'hidden', timeout: 10_000 });
    const renamed = row(page, 'Cliente Renomeado');
    await renamed.waitFor({ timeout: 10_000 });
    const id = Number((await renamed.getAttribute('data-testid'))!.replace('contact-row-', ''));
    expect((await t.admin.get(`/contacts/${id}`)).body).toMatchObject({ name: 'Cliente Renomeado', number: '' });

    const number = `55319${rnd()}`;
    await renamed.getByRole('button', { name: 'Editar Cliente Renomeado' }).click();
    await expect.poll(() => edit.getByLabel('Nome', { exact: true }).inputValue(), { timeout: 10_000 }).toBe('Cliente Renomeado');
    await edit.getByLabel('Número', { exact: true }).fill(number);
    await edit.getByRole('button', { name: 'Salvar' }).click();
    await edit.waitFor({ state: 'hidden', timeout: 10_000 });
    await expect.poll(async () => (await t.admin.get(`/contacts/${id}`)).body.number, { timeout: 10_000 }).toBe(number);
    await page.context().close();
  });

  it("imports Excel's comma-separated windows-1252 file with accented headers; a header without a number column is explained", { timeout: 120_000 }, async () => {
    const page = await signedIn(ana);
    await page.goto(`${web()}/contacts`);
    await row(page, 'Maria Souza Nova').waitFor({ timeout: 20_000 });
    await page.getByRole('button', { name: 'Importar CSV' }).click();
    const dialog = page.getByRole('dialog', { name: 'Importar contatos de um CSV' });
    const input = dialog.getByTestId('import-csv-file');
    const importButton = dialog.getByRole('button', { name: 'Importar' });

    // No number column: the header as read is named and nothing can be sent.
    await input.setInputFiles({ name: 'sem-numero.csv', mimeType: 'text/csv', buffer: Buffer.from('Nome,Cidade\r\nAna,Recife\r\n', 'utf8') });
    await expect
      .poll(() => dialog.getByTestId('import-csv-no-number').textContent())
      .toBe('O cabeçalho não tem uma coluna de número (número, numero, number ou telefone), então nada pode ser importado. Colunas lidas: Nome, Cidade.');
    expect(await importButton.isDisabled()).toBe(true);

    // What Excel's plain "CSV" writes on an English Windows: commas, windows-1252, CRLF.
    const n = [`55119${rnd()}`, `55119${rnd()}`];
    const csv = ['Nome,Número,E-mail', `"Araújo, Conceição",${n[0]},conceicao@exemplo.com`, `João Ávila,${n[1]},`, ''].join('\r\n');
    await input.setInputFiles({ name: 'excel.csv', mimeType: 'text/csv', buffer: Buffer.from(csv, 'latin1') });
    await expect.poll(() => dialog.getByTestId('import-csv-summary').textContent()).toBe('excel.csv — 2 linhas');
    expect(await dialog.getByTestId('import-csv-no-number').count()).toBe(0);
    await importButton.click();
    await expect.poll(() => dialog.getByTestId('import-result').getAttribute('data-finished'), { timeout: 60_000 }).toBe('true');
    expect(await dialog.getByTestId('import-result').textContent()).toContain('Criados: 2 · Atualizados: 0 · Sem mudança: 0 · Recusados: 0');
    await dialog.getByRole('button', { name: 'Fechar' }).click();
    await row(page, 'Araújo, Conceição').waitFor({ timeout: 15_000 });
    await row(page, 'João Ávila').waitFor();
    expect((await t.admin.get(`/contacts?searchParam=${n[0]}`)).body.contacts).toMatchObject([{ name: 'Araújo, Conceição', number: n[0], email: 'conceicao@exemplo.com' }]);
    expect((await t.admin.get(`/contacts?searchParam=${n[1]}`)).body.contacts).toMatchObject([{ name: 'João Ávila', number: n[1] }]);
    await page.context().close();
  });

  it('imports a file bigger than one request in consecutive calls, sums the counts and never duplicates a number across them', { timeout: 300_000 }, async () => {
    const page = await signedIn(ana);
    await page.goto(`${web()}/contacts`);
    await row(page, 'Maria Souza Nova').waitFor({ timeout: 20_000 });
    // Two calls at least: the server takes IMPORT_MAX_ROWS rows per request.
    const total = IMPORT_MAX_ROWS + 5;
    const base = 5561900000000 + Math.floor(Math.random() * 1e6) * 1000;
    const lines = ['name;number;email'];
    for (let i = 0; i < total; i++) lines.push(`Zeta Lote ${String(i).padStart(5, '0')};${base + i};`);
    // The last row repeats the first number (in another call) and one row is invalid.
    lines[total] = `Zeta Repetida;${base};`;
    lines[10] = 'Zeta Invalida;12;';
    await page.getByRole('button', { name: 'Importar CSV' }).click();
    const dialog = page.getByRole('dialog', { name: 'Importar contatos de um CSV' });
    await dialog.getByTestId('import-csv-file').setInputFiles({ name: 'lote.csv', mimeType: 'text/csv', buffer: Buffer.from(lines.join('\n'), 'utf8') });
    await dialog.getByRole('button', { name: 'Importar' }).click();
    await expect.poll(() => dialog.getByTestId('import-result').getAttribute('data-finished'), { timeout: 240_000, interval: 1000 }).toBe('true');
    expect(await dialog.getByTestId('import-progress').textContent()).toBe(`${total} / ${total}`);
    expect(await dialog.getByTestId('import-result').textContent()).toContain(`Criados: ${total - 2} · Atualizados: 1 · Sem mudança: 0 · Recusados: 1`);
    expect(await dialog.getByRole('listitem').allTextContents()).toEqual(['Linha 11 (12): Número: Muito curto!']);
    await dialog.getByRole('button', { name: 'Fechar' }).click();

    // Infinite scroll: pages of 20 load as the table scrolls, to the last contact, each once.
    await expect.poll(() => rows(page).count(), { timeout: 15_000 }).toBeGreaterThanOrEqual(20);
    expect(await rows(page).count()).toBeLessThan(total);
    const scroller = page.getByTestId('contacts-scroll');
    for (let i = 0; i < 60 && (await row(page, 'Zeta Repetida').count()) === 0; i++) {
      await scroller.evaluate((el) => el.scrollTo(0, el.scrollHeight));
      await page.waitForTimeout(400);
    }
    await row(page, 'Zeta Repetida').waitFor({ timeout: 15_000 });
    const ids = await rows(page).evaluateAll((els) => els.map((e) => e.getAttribute('data-testid')));
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids.length).toBe((await t.admin.get('/contacts/list')).body.length);
    const first = (await t.admin.get(`/contacts?searchParam=${base}`)).body.contacts;
    expect(first.map((c: { name: string; number: string }) => [c.name, c.number])).toEqual([['Zeta Repetida', String(base)]]);
    await page.context().close();
  });

  it("imports the phone's address book, starts a ticket from a row, transfers contacts; a Nível 1 user cannot delete", { timeout: 240_000 }, async () => {
    // More entries than one call imports (IMPORT_MAX_ROWS): the page calls until the book ends. The
    // extra ones sort last ('Zz'), and bring the company past one page of the CSV export (1 000).
    const extra = 2 * IMPORT_MAX_ROWS + 200;
    const base = 5511800000000 + Math.floor(Math.random() * 1e5) * 1000;
    const book = [
      { number: `55119${rnd()}`, name: 'Agenda Celular Um' },
      { number: `55119${rnd()}`, name: 'Agenda Celular Dois' },
      ...Array.from({ length: extra }, (_, i) => ({ number: String(base + i), name: `Zz Celular ${String(i).padStart(4, '0')}` })),
    ];
    expect((await sandbox('PUT', `/connections/${t.connectionId}/contacts`, book)).status).toBeLessThan(300);
    const page = await signedIn(ana);
    await page.goto(`${web()}/contacts`);
    await row(page, 'Maria Souza Nova').waitFor({ timeout: 20_000 });
    await page.getByRole('button', { name: 'Importar do celular' }).click();
    await page.getByRole('dialog', { name: 'Importar contatos do celular' }).getByRole('button', { name: 'Confirmar' }).click();
    await page.locator('.toast', { hasText: `Criados: ${extra + 2} · Atualizados: 0 · Sem mudança: 0 · Recusados: 0` }).waitFor({ timeout: 150_000 });
    await row(page, 'Agenda Celular Um').waitFor({ timeout: 15_000 });
    await row(page, 'Agenda Celular Dois').waitFor();
    expect((await t.admin.get(`/contacts?searchParam=${base + extra - 1}`)).body.contacts.map((c: { name: string }) => c.name)).toEqual([`Zz Celular ${String(extra - 1).padStart(4, '0')}`]);

    // Export of the whole company (more than one page of the export route): every contact once.
    const total = (await t.admin.get('/contacts')).body.count as number;
    expect(total).toBeGreaterThan(1000);
    const exportButton = page.getByTestId('contacts-export');
    const [download] = await Promise.all([page.waitForEvent('download', { timeout: 60_000 }), exportButton.click()]);
    const numbers = parseContactsCsv(fs.readFileSync((await download.path())!)).rows.map((r) => r.number);
    expect(numbers.length).toBe(total);
    expect(new Set(numbers).size).toBe(total);
    expect(numbers).toContain(String(base + extra - 1));
    await expect.poll(() => exportButton.isDisabled(), { timeout: 5_000 }).toBe(false);

    // Start a ticket from a row: the new-ticket dialog with the contact, then /tickets/{uuid}.
    await row(page, 'João Pereira').getByRole('button', { name: 'Iniciar atendimento com João Pereira' }).click();
    const nt = page.getByTestId('new-ticket-form');
    await nt.waitFor();
    expect(await nt.getByLabel('Contato').inputValue()).toContain('João Pereira');
    await nt.getByRole('button', { name: 'Salvar' }).click();
    await page.waitForURL(/\/tickets\/[0-9a-f-]{36}$/, { timeout: 15_000 });
    const uuid = page.url().split('/').pop();
    const tk = await t.admin.get(`/tickets/u/${uuid}`);
    expect(tk.status, JSON.stringify(tk.body)).toBe(200);
    expect(tk.body).toMatchObject({ status: 'open', userId: ana.id, contact: { name: 'João Pereira', number: JOAO } });

    // Transfer: the same attendant is refused; then Bruno's contacts become Carla's.
    await page.goto(`${web()}/contacts`);
    await page.getByRole('button', { name: 'Transferir contatos' }).click();
    const tr = page.getByTestId('transfer-contacts-form');
    await tr.getByRole('textbox', { name: 'Atendente de origem' }).fill('Br');
    await tr.getByText('Digite ao menos 3 caracteres').first().waitFor();
    await tr.getByRole('textbox', { name: 'Atendente de origem' }).fill('Bruno');
    await tr.getByTestId('transfer-source').getByRole('button', { name: /Bruno Lima/ }).click();
    await tr.getByRole('textbox', { name: 'Atendente de destino' }).fill('Bruno');
    await tr.getByTestId('transfer-destination').getByRole('button', { name: /Bruno Lima/ }).click();
    await tr.getByRole('button', { name: 'Transferir contatos' }).click();
    await tr.getByText('Não é possível transferir para o mesmo atendente').waitFor();
    await tr.getByTestId('transfer-destination').getByRole('button', { name: 'Trocar' }).click();
    await tr.getByRole('textbox', { name: 'Atendente de destino' }).fill('Carla');
    await tr.getByTestId('transfer-destination').getByRole('button', { name: /Carla Nunes/ }).click();
    expect(await tr.getByText('Não é possível transferir para o mesmo atendente').count()).toBe(0);
    await screenshot(page, 'contacts-transfer-light-wide');
    await tr.getByRole('button', { name: 'Transferir contatos' }).click();
    await page.locator('.toast', { hasText: '1 contato transferido' }).waitFor({ timeout: 15_000 });
    expect((await t.admin.get(`/contacts/${maria}`)).body.userId).toBe(carla.id);
    await page.goto(`${web()}/contacts?user=${carla.id}`);
    await expect.poll(() => names(page), { timeout: 15_000 }).toEqual(['Maria Souza Nova']);
    await page.context().close();

    // Nível 1: edit and start a ticket, no delete, no transfer.
    const agent = await signedIn(bruno);
    await agent.getByRole('navigation', { name: 'menu' }).getByRole('link', { name: 'Contatos', exact: true }).click();
    const jr = row(agent, 'João Pereira');
    await jr.waitFor({ timeout: 20_000 });
    await jr.getByRole('button', { name: 'Editar João Pereira' }).waitFor();
    await jr.getByRole('button', { name: 'Iniciar atendimento com João Pereira' }).waitFor();
    expect(await agent.getByRole('button', { name: /^Excluir / }).count()).toBe(0);
    expect(await agent.getByRole('button', { name: 'Transferir contatos' }).count()).toBe(0);
    await agent.context().close();
  });

  it('looks right in light and dark, wide and narrow', { timeout: 120_000 }, async () => {
    for (const colorScheme of ['light', 'dark'] as const) {
      for (const [label, viewport] of [['wide', WIDE], ['narrow', NARROW]] as const) {
        const page = await signedIn(ana, { colorScheme, viewport });
        await page.goto(`${web()}/contacts`);
        await row(page, 'Maria Souza Nova').waitFor({ timeout: 20_000 });
        await screenshot(page, `contacts-${colorScheme}-${label}`);
        if (label === 'narrow') {
          await row(page, 'Maria Souza Nova').getByRole('button', { name: 'Editar Maria Souza Nova' }).click();
          const edit = page.getByRole('dialog', { name: 'Editar contato' });
          await expect.poll(() => edit.getByLabel('Nome', { exact: true }).inputValue(), { timeout: 10_000 }).toBe('Maria Souza Nova');
          await screenshot(page, `contacts-dialog-${colorScheme}-narrow`);
        }
        await page.context().close();
      }
    }
  });
});
