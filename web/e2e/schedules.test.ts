import { describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { DEFAULT_TIME_ZONE, fromZonedInput, zonedInputValue } from '@balcao/shared';
import { applyStackEnv, member, PASSWORD } from '../../functions/test/integration/client.js';
import { PNG } from '../../functions/test/integration/messages-helpers.js';
import { linkSandboxConnection, sandbox, ticketOf, until } from '../../functions/test/integration/pipeline-helpers.js';
import { NARROW, newContext, screenshot, signInUi, WIDE } from './support/browser.js';
import { browser, company as t, connectedWorld, web, randomPhone } from './support/world.js';

// Issue 5 §4 (client side): the schedules page, its dialog and a schedule reaching the phone.

connectedWorld();
const phone = () => randomPhone('21');

/**
 * `<input type="datetime-local">` value on the company's clock (decision 34): the test company keeps
 * the default zone, and the browser runs in this machine's (UTC here), so the two differ.
 */
const companyInput = (d: Date) => zonedInputValue(d, DEFAULT_TIME_ZONE);

async function contact(name: string, number = phone()) {
  const res = await t.admin.post('/contacts', { name, number });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body as { id: number; name: string; number: string };
}

/**
 * How far ahead a test schedule is due: beyond the stack's own sweeper's reach (it claims what is due
 * within 2.5 minutes, every minute), so the test sees it Pendente and drives the sweep itself.
 */
const SWEEPER_SAFE_MS = 10 * 60_000;

const dialog = (page: Page) => page.getByRole('dialog');
const agendaRow = (page: Page, id: number) => page.getByTestId(`schedule-row-${id}`);

describe('schedules page', () => {
  it('creates a schedule from the page; due, it reaches the phone and turns Enviada live; sent ones are read-only', { timeout: 300_000 }, async () => {
    const rosa = await contact('Rosa Tavares', '5521987654321');
    const ana = await member(t.admin, { name: 'Ana Agenda', profile: 'admin' });
    const ctx = await newContext(browser, { viewport: WIDE });
    const page = await ctx.newPage();
    await signInUi(page, web(), ana.email, PASSWORD);
    await page.getByRole('navigation', { name: 'menu' }).getByRole('link', { name: 'Agendamentos' }).click();
    await page.waitForURL((u) => u.pathname === '/schedules');
    const calendar = page.getByTestId('schedules-calendar');
    // Month view in Portuguese, 500 px high.
    await calendar.getByRole('button', { name: 'Mês' }).waitFor();
    await calendar.getByRole('button', { name: 'Hoje' }).waitFor();
    const height = await calendar.locator('.rbc-calendar').evaluate((el) => el.getBoundingClientRect().height);
    expect(height).toBe(500);
    await screenshot(page, 'schedules-month-light-wide');

    // The dialog's rules: required fields and the message of at least 5 characters.
    await page.getByRole('button', { name: 'Novo agendamento' }).click();
    const d = dialog(page);
    await d.getByRole('heading', { name: 'Novo agendamento' }).waitFor();
    // Default time: one hour ahead, on the company's clock.
    const def = Date.parse(fromZonedInput(await d.getByLabel('Data do envio').inputValue(), DEFAULT_TIME_ZONE) ?? '');
    expect(Math.abs(def - (Date.now() + 3_600_000))).toBeLessThan(3 * 60_000);
    await d.getByRole('button', { name: 'Salvar' }).click();
    await d.getByText('Obrigatório').first().waitFor();
    expect(await d.getByText('Obrigatório').count()).toBe(2);
    await d.getByLabel('Mensagem').fill('oi');
    await d.getByRole('button', { name: 'Salvar' }).click();
    await d.getByText('Mensagem muito curta').waitFor();

    // Contact search from 3 characters.
    await d.getByLabel('Contato').fill('Ros');
    await d.getByRole('option').filter({ hasText: 'Rosa Tavares' }).getByRole('button').click();
    await expect.poll(() => d.getByLabel('Contato').inputValue()).toBe('Rosa Tavares — +55 (21) 98765-4321');
    await d.getByLabel('Mensagem').fill('Olá {{name}}, seu pedido fica pronto hoje.');
    const sendAt = new Date(Date.now() + SWEEPER_SAFE_MS);
    await d.getByLabel('Data do envio').fill(companyInput(sendAt));
    const connName = (await t.admin.get(`/whatsapp/${t.connectionId}`)).body.name as string;
    await d.getByLabel('Conexão').selectOption({ label: connName });
    // Only png/jpg/jpeg.
    const input = d.getByTestId('schedule-file-input');
    await input.setInputFiles({ name: 'contrato.pdf', mimeType: 'application/pdf', buffer: Buffer.from('%PDF-1.4\n') });
    await d.getByText('Apenas imagens png, jpg ou jpeg').waitFor();
    await input.setInputFiles({ name: 'pedido pronto.png', mimeType: 'image/png', buffer: PNG });
    await d.getByTestId('schedule-file').getByText('pedido_pronto.png').waitFor();
    await screenshot(page, 'schedules-dialog-light-wide');
    await d.getByRole('button', { name: 'Salvar' }).click();
    await page.getByText('Agendamento salvo com sucesso.').waitFor();
    await expect.poll(() => dialog(page).count()).toBe(0);

    const saved = await until(async () => {
      const list = (await t.admin.get('/schedules?searchParam=Rosa')).body.schedules as { id: number; mediaName: string | null; whatsappId: number; sendAt: string }[];
      return list[0];
    }, 'the saved schedule');
    expect(saved).toMatchObject({ mediaName: 'pedido_pronto.png', whatsappId: t.connectionId });
    // The time typed on the company's clock is that instant (to the minute the field holds).
    expect(saved.sendAt).toBe(new Date(Math.floor(sendAt.getTime() / 60_000) * 60_000).toISOString());

    await calendar.locator('.rbc-event', { hasText: 'Rosa Tavares' }).waitFor();
    await screenshot(page, 'schedules-month-event-light-wide');

    // Agenda rows: contact, formatted number, connection, status, edit and delete.
    await calendar.getByRole('button', { name: 'Agenda' }).click();
    const row = agendaRow(page, saved.id);
    await row.waitFor();
    expect(await row.locator('.sch-name').textContent()).toBe('Rosa Tavares');
    expect(await row.locator('.sch-phone').textContent()).toBe('+55 (21) 98765-4321');
    expect(await row.locator('.sch-conn').textContent()).toBe(connName);
    expect(await row.locator('.sch-chip').textContent()).toBe('Pendente');
    await screenshot(page, 'schedules-agenda-light-wide');

    // Due: the sweep (driven here instead of waiting two real minutes) hands it to the worker.
    applyStackEnv();
    const { sweepSchedules } = await import('../../functions/src/services/schedules.js');
    await sweepSchedules(sendAt.getTime() + 60_000);
    await expect.poll(() => row.locator('.sch-chip').textContent(), { timeout: 60_000 }).toBe('Enviada');
    const text = 'Olá Rosa Tavares, seu pedido fica pronto hoje.';
    const onPhone = await until(async () => {
      const conv = (await sandbox<any[]>('GET', `/connections/${t.connectionId}/messages?peer=${rosa.number}`)).body;
      return conv.find((m) => m.fromMe && m.body === text);
    }, 'the scheduled message on the phone');
    expect(onPhone.mediaType).toBe('image');
    await screenshot(page, 'schedules-agenda-sent-light-wide');

    // Sent: the dialog shows the status and offers nothing to save.
    await row.getByRole('button', { name: 'Editar Rosa Tavares' }).click();
    await d.getByRole('heading', { name: 'Agendamento: Enviada' }).waitFor();
    expect(await d.getByRole('button', { name: 'Salvar' }).count()).toBe(0);
    expect(await d.getByRole('button', { name: 'Anexar imagem' }).count()).toBe(0);
    await d.getByRole('button', { name: 'Fechar' }).click();
    await ctx.close();
  });

  it('from a ticket on a second connection: the dialog chooses that connection, and the message lands in that ticket', { timeout: 240_000 }, async () => {
    const centro = await linkSandboxConnection(t, t.ws, `Loja Centro ${Date.now() % 1e6}`);
    const number = phone();
    expect((await sandbox('POST', `/connections/${centro.id}/messages`, { from: number, name: 'Cliente do Centro', body: 'Bom dia, loja do centro' })).status).toBeLessThan(300);
    const ticket = await ticketOf(t, number);
    const uuid = (await t.admin.get(`/tickets/${ticket.id}`)).body.uuid as string;
    const defaultName = ((await t.admin.get('/whatsapp?session=0')).body as { name: string; isDefault: boolean }[]).find((c) => c.isDefault)!.name;
    const agent = await member(t.admin, { name: 'Duda Agenda', profile: 'admin' });
    const ctx = await newContext(browser, { viewport: WIDE });
    const page = await ctx.newPage();
    await signInUi(page, web(), agent.email, PASSWORD);
    await page.goto(`${web()}/tickets/${uuid}`);
    await page.getByRole('button', { name: 'Agendar mensagem' }).click();
    const d = page.getByRole('dialog', { name: 'Novo agendamento' });
    await d.waitFor();
    // The ticket's connection is chosen; "Conexão padrão" names the connection it stands for.
    const select = d.getByLabel('Conexão');
    // The connections load with the dialog: the select shows the ticket's once its option is there.
    await expect.poll(() => select.inputValue()).toBe(String(centro.id));
    expect(await select.locator('option').first().textContent()).toBe(`Conexão padrão (${defaultName})`);
    await d.getByLabel('Mensagem').fill('Seu conserto fica pronto amanhã.');
    const sendAt = new Date(Date.now() + SWEEPER_SAFE_MS);
    await d.getByLabel('Data do envio').fill(companyInput(sendAt));
    await screenshot(page, 'schedules-dialog-from-ticket-second-connection');
    await d.getByRole('button', { name: 'Salvar' }).click();
    await page.getByText('Agendamento salvo com sucesso.').waitFor();
    const saved = await until(async () => {
      const list = (await t.admin.get(`/schedules?searchParam=${encodeURIComponent('conserto')}`)).body.schedules as { id: number; whatsappId: number; ticketId: number }[];
      return list[0];
    }, 'the saved schedule');
    expect(saved).toMatchObject({ whatsappId: centro.id, ticketId: ticket.id });

    applyStackEnv();
    const { sweepSchedules } = await import('../../functions/src/services/schedules.js');
    await sweepSchedules(sendAt.getTime() + 60_000);
    await until(async () => (await t.admin.get(`/schedules/${saved.id}`)).body.status === 'ENVIADA', 'the schedule sent', 60_000);
    const viaCentro = (await sandbox<any[]>('GET', `/connections/${centro.id}/messages?peer=${number}`)).body;
    expect(viaCentro.some((m) => m.fromMe && m.body === 'Seu conserto fica pronto amanhã.')).toBe(true);
    expect((await sandbox<any[]>('GET', `/connections/${t.connectionId}/messages?peer=${number}`)).body).toEqual([]);
    // In the conversation that was open: the message shows there, no second ticket.
    await page.getByTestId('message-list').getByText('Seu conserto fica pronto amanhã.').waitFor({ timeout: 30_000 });
    await ctx.close();
  });

  it("shows an ERRO's reason in the reader's language (pt, en, es)", { timeout: 180_000 }, async () => {
    const ghostNumber = phone();
    expect((await sandbox('PUT', `/phones/${ghostNumber}`, { onWhatsApp: false })).status).toBeLessThan(300);
    const ghost = await contact('Sem Zap Agenda', ghostNumber);
    const made = await t.admin.post('/schedules', { body: 'Mensagem sem destino', contactId: ghost.id, sendAt: new Date(Date.now() + SWEEPER_SAFE_MS).toISOString() });
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    applyStackEnv();
    const { sweepSchedules } = await import('../../functions/src/services/schedules.js');
    await sweepSchedules(Date.now() + SWEEPER_SAFE_MS + 60_000);
    const failed = await until(async () => {
      const s = (await t.admin.get(`/schedules/${made.body.id}`)).body;
      return s.status === 'ERRO' ? s : undefined;
    }, 'the schedule in ERRO');
    expect(failed).toMatchObject({ reason: 'O número não está no WhatsApp', reasonCode: 'NOT_ON_WHATSAPP' });

    const reader = await member(t.admin, { name: 'Leitora Agenda', profile: 'admin' });
    const ctx = await newContext(browser, { viewport: WIDE });
    const page = await ctx.newPage();
    await signInUi(page, web(), reader.email, PASSWORD);
    await page.goto(`${web()}/schedules`);
    const calendar = page.getByTestId('schedules-calendar');
    await calendar.getByRole('button', { name: 'Agenda' }).click();
    const row = agendaRow(page, made.body.id);
    await row.waitFor();
    expect(await row.locator('.sch-chip').getAttribute('title')).toBe('O número não está no WhatsApp');
    for (const [lang, label, text] of [
      ['en', 'Idioma', 'The number is not on WhatsApp'],
      ['es', 'Language', 'El número no está en WhatsApp'],
      ['pt', 'Idioma', 'O número não está no WhatsApp'],
    ] as const) {
      await page.getByRole('combobox', { name: label }).selectOption(lang);
      await expect.poll(() => row.locator('.sch-chip').getAttribute('title')).toBe(text);
      await row.locator('.sch-actions button').first().click();
      await expect.poll(() => dialog(page).getByTestId('schedule-reason').textContent()).toBe(text);
      if (lang === 'en') await screenshot(page, 'schedules-error-reason-en');
      await page.keyboard.press('Escape');
      await expect.poll(() => dialog(page).count()).toBe(0);
    }
    await ctx.close();
  });

  it('?contactId= opens the add dialog for that contact; delete from the agenda; dark and narrow', { timeout: 180_000 }, async () => {
    const caio = await contact('Caio Martins', '5511912345678');
    const bia = await member(t.admin, { name: 'Bia Agenda', profile: 'Nível 1' });
    const ctx = await newContext(browser, { viewport: NARROW, colorScheme: 'dark' });
    const page = await ctx.newPage();
    await signInUi(page, web(), bia.email, PASSWORD);
    await page.goto(`${web()}/schedules?contactId=${caio.id}`);
    const d = dialog(page);
    await d.getByRole('heading', { name: 'Novo agendamento' }).waitFor();
    await expect.poll(() => d.getByLabel('Contato').inputValue()).toBe('Caio Martins — +55 (11) 91234-5678');
    await d.getByLabel('Mensagem').fill('Lembrete: sua revisão é amanhã.');
    await screenshot(page, 'schedules-dialog-dark-narrow');
    await d.getByRole('button', { name: 'Salvar' }).click();
    await page.getByText('Agendamento salvo com sucesso.').waitFor();
    await page.waitForURL((u) => !u.search.includes('contactId'));

    const calendar = page.getByTestId('schedules-calendar');
    await calendar.getByRole('button', { name: 'Agenda' }).click();
    const row = calendar.locator('.sch-agenda-row', { hasText: 'Caio Martins' });
    await row.waitFor();
    expect(await row.locator('.sch-conn').textContent()).toBe('Conexão padrão');
    await screenshot(page, 'schedules-agenda-dark-narrow');
    await row.getByRole('button', { name: 'Excluir Caio Martins' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Confirmar' }).click();
    await page.getByText('Agendamento excluído com sucesso.').waitFor();
    await expect.poll(() => row.count()).toBe(0);
    expect((await t.admin.get(`/schedules?contactId=${caio.id}`)).body.count).toBe(0);

    // Wide dark, month view with the default time of the dialog.
    await page.setViewportSize(WIDE);
    await calendar.getByRole('button', { name: 'Mês' }).click();
    await screenshot(page, 'schedules-month-dark-wide');
    await ctx.close();
  });
});
