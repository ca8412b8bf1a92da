import { describe, expect, it } from 'vitest';
import { sandbox, ticketOf, until } from '../../functions/test/integration/pipeline-helpers.js';
import { member, PASSWORD, uniq } from '../../functions/test/integration/client.js';
import { PNG } from '../../functions/test/integration/messages-helpers.js';
import { newContext, screenshot, signInUi } from './support/browser.js';
import { browser, company as t, connectedWorld, web } from './support/world.js';

// Issue 5 §2-§3 on the ticket screen: the tags bar edits ticket and contact tags; a quick reply
// typed with "/" fills the composer, and one with an attachment sends the file.

connectedWorld();

describe('ticket screen tools', () => {
  it('edits ticket and contact tags from the tags bar; "/" quick replies fill the text or send their file', { timeout: 240_000 }, async () => {
    const vip = (await t.admin.post('/tags', { name: uniq('VIP '), color: '#8e24aa', type: 'ticket' })).body;
    const wholesale = (await t.admin.post('/tags', { name: uniq('Atacado '), color: '#00897b', type: 'contact' })).body;
    expect(vip.id && wholesale.id).toBeTruthy();
    const text = (await t.admin.post('/quick-messages', { shortcode: 'horario', message: 'Atendemos das 8h às 18h.', geral: true, status: true })).body;
    const withFile = (await t.admin.post('/quick-messages', { shortcode: 'catalogo', message: 'Nosso catálogo', geral: true, status: true })).body;
    const form = new FormData();
    form.append('typeArch', 'quickMessage');
    form.append('file', new Blob([new Uint8Array(PNG)], { type: 'image/png' }), 'catalogo.png');
    expect((await t.admin.form('POST', `/quick-messages/${withFile.id}/media-upload`, form)).status).toBeLessThan(300);
    expect(text.id).toBeTruthy();

    const agent = await member(t.admin, { name: 'Caio Tools', profile: 'admin', allTicket: 'enabled' });
    const customer = `55119${String(Math.floor(Math.random() * 1e8)).padStart(8, '0')}`;
    expect((await sandbox('POST', `/connections/${t.connectionId}/messages`, { from: customer, name: 'Seu Jorge', body: 'Oi, qual o horário?' })).status).toBeLessThan(300);
    const ticket = await ticketOf(t, customer);
    expect((await agent.api.put(`/tickets/${ticket.id}`, { status: 'open', userId: agent.id })).status).toBe(200);

    const ctx = await newContext(browser);
    const page = await ctx.newPage();
    await signInUi(page, web(), agent.email, PASSWORD);
    await page.goto(`${web()}/tickets/${ticket.id}`);
    await page.getByTestId('composer').waitFor();

    // Tags bar: a ticket tag and a contact tag, kept by the server.
    await page.getByRole('button', { name: 'Editar tags: Tags do atendimento' }).click();
    let editor = page.getByRole('dialog', { name: 'Tags do atendimento' });
    await editor.getByRole('button', { name: vip.name }).click();
    await editor.getByRole('button', { name: 'Salvar' }).click();
    await editor.waitFor({ state: 'detached' });
    await page.getByTestId('tags-ticket').getByText(vip.name).waitFor();
    await page.getByRole('button', { name: 'Editar tags: Tags do contato' }).click();
    editor = page.getByRole('dialog', { name: 'Tags do contato' });
    await editor.getByRole('button', { name: wholesale.name }).click();
    await editor.getByRole('button', { name: 'Salvar' }).click();
    await editor.waitFor({ state: 'detached' });
    await page.getByTestId('tags-contact').getByText(wholesale.name).waitFor();
    const saved = (await t.admin.get(`/tickets/${ticket.id}`)).body;
    expect(saved.tags.map((x: { id: number }) => x.id)).toEqual([vip.id]);
    expect(saved.contact.tags.map((x: { id: number }) => x.id)).toEqual([wholesale.id]);
    await screenshot(page, 'conversation-tags-light-wide');

    // "/" and two characters: the suggestions; choosing a text reply fills the composer.
    const box = page.getByRole('textbox', { name: 'Digite uma mensagem' });
    await box.fill('/ho');
    const suggestions = page.getByRole('listbox', { name: 'Respostas rápidas' });
    await suggestions.getByText('horario').waitFor();
    await box.press('Enter');
    await expect.poll(() => box.inputValue()).toBe('Atendemos das 8h às 18h.');
    await box.press('Enter');
    await until(async () => (await sandbox<any[]>('GET', `/connections/${t.connectionId}/messages?peer=${customer}`)).body.find((m) => m.fromMe && String(m.body).includes('Atendemos das 8h')), 'the text reply on the phone');

    // A reply with an attachment sends the file, its message as the caption.
    await box.fill('/cat');
    await suggestions.getByText('catalogo').waitFor();
    await screenshot(page, 'composer-quick-replies-light-wide');
    await box.press('Enter');
    const image = await until(
      async () => (await sandbox<any[]>('GET', `/connections/${t.connectionId}/messages?peer=${customer}`)).body.find((m) => m.fromMe && m.mediaType === 'image'),
      'the quick reply file on the phone',
      // The file is fetched, uploaded and sent by the page: on a loaded CI machine that took over 20 s once.
      45_000,
    );
    expect(String(image.body)).toContain('Nosso catálogo');
    await ctx.close();
  });
});
