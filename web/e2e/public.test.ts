import { describe, expect, it } from 'vitest';
import { NARROW, newContext, screenshot, signInUi } from './support/browser.js';
import { browser, useBrowser, web } from './support/world.js';
import { tenant, uniq } from './support/stack.js';
import { api, waitForMail } from '../../infra/test/support/index.js';

useBrowser();

describe('public pages', () => {
  it('signs a company up, then signs in with the new account', async () => {
    const ctx = await newContext(browser);
    const page = await ctx.newPage();
    await page.goto(`${web()}/signup`);
    const name = uniq('Loja ');
    const email = `${uniq('dono')}@loja.test`;
    await page.getByLabel('Nome da empresa').fill(name);
    await page.getByLabel('Email', { exact: true }).fill(email);
    await page.getByLabel('Telefone com (DDD)').pressSequentially('11987654321');
    expect(await page.getByLabel('Telefone com (DDD)').inputValue()).toBe('(11) 98765-4321');
    await page.getByLabel('Senha', { exact: true }).fill('Curta');
    const plan = page.getByRole('combobox', { name: 'Plano' });
    await expect.poll(() => plan.locator('option').count()).toBeGreaterThan(1);
    await plan.selectOption({ index: 1 });
    await page.getByRole('button', { name: 'Cadastrar' }).click();
    await page.getByText('A senha deve ter no mínimo 8 caracteres, com letra maiúscula, letra minúscula e número').waitFor();
    await screenshot(page, 'signup-validation');
    await page.getByLabel('Senha', { exact: true }).fill('Senha1234');
    await page.getByRole('button', { name: 'Cadastrar' }).click();
    await page.waitForURL(/\/login$/, { timeout: 20_000 });
    await page.getByText('Empresa cadastrada com sucesso! Faça login para começar.').waitFor();
    await signInUi(page, web(), email, 'Senha1234');
    expect(await page.getByTestId('greeting').textContent()).toContain(name);
    await ctx.close();
  });

  it('resets a forgotten password with the e-mailed code, then signs in with it', async () => {
    const t = await tenant();
    const ctx = await newContext(browser, { viewport: NARROW });
    const page = await ctx.newPage();
    await page.goto(`${web()}/login`);
    await page.getByRole('link', { name: 'Esqueceu a senha?' }).click();
    await page.waitForURL(/\/forgetpsw$/);
    // The route is code-split: the login form (which also has an Email field) stays on screen until
    // the new page has loaded, so wait for the new page's own button before typing.
    await page.getByRole('button', { name: 'Enviar Email' }).waitFor();
    await page.getByLabel('Email', { exact: true }).fill('nao-existe@nada.test');
    await page.getByRole('button', { name: 'Enviar Email' }).click();
    await page.getByText('Email não encontrado').waitFor();

    const since = Date.now();
    await page.getByLabel('Email', { exact: true }).fill(t.admin.email);
    await page.getByRole('button', { name: 'Enviar Email' }).click();
    await page.getByText('Email enviado com sucesso!').waitFor();
    const mail = await waitForMail(t.admin.email, since);

    // A wrong code is refused under its field (the API answers; five wrong codes would kill it).
    await page.getByLabel('Código de verificação').fill(mail.code === '000000' ? '111111' : '000000');
    await page.getByLabel('Nova senha', { exact: true }).fill('Nova1234');
    await page.getByLabel('Confirme a senha', { exact: true }).fill('Nova1234');
    await page.getByRole('button', { name: 'Redefinir Senha' }).click();
    await page.getByText('Código de verificação inválido ou expirado.').waitFor();

    await page.getByLabel('Código de verificação').fill(mail.code);
    await page.getByLabel('Nova senha', { exact: true }).fill('Nova1234');
    await page.getByLabel('Confirme a senha', { exact: true }).fill('Outra1234');
    await page.getByRole('button', { name: 'Redefinir Senha' }).click();
    await page.getByText('As senhas não correspondem').waitFor();
    await page.getByLabel('Nova senha', { exact: true }).fill('fraca');
    await page.getByLabel('Confirme a senha', { exact: true }).fill('fraca');
    await page.getByRole('button', { name: 'Redefinir Senha' }).click();
    await page.getByText('A senha deve ter no mínimo 8 caracteres, com letra maiúscula, letra minúscula e número').waitFor();
    await screenshot(page, 'forgetpsw-step2-light-narrow');

    await page.getByLabel('Nova senha', { exact: true }).fill('Nova1234');
    await page.getByLabel('Confirme a senha', { exact: true }).fill('Nova1234');
    await page.getByRole('button', { name: 'Redefinir Senha' }).click();
    await page.waitForURL(/\/login$/, { timeout: 20_000 });
    await page.getByText('Senha redefinida com sucesso.').waitFor();
    // The session signed in with the old password is over (issue 16 §5).
    expect((await api(t.admin.token).get('/auth/me')).status).toBe(401);
    await signInUi(page, web(), t.admin.email, 'Nova1234');
    await ctx.close();
  });
});
