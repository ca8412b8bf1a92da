import { describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { sandbox, ticketOf } from '../../functions/test/integration/pipeline-helpers.js';
import { member, PASSWORD, uniq } from '../../functions/test/integration/client.js';
import { NARROW, newContext, screenshot, signInUi, WIDE } from './support/browser.js';
import { browser, company as t, connectedWorld, web, randomPhone } from './support/world.js';

// Issue 4 §1 (client side): the ticket list panel follows the company's tickets live.

connectedWorld();
const phone = () => randomPhone();

const list = (page: Page, name: string) => page.getByTestId(`tickets-list-${name}`);
const rowOf = (page: Page, listName: string, text: string) => list(page, listName).locator('.ticket-row', { hasText: text });

async function queue(name: string, color: string) {
  const res = await t.admin.post('/queue', { name, color, greetingMessage: `Olá da fila ${name}` });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.id as number;
}

async function chooseQueues(page: Page, pick: (panel: ReturnType<Page['getByRole']>) => Promise<void>) {
  await page.getByTestId('queue-select').getByRole('button').first().click();
  const panel = page.getByRole('listbox', { name: 'Filas' });
  await pick(panel);
  await page.keyboard.press('Escape');
}

describe('tickets list panel', () => {
  it('a customer message appears live in pending with its badges, notifies, and accept moves it to me; queue selection hides tickets', { timeout: 240_000 }, async () => {
    const qA = await queue(uniq('Vendas '), '#1e88e5');
    const qB = await queue(uniq('Suporte '), '#8e24aa');
    // The browser's user: an admin who sees tickets without a queue (notifications need allTicket).
    const ana = await member(t.admin, { name: 'Ana Souza', profile: 'admin', allTicket: 'enabled', queueIds: [qA] });

    const ctx = await newContext(browser);
    const page = await ctx.newPage();
    await signInUi(page, web(), ana.email, PASSWORD);
    await page.getByRole('navigation', { name: 'menu' }).getByRole('link', { name: 'Atendimentos' }).click();
    await page.getByTestId('tickets-welcome').waitFor();
    expect(await page.title()).toBe('Balcão');
    await page.getByTestId('subtab-pending').click();
    await list(page, 'pending').getByTestId('tickets-empty').waitFor();
    await screenshot(page, 'tickets-empty-light-wide');

    // A customer writes from the sandbox phone.
    const customer = phone();
    const name = 'Cliente Live Um';
    expect((await sandbox('POST', `/connections/${t.connectionId}/messages`, { from: customer, name, body: 'Olá, preciso de *ajuda* <b>urgente</b>' })).status).toBe(200);
    const row = rowOf(page, 'pending', name);
    await row.waitFor({ timeout: 30_000 });
    // The text is shown as text (no HTML), WhatsApp markers dropped in the preview.
    expect(await row.getByTestId('ticket-last').textContent()).toBe('Olá, preciso de ajuda <b>urgente</b>');
    await expect.poll(() => row.getByTestId('ticket-unread').textContent(), { timeout: 15_000 }).toBe('1');
    expect(await row.getByTestId('ticket-queue').textContent()).toBe('Sem fila');
    await row.getByRole('button', { name: 'Aceitar' }).waitFor();
    await expect.poll(() => page.getByTestId('count-pending').textContent(), { timeout: 15_000 }).toBe('1');

    // The bell lists it, a chime played, the title counts it.
    await expect.poll(() => page.getByTestId('notifications-count').textContent(), { timeout: 15_000 }).toBe('1');
    expect(Number(await page.getByTestId('notifications-bell').getAttribute('data-chimes'))).toBeGreaterThanOrEqual(1);
    await expect.poll(() => page.title()).toBe('Balcão (1)');
    await page.getByTestId('notifications-bell').click();
    const popover = page.getByTestId('notifications-popover');
    await popover.getByText(name).waitFor();
    await screenshot(page, 'tickets-pending-notifications-light-wide');
    await page.keyboard.press('Escape');

    // A second message raises the row's unread count.
    await sandbox('POST', `/connections/${t.connectionId}/messages`, { from: customer, name, body: 'Alguém aí?' });
    await expect.poll(() => row.getByTestId('ticket-unread').textContent(), { timeout: 15_000 }).toBe('2');
    expect(await row.getByTestId('ticket-last').textContent()).toBe('Alguém aí?');

    // Accept: the ticket opens and moves to "assigned to me".
    const ticketId = Number((await row.getAttribute('data-testid'))!.replace('ticket-row-', ''));
    await row.getByRole('button', { name: 'Aceitar' }).click();
    await page.waitForURL(/\/tickets\/[0-9a-f-]{36}$/, { timeout: 15_000 });
    expect(await page.getByTestId('subtab-me').getAttribute('aria-selected')).toBe('true');
    const mine = rowOf(page, 'me', name);
    await mine.waitFor({ timeout: 15_000 });
    // The row and the open conversation render in separate steps (a loaded machine shows it).
    await expect.poll(() => mine.getAttribute('data-status'), { timeout: 15_000 }).toBe('open');
    await expect.poll(() => mine.getByTestId('ticket-agent').textContent(), { timeout: 15_000 }).toBe('Ana Souza');
    await expect.poll(() => mine.getAttribute('aria-current'), { timeout: 15_000 }).toBe('true');
    await page.getByTestId('ticket-view').waitFor();
    await expect.poll(async () => (await page.getByTestId('count-pending').count()) === 0, { timeout: 15_000 }).toBe(true);
    await expect.poll(() => page.getByTestId('count-me').textContent(), { timeout: 15_000 }).toBe('1');
    expect(ticketId).toBeGreaterThan(0);

    // Queues: a second customer's ticket in queue A stays; moved to queue B (deselected) it leaves live.
    const other = phone();
    const otherName = 'Cliente Fila Dois';
    await sandbox('POST', `/connections/${t.connectionId}/messages`, { from: other, name: otherName, body: 'Bom dia' });
    const second = await ticketOf(t, other);
    await page.getByTestId('subtab-pending').click();
    const otherRow = rowOf(page, 'pending', otherName);
    await otherRow.waitFor({ timeout: 30_000 });
    await chooseQueues(page, async (panel) => {
      await panel.getByRole('option', { name: new RegExp(`^Suporte`) }).getByRole('checkbox').uncheck();
    });
    expect(await page.getByTestId('queue-select').getByRole('button').first().textContent()).toContain('Vendas');
    expect((await t.admin.put(`/tickets/${second.id}`, { queueId: qA })).status).toBe(200);
    await expect.poll(() => otherRow.getByTestId('ticket-queue').textContent(), { timeout: 15_000 }).toMatch(/^Vendas/);
    expect((await t.admin.put(`/tickets/${second.id}`, { queueId: qB })).status).toBe(200);
    await otherRow.waitFor({ state: 'detached', timeout: 15_000 });

    // The selection is kept for this user across a reload; Todos brings it back, Nenhum keeps only tickets without a queue.
    await page.reload();
    await page.getByTestId('subtab-pending').click();
    await list(page, 'pending').getByTestId('tickets-empty').waitFor({ timeout: 15_000 });
    await chooseQueues(page, (panel) => panel.getByRole('button', { name: 'Todos' }).click());
    await otherRow.waitFor({ timeout: 15_000 });
    await chooseQueues(page, (panel) => panel.getByRole('button', { name: 'Nenhum' }).click());
    await otherRow.waitFor({ state: 'detached', timeout: 15_000 });
    await chooseQueues(page, (panel) => panel.getByRole('button', { name: 'Todos' }).click());
    await otherRow.waitFor({ timeout: 15_000 });

    // Screens: light/dark, wide/narrow. Narrow: the Ticket / Atendimentos tabs, names cut to 10 characters.
    await screenshot(page, 'tickets-list-light-wide');
    await page.getByTestId('theme-toggle').click();
    await screenshot(page, 'tickets-list-dark-wide');
    await page.setViewportSize(NARROW);
    await page.getByRole('tab', { name: 'Atendimentos' }).click();
    // The name is cut, so the row is found by its ticket id.
    const narrowRow = list(page, 'pending').getByTestId(`ticket-row-${second.id}`);
    await narrowRow.waitFor();
    expect(await narrowRow.getByTestId('ticket-name').textContent()).toBe('Cliente Fi...');
    expect(await narrowRow.getByTestId('ticket-name').getAttribute('title')).toBe(otherName);
    await screenshot(page, 'tickets-list-dark-narrow');
    const secondUuid = (await t.admin.get(`/tickets/${second.id}`)).body.uuid as string;
    await narrowRow.click();
    await page.waitForURL(`${web()}/tickets/${secondUuid}`);
    await expect.poll(() => page.getByRole('tab', { name: 'Ticket', exact: true }).getAttribute('aria-selected')).toBe('true');
    expect(await page.getByTestId('tickets-panel').isVisible()).toBe(false);
    await page.getByTestId('ticket-view').waitFor();
    await page.getByRole('tab', { name: 'Atendimentos' }).click();
    await page.getByTestId('theme-toggle').click();
    await screenshot(page, 'tickets-list-light-narrow');
    await page.getByTestId('notifications-bell').click();
    await screenshot(page, 'tickets-notifications-light-narrow');
    await page.setViewportSize(WIDE);
    await ctx.close();
  });
});
