import { beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { NARROW, newContext, realtimeOpen, saveDialog, screenshot, signInUi, WIDE } from './support/browser.js';
import { browser, useBrowser, web } from './support/world.js';
import { createUser, tenant, uniq, tenantAndOtherAdmin } from './support/stack.js';
import { member, PASSWORD } from '../../functions/test/integration/client.js';
import { connected, sandbox, ticketOf } from '../../functions/test/integration/pipeline-helpers.js';

// A 1×1 PNG.
const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==', 'base64');

let t: Awaited<ReturnType<typeof tenant>>;
let otherAdmin: Awaited<ReturnType<typeof createUser>>;
let agent: Awaited<ReturnType<typeof createUser>>;

useBrowser();
beforeAll(async () => {
  ({ t, otherAdmin } = await tenantAndOtherAdmin());
  agent = await createUser(t.admin.token, { profile: 'Nível 1', name: 'Agente Um' });
  // The first load of the console on a busy machine can pass the 30 s action timeout: warm it up.
  const ctx = await newContext(browser);
  const page = await ctx.newPage();
  await page.goto(`${web()}/login`);
  await page.getByLabel('Email', { exact: true }).waitFor({ timeout: 90_000 });
  await ctx.close();
}, 120_000);

async function signedIn(who: { email: string; password: string }, opts: Parameters<typeof newContext>[1] = {}): Promise<Page> {
  const ctx = await newContext(browser, opts);
  // The shared test machine can be far beyond its two cores: actions get more room than 30 s.
  ctx.setDefaultTimeout(50_000);
  const page = await ctx.newPage();
  await signInUi(page, web(), who.email, who.password);
  return page;
}

describe('tags page', { timeout: 150_000 }, () => {
  it('creates (with the form messages), edits and deletes a tag', async () => {
    const page = await signedIn(t.admin);
    await page.goto(`${web()}/tags`);
    await page.getByRole('heading', { name: 'Tags' }).waitFor();

    await page.getByRole('button', { name: 'Adicionar tag' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByLabel('Nome', { exact: true }).fill('');
    await dialog.getByRole('button', { name: 'Salvar' }).click();
    await dialog.getByText('Obrigatório').waitFor();
    await dialog.getByLabel('Nome', { exact: true }).fill('ab');
    await dialog.getByRole('button', { name: 'Salvar' }).click();
    await dialog.getByText('Mensagem muito curta').waitFor();

    const name = uniq('Urgente ');
    await dialog.getByLabel('Nome', { exact: true }).fill(name);
    await dialog.getByRole('button', { name: 'Escolher a cor #43a047' }).click();
    expect(await dialog.getByLabel('Cor (hex)').inputValue()).toBe('#43a047');
    // An admin sees the kanban toggle for both types (the board has lanes by ticket and by contact tags).
    await dialog.getByRole('combobox', { name: 'Tipo' }).selectOption('contact');
    expect(await dialog.getByRole('switch', { name: 'Kanban' }).count()).toBe(1);
    await dialog.getByRole('combobox', { name: 'Tipo' }).selectOption('ticket');
    // The switch's input is visually hidden: its label is what a user clicks.
    await dialog.getByText('Kanban', { exact: true }).click();
    expect(await dialog.getByRole('switch', { name: 'Kanban' }).isChecked()).toBe(true);
    await screenshot(page, 'tags-dialog-light-wide');
    const row = await saveDialog(page, dialog, 'Tag salva com sucesso.', name);
    expect(await row.textContent()).toContain('Kanban');
    expect(await row.locator('.tg-chip').evaluate((el) => getComputedStyle(el).backgroundColor)).toBe('rgb(67, 160, 71)');

    // The server has what the form sent.
    const listed = (await otherAdmin.api.get(`/tags?searchParam=${encodeURIComponent(name.toLowerCase())}`)).body.tags as { id: number; name: string; color: string; type: string; kanban: number }[];
    expect(listed).toHaveLength(1);
    expect(listed[0]).toMatchObject({ name, color: '#43a047', type: 'ticket', kanban: 1 });

    const renamed = `${name} Editada`;
    await page.getByRole('button', { name: `Editar ${name}` }).click();
    expect(await dialog.getByLabel('Nome', { exact: true }).inputValue()).toBe(name);
    expect(await dialog.getByRole('switch', { name: 'Kanban' }).isChecked()).toBe(true);
    await dialog.getByLabel('Nome', { exact: true }).fill(renamed);
    await dialog.getByRole('button', { name: 'Salvar' }).click();
    await page.locator('tr', { hasText: renamed }).waitFor();
    expect((await otherAdmin.api.get(`/tags/${listed[0].id}`)).body.name).toBe(renamed);

    await page.getByRole('button', { name: `Excluir ${renamed}` }).click();
    await page.getByText('Deseja realmente excluir esse registro?').waitFor();
    await page.getByRole('button', { name: 'Confirmar' }).click();
    await page.getByText('Tag excluída com sucesso.').waitFor();
    await expect.poll(() => page.locator('tr', { hasText: renamed }).count()).toBe(0);
    expect((await otherAdmin.api.get(`/tags/${listed[0].id}`)).status).toBe(404);
    await page.context().close();
  });

  it('links the count of a contact tag to its contacts and searches', async () => {
    const tagName = uniq('Cliente VIP ');
    const tag = await otherAdmin.api.post('/tags', { name: tagName, color: '#8e24aa', type: 'contact' });
    expect(tag.status).toBe(201);
    const contact = await otherAdmin.api.post('/contacts', { name: 'Cliente Etiquetado', number: `55119${String(Date.now()).slice(-8)}`, tags: [tag.body.id] });
    expect(contact.status).toBeLessThan(300);
    const ticketTag = await otherAdmin.api.post('/tags', { name: uniq('Fila B '), type: 'ticket' });
    expect(ticketTag.status).toBe(201);

    for (const mode of [
      { colorScheme: 'light' as const, viewport: WIDE, label: 'light-wide' },
      { colorScheme: 'dark' as const, viewport: NARROW, label: 'dark-narrow' },
    ]) {
      const page = await signedIn(t.admin, mode);
      await page.goto(`${web()}/tags`);
      const row = page.getByTestId(`tag-row-${tag.body.id}`);
      await row.waitFor();
      const link = row.getByRole('link', { name: `Ver os 1 contatos com a tag ${tagName}` });
      expect(await link.getAttribute('href')).toBe(`/contacts?tag=${tag.body.id}`);
      expect(await link.textContent()).toBe('1');
      // A ticket tag's count is plain text.
      expect(await page.getByTestId(`tag-row-${ticketTag.body.id}`).getByRole('link').count()).toBe(0);
      await screenshot(page, `tags-page-${mode.label}`);

      await page.getByRole('searchbox').fill(tagName.toLowerCase());
      await expect.poll(() => page.locator('tbody tr').count(), { timeout: 10_000 }).toBe(1);
      await page.context().close();
    }
  });

  it('hides the kanban toggle from a non-admin', async () => {
    const page = await signedIn(agent, { colorScheme: 'dark', viewport: NARROW });
    await page.goto(`${web()}/tags`);
    await page.getByRole('button', { name: 'Adicionar tag' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByRole('combobox', { name: 'Tipo' }).waitFor();
    expect(await dialog.getByRole('switch').count()).toBe(0);
    const name = uniq('Do agente ');
    await dialog.getByLabel('Nome', { exact: true }).fill(name);
    await screenshot(page, 'tags-dialog-dark-narrow');
    await dialog.getByRole('button', { name: 'Salvar' }).click();
    await page.locator('tr', { hasText: name }).waitFor();
    await page.context().close();
  });

  it('shows a tag created elsewhere without reloading', async () => {
    const page = await signedIn(t.admin);
    await page.goto(`${web()}/tags`);
    await page.getByRole('heading', { name: 'Tags' }).waitFor();
    // Events reach the page once its socket is open (a slow machine takes seconds after a reload).
    await realtimeOpen(page);
    const name = uniq('Ao vivo ');
    const res = await otherAdmin.api.post('/tags', { name, color: '#00897b' });
    expect(res.status).toBe(201);
    await page.getByTestId(`tag-row-${res.body.id}`).waitFor({ timeout: 15_000 });
    const del = await otherAdmin.api.delete(`/tags/${res.body.id}`);
    expect(del.status).toBe(204);
    await expect.poll(() => page.getByTestId(`tag-row-${res.body.id}`).count(), { timeout: 15_000 }).toBe(0);
    await page.context().close();
  });
});

describe('tags page counts', () => {
  it('changes the counts live when a ticket or a contact is tagged elsewhere', { timeout: 240_000 }, async () => {
    const c = await connected();
    try {
      const tt = (await c.admin.post('/tags', { name: uniq('Retorno '), color: '#1e88e5', type: 'ticket' })).body as { id: number };
      const ct = (await c.admin.post('/tags', { name: uniq('Prata '), color: '#8e24aa', type: 'contact' })).body as { id: number };
      const customer = `55119${String(Math.floor(Math.random() * 1e8)).padStart(8, '0')}`;
      expect((await sandbox('POST', `/connections/${c.connectionId}/messages`, { from: customer, name: 'Dona Cida', body: 'Bom dia' })).status).toBeLessThan(300);
      const ticket = (await ticketOf(c, customer)) as unknown as { id: number; contact: { id: number } };
      // The browser signs in as another admin: the API session of `c.admin` stays valid.
      const viewer = await member(c.admin, { name: 'Vê Etiquetas', profile: 'admin' });
      const page = await signedIn({ email: viewer.email, password: PASSWORD });
      await page.goto(`${web()}/tags`);
      const count = (id: number) => page.getByTestId(`tag-row-${id}`).getByTestId('tag-count');
      await count(tt.id).waitFor();
      expect(await count(tt.id).textContent()).toBe('0');
      expect(await count(ct.id).textContent()).toBe('0');
      // Marks this document: a reload would drop it.
      await page.evaluate(() => ((window as unknown as { __sameDocument: boolean }).__sameDocument = true));

      // The ticket's tags bar (ticket and contact tags), a new contact with the tag, the contact dialog.
      expect((await c.admin.post('/tags/sync', { ticketId: ticket.id, tags: [tt.id] })).status).toBe(200);
      await expect.poll(() => count(tt.id).textContent(), { timeout: 15_000 }).toBe('1');
      expect((await c.admin.post('/tags/sync', { ticketId: ticket.id, tags: [ct.id], type: 'contact' })).status).toBe(200);
      await expect.poll(() => count(ct.id).textContent(), { timeout: 15_000 }).toBe('1');
      const other = await c.admin.post('/contacts', { name: 'Prata Dois', number: `55219${String(Date.now()).slice(-8)}`, tags: [ct.id] });
      expect(other.status).toBe(201);
      await expect.poll(() => count(ct.id).textContent(), { timeout: 15_000 }).toBe('2');
      await screenshot(page, 'tags-live-counts');
      expect((await c.admin.put(`/contacts/${ticket.contact.id}`, { tags: [] })).status).toBe(200);
      await expect.poll(() => count(ct.id).textContent(), { timeout: 15_000 }).toBe('1');
      expect((await c.admin.post('/tags/sync', { ticketId: ticket.id, tags: [] })).status).toBe(200);
      await expect.poll(() => count(tt.id).textContent(), { timeout: 15_000 }).toBe('0');
      expect(await page.evaluate(() => (window as unknown as { __sameDocument?: boolean }).__sameDocument)).toBe(true);
      await page.context().close();
    } finally {
      c.ws.close();
    }
  });
});

describe('quick replies page', { timeout: 150_000 }, () => {
  it('creates a reply with an emoji and an attachment, removes the attachment, searches and deletes', async () => {
    const page = await signedIn(t.admin);
    await page.goto(`${web()}/quick-messages`);
    await page.getByRole('heading', { name: 'Respostas Rápidas' }).waitFor();

    await page.getByRole('button', { name: 'Adicionar resposta' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByRole('button', { name: 'Salvar' }).click();
    await dialog.getByText('Obrigatório').waitFor();

    const code = uniq('boasvindas');
    await dialog.getByLabel('Atalho').fill(code);
    const message = dialog.getByLabel('Mensagem');
    await message.fill('Olá mundo\nsegunda linha');
    // The emoji goes where the cursor is, not at the end.
    await message.evaluate((el: HTMLTextAreaElement) => el.setSelectionRange(3, 3));
    await dialog.getByRole('button', { name: 'Inserir emoji' }).click();
    await dialog.getByTestId('emoji-picker').waitFor();
    await dialog.getByRole('button', { name: '😀', exact: true }).click();
    expect(await message.inputValue()).toBe('Olá😀 mundo\nsegunda linha');

    expect(await dialog.getByText('Sem anexo').count()).toBe(1);
    await dialog.getByTestId('qm-file-input').setInputFiles({ name: 'minha foto nova.png', mimeType: 'image/png', buffer: PNG });
    expect(await dialog.getByTestId('qm-file').textContent()).toContain('minha_foto_nova.png');
    expect(await dialog.getByRole('radio', { name: 'Somente eu' }).isChecked()).toBe(true);
    // Amplify's radio inputs are visually hidden under their group: click the label.
    await dialog.getByText('Geral (toda a empresa)').click();
    expect(await dialog.getByRole('radio', { name: 'Geral (toda a empresa)' }).isChecked()).toBe(true);
    await screenshot(page, 'quick-messages-dialog-light-wide');
    const row = await saveDialog(page, dialog, 'Resposta rápida salva com sucesso.', code);
    await expect.poll(() => row.textContent()).toContain('minha_foto_nova.png');
    expect(await row.textContent()).toContain('Geral');

    const saved = ((await otherAdmin.api.get(`/quick-messages?searchParam=${code}`)).body.records as { id: number; message: string; geral: boolean; mediaName: string; mediaUrl: string }[])[0];
    expect(saved).toMatchObject({ message: 'Olá😀 mundo\nsegunda linha', geral: true, mediaName: 'minha_foto_nova.png' });
    expect(saved.mediaUrl).toBeTruthy();

    // Remove the attachment.
    await page.getByRole('button', { name: `Editar ${code}` }).click();
    await dialog.getByTestId('qm-file').waitFor();
    await dialog.getByRole('button', { name: 'Remover o anexo minha_foto_nova.png' }).click();
    await dialog.getByText('Sem anexo').waitFor();
    await dialog.getByRole('button', { name: 'Salvar' }).click();
    await expect.poll(() => row.textContent(), { timeout: 10_000 }).toContain('Sem anexo');
    expect((await otherAdmin.api.get(`/quick-messages/${saved.id}`)).body).toMatchObject({ mediaPath: null, isMedia: false });

    // Search narrows the list.
    const other = await otherAdmin.api.post('/quick-messages', { shortcode: uniq('outra'), message: 'Outra resposta', geral: true });
    expect(other.status).toBe(201);
    await page.locator('tr', { hasText: other.body.shortcode }).waitFor({ timeout: 15_000 });
    await page.getByRole('searchbox').fill(code);
    await expect.poll(() => page.locator('tbody tr').count(), { timeout: 10_000 }).toBe(1);

    await page.getByRole('button', { name: `Excluir ${code}` }).click();
    await page.getByRole('button', { name: 'Confirmar' }).click();
    await page.getByText('Resposta rápida excluída com sucesso.').waitFor();
    await expect.poll(() => page.locator('tr', { hasText: code }).count()).toBe(0);
    expect((await otherAdmin.api.get(`/quick-messages/${saved.id}`)).status).toBe(404);
    await page.context().close();
  });

  it('keeps the reply when its file is refused, and a retry attaches to the same reply', async () => {
    const page = await signedIn(t.admin);
    await page.goto(`${web()}/quick-messages`);
    await page.getByRole('button', { name: 'Adicionar resposta' }).click();
    const dialog = page.getByRole('dialog');
    const code = uniq('recusado');
    await dialog.getByLabel('Atalho').fill(code);
    await dialog.getByLabel('Mensagem').fill('Com arquivo');
    // Declared a PNG, but the bytes are text: the server checks the content.
    await dialog.getByTestId('qm-file-input').setInputFiles({ name: 'falso.png', mimeType: 'image/png', buffer: Buffer.from('isto não é uma imagem') });
    await dialog.getByRole('button', { name: 'Salvar' }).click();
    await dialog.getByRole('alert').getByText('O conteúdo do arquivo não corresponde ao tipo informado').waitFor();
    // The text was saved: the row is there, without attachment, and the dialog stays open.
    const row = page.locator('tr', { hasText: code });
    await row.waitFor();
    expect(await row.textContent()).toContain('Sem anexo');
    expect(await dialog.isVisible()).toBe(true);
    await dialog.getByRole('heading', { name: 'Editar resposta rápida' }).waitFor();

    await dialog.getByTestId('qm-file-input').setInputFiles({ name: 'certo.png', mimeType: 'image/png', buffer: PNG });
    await dialog.getByRole('button', { name: 'Salvar' }).click();
    await page.getByText('Resposta rápida salva com sucesso.').waitFor();
    await expect.poll(() => row.textContent()).toContain('certo.png');
    const found = (await otherAdmin.api.get(`/quick-messages?searchParam=${code}`)).body.records as { mediaName: string }[];
    expect(found).toHaveLength(1);
    expect(found[0].mediaName).toBe('certo.png');
    await page.context().close();
  });

  it('shows company replies to everyone and personal ones only to their author', async () => {
    const geral = await otherAdmin.api.post('/quick-messages', { shortcode: uniq('empresa'), message: 'Para todos', geral: true });
    const personal = await otherAdmin.api.post('/quick-messages', { shortcode: uniq('minha'), message: 'Só minha', geral: false });
    expect(geral.status).toBe(201);
    expect(personal.status).toBe(201);

    const page = await signedIn(agent, { colorScheme: 'dark' });
    await page.goto(`${web()}/quick-messages`);
    const geralRow = page.locator('tr', { hasText: geral.body.shortcode });
    await geralRow.waitFor();
    // Another user's company reply: listed, not editable by a Nível 1 agent.
    expect(await geralRow.getByRole('button').count()).toBe(0);
    expect(await page.locator('tr', { hasText: personal.body.shortcode }).count()).toBe(0);

    // The agent's own personal reply is theirs to edit.
    await page.getByRole('button', { name: 'Adicionar resposta' }).click();
    const dialog = page.getByRole('dialog');
    const mine = uniq('agente');
    await dialog.getByLabel('Atalho').fill(mine);
    await dialog.getByLabel('Mensagem').fill('Resposta do agente');
    await dialog.getByRole('button', { name: 'Inserir emoji' }).click();
    await dialog.getByTestId('emoji-picker').waitFor();
    await screenshot(page, 'quick-messages-dialog-dark-wide');
    await dialog.getByRole('button', { name: 'Salvar' }).click();
    const mineRow = page.locator('tr', { hasText: mine });
    await mineRow.waitFor();
    expect(await mineRow.textContent()).toContain('Pessoal');
    expect(await mineRow.getByRole('button', { name: `Editar ${mine}` }).count()).toBe(1);
    await screenshot(page, 'quick-messages-page-dark-wide');
    await page.setViewportSize(NARROW);
    await screenshot(page, 'quick-messages-page-dark-narrow');

    // An admin sees every reply, another user's personal one included.
    const list = (await otherAdmin.api.get(`/quick-messages?searchParam=${mine}`)).body.records as unknown[];
    expect(list).toHaveLength(1);
    await page.context().close();
  });

  it('shows a company reply created elsewhere without reloading', async () => {
    const page = await signedIn(agent);
    await page.goto(`${web()}/quick-messages`);
    await page.getByRole('heading', { name: 'Respostas Rápidas' }).waitFor();
    await realtimeOpen(page);
    const code = uniq('aovivo');
    const res = await otherAdmin.api.post('/quick-messages', { shortcode: code, message: 'Chegou agora', geral: true });
    expect(res.status).toBe(201);
    await page.locator('tr', { hasText: code }).waitFor({ timeout: 15_000 });
    // Made personal: it leaves the agent's list.
    const put = await otherAdmin.api.put(`/quick-messages/${res.body.id}`, { geral: false });
    expect(put.status).toBe(200);
    await expect.poll(() => page.locator('tr', { hasText: code }).count(), { timeout: 15_000 }).toBe(0);
    await page.context().close();
  });
});
