import { beforeAll, describe, expect, it } from 'vitest';
import type { Locator, Page } from 'playwright-core';
import { fromZonedInput, zonedInputValue } from '@balcao/shared';
import { member, PASSWORD } from '../../functions/test/integration/client.js';
import { sandbox } from '../../functions/test/integration/pipeline-helpers.js';
import { NARROW, realtimeOpen, screenshot, closeWatched, watchedPage } from './support/browser.js';
import { browser, company as t, connectedWorld, randomPhone, web } from './support/world.js';

// Issue 20 §3 (console side): the campaigns page of the Campaigns group, the campaign dialog (list,
// connection, two variants, a variable inserted, a schedule on the company's wall clock) and the
// report, which fills live while the campaign runs.

connectedWorld();

/** The browser's admin (its sign-in replaces only its own session: `t.admin` changes things meanwhile). */
let ana: Awaited<ReturnType<typeof member>>;
let list: { id: number; name: string };
let connectionName: string;
/** The list's customers (the sandbox's phones). */
const phones = [randomPhone(), randomPhone()];
/** The company's zone (no `timezone` setting: the default). */
const ZONE = 'America/Sao_Paulo';
const run = String(Date.now()).slice(-5);
/** A PNG by its signature (the API checks a file's first bytes). */
const PNG = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), Buffer.alloc(120, 7)]);

beforeAll(async () => {
  ana = await member(t.admin, { name: 'Ana Campanhas', profile: 'admin' });
  const conn = await t.admin.get(`/whatsapp/${t.connectionId}`);
  expect(conn.status).toBe(200);
  connectionName = conn.body.name;
  const created = await t.admin.post('/contact-lists', { name: `Clientes VIP ${run}` });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  list = created.body;
  for (const [i, name] of ['Bruna Costa', 'Carlos Dias'].entries()) {
    const item = await t.admin.post('/contact-list-items', { name, number: phones[i], email: `cliente${i}.${run}@cliente.test`, contactListId: list.id });
    expect(item.status, JSON.stringify(item.body)).toBe(201);
  }
  // A custom variable for the dialog's hint, and no pause between messages (the live report's run).
  const settings = await t.admin.post('/campaign-settings', { messageInterval: 0, longerIntervalAfter: 0, greaterInterval: 0, variables: [{ key: 'loja', value: 'Loja Centro' }] });
  expect(settings.status, JSON.stringify(settings.body)).toBeLessThan(300);
}, 180_000);

const signedIn = (email: string) => watchedPage(browser, web(), { email, password: PASSWORD });
const done = closeWatched;

const toastText = (page: Page, text: string) => page.locator('.toasts').getByText(text, { exact: true }).first();
const rowOf = (page: Page, text: string) => page.locator('tbody tr', { hasText: text });
const cells = (row: Locator) => row.locator('td').allTextContents();

interface StoredCampaign {
  id: number;
  name: string;
  status: string;
  confirmation: boolean;
  contactListId: number | null;
  tagListId: number | null;
  whatsappId: number | null;
  scheduledAt: string | null;
  message1: string;
  message2: string;
  message3: string;
  mediaName: string | null;
}

async function stored(name: string): Promise<StoredCampaign> {
  const res = await t.admin.get(`/campaigns?searchParam=${encodeURIComponent(name.toLowerCase())}`);
  expect(res.status).toBe(200);
  const found = (res.body.records as StoredCampaign[]).filter((c) => c.name === name);
  expect(found).toHaveLength(1);
  return found[0];
}

describe('campaigns', () => {
  it('creates a campaign in the dialog (list, connection, two variants), lists it, schedules it and opens its report', { timeout: 300_000 }, async () => {
    const page = await signedIn(ana.email);
    // Spec 000 §2.2: the group's first item.
    await page.getByTestId('campaigns-section').getByRole('link', { name: 'Campanhas', exact: true }).click();
    await page.waitForURL((u) => u.pathname === '/campaigns');
    await page.getByRole('heading', { name: 'Campanhas' }).waitFor();
    await realtimeOpen(page);
    const name = `Black Friday ${run}`;

    await page.getByRole('button', { name: 'Nova Campanha' }).click();
    const dialog = page.getByRole('dialog', { name: 'Nova campanha' });
    // The form's own messages, before anything is sent.
    await dialog.getByLabel('Nome', { exact: true }).fill('B');
    await dialog.getByRole('button', { name: 'Salvar' }).click();
    await dialog.getByText('Muito curto!').waitFor();
    await dialog.getByLabel('Nome', { exact: true }).fill(name);
    await dialog.getByRole('button', { name: 'Salvar' }).click();
    await dialog.getByText('Escreva ao menos uma mensagem').waitFor();

    // The lookups: the company's lists (with their counts), connected connections only, tags with "Nenhuma".
    const listSelect = dialog.getByRole('combobox', { name: 'Lista de Contatos' });
    await expect.poll(() => listSelect.locator('option').allTextContents()).toEqual(['Nenhuma', `${list.name} (2 contatos)`]);
    await listSelect.selectOption({ label: `${list.name} (2 contatos)` });
    const connection = dialog.getByRole('combobox', { name: 'Conexão' });
    await expect.poll(() => connection.locator('option').allTextContents()).toEqual(['Selecione uma conexão', connectionName]);
    await connection.selectOption({ label: connectionName });
    expect(await dialog.getByRole('combobox', { name: 'Tag' }).locator('option').first().textContent()).toBe('Nenhuma');
    expect(await dialog.getByRole('combobox', { name: 'Confirmação' }).inputValue()).toBe('false');
    await dialog.getByText('Sem agendamento, a campanha fica inativa e nada é enviado.').waitFor();
    await screenshot(page, 'campaigns-dialog-top-light-wide');

    // Two variants; {nome} inserted where the cursor is; the company's own variable offered too.
    await dialog.getByText('Use variáveis como {nome}, {numero}, {email} ou personalizadas').waitFor();
    await dialog.getByTestId('campaign-variables').getByRole('button', { name: '{loja}' }).waitFor();
    const message1 = dialog.getByLabel('Mensagem 1', { exact: true });
    await message1.fill('Olá , a Black Friday chegou!');
    await message1.evaluate((el: HTMLTextAreaElement) => el.setSelectionRange(4, 4));
    await dialog.getByTestId('campaign-variables').getByRole('button', { name: '{nome}' }).click();
    await expect.poll(() => message1.inputValue()).toBe('Olá {nome}, a Black Friday chegou!');
    await dialog.getByRole('tab', { name: 'Msg. 2' }).click();
    await dialog.getByLabel('Mensagem 2', { exact: true }).fill('Oi {nome}, descontos de até 50% hoje!');
    // Confirmation messages show only with confirmation on.
    expect(await dialog.getByLabel('Mensagem de confirmação 2').count()).toBe(0);
    await dialog.getByRole('combobox', { name: 'Confirmação' }).selectOption({ label: 'Habilitada' });
    await dialog.getByLabel('Mensagem de confirmação 2').waitFor();
    await screenshot(page, 'campaigns-dialog-light-wide');
    await dialog.getByTestId('campaign-media').or(dialog.getByText('Sem anexo')).scrollIntoViewIfNeeded();
    await screenshot(page, 'campaigns-dialog-bottom-light-wide');
    await dialog.getByRole('combobox', { name: 'Confirmação' }).selectOption({ label: 'Desabilitada' });
    // The media goes up after the campaign is saved (its route needs the id).
    await dialog.getByTestId('campaign-media-input').setInputFiles({ name: 'banner promo.png', mimeType: 'image/png', buffer: PNG });
    expect(await dialog.getByTestId('campaign-media').textContent()).toBe('banner_promo.png');
    await dialog.getByRole('button', { name: 'Salvar' }).click();
    await toastText(page, 'Campanha salva com sucesso.').waitFor();
    await dialog.waitFor({ state: 'detached' });

    const row = rowOf(page, name);
    await row.waitFor();
    expect((await cells(row)).slice(0, 7)).toEqual([name, 'Inativa', list.name, connectionName, 'Sem agendamento', 'Não concluída', 'Desabilitada']);
    const saved = await stored(name);
    expect(saved).toMatchObject({
      status: 'INATIVA',
      confirmation: false,
      contactListId: list.id,
      tagListId: null,
      whatsappId: t.connectionId,
      scheduledAt: null,
      message1: 'Olá {nome}, a Black Friday chegou!',
      message2: 'Oi {nome}, descontos de até 50% hoje!',
      message3: '',
      mediaName: 'banner_promo.png',
    });
    // Not running: neither stop nor restart; delete is offered.
    expect(await row.getByRole('button', { name: `Parar campanha ${name}` }).count()).toBe(0);
    expect(await row.getByRole('button', { name: `Reiniciar campanha ${name}` }).count()).toBe(0);
    expect(await row.getByRole('button', { name: `Excluir ${name}` }).isEnabled()).toBe(true);

    // Scheduled on the company's wall clock two days ahead: PROGRAMADA, the time shown as typed.
    await row.getByRole('button', { name: `Editar ${name}` }).click();
    const edit = page.getByRole('dialog', { name: 'Editar campanha' });
    await expect.poll(() => edit.getByLabel('Mensagem 1', { exact: true }).inputValue()).toBe('Olá {nome}, a Black Friday chegou!');
    await expect.poll(() => edit.getByRole('combobox', { name: 'Conexão' }).inputValue()).toBe(String(t.connectionId));
    const wall = zonedInputValue(Date.now() + 2 * 86_400_000, ZONE).slice(0, 11) + '09:30';
    await edit.getByLabel('Agendamento').fill(wall);
    await edit.getByText('Os envios começam nesse horário.').waitFor();
    await edit.getByRole('button', { name: 'Salvar' }).click();
    await toastText(page, 'Campanha salva com sucesso.').waitFor();
    await edit.waitFor({ state: 'detached' });
    const [y, m, d] = wall.slice(0, 10).split('-');
    await expect.poll(async () => (await cells(row)).slice(1, 5)).toEqual(['Programada', list.name, connectionName, `${d}/${m}/${y} 09:30`]);
    expect((await stored(name)).scheduledAt).toBe(fromZonedInput(wall, ZONE));
    await screenshot(page, 'campaigns-table-light-wide');

    // The report: its name, status, progress and the five counts.
    await row.getByRole('link', { name: `Relatório ${name}` }).click();
    await page.waitForURL((u) => u.pathname === `/campaign/${saved.id}/report`);
    const report = page.getByTestId('campaign-report');
    await report.getByRole('heading', { name: new RegExp(`Relatório da campanha\\s*${name}$`) }).waitFor();
    expect(await report.getByTestId('campaign-status').textContent()).toBe('Programada');
    expect(await report.getByRole('progressbar').getAttribute('aria-valuenow')).toBe('0');
    for (const [key, label] of [
      ['recipients', 'Contatos'],
      ['delivered', 'Entregues'],
      ['confirmationRequested', 'Confirmações solicitadas'],
      ['confirmed', 'Confirmações'],
      ['failed', 'Falhas'],
    ]) {
      expect(await report.getByTestId(`campaign-count-${key}`).textContent()).toBe(`${label}0`);
    }
    expect(await report.getByTestId('campaign-scheduled').textContent()).toBe(`${d}/${m}/${y} 09:30`);
    expect(await report.getByTestId('campaign-completed').textContent()).toBe('Não concluída');
    await screenshot(page, 'campaign-report-scheduled-light-wide');
    await done(page);
  });

  it('fills the report live while the campaign runs and shows it finished', { timeout: 300_000 }, async () => {
    const name = `Aviso rápido ${run}`;
    // Scheduled a few seconds ahead (the API takes an instant with its offset): the dispatcher starts it.
    const created = await t.admin.post('/campaigns', {
      name,
      contactListId: list.id,
      whatsappId: t.connectionId,
      message1: 'Olá {nome}! Aviso da {loja}.',
      scheduledAt: new Date(Date.now() + 20_000).toISOString(),
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const id = created.body.id as number;

    const page = await signedIn(ana.email);
    await page.goto(`${web()}/campaign/${id}/report`);
    const report = page.getByTestId('campaign-report');
    await report.getByRole('heading', { name: new RegExp(`Relatório da campanha\\s*${name}$`) }).waitFor();
    await realtimeOpen(page);
    // Live: started, both recipients delivered, finished with its completion time.
    await expect.poll(() => report.getByTestId('campaign-status').textContent(), { timeout: 120_000, interval: 500 }).toBe('Finalizada');
    expect(await report.getByTestId('campaign-count-recipients').textContent()).toBe('Contatos2');
    expect(await report.getByTestId('campaign-count-delivered').textContent()).toBe('Entregues2');
    expect(await report.getByTestId('campaign-count-failed').textContent()).toBe('Falhas0');
    expect(await report.getByRole('progressbar').getAttribute('aria-valuenow')).toBe('100');
    await expect.poll(() => report.getByTestId('campaign-completed').textContent(), { timeout: 15_000 }).not.toBe('Não concluída');
    await screenshot(page, 'campaign-report-finished-light-wide');
    await page.getByTestId('theme-toggle').click();
    await screenshot(page, 'campaign-report-finished-dark-wide');
    await page.getByTestId('theme-toggle').click();

    // The table: finished, its completion shown; not editable any more (the dialog opens read-only).
    await page.getByRole('link', { name: 'Voltar às campanhas' }).click();
    const row = rowOf(page, name);
    await row.waitFor();
    expect((await cells(row)).slice(1, 2)).toEqual(['Finalizada']);
    await row.getByRole('button', { name: `Editar ${name}` }).click();
    const readOnly = page.getByRole('dialog', { name: 'Campanha (somente leitura)' });
    await readOnly.getByTestId('campaign-readonly').waitFor();
    expect(await readOnly.getByRole('button', { name: 'Salvar' }).count()).toBe(0);
    await readOnly.getByRole('button', { name: 'Fechar' }).click();
    await readOnly.waitFor({ state: 'detached' });
    await done(page);
  });

  it('shows why a campaign stopped, keeps only its messages editable, stops and restarts a running one without sending twice', { timeout: 300_000 }, async () => {
    const page = await signedIn(ana.email);
    await page.goto(`${web()}/campaigns`);
    await page.getByRole('heading', { name: 'Campanhas' }).waitFor();
    await realtimeOpen(page);

    // A list without contacts: the dispatcher stops the campaign with its reason (issue 20 §5).
    const empty = await t.admin.post('/contact-lists', { name: `Lista vazia ${run}` });
    expect(empty.status).toBe(201);
    const lonely = `Sem ninguém ${run}`;
    const made = await t.admin.post('/campaigns', {
      name: lonely,
      contactListId: empty.body.id,
      whatsappId: t.connectionId,
      message1: 'Ninguém vai ler isto',
      scheduledAt: new Date(Date.now() + 8_000).toISOString(),
    });
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    const lonelyRow = rowOf(page, lonely);
    await lonelyRow.waitFor();
    await expect.poll(() => lonelyRow.getByTestId('campaign-status').textContent(), { timeout: 90_000, interval: 500 }).toBe('Cancelada');
    expect(await lonelyRow.getByTestId('campaign-error').textContent()).toBe('Nenhum destinatário válido');
    await lonelyRow.getByRole('button', { name: `Reiniciar campanha ${lonely}` }).waitFor();
    await screenshot(page, 'campaigns-table-error-light-wide');

    // Cancelled: only the messages change (spec 002 §4).
    await lonelyRow.getByRole('button', { name: `Editar ${lonely}` }).click();
    const edit = page.getByRole('dialog', { name: 'Editar campanha' });
    await edit.getByTestId('campaign-messages-only').waitFor();
    await expect.poll(() => edit.getByLabel('Mensagem 1', { exact: true }).inputValue()).toBe('Ninguém vai ler isto');
    expect(await edit.getByLabel('Nome', { exact: true }).getAttribute('readonly')).not.toBeNull();
    expect(await edit.getByRole('combobox', { name: 'Conexão' }).isDisabled()).toBe(true);
    await edit.getByLabel('Mensagem 1', { exact: true }).fill('Mensagem revista');
    await screenshot(page, 'campaigns-dialog-messages-only-light-wide');
    await edit.getByRole('button', { name: 'Salvar' }).click();
    await toastText(page, 'Campanha salva com sucesso.').waitFor();
    await edit.waitFor({ state: 'detached' });
    expect((await t.admin.get(`/campaigns/${made.body.id}`)).body.message1).toBe('Mensagem revista');

    // A running campaign paced by 20 s: stop it mid-way, then restart it; every phone gets it once.
    expect((await t.admin.post('/campaign-settings', { messageInterval: 20, longerIntervalAfter: 0, greaterInterval: 0 })).status).toBeLessThan(300);
    const paced = `Com pausa ${run}`;
    const text = `Novidade da semana ${run}`;
    const started = await t.admin.post('/campaigns', {
      name: paced,
      contactListId: list.id,
      whatsappId: t.connectionId,
      message1: text,
      scheduledAt: new Date(Date.now() + 6_000).toISOString(),
    });
    expect(started.status, JSON.stringify(started.body)).toBe(201);
    const row = rowOf(page, paced);
    await row.waitFor();
    await expect.poll(() => row.getByTestId('campaign-status').textContent(), { timeout: 90_000, interval: 300 }).toBe('Em Andamento');
    // Running: stop is offered and delete is not (the API answers 409 for it).
    expect(await row.getByRole('button', { name: `Excluir ${paced}` }).isDisabled()).toBe(true);
    await screenshot(page, 'campaigns-table-running-light-wide');
    await row.getByRole('button', { name: `Parar campanha ${paced}` }).click();
    await toastText(page, 'Campanha parada.').waitFor();
    await expect.poll(() => row.getByTestId('campaign-status').textContent()).toBe('Cancelada');
    expect(await row.getByTestId('campaign-error').count()).toBe(0);
    expect(await row.getByRole('button', { name: `Excluir ${paced}` }).isEnabled()).toBe(true);

    await row.getByRole('button', { name: `Reiniciar campanha ${paced}` }).click();
    await toastText(page, 'Campanha reiniciada.').waitFor();
    await expect.poll(() => row.getByTestId('campaign-status').textContent(), { timeout: 120_000, interval: 500 }).toBe('Finalizada');
    for (const phone of phones) {
      const seen = await sandbox<{ fromMe: boolean; body: string }[]>('GET', `/connections/${t.connectionId}/messages?peer=${phone}`);
      expect(seen.body.filter((m) => m.fromMe && m.body === text)).toHaveLength(1);
    }
    // On a phone the table keeps the name, the status (with its reason) and the actions.
    await page.setViewportSize(NARROW);
    await rowOf(page, lonely).getByTestId('campaign-error').waitFor();
    await screenshot(page, 'campaigns-table-light-narrow');
    await page.setViewportSize({ width: 1366, height: 800 });
    await page.getByTestId('theme-toggle').click();
    await screenshot(page, 'campaigns-table-dark-wide');
    await page.getByTestId('theme-toggle').click();
    await done(page);
  });

  it('sends whoever may not use campaigns home with the spec toast, asking nothing of the API', { timeout: 120_000 }, async () => {
    const agent = await member(t.admin, { name: 'Agente Campanhas', profile: 'Nível 1' });
    const page = await signedIn(agent.email);
    expect(await page.getByTestId('campaigns-section').count()).toBe(0);
    for (const path of ['/campaigns', `/campaign/1/report`]) {
      await page.goto(`${web()}${path}`);
      await toastText(page, 'Esta empresa não possui permissão para acessar essa página! Estamos lhe redirecionando.').waitFor();
      await page.waitForURL((u) => u.pathname === '/');
    }
    await done(page);
  });
});
