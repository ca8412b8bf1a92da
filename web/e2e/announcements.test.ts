import { beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { NARROW, WIDE, closeWatched, realtimeOpen, screenshot, watchedPage } from './support/browser.js';
import { createUser, ownSuperUser, PASSWORD, tenant, uniq } from './support/stack.js';
import { browser, useBrowser, web } from './support/world.js';
import { png } from './support/images.js';

// Issue 21 §3 (console side): the super user's announcements page (table, dialog with the image)
// and the top bar's popover of every user, kept live across companies; the page's gate.

useBrowser();

/** A real PNG, a 240×80 orange band (the API checks the bytes; the popover shows it). */
const PNG = png(240, 80, [239, 108, 0]);
const NO_PERMISSION = 'Esta empresa não possui permissão para acessar essa página! Estamos lhe redirecionando.';

let sup: Awaited<ReturnType<typeof ownSuperUser>>;
let agent: Awaited<ReturnType<typeof createUser>>;
let admin: { email: string; password: string };
/** This run's word: announcements are the platform's, other files may show their own meanwhile. */
const word = uniq('Aviso');
const lowTitle = `${word} manutenção programada`;
const highTitle = `${word} sistema instável`;

beforeAll(async () => {
  sup = await ownSuperUser();
  const t = await tenant();
  admin = { email: t.admin.email, password: PASSWORD };
  agent = await createUser(t.admin.token, { name: 'Agente Informativos', profile: 'Nível 1' });
  // Made before the super user signs in on the browser (that sign-in ends this API session).
  const low = await sup.api.post('/announcements', { title: lowTitle, text: 'Domingo das 22h às 23h.', priority: 3 });
  expect(low.status, JSON.stringify(low.body)).toBe(201);
}, 120_000);

const toastText = (page: Page, text: string) => page.locator('.toasts').getByText(text, { exact: true }).first();
const popoverItem = (page: Page, title: string) => page.getByTestId('announcements-popover').locator('li', { hasText: title });

describe('announcements', () => {
  it('the super user publishes one with an image and it appears live, first, in another company user’s popover; turned off, it leaves', { timeout: 180_000 }, async () => {
    const watcher = await watchedPage(browser, web(), { email: agent.email, password: agent.password });
    await realtimeOpen(watcher);
    // The agent sees the active announcement already published, but no menu item for the page.
    await watcher.getByTestId('announcements-button').click();
    await popoverItem(watcher, lowTitle).waitFor();
    expect(await watcher.locator('nav.drawer').getByRole('link', { name: 'Informativos' }).count()).toBe(0);

    const page = await watchedPage(browser, web(), { email: sup.email, password: sup.password });
    await page.locator('nav.drawer').getByRole('link', { name: 'Informativos' }).click();
    await page.waitForURL((u) => u.pathname === '/announcements');
    await page.getByPlaceholder('Pesquisar...').fill(word);
    await page.locator('tbody tr', { hasText: lowTitle }).waitFor();

    await page.getByRole('button', { name: 'Novo informativo' }).click();
    const dialog = page.getByTestId('announcement-dialog');
    // Title and text are required ('Obrigatório'); nothing is sent.
    await dialog.getByRole('button', { name: 'Salvar' }).click();
    expect(await dialog.getByText('Obrigatório').count()).toBe(2);
    // Active and low priority by default.
    expect(await dialog.getByLabel('Status').inputValue()).toBe('true');
    expect(await dialog.getByLabel('Prioridade').inputValue()).toBe('3');
    // A file that is not .png/.jpg/.jpeg is refused before anything is sent.
    await dialog.getByTestId('announcement-file-input').setInputFiles({ name: 'anim.gif', mimeType: 'image/gif', buffer: Buffer.from('GIF89a') });
    await dialog.getByText('Tipo de arquivo não permitido').waitFor();

    await dialog.getByLabel('Título').fill(highTitle);
    // Text stays text: markup is shown as typed, never run.
    await dialog.getByLabel('Texto').fill('Estamos corrigindo.\n<b>Não</b> reinicie o aparelho.');
    await dialog.getByLabel('Prioridade').selectOption('1');
    await dialog.getByTestId('announcement-file-input').setInputFiles({ name: 'aviso importante.png', mimeType: 'image/png', buffer: PNG });
    await dialog.getByTestId('announcement-file').getByText('aviso_importante.png').waitFor();
    await screenshot(page, 'announcements-dialog-light-wide');
    await dialog.getByRole('button', { name: 'Salvar' }).click();
    await toastText(page, 'Informativo salvo com sucesso.').waitFor();
    const row = page.locator('tbody tr', { hasText: highTitle });
    await row.getByText('Alta').waitFor();
    await row.getByText('aviso_importante.png').waitFor();
    await row.getByText('Ativo').waitFor();
    await screenshot(page, 'announcements-table-light-wide');

    // Live in the other company's popover, above the low-priority one, with its image and its text as text.
    const item = popoverItem(watcher, highTitle);
    await item.waitFor();
    const titles = await watcher.getByTestId('announcements-popover').locator('li strong').allTextContents();
    const mine = titles.filter((x) => x.startsWith(word));
    expect(mine).toEqual([highTitle, lowTitle]);
    await item.getByText('<b>Não</b> reinicie o aparelho.', { exact: false }).waitFor();
    expect(await item.locator('b').count()).toBe(0);
    const image = item.locator('img');
    await image.waitFor();
    await expect.poll(() => image.evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth > 0)).toBe(true);
    // The high priority is drawn red.
    expect(await item.getByTestId('announcement-priority').evaluate((el) => getComputedStyle(el).backgroundColor)).toBe('rgb(198, 40, 40)');
    await screenshot(watcher, 'announcements-popover-light-wide');
    // A click outside closes the popover (the theme toggle too): opened again after each.
    await watcher.getByTestId('theme-toggle').click();
    await watcher.getByTestId('announcements-button').click();
    await item.waitFor();
    await screenshot(watcher, 'announcements-popover-dark-wide');
    await watcher.getByTestId('theme-toggle').click();
    await watcher.getByTestId('announcements-button').click();
    await item.waitFor();

    // Turned off by the super user: it leaves the agent's popover at once, and stays on the super user's table.
    await row.getByRole('button', { name: `Editar ${highTitle}` }).click();
    await dialog.getByLabel('Status').selectOption('false');
    await dialog.getByRole('button', { name: 'Salvar' }).click();
    await toastText(page, 'Informativo salvo com sucesso.').waitFor();
    await row.getByText('Inativo').waitFor();
    await item.waitFor({ state: 'detached' });
    await popoverItem(watcher, lowTitle).waitFor();
    await watcher.setViewportSize(NARROW);
    await screenshot(watcher, 'announcements-popover-light-narrow');

    // On a phone the table keeps title, priority, status and actions.
    await page.setViewportSize(NARROW);
    await screenshot(page, 'announcements-table-light-narrow');
    await page.setViewportSize(WIDE);

    // Deleted: gone from the table, and the low one from the agent's popover too.
    await page.locator('tbody tr', { hasText: lowTitle }).getByRole('button', { name: `Excluir ${lowTitle}` }).click();
    await page.getByRole('button', { name: 'Confirmar' }).click();
    await toastText(page, 'Informativo excluído com sucesso.').waitFor();
    await popoverItem(watcher, lowTitle).waitFor({ state: 'detached' });

    await closeWatched(page);
    await closeWatched(watcher);
  });

  it('sends anyone but the super user home with the spec toast', { timeout: 120_000 }, async () => {
    const page = await watchedPage(browser, web(), admin);
    expect(await page.locator('nav.drawer').getByRole('link', { name: 'Informativos' }).count()).toBe(0);
    await page.goto(`${web()}/announcements`);
    await toastText(page, NO_PERMISSION).waitFor();
    await page.waitForURL((u) => u.pathname === '/');
    await closeWatched(page);
  });
});

