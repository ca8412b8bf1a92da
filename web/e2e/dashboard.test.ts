import { describe, expect, it } from 'vitest';
import { member, PASSWORD } from '../../functions/test/integration/client.js';
import { sandbox, ticketOf } from '../../functions/test/integration/pipeline-helpers.js';
import { NARROW, WIDE, closeWatched, screenshot, watchedPage } from './support/browser.js';
import { browser, company as t, connectedWorld, randomPhone, web } from './support/world.js';

// Issue 22 §1 (console): the admin's dashboard at `/` with the numbers of what the tickets did,
// live; the filter's forms and 'Parametrize o filtro'; the charts; the welcome page for agents.

connectedWorld();

const card = (page: import('playwright-core').Page, key: string) => page.getByTestId(`dash-card-${key}`).locator('.dash-card-value');

describe('dashboard page', () => {
  it("shows an admin the period's numbers, the attendants and the charts, and follows the tickets live", { timeout: 240_000 }, async () => {
    const gil = await member(t.admin, { name: 'Gil Painel', profile: 'admin' });
    const numbers = [randomPhone('41'), randomPhone('41')];
    for (const [i, from] of numbers.entries()) {
      expect((await sandbox('POST', `/connections/${t.connectionId}/messages`, { from, name: `Cliente Painel ${i + 1}`, body: 'Olá, quero um orçamento' })).status).toBeLessThan(300);
    }
    const [first, second] = [await ticketOf(t, numbers[0]), await ticketOf(t, numbers[1])];
    expect((await gil.api.put(`/tickets/${first.id}`, { status: 'open', userId: gil.id })).status).toBe(200);
    expect((await gil.api.put(`/tickets/${first.id}`, { status: 'closed' })).status).toBe(200);

    const page = await watchedPage(browser, web(), { email: gil.email, password: PASSWORD }, { viewport: WIDE });
    await page.getByTestId('dashboard').waitFor();
    await expect.poll(() => card(page, 'supportFinished').textContent()).toBe('1');
    expect(await card(page, 'supportPending').textContent()).toBe('1');
    expect(await card(page, 'supportHappening').textContent()).toBe('0');
    expect(await card(page, 'newContacts').textContent()).toBe('2');
    expect(await card(page, 'opened').textContent()).toBe('2');
    const row = page.getByTestId(`dash-attendant-${gil.id}`);
    await row.waitFor();
    expect(await row.locator('td').nth(2).textContent()).toBe('1');
    await page.getByTestId('dashboard-by-connection').getByText('1', { exact: true }).waitFor();
    // The charts load when scrolled to (chart.js is not part of the page's first load); both draw for today.
    expect(await page.getByTestId('dashboard-chart-users').count()).toBe(0);
    await page.getByTestId('dashboard-charts-slot').scrollIntoViewIfNeeded();
    await page.getByTestId('dashboard-chart-users').locator('canvas').waitFor();
    await page.getByTestId('dashboard-chart-days').locator('canvas').waitFor();
    await screenshot(page, 'dashboard-charts-light-wide');
    await page.getByRole('heading', { name: 'Dashboard', level: 3 }).scrollIntoViewIfNeeded();
    await screenshot(page, 'dashboard-light-wide');

    // Live: the second customer is accepted elsewhere; the cards follow without a reload.
    expect((await t.admin.put(`/tickets/${second.id}`, { status: 'open', userId: gil.id })).status).toBe(200);
    await expect.poll(() => card(page, 'supportHappening').textContent(), { timeout: 20_000 }).toBe('1');
    expect(await card(page, 'supportPending').textContent()).toBe('0');

    // The period form: none chosen is 'Parametrize o filtro'; the last 7 days counts the same.
    await page.getByLabel('Tipo de filtro').selectOption({ label: 'Filtro por período' });
    await page.getByRole('button', { name: 'Filtrar' }).first().click();
    await page.getByTestId('dashboard-no-filter').getByText('Parametrize o filtro').waitFor();
    await page.getByLabel('Período').selectOption({ label: 'Últimos 7 dias' });
    await page.getByRole('button', { name: 'Filtrar' }).first().click();
    await expect.poll(() => card(page, 'supportFinished').textContent()).toBe('1');
    // A date range before any ticket: zeros, no averages.
    await page.getByLabel('Tipo de filtro').selectOption({ label: 'Filtro por data' });
    await page.getByLabel('Data inicial').first().fill('2025-01-01');
    await page.getByLabel('Data final').first().fill('2025-01-31');
    await page.getByRole('button', { name: 'Filtrar' }).first().click();
    await expect.poll(() => card(page, 'supportFinished').textContent()).toBe('0');
    expect(await card(page, 'avgSupportTime').textContent()).toBe('—');
    await closeWatched(page);

    // Dark and narrow.
    const narrow = await watchedPage(browser, web(), { email: gil.email, password: PASSWORD }, { viewport: NARROW, colorScheme: 'dark' });
    await narrow.getByTestId('dashboard-cards').waitFor();
    await screenshot(narrow, 'dashboard-dark-narrow');
    await closeWatched(narrow);
  });

  it('an agent keeps the welcome page; the dashboard calls answer 403', async () => {
    const ana = await member(t.admin, { name: 'Ana Agente', profile: 'Nível 1' });
    // Before the console signs in (one session per user: it ends this one).
    expect((await ana.api.get('/dashboard?days=7')).status).toBe(403);
    const page = await watchedPage(browser, web(), { email: ana.email, password: PASSWORD });
    await page.getByText('Bem-vindo(a), Ana Agente!').waitFor();
    expect(await page.getByTestId('dashboard').count()).toBe(0);
    await closeWatched(page);
  });
});
