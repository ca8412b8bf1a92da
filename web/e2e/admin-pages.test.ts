import { beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { NARROW, newContext, realtimeOpen, saveDialog, screenshot, signInUi, WIDE } from './support/browser.js';
import { browser, useBrowser, web } from './support/world.js';
import { createUser, ownSuperUser, tenant, uniq, tenantAndOtherAdmin } from './support/stack.js';

// A 1×1 PNG.
const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==', 'base64');

let t: Awaited<ReturnType<typeof tenant>>;
let otherAdmin: Awaited<ReturnType<typeof createUser>>;

useBrowser();
beforeAll(async () => {
  ({ t, otherAdmin } = await tenantAndOtherAdmin());
});

/** The tenant's admin signed in, then on `path` when given. */
async function adminPage(path?: string): Promise<Page> {
  const ctx = await newContext(browser);
  const page = await ctx.newPage();
  await signInUi(page, web(), t.admin.email, t.admin.password);
  if (path) await page.goto(`${web()}${path}`);
  return page;
}

describe('users page', () => {
  // Known flake under the full suite's load only (the edit's save sometimes never reaches the
  // server; it passes alone and in its file): retried while it is investigated (see the issue note).
  it('creates, edits and deletes a user through the dialog', { retry: 2 }, async () => {
    const page = await adminPage('/users');
    await page.getByRole('heading', { name: 'Usuários' }).waitFor();
    const name = uniq('Maria ');
    const email = `${uniq('maria')}@empresa.test`;

    await page.getByRole('button', { name: 'Adicionar usuário' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByRole('button', { name: 'Salvar' }).click();
    await dialog.getByText('Obrigatório').first().waitFor();
    await dialog.getByLabel('Nome', { exact: true }).fill(name);
    await dialog.getByLabel('Email', { exact: true }).fill(email);
    await dialog.getByLabel('Senha', { exact: true }).fill('Senha1234');
    expect(await dialog.getByRole('combobox', { name: 'Perfil' }).inputValue()).toBe('Nível 1');
    await dialog.getByRole('combobox', { name: 'Perfil' }).selectOption('Nível 2');
    await screenshot(page, 'users-dialog-light-wide');
    const row = await saveDialog(page, dialog, 'Usuário salvo com sucesso.', email);
    expect(await row.textContent()).toContain('Nível 2');

    const renamed = `${name} Silva`;
    await page.getByRole('button', { name: `Editar ${name}` }).click();
    await dialog.getByLabel('Nome', { exact: true }).fill(renamed);
    await dialog.locator('input[type=file]').setInputFiles({ name: 'foto.png', mimeType: 'image/png', buffer: PNG });
    await dialog.getByRole('button', { name: 'Salvar' }).click();
    await page.locator('tr', { hasText: renamed }).waitFor();
    // The photo replaced the initials and the browser could load it.
    const img = page.locator('tr', { hasText: renamed }).locator('.avatar img');
    await img.waitFor();
    await expect.poll(() => img.evaluate((el: HTMLImageElement) => el.complete && el.naturalWidth > 0), { timeout: 10_000 }).toBe(true);

    // The search (debounced) narrows the list.
    await page.getByRole('searchbox').fill(renamed.toLowerCase());
    await expect.poll(() => page.locator('tbody tr').count(), { timeout: 10_000 }).toBe(1);

    await page.getByRole('button', { name: `Excluir ${renamed}` }).click();
    await page.getByText('Deseja realmente excluir esse registro?').waitFor();
    await page.getByRole('button', { name: 'Confirmar' }).click();
    await page.getByText('Usuário excluído com sucesso.').waitFor();
    await expect.poll(() => page.locator('tr', { hasText: email }).count()).toBe(0);
    await page.context().close();
  });
});

describe('live updates', () => {
  it('shows a user created elsewhere without reloading', async () => {
    const page = await adminPage('/users');
    await page.locator('tr', { hasText: 'Outra Admin' }).waitFor();
    await realtimeOpen(page);
    const email = `${uniq('live')}@empresa.test`;
    const res = await otherAdmin.api.post('/users', { name: 'Chegou Agora', email, password: 'Senha1234' });
    expect(res.status).toBeLessThan(300);
    await page.locator('tr', { hasText: email }).waitFor({ timeout: 15_000 });

    await page.goto(`${web()}/queues`);
    await page.getByRole('heading', { name: 'Filas & Chatbot' }).waitFor();
    await realtimeOpen(page);
    const queueName = uniq('Ao vivo ');
    const q = await otherAdmin.api.post('/queue', { name: queueName, color: '#00897b', greetingMessage: 'Oi' });
    expect(q.status).toBeLessThan(300);
    await page.locator('tr', { hasText: queueName }).waitFor({ timeout: 15_000 });
    await page.context().close();
  });
});

describe('users list paging', () => {
  it('loads the next page when scrolled near the bottom', async () => {
    // 20 users a page: with these 25 the list has at least two pages.
    const tag = uniq('pg');
    for (let i = 0; i < 25; i++) {
      const res = await otherAdmin.api.post('/users', { name: `Pagina ${tag} ${String(i).padStart(2, '0')}`, email: `${tag}${i}@empresa.test`, password: 'Senha1234' });
      expect(res.status).toBeLessThan(300);
    }
    const page = await adminPage('/users');
    const rows = page.locator('tbody tr');
    await expect.poll(() => rows.count(), { timeout: 10_000 }).toBeGreaterThanOrEqual(20);
    const total = (await otherAdmin.api.get('/users?searchParam=&pageNumber=1')).body.count as number;
    const first = await rows.count();
    expect(first).toBeLessThan(total);
    await page.getByTestId('users-scroll').evaluate((el) => el.scrollTo(0, el.scrollHeight));
    await expect.poll(() => rows.count(), { timeout: 10_000 }).toBeGreaterThan(first);
    await page.getByTestId('users-scroll').evaluate((el) => el.scrollTo(0, el.scrollHeight));
    await expect.poll(() => rows.count(), { timeout: 10_000 }).toBe(total);
    await page.context().close();
  });
});

describe('settings options', () => {
  it('saves a setting and keeps it after a reload; the queue bot and business hours settings are offered', async () => {
    const page = await adminPage('/settings');
    const select = page.getByRole('combobox', { name: 'Avaliações' });
    await select.waitFor();
    await select.selectOption('enabled');
    await page.getByText('Operação atualizada com sucesso.').waitFor();
    await page.reload();
    await expect.poll(() => page.getByRole('combobox', { name: 'Avaliações' }).inputValue(), { timeout: 10_000 }).toBe('enabled');
    // Business hours and the queue bot exist since issue 18: their settings are offered like the others.
    for (const name of ['Gerenciamento de Expediente', 'Tipo Chatbot', 'Enviar saudação quando houver somente 1 fila']) {
      expect(await page.getByRole('combobox', { name }).isDisabled()).toBe(false);
    }
    expect(await page.getByText('Disponível em breve').count()).toBe(0);
    await page.context().close();
  });
});

describe('queues page', () => {
  it('creates a queue and refuses a second one with the same colour', async () => {
    const page = await adminPage('/queues');
    await page.getByRole('heading', { name: 'Filas & Chatbot' }).waitFor();
    const first = uniq('Suporte ');
    const dialog = page.getByRole('dialog');

    await page.getByRole('button', { name: 'Adicionar fila' }).click();
    await dialog.getByLabel('Nome', { exact: true }).fill(first);
    await dialog.getByRole('button', { name: 'Escolher a cor #8e24aa' }).click();
    await dialog.getByLabel('Mensagem de saudação').fill('Olá! Bem-vindo ao suporte.');
    await dialog.getByRole('button', { name: 'Salvar' }).click();
    await page.getByText('Fila salva com sucesso').waitFor();
    await page.locator('tr', { hasText: first }).waitFor();

    await page.getByRole('button', { name: 'Adicionar fila' }).click();
    await dialog.getByLabel('Nome', { exact: true }).fill(uniq('Vendas '));
    await dialog.getByLabel('Cor personalizada (hex)').fill('#8E24AA'.toLowerCase());
    await dialog.getByLabel('Mensagem de saudação').fill('Olá! Vendas aqui.');
    await dialog.getByRole('button', { name: 'Salvar' }).click();
    // The 409 names its field: the message shows under the colour and in the toast.
    await dialog.locator('.amplify-field__error-message', { hasText: 'Esta cor já está em uso, escolha outra.' }).waitFor();
    await page.getByRole('alert').filter({ hasText: 'Esta cor já está em uso, escolha outra.' }).waitFor();
    await screenshot(page, 'queues-duplicate-colour');
    expect(await dialog.isVisible()).toBe(true);
    await dialog.getByRole('button', { name: 'Cancelar' }).click();
    await page.context().close();
  });
});

describe('screenshots', () => {
  const cases = [
    ['light', 'wide', WIDE],
    ['light', 'narrow', NARROW],
    ['dark', 'wide', WIDE],
    ['dark', 'narrow', NARROW],
  ] as const;
  it.each(cases)('captures every page in %s, %s', async (scheme, size, viewport) => {
    const sup = await ownSuperUser();
    {
      {
        const ctx = await newContext(browser, { colorScheme: scheme, viewport });
        const page = await ctx.newPage();
        await page.goto(`${web()}/login`);
        await page.getByRole('button', { name: 'Entrar' }).waitFor();
        await screenshot(page, `login-${scheme}-${size}`);
        await page.goto(`${web()}/signup`);
        await page.getByRole('button', { name: 'Cadastrar' }).waitFor();
        await screenshot(page, `signup-${scheme}-${size}`);
        await page.goto(`${web()}/forgetpsw`);
        await page.getByRole('button', { name: 'Enviar Email' }).waitFor();
        await screenshot(page, `forgetpsw-${scheme}-${size}`);
        await signInUi(page, web(), sup.email, sup.password);
        await screenshot(page, `home-${scheme}-${size}`);
        if (size === 'narrow') {
          await page.getByRole('button', { name: 'Abrir ou fechar o menu' }).first().click();
          await screenshot(page, `drawer-${scheme}-${size}`);
          await page.keyboard.press('Escape');
        }
        for (const [path, heading] of [['/connections', 'Conexões'], ['/users', 'Usuários'], ['/queues', 'Filas & Chatbot'], ['/settings', 'Configurações']] as const) {
          await page.goto(`${web()}${path}`);
          await page.getByRole('heading', { name: heading }).waitFor();
          await page.waitForTimeout(700);
          await screenshot(page, `${path.slice(1)}-${scheme}-${size}`);
        }
        await page.getByRole('tab', { name: 'Empresas' }).click();
        await page.waitForTimeout(700);
        await screenshot(page, `settings-companies-${scheme}-${size}`);
        await page.getByRole('tab', { name: 'Planos' }).click();
        await page.waitForTimeout(700);
        await screenshot(page, `settings-plans-${scheme}-${size}`);
        await page.goto(`${web()}/users`);
        await page.getByRole('button', { name: 'Adicionar usuário' }).click();
        await page.getByRole('dialog').getByLabel('Nome', { exact: true }).waitFor();
        await screenshot(page, `user-dialog-${scheme}-${size}`);
        await ctx.close();
      }
    }
  });
});
