import { describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { applyStackEnv, PASSWORD, uniq } from '../../functions/test/integration/client.js';
import { sandbox, ticketOf } from '../../functions/test/integration/pipeline-helpers.js';
import { newContext, screenshot, signInUi, WIDE } from './support/browser.js';
import { browser, company as t, connectedWorld, web } from './support/world.js';

/*
 * Issue 14 §8-§9: what a new user meets in a click-through of every page, as a company admin who is
 * also the platform's super user (so every menu item and settings tab shows): no request answers
 * 4xx or 5xx, and the console logs no error. Every dialog a page opens is opened once too (the
 * connection dialog read the routes of features still to come, which answered 404).
 */

connectedWorld();

/** Records every failed answer and console error of the page (and the favicon of every load). */
function watch(page: Page) {
  const problems: string[] = [];
  page.on('response', (r) => {
    if (r.status() >= 400) problems.push(`${r.status()} ${r.request().method()} ${new URL(r.url()).pathname}`);
  });
  page.on('requestfailed', (r) => {
    // A request the page itself dropped (navigation, an aborted poll) is not an answer.
    if (r.failure()?.errorText !== 'net::ERR_ABORTED') problems.push(`failed ${r.method()} ${r.url()}: ${r.failure()?.errorText}`);
  });
  page.on('console', (m) => {
    if (m.type() === 'error') problems.push(`console: ${m.text()}`);
  });
  page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
  return problems;
}

async function settle(page: Page) {
  await page.waitForLoadState('networkidle');
}

/** Opens the dialog of the button named `opener`, waits for what it reads, then closes it. */
async function openAndClose(page: Page, opener: string) {
  await page.getByRole('button', { name: opener, exact: true }).first().click();
  const dialog = page.getByRole('dialog').last();
  await dialog.waitFor();
  await settle(page);
  await page.keyboard.press('Escape');
  await dialog.waitFor({ state: 'detached' });
}

/** The dialogs each page opens from its header. */
const OPENERS: Record<string, string[]> = {
  '/tickets': ['Novo'],
  '/quick-messages': ['Adicionar resposta'],
  '/contacts': ['Adicionar contato', 'Importar CSV'],
  '/schedules': ['Novo agendamento'],
  '/tags': ['Adicionar tag'],
  '/connections': ['Adicionar conexão'],
  '/queues': ['Adicionar fila'],
  '/users': ['Adicionar usuário'],
  '/prompts': ['Adicionar prompt'],
  '/queue-integration': ['Adicionar integração'],
  '/contact-lists': ['Nova lista'],
};

describe('click-through of every page', () => {
  it('answers no 4xx or 5xx and logs no console error on any page or dialog', { timeout: 300_000 }, async () => {
    applyStackEnv();
    const { createUser } = await import('../../functions/src/services/users.js');
    const email = `${uniq('tour')}@empresa.test`;
    await createUser(t.companyId, { name: 'Tour Admin', email, password: PASSWORD, profile: 'admin' }, [], { isSuper: true, skipLimit: true });
    // A conversation to open, as a customer starts one.
    const customer = `55119${String(Date.now() % 1e8).padStart(8, '0')}`;
    await sandbox('POST', `/connections/${t.connectionId}/messages`, { from: customer, name: 'Cliente Tour', body: 'Olá, quero saber do meu pedido' });
    const ticket = await ticketOf(t, customer);

    const ctx = await newContext(browser, { viewport: WIDE });
    const page = await ctx.newPage();
    const problems = watch(page);
    // No internet here: the help gallery's YouTube pictures get a stand-in (a 1×1 PNG).
    await page.route('https://i.ytimg.com/**', (route) =>
      route.fulfill({ status: 200, contentType: 'image/png', body: Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAIAAACQd1PeAAAADElEQVR4nGMwd/cHAAGGAM6Uh06xAAAAAElFTkSuQmCC', 'base64') }),
    );
    await signInUi(page, web(), email, PASSWORD);
    await settle(page);

    const menu = page.getByRole('navigation', { name: 'menu' });
    const links = await menu.getByRole('link').evaluateAll((els) => els.map((e) => ({ name: e.textContent?.trim() ?? '', href: e.getAttribute('href') ?? '' })));
    expect(links.length).toBeGreaterThanOrEqual(10);
    const visited: string[] = [];
    for (const link of links) {
      // By address: two entries may share a name (Configurações of the campaigns and of the company).
      await menu.locator(`a[href="${link.href}"]`).first().click();
      await page.waitForURL((u) => u.pathname === link.href);
      await settle(page);
      visited.push(link.href);
      for (const opener of OPENERS[link.href] ?? []) await openAndClose(page, opener);
      if (link.href === '/connections') {
        // The edit dialog of an existing connection reads its lists (prompts and integrations, issue 19).
        await page.getByRole('button', { name: /^Editar / }).first().click();
        await page.getByRole('dialog').waitFor();
        await settle(page);
        await screenshot(page, 'clickthrough-connection-dialog');
        await page.keyboard.press('Escape');
        await page.getByRole('dialog').waitFor({ state: 'detached' });
      }
      if (link.href === '/settings') {
        for (const [tab, opener] of [['Empresas', 'Nova empresa'], ['Planos', 'Novo plano'], ['Ajuda', 'Novo vídeo']]) {
          await page.getByRole('tab', { name: tab }).click();
          await settle(page);
          await openAndClose(page, opener);
        }
      }
    }
    expect(visited).toEqual(expect.arrayContaining(['/', '/tickets', '/quick-messages', '/contacts', '/schedules', '/tags', '/connections', '/queues', '/users', '/settings']));

    // A conversation, with its drawers and dialogs.
    const uuid = (await t.admin.get(`/tickets/${ticket.id}`)).body.uuid as string;
    await page.goto(`${web()}/tickets/${uuid}`);
    await page.getByTestId('message-list').getByText('quero saber do meu pedido').waitFor();
    await settle(page);
    await openAndClose(page, 'Agendar mensagem');
    await page.getByRole('button', { name: 'Aceitar', exact: true }).click();
    await page.getByRole('button', { name: 'Transferir', exact: true }).waitFor();
    await settle(page);
    await openAndClose(page, 'Transferir');
    await page.getByTestId('ticket-contact').click();
    await page.getByTestId('contact-drawer').waitFor();
    await settle(page);
    for (const drawer of ['Respostas rápidas', 'Buscar mensagens']) {
      await page.getByRole('button', { name: drawer, exact: true }).first().click();
      await settle(page);
    }

    // The top bar: notifications and the user's own profile.
    await page.getByTestId('notifications-bell').click();
    await page.getByTestId('notifications-popover').waitFor();
    await page.getByTestId('notifications-bell').click();
    await page.getByRole('button', { name: 'Menu do usuário' }).click();
    await page.getByRole('menuitem', { name: 'Perfil' }).click();
    await page.getByRole('dialog').waitFor();
    await settle(page);
    await page.keyboard.press('Escape');

    // Every page load asked for the icon (it used to answer 404 each time).
    const icon = await page.evaluate(() => (document.querySelector('link[rel~="icon"]') as HTMLLinkElement | null)?.href ?? null);
    expect(icon).toBeTruthy();
    expect(problems).toEqual([]);
    await ctx.close();
  });
});
