import { beforeAll, describe, expect, it } from 'vitest';
import type { Locator, Page } from 'playwright-core';
import { member, PASSWORD, superUser, tenant } from '../../functions/test/integration/client.js';
import { sandbox } from '../../functions/test/integration/pipeline-helpers.js';
import { NARROW, realtimeOpen, screenshot, closeWatched, watchedPage } from './support/browser.js';
import { browser, company as t, connectedWorld, web } from './support/world.js';

// Issue 20 §1-§2 (console side): the Campaigns group of the menu and its gate, the contact lists
// page, a list's items (dialog with the contact search and the create-contact path, the
// whatsapp-valid icon, search, live rows) and the spreadsheet import with its live report.

connectedWorld();

/** The browser's admin (its sign-in replaces only its own session: `t.admin` changes things meanwhile). */
let ana: Awaited<ReturnType<typeof member>>;
/** A company whose plan allows campaigns but whose own switch is off. */
let switchedOff: Awaited<ReturnType<typeof tenant>>;
/** A Nível 1 user of the connected company. */
let agent: Awaited<ReturnType<typeof member>>;

beforeAll(async () => {
  ana = await member(t.admin, { name: 'Ana Listas', profile: 'admin' });
  agent = await member(t.admin, { name: 'Agente Listas', profile: 'Nível 1' });
  switchedOff = await tenant();
  const res = await (await superUser()).put(`/companies/${switchedOff.companyId}`, { campaignsEnabled: false });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
}, 180_000);

const signedIn = (email: string, opts: Parameters<typeof watchedPage>[3] = {}) => watchedPage(browser, web(), { email, password: PASSWORD }, opts);
const done = closeWatched;

const toastText = (page: Page, text: string) => page.locator('.toasts').getByText(text, { exact: true }).first();
const rowOf = (page: Page, text: string) => page.locator('tbody tr', { hasText: text });
const menuLabels = (page: Page) => page.locator('nav.drawer a.nav-item').allTextContents();
/** The formatted number the table shows (+CC (AA) NNNNN-NNNN). */
const formatted = (n: string) => `+${n.slice(0, 2)} (${n.slice(2, 4)}) ${n.slice(4, 9)}-${n.slice(9)}`;
/** A number of this run (13 digits, Brazilian mobile), `i` telling them apart. */
const run = String(Date.now()).slice(-4);
const num = (i: number) => `55119${run}${String(i).padStart(4, '0')}`;

async function save(page: Page, dialog: Locator, toast: string) {
  await dialog.getByRole('button', { name: 'Salvar' }).click();
  await toastText(page, toast).waitFor();
  await dialog.waitFor({ state: 'detached' });
}

/** The lists page's names (first column) and a list page's item names (after the WhatsApp icon). */
const listNames = (page: Page) => page.locator('tbody tr td:first-child').allTextContents();
const names = async (page: Page) => (await page.locator('tbody tr td:nth-child(2)').allTextContents()).filter((x) => x !== 'Nenhum registro encontrado');

describe('contact lists', () => {
  it('shows the Campaigns group to admins, creates, edits and deletes lists, keeps the page live', { timeout: 300_000 }, async () => {
    const page = await signedIn(ana.email);
    // Spec 000 §2.2: the Campaigns group, between everyone's items and the administration section.
    const labels = await menuLabels(page);
    expect(labels.indexOf('Tags')).toBeLessThan(labels.indexOf('Listas de Contatos'));
    expect(labels.indexOf('Listas de Contatos')).toBeLessThan(labels.indexOf('Open.Ai'));
    const group = page.getByTestId('campaigns-section');
    expect(await group.locator('.nav-section').textContent()).toBe('Campanhas');
    await group.getByRole('link', { name: 'Listas de Contatos' }).click();
    await page.waitForURL((u) => u.pathname === '/contact-lists');
    await page.getByRole('heading', { name: 'Listas de Contatos (0)' }).waitFor();
    await realtimeOpen(page);

    // The dialog's messages (spec 002 §5), then a list.
    await page.getByRole('button', { name: 'Nova lista' }).click();
    const dialog = page.getByRole('dialog', { name: /lista de contatos$/ });
    await dialog.getByRole('button', { name: 'Salvar' }).click();
    await dialog.getByText('Obrigatório', { exact: true }).waitFor();
    await dialog.getByLabel('Nome').fill('A');
    await dialog.getByRole('button', { name: 'Salvar' }).click();
    await dialog.getByText('Muito curto!').waitFor();
    await dialog.getByLabel('Nome').fill('x'.repeat(51));
    await dialog.getByRole('button', { name: 'Salvar' }).click();
    await dialog.getByText('Muito longo!').waitFor();
    await dialog.getByLabel('Nome').fill('Clientes Ouro');
    await save(page, dialog, 'Lista de contatos salva com sucesso.');
    await rowOf(page, 'Clientes Ouro').waitFor();
    await page.getByRole('heading', { name: 'Listas de Contatos (1)' }).waitFor();

    // Another admin's lists arrive live, and go.
    const other = await t.admin.post('/contact-lists', { name: 'Lista Remota' });
    expect(other.status).toBe(201);
    await rowOf(page, 'Lista Remota').waitFor();
    await page.getByRole('heading', { name: 'Listas de Contatos (2)' }).waitFor();
    expect(await listNames(page)).toEqual(expect.arrayContaining(['Clientes Ouro', 'Lista Remota']));
    await t.admin.put(`/contact-lists/${other.body.id}`, { name: 'Lista Remota Renomeada' });
    await rowOf(page, 'Lista Remota Renomeada').waitFor();
    await t.admin.del(`/contact-lists/${other.body.id}`);
    await rowOf(page, 'Lista Remota').waitFor({ state: 'detached' });
    await page.getByRole('heading', { name: 'Listas de Contatos (1)' }).waitFor();

    // Edit, search (debounced, from the server), delete with the confirmation.
    await page.getByRole('button', { name: 'Editar Clientes Ouro' }).click();
    await dialog.getByLabel('Nome').fill('Clientes Prata');
    await save(page, dialog, 'Lista de contatos salva com sucesso.');
    await rowOf(page, 'Clientes Prata').waitFor();
    const extra = await t.admin.post('/contact-lists', { name: 'Fornecedores' });
    await rowOf(page, 'Fornecedores').waitFor();
    await page.getByRole('searchbox', { name: 'Pesquisar' }).fill('PRATA');
    await expect.poll(() => listNames(page), { timeout: 10_000 }).toEqual(['Clientes Prata']);
    await page.getByRole('heading', { name: 'Listas de Contatos (1)' }).waitFor();
    await page.getByRole('searchbox', { name: 'Pesquisar' }).fill('');
    await rowOf(page, 'Fornecedores').waitFor();
    await screenshot(page, 'contact-lists-light-wide');
    await page.getByRole('button', { name: 'Excluir Fornecedores' }).click();
    const confirm = page.getByRole('dialog', { name: 'Excluir a lista Fornecedores?' });
    await confirm.getByText('A lista e todos os seus contatos serão excluídos.', { exact: false }).waitFor();
    await confirm.getByRole('button', { name: 'Confirmar' }).click();
    await toastText(page, 'Lista de contatos excluída com sucesso.').waitFor();
    await rowOf(page, 'Fornecedores').waitFor({ state: 'detached' });
    expect((await t.admin.get(`/contact-lists/${extra.body.id}`)).status).toBe(404);

    // The open-contacts action leads to the list's items.
    await page.getByRole('button', { name: 'Abrir os contatos de Clientes Prata' }).click();
    await page.waitForURL(/\/contact-lists\/\d+\/contacts$/);
    await page.getByTestId('contact-list-name').getByText('Clientes Prata').waitFor();
    await done(page);
  });

  it('adds items through the dialog (contact search, new contact), edits, searches, deletes, and shows WhatsApp checks', { timeout: 300_000 }, async () => {
    const list = (await t.admin.post('/contact-lists', { name: 'Lista de Itens' })).body as { id: number };
    const maria = await t.admin.post('/contacts', { name: `Mariana Quintela ${run}`, number: num(1), email: 'mariana@exemplo.com' });
    expect(maria.status, JSON.stringify(maria.body)).toBe(201);
    // A number the simulated network does not know.
    expect((await sandbox('PUT', `/phones/${num(3)}`, { onWhatsApp: false })).status).toBeLessThan(300);

    const page = await signedIn(ana.email);
    await page.goto(`${web()}/contact-lists/${list.id}/contacts`);
    await page.getByTestId('contact-list-items-count').getByText('(0 contatos)').waitFor();
    await realtimeOpen(page);
    // The example spreadsheets, downloadable.
    const examples = page.getByTestId('contact-list-examples').getByRole('link');
    expect(await examples.evaluateAll((as) => as.map((a) => [a.getAttribute('href'), a.hasAttribute('download')]))).toEqual([
      ['/examples/contact-list-example.csv', true],
      ['/examples/contact-list-example.xlsx', true],
      ['/examples/contact-list-example.xls', true],
    ]);

    // Add: the search starts at 3 characters and fills the form in.
    await page.getByRole('button', { name: 'Adicionar contato' }).click();
    const dialog = page.getByRole('dialog', { name: 'Adicionar contato à lista' });
    expect(await dialog.getByLabel('Número').getAttribute('placeholder')).toBe('+55 (11) 99999-9999');
    const search = dialog.getByRole('textbox', { name: 'Buscar um contato existente' });
    await search.fill('Ma');
    await dialog.getByText('Digite ao menos 3 caracteres para buscar').waitFor();
    await search.fill('Mariana Quin');
    await dialog.getByRole('option', { name: new RegExp(`Mariana Quintela ${run}`) }).click();
    await dialog.getByTestId('contact-list-item-filled').waitFor();
    expect(await dialog.getByLabel('Nome', { exact: true }).inputValue()).toBe(`Mariana Quintela ${run}`);
    expect(await dialog.getByLabel('Número').inputValue()).toBe(formatted(num(1)));
    expect(await dialog.getByLabel('Email').inputValue()).toBe('mariana@exemplo.com');
    await screenshot(page, 'contact-list-item-dialog-light-wide');
    await save(page, dialog, 'Contato da lista salvo com sucesso.');
    const mariaRow = rowOf(page, `Mariana Quintela ${run}`);
    await mariaRow.waitFor();
    expect(await mariaRow.getByTestId('contact-list-item-number').textContent()).toBe(formatted(num(1)));
    // Checked through the connected default connection: on WhatsApp.
    expect(await mariaRow.getByTestId('whatsapp-valid').getAttribute('data-state')).toBe('valid');
    await page.getByTestId('contact-list-items-count').getByText('(1 contato)').waitFor();

    // Add: a new contact through the contacts page's dialog, then into the list.
    await page.getByRole('button', { name: 'Adicionar contato' }).click();
    await search.fill(`Rogério Novo ${run}`);
    await dialog.getByRole('option', { name: `Criar o contato “Rogério Novo ${run}”` }).click();
    const contactDialog = page.getByRole('dialog', { name: 'Adicionar contato', exact: true });
    expect(await contactDialog.getByLabel('Nome', { exact: true }).inputValue()).toBe(`Rogério Novo ${run}`);
    await contactDialog.getByLabel('Número', { exact: true }).fill(num(2));
    await contactDialog.getByRole('button', { name: 'Salvar' }).click();
    await toastText(page, 'Contato salvo com sucesso!').waitFor();
    await contactDialog.waitFor({ state: 'detached' });
    expect(await dialog.getByLabel('Nome', { exact: true }).inputValue()).toBe(`Rogério Novo ${run}`);
    expect(await dialog.getByLabel('Número').inputValue()).toBe(formatted(num(2)));
    await save(page, dialog, 'Contato da lista salvo com sucesso.');
    await rowOf(page, `Rogério Novo ${run}`).waitFor();

    // Typed by hand: the form's messages, a number not on WhatsApp, a number already in the list.
    await page.getByRole('button', { name: 'Adicionar contato' }).click();
    await dialog.getByRole('button', { name: 'Salvar' }).click();
    expect(await dialog.getByText('Obrigatório', { exact: true }).count()).toBe(2);
    await dialog.getByLabel('Nome', { exact: true }).fill('Fora Da Rede');
    await dialog.getByLabel('Número').fill('123');
    await dialog.getByLabel('Email').fill('nao-e-email');
    await dialog.getByRole('button', { name: 'Salvar' }).click();
    await dialog.getByText('Muito curto!').waitFor();
    await dialog.getByText('Email inválido').waitFor();
    await dialog.getByLabel('Número').fill(formatted(num(1)));
    await dialog.getByLabel('Email').fill('');
    await dialog.getByRole('button', { name: 'Salvar' }).click();
    await dialog.getByText('Este número já está nesta lista.').waitFor();
    await dialog.getByLabel('Número').fill(`+${num(3)}`);
    await save(page, dialog, 'Contato da lista salvo com sucesso.');
    const outside = rowOf(page, 'Fora Da Rede');
    await outside.waitFor();
    expect(await outside.getByTestId('whatsapp-valid').getAttribute('data-state')).toBe('invalid');
    // The icon's tooltip, on keyboard focus too.
    await outside.getByTestId('whatsapp-valid').focus();
    expect(await outside.getByTestId('whatsapp-valid').evaluate((el) => getComputedStyle(el, '::after').content)).toBe('"Número não encontrado no WhatsApp"');
    await screenshot(page, 'contact-list-item-tooltip-light-wide');
    expect(await outside.getByTestId('whatsapp-valid').getAttribute('aria-label')).toBe('Número não encontrado no WhatsApp');

    // Edit.
    await page.getByRole('button', { name: `Editar Mariana Quintela ${run}` }).click();
    const edit = page.getByRole('dialog', { name: 'Editar contato da lista' });
    expect(await edit.getByLabel('Número').inputValue()).toBe(formatted(num(1)));
    expect(await edit.getByRole('textbox', { name: 'Buscar um contato existente' }).count()).toBe(0);
    await edit.getByLabel('Nome', { exact: true }).fill(`Mariana Editada ${run}`);
    await save(page, edit, 'Contato da lista salvo com sucesso.');
    await rowOf(page, `Mariana Editada ${run}`).waitFor();

    // Live: another admin's item of this list comes in; one of another list does not.
    const elsewhere = (await t.admin.post('/contact-lists', { name: 'Outra Lista' })).body as { id: number };
    await t.admin.post('/contact-list-items', { name: 'De Outra Lista', number: num(9), contactListId: elsewhere.id });
    const remote = await t.admin.post('/contact-list-items', { name: 'Item Remoto', number: num(4), contactListId: list.id });
    expect(remote.status, JSON.stringify(remote.body)).toBe(201);
    await rowOf(page, 'Item Remoto').waitFor();
    expect(await rowOf(page, 'De Outra Lista').count()).toBe(0);
    await page.getByTestId('contact-list-items-count').getByText('(4 contatos)').waitFor();

    // Search: name, number.
    const box = page.getByRole('searchbox', { name: 'Pesquisar' });
    await box.fill('editada');
    await expect.poll(() => names(page), { timeout: 10_000 }).toEqual([`Mariana Editada ${run}`]);
    await box.fill(num(4).slice(-6));
    await expect.poll(() => names(page), { timeout: 10_000 }).toEqual(['Item Remoto']);
    await box.fill('');
    await expect.poll(async () => (await names(page)).length, { timeout: 10_000 }).toBe(4);
    await screenshot(page, 'contact-list-items-light-wide');

    // Delete (admins: the contacts page's delete permission); another admin's delete goes live too.
    await page.getByRole('button', { name: 'Excluir Fora Da Rede' }).click();
    await page.getByRole('dialog', { name: 'Excluir Fora Da Rede da lista?' }).getByRole('button', { name: 'Confirmar' }).click();
    await toastText(page, 'Contato excluído da lista com sucesso.').waitFor();
    await rowOf(page, 'Fora Da Rede').waitFor({ state: 'detached' });
    await page.getByTestId('contact-list-items-count').getByText('(3 contatos)').waitFor();
    expect((await t.admin.del(`/contact-list-items/${remote.body.id}`)).status).toBeLessThan(300);
    await rowOf(page, 'Item Remoto').waitFor({ state: 'detached' });
    await page.getByTestId('contact-list-items-count').getByText('(2 contatos)').waitFor();

    // Back to the lists: the count moved with the items.
    await page.getByRole('button', { name: 'Voltar' }).click();
    await page.waitForURL((u) => u.pathname === '/contact-lists');
    await expect.poll(() => rowOf(page, 'Lista de Itens').getByTestId('contact-list-count').textContent(), { timeout: 10_000 }).toBe('2');
    await done(page, ['409 POST /contact-list-items']);
  });

  it('imports a spreadsheet in the background with a live report, and refuses a file without a number column', { timeout: 300_000 }, async () => {
    const list = (await t.admin.post('/contact-lists', { name: 'Lista Importada' })).body as { id: number };
    const existing = await t.admin.post('/contact-list-items', { name: 'Já Na Lista', number: num(20), contactListId: list.id });
    expect(existing.status).toBe(201);
    expect((await sandbox('PUT', `/phones/${num(22)}`, { onWhatsApp: false })).status).toBeLessThan(300);
    // Columns in another order and case, the accented header names; rows 2-8 (the header is row 1).
    const csv = [
      'E-mail;Número;NOME',
      `ana@exemplo.com;${num(21)};Ana Planilha`,
      `;${num(22)};Bruno Planilha`,
      `;${num(20)};Já Na Lista De Novo`,
      `;${num(21)};Ana Repetida`,
      ';123;Número Curto',
      `nao-e-email;${num(23)};Email Ruim`,
      `;${num(24)};`,
    ].join('\r\n');

    const page = await signedIn(ana.email);
    await page.goto(`${web()}/contact-lists/${list.id}/contacts`);
    await rowOf(page, 'Já Na Lista').waitFor();
    await realtimeOpen(page);

    // The confirmation explains the columns, then the file picker takes the spreadsheet.
    await page.getByRole('button', { name: 'Importar', exact: true }).click();
    const confirm = page.getByRole('dialog', { name: 'Importar contatos de uma planilha' });
    await confirm.getByText('.xls e .xlsx', { exact: false }).waitFor();
    for (const header of ['nome', 'name', 'numero', 'número', 'number', 'email', 'e-mail']) await confirm.locator('code', { hasText: new RegExp(`^${header}$`) }).waitFor();
    await screenshot(page, 'contact-list-import-confirm-light-wide');
    const [chooser] = await Promise.all([page.waitForEvent('filechooser'), confirm.getByRole('button', { name: 'Escolher arquivo' }).click()]);
    expect(chooser.isMultiple()).toBe(false);
    expect(await page.getByTestId('contact-list-import-file').getAttribute('accept')).toBe('.csv,.xls,.xlsx');
    await chooser.setFiles({ name: 'clientes.csv', mimeType: 'text/csv', buffer: Buffer.from(csv, 'utf8') });
    await confirm.waitFor({ state: 'detached' });

    // The report, as the list's live updates bring it.
    const panel = page.getByTestId('contact-list-import');
    await expect.poll(() => panel.getAttribute('data-status'), { timeout: 90_000 }).toBe('done');
    await toastText(page, 'Importação de clientes.csv concluída.').waitFor();
    expect(await panel.getByTestId('contact-list-import-progress').textContent()).toContain('7 de 7 linhas');
    const stat = async (key: string) => panel.locator(`[data-stat="${key}"] dd`).textContent();
    expect(await stat('imported')).toBe('3');
    expect(await stat('duplicated')).toBe('2');
    expect(await stat('invalid')).toBe('2');
    expect(await stat('whatsappFound')).toBe('2');
    expect(await stat('whatsappNotFound')).toBe('1');
    const errors = await panel.getByTestId('contact-list-import-errors').locator('tbody tr').evaluateAll((rows) =>
      rows.map((r) => [...r.querySelectorAll('td')].map((td) => td.textContent)).sort((a, b) => Number(a[0]) - Number(b[0])),
    );
    expect(errors).toEqual([
      ['4', 'Número já está na lista'],
      ['5', 'Número repetido na planilha'],
      ['6', 'Número inválido (de 8 a 50 dígitos, com código do país)'],
      ['7', 'Email inválido'],
    ]);
    // The imported rows join the table (a row without a name is named by its number).
    await rowOf(page, 'Ana Planilha').waitFor();
    await rowOf(page, 'Bruno Planilha').waitFor();
    expect(await rowOf(page, 'Bruno Planilha').getByTestId('whatsapp-valid').getAttribute('data-state')).toBe('invalid');
    await rowOf(page, num(24)).waitFor();
    await page.getByTestId('contact-list-items-count').getByText('(4 contatos)').waitFor();
    await screenshot(page, 'contact-list-import-report-light-wide');

    // The report closes, and comes back from its link.
    await panel.getByRole('button', { name: 'Fechar o relatório' }).click();
    await panel.waitFor({ state: 'detached' });
    await page.getByRole('button', { name: 'Ver o relatório da última importação' }).click();
    await panel.waitFor();

    // A file refused as a whole: nothing imported, the reason shown.
    await page.getByRole('button', { name: 'Importar', exact: true }).click();
    const [again] = await Promise.all([page.waitForEvent('filechooser'), confirm.getByRole('button', { name: 'Escolher arquivo' }).click()]);
    await again.setFiles({ name: 'sem-numero.csv', mimeType: 'text/csv', buffer: Buffer.from('Nome,Cidade\r\nAna,Recife\r\n', 'utf8') });
    await expect.poll(() => panel.getAttribute('data-status'), { timeout: 30_000 }).toBe('refused');
    await panel.getByText('A planilha sem-numero.csv foi recusada: A planilha não tem a coluna de número (numero, número ou number).').waitFor();
    await page.getByTestId('contact-list-items-count').getByText('(4 contatos)').waitFor();

    await done(page, [`400 POST /contact-lists/${list.id}/upload`]);

    // The same page on a phone, in the dark (a new sign-in: the page above is closed first).
    const phone = await signedIn(ana.email, { viewport: NARROW, colorScheme: 'dark' });
    await phone.goto(`${web()}/contact-lists/${list.id}/contacts`);
    await rowOf(phone, 'Ana Planilha').waitFor();
    await phone.getByRole('button', { name: 'Ver o relatório da última importação' }).click();
    await phone.getByTestId('contact-list-import').waitFor();
    await screenshot(phone, 'contact-list-items-dark-narrow');
    await done(phone);
  });

  it('sends users without access home with the spec message: a company with campaigns switched off, a Nível 1 user', { timeout: 180_000 }, async () => {
    // The API agrees (403), whatever the browser's storage says (`cshow` is no gate); asked before
    // the browser signs in (which ends these API sessions).
    expect((await switchedOff.admin.get('/contact-lists')).status).toBe(403);
    expect((await agent.api.get('/contact-lists')).status).toBe(403);
    for (const email of [switchedOff.email, agent.email]) {
      const page = await signedIn(email);
      expect(await menuLabels(page)).not.toContain('Listas de Contatos');
      expect(await page.getByTestId('campaigns-section').count()).toBe(0);
      await page.goto(`${web()}/contact-lists`);
      await toastText(page, 'Esta empresa não possui permissão para acessar essa página! Estamos lhe redirecionando.').waitFor();
      await page.waitForURL((u) => u.pathname === '/', { timeout: 10_000 });
      await done(page);
    }
  });
});
