import { beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { closeWatched, NARROW, realtimeOpen, screenshot, watchedPage } from './support/browser.js';
import { browser, useBrowser, web } from './support/world.js';
import { createUser, tenant } from './support/stack.js';

// Issue 21 §2 (client side): two users chatting both ways in two browser contexts, with the menu's
// unread dot, the top bar's chat popover, the dialog's alerts, files by the picker, text never markup.

// A 1×1 PNG.
const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==', 'base64');

let ana: Awaited<ReturnType<typeof createUser>>;
let bia: Awaited<ReturnType<typeof createUser>>;

useBrowser();
beforeAll(async () => {
  const t = await tenant();
  ana = await createUser(t.admin.token, { profile: 'Nível 1', name: 'Ana Lima' });
  bia = await createUser(t.admin.token, { profile: 'Nível 1', name: 'Bia Souza' });
}, 120_000);

const menuLink = (page: Page) => page.getByRole('navigation', { name: 'menu' }).getByRole('link', { name: 'Chat Interno' });
const dot = (page: Page) => page.getByTestId('chats-unread-dot');

describe('internal chat page', () => {
  it('two users chat both ways live, with the unread dot and the popover; titles and messages are text', { timeout: 300_000 }, async () => {
    const anaPage = await watchedPage(browser, web(), ana);
    const biaPage = await watchedPage(browser, web(), bia);
    await Promise.all([realtimeOpen(anaPage), realtimeOpen(biaPage)]);
    await expect(dot(biaPage).count()).resolves.toBe(0);

    // Ana opens the chat page from the menu and starts a chat with Bia; the spec's alerts first.
    await menuLink(anaPage).click();
    await anaPage.waitForURL((u) => u.pathname === '/chats');
    await anaPage.getByTestId('chat-new').click();
    const dialog = anaPage.getByTestId('chat-dialog');
    await dialog.getByTestId('chat-dialog-save').click();
    await anaPage.getByText('Por favor, preencha o título da conversa.').waitFor();
    const title = 'Plantão <b>sábado</b>';
    await dialog.getByLabel('Título').fill(title);
    await dialog.getByTestId('chat-dialog-save').click();
    await anaPage.getByText('Por favor, selecione pelo menos um usuário.').waitFor();
    // Amplify's checkbox hides its input behind the label: the label is what a person clicks.
    await dialog.getByText('Bia Souza', { exact: true }).click();
    await dialog.getByTestId('chat-dialog-save').click();
    await anaPage.getByTestId('chat-title').filter({ hasText: title }).waitFor();
    await anaPage.waitForURL((u) => /^\/chats\/[0-9a-f-]{36}$/.test(u.pathname));

    // Enter sends; Shift+Enter breaks the line.
    const anaInput = anaPage.getByTestId('chat-input');
    await anaInput.fill('Oi Bia, <i>tudo bem</i>?');
    await anaInput.press('Shift+Enter');
    await anaInput.pressSequentially('Segunda linha');
    await expect(anaInput.getAttribute('rows')).resolves.toBe('2');
    await anaInput.press('Enter');
    const firstMessage = anaPage.getByTestId('chat-message-1');
    await firstMessage.waitFor();
    expect(await firstMessage.locator('.chat-text').innerText()).toBe('Oi Bia, <i>tudo bem</i>?\nSegunda linha');
    await expect(anaInput.inputValue()).resolves.toBe('');

    // Bia, elsewhere in the console, sees the menu's dot and the popover's count live.
    await dot(biaPage).waitFor();
    await biaPage.getByTestId('chat-popover-count').filter({ hasText: '1' }).waitFor();
    await biaPage.getByTestId('chat-popover-button').click();
    const popover = biaPage.getByTestId('chat-popover');
    await popover.getByText(title, { exact: true }).waitFor();
    // The title is shown as typed: no <b> element was made from it.
    expect(await popover.locator('b').count()).toBe(0);
    await screenshot(biaPage, 'chats-popover');
    await popover.getByText(title, { exact: true }).click();
    await biaPage.waitForURL((u) => u.pathname.startsWith('/chats/'));
    await biaPage.getByTestId('chat-message-1').waitFor();
    expect(await biaPage.getByTestId('chat-messages').locator('i, b').count()).toBe(0);
    // Opening the chat reads it: the dot and the count go.
    await dot(biaPage).waitFor({ state: 'detached' });
    await biaPage.getByTestId('chat-popover-count').waitFor({ state: 'detached' });
    // Bia is not the owner: no edit or delete for her; Ana has both.
    const chatId = Number((await biaPage.getByTestId(/^chat-item-\d+$/).first().getAttribute('data-testid'))!.replace('chat-item-', ''));
    expect(await biaPage.getByTestId(`chat-edit-${chatId}`).count()).toBe(0);
    await anaPage.getByTestId(`chat-edit-${chatId}`).waitFor();
    await anaPage.getByTestId(`chat-delete-${chatId}`).waitFor();

    // Bia answers with text and a picture from the picker; Ana, reading the chat, sees both live.
    await biaPage.getByTestId('chat-input').fill('Tudo ótimo, Ana!');
    await biaPage.getByTestId('chat-input').press('Enter');
    await anaPage.getByTestId('chat-message-2').filter({ hasText: 'Tudo ótimo, Ana!' }).waitFor();
    await biaPage.getByTestId('chat-file-input').setInputFiles({ name: 'escala.png', mimeType: 'image/png', buffer: PNG });
    await biaPage.getByTestId('chat-pending-files').getByText('escala.png').waitFor();
    await biaPage.getByTestId('chat-send').click();
    await anaPage.getByTestId('chat-message-3').locator('img.chat-media').waitFor();
    // Ana had the chat open: what arrived was read at once, no dot for her.
    await anaPage.waitForTimeout(1000);
    expect(await dot(anaPage).count()).toBe(0);
    await screenshot(anaPage, 'chats-wide');
    await screenshot(biaPage, 'chats-wide-bia');

    // Ana leaves the chat page: Bia's next message lights Ana's dot; opening the chat clears it.
    await anaPage.getByRole('navigation', { name: 'menu' }).getByRole('link', { name: 'Tags' }).click();
    await biaPage.getByTestId('chat-input').fill('Mais uma coisa');
    await biaPage.getByTestId('chat-input').press('Enter');
    await dot(anaPage).waitFor();
    await menuLink(anaPage).click();
    await anaPage.getByTestId(`chat-unread-${chatId}`).filter({ hasText: '1' }).waitFor();
    await anaPage.getByTestId(`chat-item-${chatId}`).click();
    await anaPage.getByTestId('chat-message-4').waitFor();
    await dot(anaPage).waitFor({ state: 'detached' });

    await closeWatched(anaPage);
    await closeWatched(biaPage);
  });

  it('on narrow screens the list and the conversation are two tabs', { timeout: 180_000 }, async () => {
    const page = await watchedPage(browser, web(), bia, { viewport: NARROW });
    await page.goto(`${web()}/chats`);
    const tabs = page.getByRole('tablist');
    await tabs.getByRole('tab', { name: 'Chats' }).waitFor();
    await tabs.getByRole('tab', { name: 'Mensagens' }).waitFor();
    const item = page.getByTestId(/^chat-item-\d+$/).first();
    await item.click();
    await page.getByTestId('chat-conversation').waitFor();
    expect(await page.getByTestId(/^chat-item-\d+$/).count()).toBe(0);
    await page.getByTestId('chat-message-1').waitFor();
    await screenshot(page, 'chats-narrow-messages');
    await tabs.getByRole('tab', { name: 'Chats' }).click();
    await item.waitFor();
    await screenshot(page, 'chats-narrow-list');
    await closeWatched(page);
  });
});
