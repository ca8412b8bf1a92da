import { describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { sandbox, ticketOf } from '../../functions/test/integration/pipeline-helpers.js';
import { member, PASSWORD, uniq } from '../../functions/test/integration/client.js';
import { newContext, screenshot, signInUi } from './support/browser.js';
import { browser, company as t, connectedWorld, web, randomPhone } from './support/world.js';

// Issue 14 §9: the ticket transfer dialog lists the chosen queue's users at once (the company's
// without a queue) and what is typed narrows the list; it was empty until 3 letters were typed.

connectedWorld();
const phoneNumber = () => randomPhone();

const userOptions = (page: Page) =>
  page.getByRole('dialog', { name: 'Transferir atendimento' }).getByRole('combobox', { name: 'Usuário' }).locator('option').allTextContents();

describe('ticket transfer dialog', () => {
  it('shows the queue’s users without typing; another queue shows its own; typing narrows', { timeout: 180_000 }, async () => {
    const sales = (await t.admin.post('/queue', { name: uniq('Vendas '), color: '#1e88e5', greetingMessage: 'Bem-vindo' })).body.id as number;
    const billing = (await t.admin.post('/queue', { name: uniq('Cobrança '), color: '#e53935', greetingMessage: 'Olá' })).body.id as number;
    // Agents (not admins): the list must not depend on the administration's user list.
    const agent = await member(t.admin, { name: 'Ana Ribeiro', queueIds: [sales], allTicket: 'enabled' });
    const colleague = await member(t.admin, { name: 'Bianca Prado', queueIds: [sales] });
    await member(t.admin, { name: 'Caio Nunes', queueIds: [billing] });

    // The dialog's source: names and online state of one queue's users, narrowed and bounded.
    const names = async (query: string) => ((await agent.api.get(`/users/list?${query}`)).body as { name: string }[]).map((u) => u.name);
    expect(await names(`queueId=${sales}`)).toEqual(['Ana Ribeiro', 'Bianca Prado']);
    expect(await names(`queueId=${sales}&searchParam=bi`)).toEqual(['Bianca Prado']);
    expect(await names(`queueId=${billing}`)).toEqual(['Caio Nunes']);
    expect(await names('limit=2')).toHaveLength(2);
    expect((await agent.api.get('/users/list?limit=0')).status).toBe(400);
    // The administration's list stays the admins' (decision 12).
    expect((await agent.api.get('/users')).status).toBe(403);

    const customer = phoneNumber();
    expect((await sandbox('POST', `/connections/${t.connectionId}/messages`, { from: customer, name: 'Seu Jorge', body: 'Quero falar com vendas' })).status).toBeLessThan(300);
    const ticket = await ticketOf(t, customer);
    expect((await t.admin.put(`/tickets/${ticket.id}`, { queueId: sales, userId: agent.id, status: 'open' })).status).toBe(200);

    const ctx = await newContext(browser);
    const page = await ctx.newPage();
    await signInUi(page, web(), agent.email, PASSWORD);
    await page.goto(`${web()}/tickets/${ticket.id}`);
    await expect.poll(() => page.getByTestId('ticket-view').getAttribute('data-status'), { timeout: 20_000 }).toBe('open');

    await page.getByRole('button', { name: 'Transferir' }).click();
    const dialog = page.getByRole('dialog', { name: 'Transferir atendimento' });
    await dialog.waitFor();
    // The queues load with the dialog: the select shows the ticket's queue once its option is there.
    await expect.poll(() => dialog.getByRole('combobox', { name: 'Fila' }).inputValue()).toBe(String(sales));
    // Nothing typed: the ticket's queue's users are there.
    const none = 'Sem usuário (o atendimento volta para aguardando)';
    await expect.poll(() => userOptions(page), { timeout: 15_000 }).toEqual([none, 'Ana Ribeiro', 'Bianca Prado']);
    expect(await dialog.getByRole('textbox', { name: 'Buscar usuário' }).inputValue()).toBe('');
    await screenshot(page, 'transfer-users-at-once-light-wide');

    await dialog.getByRole('combobox', { name: 'Fila' }).selectOption(String(billing));
    await expect.poll(() => userOptions(page), { timeout: 15_000 }).toEqual([none, 'Caio Nunes']);

    await dialog.getByRole('combobox', { name: 'Fila' }).selectOption(String(sales));
    await dialog.getByRole('textbox', { name: 'Buscar usuário' }).fill('bi');
    await expect.poll(() => userOptions(page), { timeout: 15_000 }).toEqual([none, 'Bianca Prado']);
    await dialog.getByRole('combobox', { name: 'Usuário' }).selectOption(String(colleague.id));
    await dialog.getByRole('button', { name: 'Transferir' }).click();
    await page.waitForURL(/\/tickets$/, { timeout: 15_000 });
    expect((await t.admin.get(`/tickets/${ticket.id}`)).body).toMatchObject({ status: 'open', queueId: sales, userId: colleague.id });
    await ctx.close();
  });
});
