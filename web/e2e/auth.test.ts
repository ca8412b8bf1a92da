import { beforeAll, describe, expect, it } from 'vitest';
import { newContext, screenshot, signInUi, watchText } from './support/browser.js';
import { browser, useBrowser, web } from './support/world.js';
import { endpoints, login, ownSuperUser, tenant } from './support/stack.js';

let t: Awaited<ReturnType<typeof tenant>>;

useBrowser();
beforeAll(async () => {
  t = await tenant();
});

describe('sign-in', () => {
  it('signs in and greets with the company name and id, admins see the active-until date', async () => {
    const ctx = await newContext(browser);
    const page = await ctx.newPage();
    await signInUi(page, web(), t.admin.email, t.admin.password);
    const greeting = await page.getByTestId('greeting').textContent();
    expect(greeting).toContain(t.company.name);
    expect(greeting).toContain(`ID ${t.companyId}`);
    expect(await page.getByTestId('active-until').textContent()).toMatch(/\d{2}\/\d{2}\/\d{4}/);
    expect(await page.title()).toBe('Balcão');
    await page.getByRole('button', { name: 'Menu do usuário' }).click();
    await page.getByRole('menuitem', { name: 'Sair' }).click();
    await page.waitForURL(/\/login$/);
    await page.goto(`${web()}/`);
    await page.waitForURL(/\/login$/);
    await ctx.close();
  });

  it('warns after sign-in when fewer than 5 days remain before the due date', async () => {
    const near = await tenant({ dueInDays: 3 });
    const ctx = await newContext(browser);
    const page = await ctx.newPage();
    await signInUi(page, web(), near.admin.email, near.admin.password);
    await page.getByText(/Sua assinatura vence em \d{2}\/\d{2}\/\d{4}/).waitFor();
    await ctx.close();
  });

  it('refuses a blocked company and a past-due subscription with the spec messages', async () => {
    const sup = await ownSuperUser();
    const blocked = await tenant();
    expect((await sup.api.put(`/companies/${blocked.companyId}`, { status: false })).status).toBe(200);
    const late = await tenant({ dueInDays: -1 });
    const ctx = await newContext(browser);
    const page = await ctx.newPage();
    for (const [who, text] of [
      [blocked, /Sistema bloqueado, entre em contato com o suporte/],
      [late, /Opss! Sua assinatura venceu \d{2}\/\d{2}\/\d{4}/],
    ] as const) {
      await page.goto(`${web()}/login`);
      await page.getByLabel('Email', { exact: true }).fill(who.admin.email);
      await page.getByLabel('Senha', { exact: true }).fill(who.admin.password);
      await page.getByRole('button', { name: 'Entrar' }).click();
      await expect.poll(() => page.getByTestId('login-error').textContent(), { timeout: 15_000 }).toMatch(text);
      expect(new URL(page.url()).pathname).toBe('/login');
    }
    await ctx.close();
  });

  it('shows the spec message for a wrong password', async () => {
    const ctx = await newContext(browser);
    const page = await ctx.newPage();
    await page.goto(`${web()}/login`);
    await page.getByLabel('Email', { exact: true }).fill(t.admin.email);
    await page.getByLabel('Senha', { exact: true }).fill('Errada123');
    await page.getByRole('button', { name: 'Entrar' }).click();
    await expect.poll(() => page.getByTestId('login-error').textContent(), { timeout: 15_000 }).toBe('Email ou senha incorreta!');
    expect(new URL(page.url()).pathname).toBe('/login');
    await screenshot(page, 'login-wrong-password');
    await ctx.close();
  });

  it('returns to the requested page after sign-in, and public pages send a signed-in user home', async () => {
    const ctx = await newContext(browser);
    const page = await ctx.newPage();
    await page.goto(`${web()}/users`);
    await page.waitForURL(/\/login$/);
    await page.getByLabel('Email', { exact: true }).fill(t.admin.email);
    await page.getByLabel('Senha', { exact: true }).fill(t.admin.password);
    await page.getByRole('button', { name: 'Entrar' }).click();
    await page.waitForURL(/\/users$/, { timeout: 20_000 });
    await page.getByRole('heading', { name: 'Usuários' }).waitFor();
    await page.goto(`${web()}/signup`);
    await page.waitForURL((u) => u.pathname === '/');
    await ctx.close();
  });

  it('keeps the theme and the language across a reload', async () => {
    const ctx = await newContext(browser, { colorScheme: 'light' });
    const page = await ctx.newPage();
    await signInUi(page, web(), t.admin.email, t.admin.password);
    const mode = () => page.locator('[data-amplify-color-mode]').first().getAttribute('data-amplify-color-mode');
    expect(await mode()).toBe('light');
    await page.getByTestId('theme-toggle').click();
    expect(await mode()).toBe('dark');
    await page.getByRole('combobox', { name: 'Idioma' }).selectOption('en');
    await page.locator('nav.drawer').getByRole('link', { name: 'Users' }).waitFor();
    await page.reload();
    await page.getByTestId('greeting').waitFor();
    expect(await mode()).toBe('dark');
    await page.locator('nav.drawer').getByRole('link', { name: 'Users' }).waitFor();
    expect(await page.evaluate(() => [localStorage.getItem('preferredTheme'), localStorage.getItem('language')])).toEqual(['dark', 'en']);
    // Back to Portuguese so screenshots elsewhere stay in the default language.
    await page.getByRole('combobox', { name: 'Language' }).selectOption('pt');
    await page.locator('nav.drawer').getByRole('link', { name: 'Usuários' }).waitFor();
    await ctx.close();
  });

  it('follows the system colour scheme when nothing is saved', async () => {
    const ctx = await newContext(browser, { colorScheme: 'dark' });
    const page = await ctx.newPage();
    await page.goto(`${web()}/login`);
    await page.getByRole('button', { name: 'Entrar' }).waitFor();
    expect(await page.locator('[data-amplify-color-mode]').first().getAttribute('data-amplify-color-mode')).toBe('dark');
    await ctx.close();
  });

  it('kicks the older session out when the same user signs in elsewhere', async () => {
    const a = await newContext(browser);
    const b = await newContext(browser);
    const pageA = await a.newPage();
    const kickedOut = await watchText(pageA, 'Sua conta foi acessada em outro computador.');
    // A's socket must be registered (its first frame, the status heartbeat, follows the open) before B signs in, so the auth event has somewhere to go.
    const joined = new Promise<void>((resolve) =>
      pageA.on('websocket', (ws) => ws.on('framesent', (f) => String(f.payload).includes('userStatus') && resolve())),
    );
    await signInUi(pageA, web(), t.admin.email, t.admin.password);
    await joined;
    await pageA.waitForTimeout(300);

    const pageB = await b.newPage();
    await signInUi(pageB, web(), t.admin.email, t.admin.password);

    // The toast lives 1 s before the reload (spec 000 §4): watched as it appears, not polled.
    await kickedOut();
    await pageA.waitForURL(/\/login$/, { timeout: 30_000 });
    // B keeps working.
    await pageB.goto(`${web()}/users`);
    await pageB.getByRole('heading', { name: 'Usuários' }).waitFor();
    await a.close();
    await b.close();
  });

  it('a request refused because another sign-in took over says so too, when the event is lost', async () => {
    const ctx = await newContext(browser);
    const page = await ctx.newPage();
    const kickedOut = await watchText(page, 'Sua conta foi acessada em outro computador.');
    // The socket hears nothing about the other sign-in (its auth event lost or late).
    await page.routeWebSocket(
      (url) => url.toString().startsWith(endpoints().wsUrl),
      (ws) => {
        const server = ws.connectToServer();
        server.onMessage((m) => !String(m).includes('-auth"') && ws.send(m));
      },
    );
    await signInUi(page, web(), t.admin.email, t.admin.password);
    // Another computer signs in (the console's own two steps, through the API).
    await login(t.admin.email, t.admin.password);
    // The next request of this console is refused (401 ERR_SESSION_EXPIRED).
    await page.getByRole('navigation', { name: 'menu' }).getByRole('link', { name: 'Contatos', exact: true }).click();
    await kickedOut();
    await page.waitForURL(/\/login$/, { timeout: 15_000 });
    await ctx.close();
  });
});
