import { describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { sandbox, until } from '../../functions/test/integration/pipeline-helpers.js';
import { endpoints, member, PASSWORD, uniq } from '../../functions/test/integration/client.js';
import { newContext, screenshot, signInUi } from './support/browser.js';
import { browserAndCompany, type ConnectedCompany } from './support/world.js';

// Issue 4 §1 (client side): paging, search, the new-ticket dialog and the ?number= flow.

let browser: Browser;
let t: ConnectedCompany;
const web = () => endpoints().webUrl;
const rand = (n: number) => String(Math.floor(Math.random() * 10 ** n)).padStart(n, '0');
const list = (page: Page, name: string) => page.getByTestId(`tickets-list-${name}`);

browserAndCompany((b, c) => {
  browser = b;
  t = c;
});

async function write(from: string, name: string, body: string) {
  const res = await sandbox('POST', `/connections/${t.connectionId}/messages`, { from, name, body });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
}

/** Pending tickets the admin API lists (all pages). */
async function pendingCount(): Promise<number> {
  let n = 0;
  let cursor: string | undefined;
  for (;;) {
    const r = await t.admin.get(`/tickets?status=pending${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
    n += r.body.tickets.length;
    if (!r.body.hasMore) return n;
    cursor = r.body.nextCursor;
  }
}

describe('tickets list panel: paging, search, new ticket, query flow', () => {
  const zacarias = `55119${rand(8)}`;

  it('infinite scroll loads the next page near the bottom; the search tab filters by text and status', { timeout: 300_000 }, async () => {
    const TOTAL = 52;
    for (let i = 0; i < TOTAL - 1; i++) await write(`55118${rand(8)}`, `Cliente ${String(i).padStart(2, '0')}`, `mensagem ${i}`);
    await write(zacarias, 'Zacarias Prado', 'Quero saber do meu pedido');
    await until(async () => (await pendingCount()) >= TOTAL, `${TOTAL} pending tickets`, 120_000);

    const ana = await member(t.admin, { name: 'Ana Lista', profile: 'admin', allTicket: 'enabled' });
    const ctx = await newContext(browser);
    const page = await ctx.newPage();
    await signInUi(page, web(), ana.email, PASSWORD);
    await page.goto(`${web()}/tickets`);
    await page.getByTestId('subtab-pending').click();
    const pending = list(page, 'pending');
    await expect.poll(() => pending.getAttribute('data-loaded'), { timeout: 20_000 }).toBe('40');
    expect(await pending.getAttribute('data-has-more')).toBe('true');
    // Virtualised: far fewer rows in the page than loaded.
    expect(await pending.locator('.ticket-row').count()).toBeLessThan(40);
    await expect.poll(() => page.getByTestId('count-pending').textContent(), { timeout: 15_000 }).toBe(String(TOTAL));
    // The bell and the title count every unread ticket, not only the first page of 40.
    await expect.poll(() => page.getByTestId('notifications-count').textContent(), { timeout: 15_000 }).toBe(String(TOTAL));
    await expect.poll(() => page.title(), { timeout: 5_000 }).toBe(`Balcão (${TOTAL})`);
    await screenshot(page, 'tickets-pending-many-light-wide');
    await pending.evaluate((el) => el.scrollTo({ top: el.scrollHeight }));
    await expect.poll(() => pending.getAttribute('data-loaded'), { timeout: 20_000 }).toBe(String(TOTAL));
    expect(await pending.getAttribute('data-has-more')).toBe('false');
    // The oldest ticket is at the bottom.
    await pending.evaluate((el) => el.scrollTo({ top: el.scrollHeight }));
    await pending.locator('.ticket-row', { hasText: 'Cliente 00' }).waitFor();

    // Search tab: the text filters (debounced), the status checkboxes (pending and open on by default).
    await page.getByRole('tab', { name: 'Busca' }).click();
    expect(await page.getByRole('checkbox', { name: 'Pendente' }).isChecked()).toBe(true);
    expect(await page.getByRole('checkbox', { name: 'Em Atendimento' }).isChecked()).toBe(true);
    expect(await page.getByRole('checkbox', { name: 'Finalizado' }).isChecked()).toBe(false);
    await page.getByTestId('users-select').waitFor();
    const search = list(page, 'search');
    await page.getByPlaceholder('Buscar atendimento e mensagens').fill('Zacarias');
    await expect.poll(() => search.getAttribute('data-loaded'), { timeout: 20_000 }).toBe('1');
    await search.locator('.ticket-row', { hasText: 'Zacarias Prado' }).waitFor();
    await screenshot(page, 'tickets-search-light-wide');
    // Amplify draws its own box over the input: a person clicks the label.
    const pendingBox = page.getByRole('checkbox', { name: 'Pendente' });
    await page.locator('label', { hasText: 'Pendente' }).click();
    expect(await pendingBox.isChecked()).toBe(false);
    await search.getByTestId('tickets-empty').waitFor({ timeout: 15_000 });
    await page.locator('label', { hasText: 'Pendente' }).click();
    expect(await pendingBox.isChecked()).toBe(true);
    await search.locator('.ticket-row', { hasText: 'Zacarias Prado' }).waitFor({ timeout: 15_000 });
    await ctx.close();
  });

  it('new-ticket dialog: contact search from 3 characters, queue required, another agent\'s ticket keeps the dialog open; new contact by number opens its ticket', { timeout: 180_000 }, async () => {
    const qA = (await t.admin.post('/queue', { name: uniq('Vendas '), color: '#1e88e5', greetingMessage: 'Olá' })).body.id as number;
    const qB = (await t.admin.post('/queue', { name: uniq('Suporte '), color: '#8e24aa', greetingMessage: 'Olá' })).body.id as number;
    const holder = await member(t.admin, { name: 'Carla Dona', profile: 'Nível 3', queueIds: [qA] });
    const bruno = await member(t.admin, { name: 'Bruno Novo', profile: 'Nível 1', queueIds: [qA, qB] });
    // Carla takes Zacarias' waiting ticket.
    const zTicket = (await t.admin.get(`/tickets?searchParam=Zacarias&statusFilter=["pending","open"]&isUseStatusFilter=true`)).body.tickets[0];
    expect(zTicket?.contact?.name).toBe('Zacarias Prado');
    expect((await holder.api.put(`/tickets/${zTicket.id}`, { status: 'open', userId: holder.id })).status).toBe(200);

    const ctx = await newContext(browser);
    const page = await ctx.newPage();
    await signInUi(page, web(), bruno.email, PASSWORD);
    await page.goto(`${web()}/tickets`);
    await page.getByRole('button', { name: 'Novo' }).click();
    const dialog = page.getByRole('dialog', { name: 'Criar Ticket' });
    await dialog.getByRole('button', { name: 'Salvar' }).click();
    await dialog.getByText('Obrigatório').waitFor();
    await dialog.locator('.amplify-field__error-message', { hasText: 'Selecione uma fila' }).waitFor();
    await screenshot(page, 'new-ticket-errors-light-wide');

    const contact = dialog.getByRole('textbox', { name: 'Contato' });
    await contact.fill('Za');
    await dialog.getByText('Digite ao menos 3 caracteres').waitFor();
    await contact.fill('Zac');
    await dialog.getByRole('button', { name: /Zacarias Prado/ }).click();
    await dialog.getByLabel('Fila').selectOption(String(qA));
    await dialog.getByRole('button', { name: 'Salvar' }).click();
    await dialog.getByTestId('new-ticket-conflict').getByText('Atendimento já atribuido ao usuário Carla Dona').waitFor({ timeout: 15_000 });
    expect(await dialog.isVisible()).toBe(true);
    await screenshot(page, 'new-ticket-conflict-light-wide');

    // A new contact typed as digits is created with that number; the ticket opens in "assigned to me".
    const number = `55219${rand(8)}`;
    await dialog.getByRole('button', { name: 'Trocar' }).click();
    await dialog.getByRole('textbox', { name: 'Contato' }).fill(number);
    await dialog.getByRole('button', { name: `Adicionar contato "${number}"` }).click();
    await expect.poll(() => dialog.getByRole('textbox', { name: 'Contato' }).inputValue(), { timeout: 15_000 }).toContain(number.slice(-4));
    await dialog.getByRole('button', { name: 'Salvar' }).click();
    await page.waitForURL(/\/tickets\/[0-9a-f-]{36}$/, { timeout: 15_000 });
    await dialog.waitFor({ state: 'detached' });
    const row = list(page, 'me').locator('.ticket-row', { hasText: number });
    await row.waitFor({ timeout: 15_000 });
    // The row may arrive by its live event before the dialog has navigated to the new ticket.
    await expect.poll(() => row.getAttribute('aria-current'), { timeout: 15_000 }).toBe('true');
    await ctx.close();
  });

  it('?number= finds the contact (also without the ninth digit) or creates it, opens its ticket; a bad number shows the spec\'s message', { timeout: 180_000 }, async () => {
    const ana = await member(t.admin, { name: 'Ana Query', profile: 'admin', allTicket: 'enabled' });
    // A contact known by its 12-digit number (no ninth digit).
    const eight = rand(8);
    await write(`5531${eight}`, 'Sem Nono', 'Oi');
    const existing = await until(async () => {
      const r = await t.admin.get(`/tickets?searchParam=Nono`);
      return r.body.tickets?.[0] as { uuid: string; contact: { number: string } } | undefined;
    }, 'the 12-digit contact ticket');

    const ctx = await newContext(browser);
    const page = await ctx.newPage();
    await signInUi(page, web(), ana.email, PASSWORD);
    // Typed without 55 and with the ninth digit: the variant without it finds the contact.
    await page.goto(`${web()}/tickets?number=319${eight}`);
    await page.waitForURL(`${web()}/tickets/${existing.uuid}`, { timeout: 20_000 });

    // An unknown number creates the contact (with the name and email given) and opens a ticket.
    const fresh = `4199${rand(7)}`;
    await page.goto(`${web()}/tickets?number=${fresh}&name=Fulano%20Query&email=fulano@exemplo.test`);
    await page.waitForURL(/\/tickets\/[0-9a-f-]{36}$/, { timeout: 20_000 });
    const uuid = page.url().split('/').pop()!;
    const made = await t.admin.get(`/tickets/u/${uuid}`);
    expect(made.status).toBe(200);
    expect(made.body.contact).toMatchObject({ name: 'Fulano Query', number: `55${fresh}` });
    expect(made.body.status).toBe('open');

    await page.goto(`${web()}/tickets?number=abc`);
    await page.getByText('Não conseguiu encontrar/criar o contato.').waitFor({ timeout: 15_000 });
    await page.waitForURL(`${web()}/tickets`);
    await ctx.close();
  });
});
