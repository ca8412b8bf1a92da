import { beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { member, PASSWORD, superUser, tenant } from '../../functions/test/integration/client.js';
import { sandbox, until } from '../../functions/test/integration/pipeline-helpers.js';
import { closeWatched, screenshot, watchedPage } from './support/browser.js';
import { browser, company, connectedWorld, randomPhone, web } from './support/world.js';
import { ownSuperUser, uniq } from './support/stack.js';

// Issue 21 §3-§4: the help videos (settings Help tab, gallery and player), the to-do list and the
// messages-API page with its test forms, against the stack and the sandbox phone.

type Member = Awaited<ReturnType<typeof member>>;
let agent: Member;
/** A company whose plan has no external API. */
let gated: Awaited<ReturnType<typeof tenant>>;
let token: string;
/** A help made by the API, with a description that looks like markup. */
let shownHelp: { id: number; title: string };

const EMBED = 'https://www.youtube-nocookie.com/embed/';
/** A 1×1 slate PNG standing in for YouTube's pictures. */
const THUMBNAIL = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAIAAACQd1PeAAAADElEQVR4nGMwd/cHAAGGAM6Uh06xAAAAAElFTkSuQmCC', 'base64');
const PERMISSION = 'Esta empresa não possui permissão para acessar essa página! Estamos lhe redirecionando.';

connectedWorld();
beforeAll(async () => {
  // Everything the API does for this file happens before any browser sign-in (one session per user).
  const generated = await company.admin.put(`/whatsapp/${company.connectionId}`, { generateToken: true });
  expect(generated.status).toBe(200);
  token = generated.body.token as string;
  agent = await member(company.admin, { name: 'Agente Ajuda', profile: 'Nível 1' });
  const made = await (await superUser()).post('/helps', { title: uniq('Primeiros passos '), video: 'a_b-C1d2E3f', description: '<b>Abra</b> um atendimento\nsegunda linha' });
  expect(made.status).toBe(201);
  shownHelp = made.body;
  gated = await tenant({ useExternalApi: false });
}, 180_000);

const asAgent = () => watchedPage(browser, web(), { email: agent.email, password: PASSWORD });

/** No internet here: YouTube's player and pictures are answered by the test. */
async function offlineYouTube(page: Page) {
  const played: string[] = [];
  await page.route('https://www.youtube-nocookie.com/**', (route) => {
    played.push(route.request().url());
    return route.fulfill({ status: 200, contentType: 'text/html; charset=utf-8', body: '<html><body style="background:#111;color:#eee;font:20px sans-serif">▶ player</body></html>' });
  });
  await page.route('https://i.ytimg.com/**', (route) => route.fulfill({ status: 200, contentType: 'image/png', body: THUMBNAIL }));
  return played;
}

const menuLabels = (page: Page) => page.locator('nav.drawer a.nav-item').allTextContents();

describe('help videos', () => {
  it('the super user adds one in the settings Help tab, with the form’s errors', async () => {
    const sup = await ownSuperUser();
    const page = await watchedPage(browser, web(), sup);
    await page.goto(`${web()}/settings`);
    await page.getByRole('tab', { name: 'Ajuda' }).click();
    await page.getByRole('button', { name: 'Novo vídeo' }).click();
    const dialog = page.getByRole('dialog', { name: 'Novo vídeo de ajuda' });
    await dialog.getByRole('button', { name: 'Salvar' }).click();
    await dialog.getByText('Obrigatório').first().waitFor();
    const title = uniq('Como transferir ');
    await dialog.getByLabel('Título', { exact: true }).fill(title);
    await dialog.getByLabel('Código do vídeo', { exact: true }).fill('https://vimeo.com/123');
    await dialog.getByRole('button', { name: 'Salvar' }).click();
    await dialog.getByText(/^Código de vídeo inválido/).waitFor();
    // A YouTube address pasted from the browser is saved as its code.
    await dialog.getByLabel('Código do vídeo', { exact: true }).fill('https://www.youtube.com/watch?v=dQw4w9WgXcQ&t=3s');
    await dialog.getByLabel('Descrição', { exact: true }).fill('Passo a passo da transferência');
    await screenshot(page, 'helps-settings-dialog');
    await dialog.getByRole('button', { name: 'Salvar' }).click();
    const row = page.locator('tr', { hasText: title });
    await row.waitFor();
    expect(await row.textContent()).toContain('dQw4w9WgXcQ');
    await screenshot(page, 'helps-settings-tab');

    // Editing keeps the code; removing asks first.
    await row.getByRole('button', { name: `Editar ${title}` }).click();
    const editDialog = page.getByRole('dialog', { name: 'Editar vídeo de ajuda' });
    expect(await editDialog.getByLabel('Código do vídeo', { exact: true }).inputValue()).toBe('dQw4w9WgXcQ');
    await editDialog.getByRole('button', { name: 'Cancelar' }).click();
    await row.getByRole('button', { name: `Excluir ${title}` }).click();
    await page.getByRole('button', { name: 'Confirmar' }).click();
    await expect.poll(() => page.locator('tr', { hasText: title }).count()).toBe(0);
    await closeWatched(page);
  });

  it('any user opens the gallery; the player embeds the video on the nocookie domain and Escape closes it', async () => {
    const page = await asAgent();
    const played = await offlineYouTube(page);
    const labels = await menuLabels(page);
    // Spec 000 §2.2: To-do after Quick replies, Help after Tags; the API for plans with it.
    expect(labels.indexOf('Tarefas')).toBe(labels.indexOf('Respostas Rápidas') + 1);
    expect(labels.indexOf('Ajuda')).toBeGreaterThan(labels.indexOf('Tags'));
    expect(labels).toContain('API');
    await page.locator('nav.drawer').getByRole('link', { name: 'Ajuda', exact: true }).click();
    await page.waitForURL((u) => u.pathname === '/helps');
    await page.getByRole('heading', { name: /^Ajuda \(\d+\)$/ }).waitFor();
    const card = page.getByTestId(`help-card-${shownHelp.id}`);
    await card.waitFor();
    // The description is text: the markup shows as written and makes no element.
    expect(await card.textContent()).toContain('<b>Abra</b> um atendimento');
    expect(await card.locator('b').count()).toBe(0);
    await screenshot(page, 'helps-gallery');

    await card.click();
    const player = page.getByRole('dialog', { name: shownHelp.title });
    const frame = player.locator('iframe');
    await frame.waitFor();
    expect(await frame.getAttribute('src')).toBe(`${EMBED}a_b-C1d2E3f`);
    await expect.poll(() => played).toContain(`${EMBED}a_b-C1d2E3f`);
    await screenshot(page, 'helps-player');
    await page.keyboard.press('Escape');
    await expect.poll(() => page.locator('dialog[open]').count()).toBe(0);
    expect(await page.locator('iframe').count()).toBe(0);
    await closeWatched(page);
  });
});

describe('to-do list', () => {
  it('adds, edits and removes tasks that survive a reload; blank text is ignored', async () => {
    const page = await asAgent();
    await page.goto(`${web()}/todolist`);
    await page.getByRole('heading', { name: 'Tarefas' }).waitFor();
    const input = page.getByPlaceholder('Escreva uma tarefa e tecle Enter');
    const items = page.getByTestId('todo-item');
    await input.fill('Ligar para a Dona Maria');
    await input.press('Enter');
    await input.fill('   ');
    await page.locator('form.todo-add').getByRole('button', { name: 'Adicionar' }).click();
    await input.fill('Conferir o pedido 42');
    await input.press('Enter');
    await expect.poll(() => items.count()).toBe(2);
    expect(await items.first().textContent()).toMatch(/Criada em \d{2}\/\d{2}\/\d{4}/);

    await page.getByRole('button', { name: 'Editar Ligar para a Dona Maria' }).click();
    const edit = page.getByLabel('Editar tarefa');
    await edit.fill('Ligar para a Dona Maria às 15h');
    await edit.press('Enter');
    await items.filter({ hasText: 'Ligar para a Dona Maria às 15h' }).filter({ hasText: 'atualizada em' }).waitFor();
    await page.getByRole('button', { name: 'Excluir Conferir o pedido 42' }).click();
    await expect.poll(() => items.count()).toBe(1);

    await page.reload();
    await items.first().waitFor();
    expect(await items.allTextContents()).toEqual([expect.stringContaining('Ligar para a Dona Maria às 15h')]);
    const stored = await page.evaluate((key) => JSON.parse(localStorage.getItem(key) ?? '[]'), `todolist:${agent.id}`);
    expect(stored).toEqual([expect.objectContaining({ text: 'Ligar para a Dona Maria às 15h' })]);
    expect(stored[0].updatedAt > stored[0].createdAt).toBe(true);
    await screenshot(page, 'todolist');
    await closeWatched(page);
  });
});

describe('messages API page', () => {
  it('documents the API and its text form sends a message the phone receives', async () => {
    const page = await asAgent();
    await page.locator('nav.drawer').getByRole('link', { name: 'API', exact: true }).click();
    await page.waitForURL((u) => u.pathname === '/messages-api');
    await page.getByRole('heading', { name: 'Documentação para envio de mensagens' }).waitFor();
    await page.getByText(/acesse o menu Conexões, clique em editar na conexão/).waitFor();
    await page.getByText('O número para envio não deve ter máscara nem caracteres especiais', { exact: false }).waitFor();

    const form = page.getByTestId('api-text-form');
    await form.getByRole('button', { name: 'Enviar' }).click();
    await expect.poll(() => form.getByText('Obrigatório').count()).toBe(3);

    // A wrong token: the API's refusal, as the page words it.
    const phone = randomPhone();
    await form.getByLabel('Token da conexão').fill('token-que-nao-existe');
    await form.getByLabel('Número').fill(phone);
    await form.getByLabel('Mensagem').fill('Seu pedido saiu para entrega 🚚');
    await form.getByRole('button', { name: 'Enviar' }).click();
    await form.getByRole('status').getByText('Token inválido: confira o token da conexão.').waitFor();

    await form.getByLabel('Token da conexão').fill(token);
    await form.getByRole('button', { name: 'Enviar' }).click();
    await form.getByRole('status').getByText('Mensagem enviada com sucesso').waitFor();
    await screenshot(page, 'messages-api');
    await until(async () => {
      const conv = await sandbox<{ fromMe: boolean; body: string }[]>('GET', `/connections/${company.connectionId}/messages?peer=${phone}`);
      return conv.body.some((m) => m.fromMe && m.body === 'Seu pedido saiu para entrega 🚚');
    }, 'the API message on the sandbox phone');

    // The media form also requires its fields.
    const media = page.getByTestId('api-media-form');
    await media.getByRole('button', { name: 'Enviar' }).click();
    await expect.poll(() => media.getByText('Obrigatório').count()).toBe(3);
    await closeWatched(page, ['401 POST /api/messages/send']);
  });

  it('a company whose plan lacks the external API gets the toast and goes home', async () => {
    const page = await watchedPage(browser, web(), { email: gated.email, password: PASSWORD });
    expect(await menuLabels(page)).not.toContain('API');
    await page.goto(`${web()}/messages-api`);
    await page.locator('.toasts').getByText(PERMISSION, { exact: true }).first().waitFor();
    await page.waitForURL((u) => u.pathname === '/', { timeout: 10_000 });
    await closeWatched(page);
  });
});
