import { describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { RATING_REQUEST } from '@balcao/shared';
import { sandbox, ticketOf, until } from '../../functions/test/integration/pipeline-helpers.js';
import { member, PASSWORD, uniq } from '../../functions/test/integration/client.js';
import { emit, msg } from '../../functions/test/integration/ingest-helpers.js';
import { FAKE_MEDIA_ARGS, NARROW, newContext, screenshot, signInUi, WIDE } from './support/browser.js';
import { browser, company as t, connectedWorld, web, randomPhone } from './support/world.js';
import { png } from './support/images.js';

// Issue 4 §2-§4 (client side): the conversation pane against the real stack and the sandbox phone.

connectedWorld(FAKE_MEDIA_ARGS);
const phoneNumber = () => randomPhone();


const phone = async (customer: string) => (await sandbox<any[]>('GET', `/connections/${t.connectionId}/messages?peer=${customer}`)).body;
const bubble = (page: Page, text: string) => page.getByTestId('message').filter({ hasText: text });
const view = (page: Page) => page.getByTestId('ticket-view');

async function messageMenu(page: Page, text: string, item: string) {
  const b = bubble(page, text).last();
  await b.hover();
  await b.getByRole('button', { name: 'Opções da mensagem' }).click();
  await page.getByRole('menuitem', { name: item }).click();
}

describe('ticket conversation pane', () => {
  it('accept, reply with emoji, acks, edit, delete, reply mode, image and voice note, transfer, close with rating', { timeout: 300_000 }, async () => {
    expect((await t.admin.put('/settings/userRating', { value: 'enabled' })).status).toBe(200);
    const queue = await t.admin.post('/queue', { name: uniq('Vendas '), color: '#1e88e5', greetingMessage: 'Bem-vindo' });
    expect(queue.status).toBe(201);
    const agent = await member(t.admin, { name: 'Bruna Lima', profile: 'admin', allTicket: 'enabled', queueIds: [queue.body.id] });

    const customer = phoneNumber();
    const first = await sandbox<{ id: string }>('POST', `/connections/${t.connectionId}/messages`, { from: customer, name: 'Dona Clara', body: 'Olá, preciso de *ajuda* com <b>meu</b> pedido' });
    expect(first.status).toBeLessThan(300);
    const ticket = await ticketOf(t, customer);

    const ctx = await newContext(browser);
    await ctx.grantPermissions(['microphone'], { origin: web() });
    const page = await ctx.newPage();
    await signInUi(page, web(), agent.email, PASSWORD);
    await page.goto(`${web()}/tickets/${ticket.id}`);
    await expect.poll(() => view(page).getAttribute('data-status'), { timeout: 20_000 }).toBe('pending');

    // The customer's text is text: the markers are formatted, the tags are not markup.
    const inbound = bubble(page, 'preciso de');
    await inbound.waitFor();
    expect(await inbound.locator('strong').textContent()).toBe('ajuda');
    expect(await inbound.textContent()).toContain('<b>meu</b>');
    expect(await page.getByTestId('ticket-assignee').textContent()).toContain('Aguardando atendimento');
    // Opening it marked it read.
    await until(async () => (await t.admin.get(`/tickets/${ticket.id}`)).body.unreadMessages === 0, 'the ticket marked read');
    // The composer waits for the ticket to be accepted.
    expect(await page.getByRole('textbox', { name: 'Digite uma mensagem' }).isDisabled()).toBe(true);
    await screenshot(page, 'conversation-pending-light-wide');

    await page.getByRole('button', { name: 'Aceitar' }).click();
    await expect.poll(() => view(page).getAttribute('data-status'), { timeout: 15_000 }).toBe('open');
    await expect.poll(() => page.getByTestId('ticket-assignee').textContent()).toContain('Bruna Lima');

    // Text with an emoji from the picker, signed with the agent's name (sign option on by default).
    const box = page.getByRole('textbox', { name: 'Digite uma mensagem' });
    await box.fill('Bom dia! Já verifico ');
    await page.getByRole('button', { name: 'Emojis' }).click();
    await page.getByTestId('emoji-picker').getByRole('button', { name: '😀' }).click();
    expect(await box.inputValue()).toBe('Bom dia! Já verifico 😀');
    // Shift+Enter is a new line, Enter sends.
    await box.press('Shift+Enter');
    await box.pressSequentially('Um momento');
    await box.press('Enter');
    const sentText = '*Bruna Lima:*\nBom dia! Já verifico 😀\nUm momento';
    const onPhone = await until(async () => (await phone(customer)).find((m) => m.fromMe && m.body === sentText), 'the reply on the phone');
    const reply = bubble(page, 'Já verifico');
    await reply.waitFor();
    expect(await reply.locator('strong').first().textContent()).toBe('Bruna Lima:');
    expect(await box.inputValue()).toBe('');
    // Acks rise: sent by the server, then read on the phone (coloured ticks).
    await expect.poll(async () => Number(await reply.locator('.ack').getAttribute('data-ack')), { timeout: 20_000 }).toBeGreaterThanOrEqual(2);
    await sandbox('POST', `/connections/${t.connectionId}/receipts`, { peer: customer, ids: [onPhone.id], status: 'read' });
    await reply.locator('.ack-read').waitFor({ timeout: 20_000 });
    await screenshot(page, 'conversation-open-light-wide');

    // Message search (server-side, accents folded, from 2 characters).
    await page.getByRole('button', { name: 'Buscar mensagens' }).click();
    const search = page.getByTestId('search-drawer');
    await search.getByRole('textbox').fill('verifico');
    await search.locator('.qr-item', { hasText: 'Já verifico' }).waitFor({ timeout: 10_000 });
    await search.getByRole('textbox').fill('nada-disso');
    await search.getByText('Nenhuma mensagem encontrada.').waitFor({ timeout: 10_000 });
    await search.getByRole('button', { name: /fechar/i }).first().click();

    // The schedule action opens the schedule dialog for this contact.
    await page.getByRole('button', { name: 'Agendar mensagem' }).click();
    const scheduleDialog = page.getByRole('dialog', { name: 'Novo agendamento' });
    await scheduleDialog.waitFor();
    expect(await scheduleDialog.getByLabel('Contato').inputValue()).toContain('Dona Clara');
    await scheduleDialog.getByRole('button', { name: 'Cancelar' }).click();
    await scheduleDialog.waitFor({ state: 'detached' });

    // Edit the own message (within 15 minutes).
    await messageMenu(page, 'Já verifico', 'Editar');
    await page.getByTestId('composer-edit').waitFor();
    expect(await box.inputValue()).toBe(sentText);
    await box.fill('*Bruna Lima:*\nBom dia! Pedido localizado ✅');
    await box.press('Enter');
    await bubble(page, 'Pedido localizado').getByText('Editada').waitFor({ timeout: 20_000 });
    await until(async () => (await phone(customer)).find((m) => m.id === onPhone.id && m.edited && m.body.includes('Pedido localizado')), 'the edit on the phone');
    // The edit bar closes with the edit's answer (the bubble may show the edit first, by its live event).
    await page.getByTestId('composer-edit').waitFor({ state: 'detached', timeout: 10_000 });

    // A message to delete.
    await box.fill('Mensagem errada');
    await box.press('Enter');
    await bubble(page, 'Mensagem errada').waitFor();
    await messageMenu(page, 'Mensagem errada', 'Apagar');
    await page.getByRole('dialog', { name: 'Apagar mensagem' }).getByRole('button', { name: 'Confirmar' }).click();
    await page.getByTestId('message-list').getByText('Mensagem apagada').waitFor({ timeout: 20_000 });
    expect(await bubble(page, 'Mensagem errada').count()).toBe(0);

    // Reply mode quotes the customer's message on the phone.
    await messageMenu(page, 'preciso de', 'Responder');
    await page.getByTestId('composer-reply').getByText('Respondendo a Dona Clara').waitFor();
    await box.fill('Sobre o seu pedido: já saiu para entrega');
    await box.press('Enter');
    await until(async () => (await phone(customer)).find((m) => m.fromMe && m.body.includes('já saiu para entrega') && m.quotedId === first.body.id), 'the quoted reply on the phone');
    const quoted = bubble(page, 'já saiu para entrega');
    await quoted.locator('.msg-quote').waitFor();
    expect(await page.getByTestId('composer-reply').count()).toBe(0);

    // An image with a caption: media-upload, PUT to storage, then the message.
    await page.getByTestId('composer-file-input').setInputFiles({ name: 'produto.png', mimeType: 'image/png', buffer: png(64, 48, [30, 136, 229]) });
    const files = page.getByTestId('composer-files');
    await files.getByText('produto.png').waitFor();
    await files.getByRole('textbox', { name: 'Legenda: produto.png' }).fill('Foto do produto');
    await files.getByRole('button', { name: 'Enviar' }).click();
    await bubble(page, 'Foto do produto').locator('.msg-image img').waitFor({ timeout: 30_000 });
    await until(async () => (await phone(customer)).find((m) => m.fromMe && m.mediaType === 'image' && m.body === 'Foto do produto'), 'the image on the phone', 30_000);

    // A recording under 10 000 bytes is discarded (spec 001 §5): nothing reaches the phone.
    const before = (await phone(customer)).length;
    await page.getByRole('button', { name: 'Gravar áudio' }).click();
    await page.getByTestId('recorder').waitFor();
    await page.getByRole('button', { name: 'Enviar áudio' }).click();
    await page.getByText('Áudio muito curto, não enviado.').waitFor();
    // A voice note from the (fake) microphone: timer, then sent as ptt.
    await page.getByRole('button', { name: 'Gravar áudio' }).click();
    await page.getByTestId('recorder').waitFor();
    await expect.poll(() => page.getByRole('timer').textContent(), { timeout: 10_000 }).toBe('00:02');
    await page.getByRole('button', { name: 'Enviar áudio' }).click();
    await page.locator('audio.msg-audio[data-ptt="true"]').waitFor({ timeout: 30_000 });
    const voice = await until(async () => (await phone(customer)).find((m) => m.fromMe && m.mediaType === 'audio'), 'the voice note on the phone', 30_000);
    expect(voice.ptt).toBe(true);
    expect((await phone(customer)).filter((m) => m.fromMe && m.mediaType === 'audio')).toHaveLength(1);
    expect((await phone(customer)).length).toBe(before + 1);

    // Screens: light/dark, wide/narrow.
    await page.getByTestId('theme-toggle').click();
    await screenshot(page, 'conversation-open-dark-wide');
    await page.getByTestId('ticket-contact').click();
    await page.getByTestId('contact-drawer').waitFor();
    await screenshot(page, 'conversation-contact-drawer-dark-wide');
    await page.getByRole('button', { name: 'Fechar painel' }).click();
    await page.setViewportSize(NARROW);
    await screenshot(page, 'conversation-open-dark-narrow');
    await page.getByTestId('theme-toggle').click();
    await screenshot(page, 'conversation-open-light-narrow');
    await page.setViewportSize(WIDE);

    // Transfer to a queue without a user: back to pending, the page goes to /tickets.
    await page.getByRole('button', { name: 'Transferir' }).click();
    const dialog = page.getByRole('dialog', { name: 'Transferir atendimento' });
    await dialog.getByRole('combobox', { name: 'Fila' }).selectOption(String(queue.body.id));
    await screenshot(page, 'conversation-transfer-light-wide');
    await dialog.getByRole('button', { name: 'Transferir' }).click();
    await page.waitForURL(/\/tickets$/, { timeout: 15_000 });
    const moved = (await t.admin.get(`/tickets/${ticket.id}`)).body;
    expect(moved).toMatchObject({ status: 'pending', userId: null, queueId: queue.body.id });

    // Accept again and close (Resolver): the rating request reaches the phone; the answer 2 is stored.
    await page.goto(`${web()}/tickets/${ticket.id}`);
    await page.getByRole('button', { name: 'Aceitar' }).click();
    await expect.poll(() => view(page).getAttribute('data-status'), { timeout: 15_000 }).toBe('open');
    await page.getByRole('button', { name: 'Resolver' }).click();
    await page.waitForURL(/\/tickets$/, { timeout: 15_000 });
    await until(async () => (await phone(customer)).find((m) => m.fromMe && m.body === RATING_REQUEST), 'the rating request');
    await sandbox('POST', `/connections/${t.connectionId}/messages`, { from: customer, body: '2' });
    const rated = await until(async () => {
      const res = await t.admin.get(`/tickets/${ticket.id}`);
      return res.body.rating === 2 ? res.body : undefined;
    }, 'the rating on the ticket');
    expect(rated).toMatchObject({ status: 'closed', userId: agent.id });
    await ctx.close();
  });

  it('what the session host could not carry is said plainly: an unsupported type, a file too large, a file WhatsApp no longer has (issue 17)', { timeout: 120_000 }, async () => {
    const customer = phoneNumber();
    const from = (body: string, extra: Parameters<typeof msg>[4]) => msg(t.companyId, t.connectionId, customer, body, { chat: { number: customer, name: 'Seu Otávio' }, ...extra });
    await emit([
      from('questionMessage', { mediaType: 'unsupported' }),
      from('', { mediaType: 'document', mediaError: { reason: 'tooLarge', size: 1.5 * 1024 ** 3, fileName: 'backup.zip' } }),
      from('', { mediaType: 'video', mediaError: { reason: 'unavailable' } }),
    ]);
    const ticket = await ticketOf(t, customer);
    const agent = await member(t.admin, { name: 'Otávio Agente', profile: 'admin', allTicket: 'enabled' });
    const ctx = await newContext(browser);
    const page = await ctx.newPage();
    await signInUi(page, web(), agent.email, PASSWORD);
    await page.goto(`${web()}/tickets/${ticket.id}`);
    await bubble(page, 'Mensagem não suportada: questionMessage').waitFor({ timeout: 20_000 });
    const notes = page.getByTestId('media-note');
    await expect.poll(() => notes.count(), { timeout: 10_000 }).toBe(2);
    expect(await notes.allTextContents()).toEqual([
      expect.stringContaining('Arquivo grande demais para receber (1,5 GB). Peça ao cliente que envie por outro meio.'),
      expect.stringContaining('Não foi possível receber este arquivo. Peça ao cliente que o envie novamente.'),
    ]);
    await screenshot(page, 'ticket-unsupported-media-notes');
    await ctx.close();
  });
});
