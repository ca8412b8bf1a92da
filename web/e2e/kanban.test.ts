import { describe, expect, it } from 'vitest';
import type { Locator, Page } from 'playwright-core';
import { member, PASSWORD, tenant } from '../../functions/test/integration/client.js';
import { customer, world } from '../../functions/test/integration/tickets-helpers.js';
import { closeWatched, realtimeOpen, screenshot, watchedPage, watchText } from './support/browser.js';
import { browser, useBrowser, web } from './support/world.js';

useBrowser();

/** A pointer drag as a person does it: press, move in steps past the board's 6 px threshold, release. */
async function drag(page: Page, card: Locator, lane: Locator) {
  const from = (await card.boundingBox())!;
  const to = (await lane.boundingBox())!;
  await page.mouse.move(from.x + from.width / 2, from.y + 20);
  await page.mouse.down();
  await page.mouse.move(from.x + from.width / 2 + 10, from.y + 25, { steps: 3 });
  await page.mouse.move(to.x + to.width / 2, to.y + 120, { steps: 12 });
  await page.mouse.up();
}

describe('kanban board', () => {
  it('two users: a card dragged by one moves for the other, keyboard moves too, the number opens the ticket', { timeout: 240_000 }, async () => {
    const w = await world();
    const mk = async (body: Record<string, unknown>) => (await w.admin.post('/tags', body)).body.id as number;
    const proposal = await mk({ name: 'Proposta', color: '#1e88e5', kanban: 1 });
    const closing = await mk({ name: 'Negociação', color: '#43a047', kanban: 1 });
    const vip = await mk({ name: 'Cliente VIP', color: '#8e24aa', type: 'contact', kanban: 1 });
    // More lanes than the window shows: those out of view load as they scroll in.
    const later: number[] = [];
    for (let i = 1; i <= 5; i++) later.push(await mk({ name: `Etapa ${i}`, kanban: 1 }));
    const caio = await customer(w.companyId, w.connectionId, { name: 'Caio Dias', text: 'Fechado!' });
    expect((await w.admin.put(`/ticket-tags/${caio.ticketId}/${later[4]}`)).status).toBe(200);
    const ana = await customer(w.companyId, w.connectionId, { name: 'Ana Souza', text: 'Quero um *orçamento*' });
    const bia = await customer(w.companyId, w.connectionId, { name: 'Bia Lima', text: 'Olá, tudo bem?' });
    expect((await w.admin.put(`/ticket-tags/${ana.ticketId}/${proposal}`)).status).toBe(200);
    const one = await member(w.admin, { name: 'Carla Admin', profile: 'admin' });
    const two = await member(w.admin, { name: 'Davi Admin', profile: 'admin' });

    const a = await watchedPage(browser, web(), { email: one.email, password: PASSWORD });
    const b = await watchedPage(browser, web(), { email: two.email, password: PASSWORD });
    for (const page of [a, b]) {
      await page.getByRole('navigation', { name: 'menu' }).getByRole('link', { name: 'Kanban', exact: true }).click();
      await page.waitForURL(/\/kanban$/);
      await realtimeOpen(page);
      await page.getByTestId(`kanban-lane-${proposal}`).getByTestId(`kanban-card-${ana.ticketId}`).waitFor();
    }
    // Lanes: 'Em aberto' first, then each kanban tag in its colour; a card shows name, number and last message.
    const laneA0 = a.getByTestId('kanban-lane-0');
    expect(await laneA0.locator('.kb-lane-name').textContent()).toBe('Em aberto');
    expect(await a.getByTestId(`kanban-lane-${proposal}`).locator('.kb-lane-name').textContent()).toBe('Proposta');
    const card = a.getByTestId(`kanban-card-${bia.ticketId}`);
    await laneA0.getByTestId(`kanban-card-${bia.ticketId}`).waitFor();
    expect(await card.textContent()).toContain('Bia Lima');
    expect(await card.textContent()).toContain(`Ticket nº ${bia.ticketId}`);
    expect(await card.textContent()).toContain(bia.number);
    expect(await a.getByTestId(`kanban-card-${ana.ticketId}`).textContent()).toContain('Quero um orçamento');
    await screenshot(a, 'kanban-board');
    const last = a.getByTestId(`kanban-lane-${later[4]}`);
    expect(await last.getAttribute('data-loaded')).toBe('no');
    await a.locator('.kb-lanes').evaluate((el) => el.scrollTo({ left: el.scrollWidth }));
    await last.getByTestId(`kanban-card-${caio.ticketId}`).waitFor();
    expect(await last.getAttribute('data-loaded')).toBe('1');
    await a.locator('.kb-lanes').evaluate((el) => el.scrollTo({ left: 0 }));

    // A drags Bia to Negociação: A's toast, and B sees the card move without reloading.
    const added = await watchText(a, 'Ticket Tag Adicionado com Sucesso!');
    await drag(a, card, a.getByTestId(`kanban-lane-${closing}`));
    await added();
    await a.getByTestId(`kanban-lane-${closing}`).getByTestId(`kanban-card-${bia.ticketId}`).waitFor();
    await b.getByTestId(`kanban-lane-${closing}`).getByTestId(`kanban-card-${bia.ticketId}`).waitFor();
    expect(await b.getByTestId('kanban-lane-0').getByTestId(`kanban-card-${bia.ticketId}`).count()).toBe(0);
    expect((await w.admin.get(`/tickets/${bia.ticketId}`)).body.tags.map((x: { id: number }) => x.id)).toEqual([closing]);

    // B moves Ana back to 'Em aberto' with the keyboard: Space, left arrow, Space.
    const anaOnB = b.getByTestId(`kanban-card-${ana.ticketId}`);
    const removed = await watchText(b, 'Ticket Tag Removido!');
    // The board's screen-reader announcements say where the card is (dnd-kit's live region).
    const announced = (text: string, timeout?: number) => b.locator('[id^="DndLiveRegion"]', { hasText: text }).waitFor({ state: 'attached', timeout });
    await anaOnB.focus();
    await b.keyboard.press('Space');
    await announced('Proposta.');
    // 'Em aberto' is the first lane, so pressing the left arrow again (if the first press came before
    // the board measured the card, on a loaded machine) cannot take the card any further.
    await expect
      .poll(async () => {
        await b.keyboard.press('ArrowLeft');
        return announced('Sobre a coluna Em aberto.', 3_000).then(() => true, () => false);
      }, { timeout: 45_000, interval: 0 })
      .toBe(true);
    await b.keyboard.press('Space');
    await removed();
    await a.getByTestId('kanban-lane-0').getByTestId(`kanban-card-${ana.ticketId}`).waitFor();
    expect((await w.admin.get(`/tickets/${ana.ticketId}`)).body.tags).toEqual([]);
    await screenshot(b, 'kanban-after-moves');

    // The board by contact tag: the VIP lane, and a drop there tags the contact.
    await a.getByLabel('Tipo de etiqueta').selectOption('contact');
    await a.getByTestId(`kanban-lane-${vip}`).waitFor();
    await drag(a, a.getByTestId(`kanban-card-${ana.ticketId}`), a.getByTestId(`kanban-lane-${vip}`));
    await a.getByTestId(`kanban-lane-${vip}`).getByTestId(`kanban-card-${ana.ticketId}`).waitFor();
    await expect.poll(async () => (await w.admin.get(`/contacts/${ana.contactId}`)).body.tags?.map((x: { id: number }) => x.id)).toEqual([vip]);

    // The ticket number opens the conversation.
    await b.getByTestId(`kanban-card-${bia.ticketId}`).getByRole('link', { name: `Ticket nº ${bia.ticketId}` }).click();
    await b.waitForURL(/\/tickets\/[0-9a-f-]{36}$/);
    await closeWatched(a);
    await closeWatched(b);
  });

  it('a company without the kanban has no menu entry; the page says so and goes home', { timeout: 120_000 }, async () => {
    const off = await tenant({ useKanban: false });
    const page = await watchedPage(browser, web(), { email: off.email, password: PASSWORD });
    expect(await page.getByRole('navigation', { name: 'menu' }).getByRole('link', { name: 'Kanban', exact: true }).count()).toBe(0);
    await page.goto(`${web()}/kanban`);
    await page.getByText('Esta empresa não possui permissão para acessar essa página! Estamos lhe redirecionando.').waitFor();
    await page.waitForURL((u) => u.pathname === '/');
    await closeWatched(page);
  });
});
