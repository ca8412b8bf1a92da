import { beforeAll, describe, expect, it } from 'vitest';
import type { Locator, Page } from 'playwright-core';
import { campaignSettingsFrom } from '@balcao/shared';
import { NARROW, WIDE, screenshot, closeWatched, watchedPage } from './support/browser.js';
import { browser, useBrowser, web } from './support/world.js';
import { createUser, tenantAndOtherAdmin, uniq } from './support/stack.js';

// Issue 20 §3 (console side): the file lists page (administration section) with its dialog, its
// options' files uploaded after the save and shown by name, live rows; the campaign settings page
// (Campaigns group) with the spec's option lists, variables without a shortcut twice, the save and
// what is kept after a reload.

let t: Awaited<ReturnType<typeof tenantAndOtherAdmin>>['t'];
let otherAdmin: Awaited<ReturnType<typeof createUser>>;

useBrowser();
beforeAll(async () => {
  ({ t, otherAdmin } = await tenantAndOtherAdmin());
}, 180_000);

const PNG = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), Buffer.alloc(120, 7)]);
const PDF = Buffer.concat([Buffer.from('%PDF-1.7\n'), Buffer.alloc(200, 0x20)]);

const signedIn = (who: { email: string; password: string }) => watchedPage(browser, web(), who);
const done = closeWatched;

const toastText = (page: Page, text: string) => page.locator('.toasts').getByText(text, { exact: true }).first();
const rowOf = (page: Page, text: string) => page.locator('tbody tr', { hasText: text });

async function save(page: Page, dialog: Locator, toast: string) {
  await dialog.getByRole('button', { name: 'Salvar' }).click();
  await toastText(page, toast).waitFor();
  await dialog.waitFor({ state: 'detached' });
}

interface StoredList {
  id: number;
  name: string;
  message: string;
  options: { id: number; name: string; path: string | null; mediaName: string | null; mediaType: string | null; mediaUrl: string | null }[];
}

async function stored(name: string): Promise<StoredList> {
  const res = await otherAdmin.api.get(`/files?searchParam=${encodeURIComponent(name.toLowerCase())}`);
  expect(res.status).toBe(200);
  const found = (res.body.files as StoredList[]).filter((l) => l.name === name);
  expect(found).toHaveLength(1);
  return found[0];
}

describe('file lists page', () => {
  it('creates a list with option files in the dialog, shows the stored names, keeps rows live, refuses a file by its bytes', { timeout: 300_000 }, async () => {
    const page = await signedIn(t.admin);
    await page.getByTestId('admin-section').getByRole('link', { name: 'Lista de arquivos', exact: true }).click();
    await page.getByRole('heading', { name: 'Listas de arquivos' }).waitFor();
    const tag = uniq('').slice(-6);
    const name = `Catálogo ${tag}`;

    await page.getByRole('button', { name: 'Nova lista' }).click();
    const dialog = page.getByRole('dialog', { name: 'Nova lista de arquivos' });
    // The spec's messages, before anything is sent.
    await dialog.getByLabel('Nome', { exact: true }).fill('Ab');
    await dialog.getByRole('button', { name: 'Salvar' }).click();
    await dialog.getByText('nome muito curto').waitFor();
    await dialog.getByText('Obrigatório').waitFor();
    await dialog.getByLabel('Nome', { exact: true }).fill(name);
    await dialog.getByLabel('Mensagem').fill('Segue o nosso catálogo:\nconfira os arquivos.');

    // Two options: a picked file names an unnamed option after itself.
    await dialog.getByText('Nenhuma opção ainda: adicione uma para anexar um arquivo.').waitFor();
    await dialog.getByRole('button', { name: 'Adicionar opção' }).click();
    await dialog.getByRole('button', { name: 'Adicionar opção' }).click();
    await dialog.getByTestId('file-option-0-input').setInputFiles({ name: 'tabela de preços.pdf', mimeType: 'application/pdf', buffer: PDF });
    expect(await dialog.getByTestId('file-option-0').getByLabel('Nome da opção').inputValue()).toBe('tabela de preços');
    expect(await dialog.getByTestId('file-option-0-file').textContent()).toBe('tabela_de_preços.pdf');
    await dialog.getByTestId('file-option-1').getByLabel('Nome da opção').fill('Foto da vitrine');
    await dialog.getByTestId('file-option-1-input').setInputFiles({ name: 'vitrine.png', mimeType: 'image/png', buffer: PNG });
    await screenshot(page, 'file-lists-dialog-light-wide');
    await save(page, dialog, 'Lista de arquivos salva com sucesso.');

    const row = rowOf(page, name);
    await row.waitFor();
    await expect.poll(() => row.textContent()).toContain('2 arquivos');
    const list = await stored(name);
    expect(list.message).toBe('Segue o nosso catálogo:\nconfira os arquivos.');
    expect(list.options.map((o) => [o.name, o.path, o.mediaName, o.mediaType])).toEqual([
      ['tabela de preços', 'tabela_de_precos.pdf', 'tabela_de_preços.pdf', 'application/pdf'],
      ['Foto da vitrine', 'vitrine.png', 'vitrine.png', 'image/png'],
    ]);
    // The stored file is served at its short-lived URL, with its bytes.
    const served = await fetch(list.options[1].mediaUrl!);
    expect(served.status).toBe(200);
    expect(Buffer.from(await served.arrayBuffer()).equals(PNG)).toBe(true);

    // Editing shows the stored names; a third option gets a file whose bytes are not what it claims.
    await row.getByRole('button', { name: `Editar ${name}` }).click();
    const edit = page.getByRole('dialog', { name: 'Editar lista de arquivos' });
    await expect.poll(() => edit.getByTestId('file-option-1-file').textContent()).toBe('vitrine.png');
    expect(await edit.getByTestId('file-option-0-file').getAttribute('href')).toBeTruthy();
    await screenshot(page, 'file-lists-dialog-edit-light-wide');
    await edit.getByRole('button', { name: 'Adicionar opção' }).click();
    await edit.getByTestId('file-option-2').getByLabel('Nome da opção').fill('Falsa');
    await edit.getByTestId('file-option-2-input').setInputFiles({ name: 'falsa.png', mimeType: 'image/png', buffer: Buffer.from('isto não é uma imagem, é texto') });
    await edit.getByRole('button', { name: 'Salvar' }).click();
    // The list is saved (the option is there, without a file); the reason shows under the option.
    await edit.getByTestId('file-option-2').getByRole('alert').getByText('O conteúdo do arquivo não corresponde ao tipo informado').waitFor();
    await expect.poll(async () => (await stored(name)).options.map((o) => [o.name, o.path])).toEqual([
      ['tabela de preços', 'tabela_de_precos.pdf'],
      ['Foto da vitrine', 'vitrine.png'],
      ['Falsa', null],
    ]);
    // A right file for it, and the first option removed: saving again uploads only what is missing.
    await edit.getByTestId('file-option-2-input').setInputFiles({ name: 'certa.png', mimeType: 'image/png', buffer: PNG });
    await edit.getByRole('button', { name: 'Remover a opção 1' }).click();
    await save(page, edit, 'Lista de arquivos salva com sucesso.');
    await expect.poll(async () => (await stored(name)).options.map((o) => [o.name, o.path])).toEqual([
      ['Foto da vitrine', 'vitrine.png'],
      ['Falsa', 'certa.png'],
    ]);

    // Live rows: another admin creates and deletes a list; search narrows the table.
    const liveName = `Ao vivo ${tag}`;
    const created = await otherAdmin.api.post('/files', { name: liveName, message: 'Criada por outra admin' });
    expect(created.status).toBe(201);
    await rowOf(page, liveName).waitFor();
    await page.getByPlaceholder('Pesquisar...').fill(`ao vivo ${tag}`);
    await expect.poll(() => page.locator('tbody tr').count()).toBe(1);
    await page.getByPlaceholder('Pesquisar...').fill('');
    await rowOf(page, name).waitFor();
    expect((await otherAdmin.api.delete(`/files/${created.body.id}`)).status).toBe(204);
    await rowOf(page, liveName).waitFor({ state: 'detached' });
    await screenshot(page, 'file-lists-light-wide');
    // On a phone: the dialog's option rows stack.
    await page.setViewportSize(NARROW);
    await row.getByRole('button', { name: `Editar ${name}` }).click();
    const narrow = page.getByRole('dialog', { name: 'Editar lista de arquivos' });
    await narrow.getByTestId('file-option-1-file').waitFor();
    await screenshot(page, 'file-lists-dialog-light-narrow');
    await narrow.getByRole('button', { name: 'Cancelar' }).click();
    await narrow.waitFor({ state: 'detached' });
    await page.setViewportSize(WIDE);

    // Deleting from the table.
    await row.getByRole('button', { name: `Excluir ${name}` }).click();
    await page.getByRole('dialog', { name: `Excluir a lista ${name}?` }).getByRole('button', { name: 'Confirmar' }).click();
    await toastText(page, 'Lista de arquivos excluída com sucesso.').waitFor();
    await row.waitFor({ state: 'detached' });
    await done(page, ['400 POST /files/uploadList/' + list.id]);
  });
});

describe('campaign settings page', () => {
  it('offers the spec’s option lists, adds variables without a shortcut twice, saves and keeps them after a reload', { timeout: 300_000 }, async () => {
    const page = await signedIn(t.admin);
    await page.getByTestId('campaigns-section').getByRole('link', { name: 'Configurações', exact: true }).click();
    await page.getByRole('heading', { name: 'Configurações de campanha' }).waitFor();
    const messageInterval = page.getByRole('combobox', { name: 'Intervalo randômico de disparo' });
    const longerAfter = page.getByRole('combobox', { name: 'Intervalo maior após' });
    const greater = page.getByRole('combobox', { name: 'Intervalo de disparo maior' });
    // The defaults (20, 20, 60) and the spec's lists, 0 named as the spec names it.
    await expect.poll(() => messageInterval.inputValue()).toBe('20');
    expect(await longerAfter.inputValue()).toBe('20');
    expect(await greater.inputValue()).toBe('60');
    expect(await messageInterval.locator('option').allTextContents()).toEqual(['Sem intervalo', '5 segundos', '10 segundos', '15 segundos', '20 segundos']);
    expect(await longerAfter.locator('option').allTextContents()).toEqual([
      'Não definido', '1 mensagem', '5 mensagens', '10 mensagens', '15 mensagens', '20 mensagens', '30 mensagens', '40 mensagens', '60 mensagens', '80 mensagens', '100 mensagens', '120 mensagens',
    ]);
    expect((await greater.locator('option').allTextContents()).slice(0, 3)).toEqual(['Sem intervalo', '1 segundo', '5 segundos']);
    await page.getByText('Nenhuma variável cadastrada').waitFor();

    await messageInterval.selectOption('10');
    await longerAfter.selectOption('40');
    await greater.selectOption('0');
    const shortcut = page.getByLabel('Atalho');
    const content = page.getByLabel('Conteúdo');
    await shortcut.fill('cupom');
    await content.fill('BLACK10');
    await page.getByRole('button', { name: 'Adicionar', exact: true }).click();
    await page.getByTestId('campaign-variables').getByText('{cupom}').waitFor();
    // The same shortcut (case aside) is not added; a shortcut with spaces neither.
    await shortcut.fill('CUPOM');
    await content.fill('OUTRO');
    await page.getByRole('button', { name: 'Adicionar', exact: true }).click();
    await page.getByText('Já existe uma variável com este atalho').waitFor();
    await shortcut.fill('meu site');
    await page.getByRole('button', { name: 'Adicionar', exact: true }).click();
    await page.getByText('Use apenas letras, números e _ no atalho').waitFor();
    await shortcut.fill('site');
    await content.fill('https://loja.example.com');
    await content.press('Enter');
    await page.getByTestId('campaign-variables').getByText('{site}').waitFor();
    expect(await page.getByTestId('campaign-variables').locator('tbody tr').count()).toBe(2);
    await page.getByTestId('campaign-settings-unsaved').waitFor();
    await screenshot(page, 'campaigns-config-light-wide');
    await page.getByRole('button', { name: 'Salvar configurações' }).click();
    await toastText(page, 'Configurações salvas').waitFor();
    await page.getByTestId('campaign-settings-unsaved').waitFor({ state: 'detached' });

    const expected = { messageInterval: 10, longerIntervalAfter: 40, greaterInterval: 0, variables: [{ key: 'cupom', value: 'BLACK10' }, { key: 'site', value: 'https://loja.example.com' }] };
    const res = await otherAdmin.api.get('/campaign-settings');
    expect(res.status).toBe(200);
    expect(campaignSettingsFrom(res.body)).toEqual(expected);

    // Kept after a reload; removing a variable and saving again.
    await page.reload();
    await page.getByRole('heading', { name: 'Configurações de campanha' }).waitFor();
    await expect.poll(() => messageInterval.inputValue()).toBe('10');
    expect(await longerAfter.inputValue()).toBe('40');
    expect(await greater.inputValue()).toBe('0');
    expect(await page.getByTestId('campaign-variables').locator('tbody tr').allTextContents()).toEqual([expect.stringContaining('{cupom}BLACK10'), expect.stringContaining('{site}https://loja.example.com')]);
    await page.getByRole('button', { name: 'Remover a variável cupom' }).click();
    await page.getByRole('button', { name: 'Salvar configurações' }).click();
    await expect.poll(async () => campaignSettingsFrom((await otherAdmin.api.get('/campaign-settings')).body).variables).toEqual([{ key: 'site', value: 'https://loja.example.com' }]);
    await screenshot(page, 'campaigns-config-saved-light-wide');
    await page.setViewportSize(NARROW);
    await screenshot(page, 'campaigns-config-light-narrow');
    await done(page);
  });
});
