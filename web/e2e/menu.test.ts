import { beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { newContext, signInUi } from './support/browser.js';
import { browser, useBrowser, web } from './support/world.js';
import { advanceDueDate, formatDateBR } from '@balcao/shared';
import { createUser, ownSuperUser, tenant } from './support/stack.js';

let t: Awaited<ReturnType<typeof tenant>>;
let agent: Awaited<ReturnType<typeof createUser>>;

useBrowser();
beforeAll(async () => {
  t = await tenant();
  // Before any browser sign-in: that one replaces the admin's API session (single session).
  agent = await createUser(t.admin.token, { profile: 'Nível 1', name: 'Agente Um' });
});

const menuLabels = (page: Page) => page.locator('nav.drawer a.nav-item').allTextContents();

describe('side menu visibility', () => {
  it('an admin sees the administration section', async () => {
    const ctx = await newContext(browser);
    const page = await ctx.newPage();
    await signInUi(page, web(), t.admin.email, t.admin.password);
    expect(await menuLabels(page)).toEqual(['Atendimentos', 'Kanban', 'Respostas Rápidas', 'Tarefas', 'Contatos', 'Agendamentos', 'Tags', 'Chat Interno', 'Ajuda', 'API', 'Campanhas', 'Listas de Contatos', 'Configurações', 'Dashboard', 'Open.Ai', 'Integrações', 'Conexões', 'Lista de arquivos', 'Filas & Chatbot', 'Usuários', 'Financeiro', 'Configurações']);
    await page.goto(`${web()}/settings`);
    await page.getByRole('tab', { name: 'Opções' }).waitFor();
    expect(await page.getByRole('tab', { name: 'Empresas' }).count()).toBe(0);
    await ctx.close();
  });

  it('a Nível 1 user sees no administration items and cannot open admin pages', async () => {
    const ctx = await newContext(browser);
    const page = await ctx.newPage();
    await signInUi(page, web(), agent.email, agent.password);
    expect(await menuLabels(page)).toEqual(['Início', 'Atendimentos', 'Kanban', 'Respostas Rápidas', 'Tarefas', 'Contatos', 'Agendamentos', 'Tags', 'Chat Interno', 'Ajuda', 'API']);
    expect(await page.getByTestId('admin-section').count()).toBe(0);
    expect(await page.getByTestId('active-until').count()).toBe(0);
    await page.goto(`${web()}/users`);
    await page.waitForURL((u) => u.pathname === '/');

    // Profile opens the user dialog for oneself, without the admin-only fields.
    await page.getByRole('button', { name: 'Menu do usuário' }).click();
    await page.getByRole('menuitem', { name: 'Perfil' }).click();
    const dialog = page.getByRole('dialog');
    await expect.poll(() => dialog.getByLabel('Nome', { exact: true }).inputValue()).toBe('Agente Um');
    expect(await dialog.getByRole('combobox', { name: 'Perfil' }).count()).toBe(0);
    expect(await dialog.getByText('Filas').count()).toBe(0);
    await dialog.getByLabel('Nome', { exact: true }).fill('Agente Um Editado');
    await dialog.getByRole('button', { name: 'Salvar' }).click();
    await expect.poll(() => page.getByTestId('greeting').textContent(), { timeout: 10_000 }).toContain('Agente Um Editado');
    await ctx.close();
  });

  it('a super user also gets the Companies and Plans settings tabs', async () => {
    const sup = await ownSuperUser();
    const ctx = await newContext(browser);
    const page = await ctx.newPage();
    await signInUi(page, web(), sup.email, sup.password);
    expect(await menuLabels(page)).toEqual(['Atendimentos', 'Kanban', 'Respostas Rápidas', 'Tarefas', 'Contatos', 'Agendamentos', 'Tags', 'Chat Interno', 'Ajuda', 'Informativos', 'API', 'Campanhas', 'Listas de Contatos', 'Configurações', 'Dashboard', 'Open.Ai', 'Integrações', 'Conexões', 'Lista de arquivos', 'Filas & Chatbot', 'Usuários', 'Financeiro', 'Configurações']);
    await page.goto(`${web()}/settings`);
    await page.getByRole('tab', { name: 'Empresas' }).click();
    await page.getByRole('button', { name: 'Nova empresa' }).waitFor();
    // '+ Vencimento' advances the tenant's due date by its recurrence (MENSAL: one month).
    const row = page.locator('tr', { hasText: t.admin.email });
    await row.waitFor();
    const before = formatDateBR(t.company.dueDate);
    expect(await row.textContent()).toContain(before);
    await row.getByRole('button', { name: '+ Vencimento' }).click();
    const advanced = formatDateBR(advanceDueDate(t.company.dueDate, 'MENSAL'));
    await expect.poll(() => row.textContent()).toContain(advanced);

    // Editing through the dialog keeps the due date's calendar day.
    await row.getByRole('button', { name: /^Editar / }).click();
    const companyDialog = page.getByRole('dialog');
    const newName = `${t.company.name} Editada`;
    await companyDialog.getByLabel('Nome', { exact: true }).fill(newName);
    await companyDialog.getByRole('button', { name: 'Salvar' }).click();
    await expect.poll(() => row.textContent()).toContain(newName);
    expect(await row.textContent()).toContain(advanced);

    await page.getByRole('tab', { name: 'Planos' }).click();
    await page.getByRole('button', { name: 'Novo plano' }).click();
    const dialog = page.getByRole('dialog');
    const planName = `Plano Web ${Date.now()}`;
    await dialog.getByLabel('Nome', { exact: true }).fill(planName);
    await dialog.getByLabel('Valor').fill('49,9');
    await dialog.getByRole('button', { name: 'Salvar' }).click();
    const planRow = page.locator('tr', { hasText: planName });
    await planRow.waitFor();
    expect((await planRow.textContent())?.replace(/\s/g, ' ')).toContain('R$ 49,90');
    await ctx.close();
  });
});
