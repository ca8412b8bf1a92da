import { describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { DEFAULT_TIME_ZONE, advanceDueDate, formatDateBR, invoiceOpensAt } from '@balcao/shared';
import { applyStackEnv, endpoints, member, PASSWORD, superUser, tenant, uniq } from '../../functions/test/integration/client.js';
import { NARROW, WIDE, closeWatched, realtimeOpen, screenshot, watchText, watchedPage } from './support/browser.js';
import { browser, useBrowser, web } from './support/world.js';

// Issue 22 §2-§3 (console): an invoice opened by the job at an injected date, paid from
// `/financeiro` through the checkout and the sandbox provider (which calls the webhook as Asaas
// would): the toast, the way home after 4 s and the company's new due date; `/subscription`; the
// super user's company filter.

useBrowser();

const DAY = 86_400_000;
const ZONE = DEFAULT_TIME_ZONE;
/** BRL in pt-BR (the space after R$ is a no-break space). */
const brl = (v: number) => new Intl.NumberFormat('pt-BR', { style: 'currency', currency: 'BRL' }).format(v);

let billing: typeof import('../../functions/src/services/billing.js');
async function services() {
  applyStackEnv();
  await import('../../functions/src/core/aws-ports.js');
  billing ??= await import('../../functions/src/services/billing.js');
  return billing;
}

/**
 * A tenant (plan value `value`) due 11 days and a bit from now: beyond the invoice window at the
 * stack's own clock, so only the test's sweep at the injected date (the window's start) opens it.
 * Answers the tenant, its due date, and a second admin for the browser (a browser sign-in would end
 * the tenant admin's API session).
 */
async function dueTenant(value = 49.9) {
  const t = await tenant({ value });
  const due = new Date(Date.now() + 11 * DAY + 3_600_000).toISOString();
  const sup = await superUser();
  expect((await sup.put(`/companies/${t.companyId}`, { dueDate: due, recurrence: 'MENSAL' })).status).toBe(200);
  const ana = await member(t.admin, { name: 'Ana Financeiro', profile: 'admin' });
  return { t, due, ana };
}

/**
 * The job, run with the clock at the invoice window's start for `due`: answers the invoice it opened
 * (a company due the same day may have had its invoice opened by an earlier test's sweep).
 */
async function openInvoiceAt(t: Awaited<ReturnType<typeof tenant>>, due: string) {
  const { sweepInvoices } = await services();
  await sweepInvoices(invoiceOpensAt(due) + 60_000);
  const list = await t.admin.get('/invoices/all?pageNumber=1');
  expect(list.body.invoices).toMatchObject([{ dueDate: due, status: 'open' }]);
  return list.body.invoices[0] as { id: number; value: number; detail: string; dueDate: string };
}

const payInSandbox = async (chargeId: string): Promise<any> =>
  (await fetch(`${endpoints().sandboxUrl}/payments/${encodeURIComponent(chargeId)}/pay`, { method: 'POST' })).json();

/** Walks the checkout's three steps with a valid address (after one validation message) and pays: answers the charge id. */
async function checkout(page: Page, shots: string) {
  const d = page.getByRole('dialog');
  await d.getByRole('heading', { name: 'Pagamento' }).waitFor();
  const steps = d.locator('.checkout-steps li');
  expect(await steps.allTextContents()).toEqual(['Dados', 'Personalizar', 'Revisar']);
  expect(await steps.nth(0).getAttribute('aria-current')).toBe('step');
  // The address rules of 003 §5: nothing typed names each required field; the city alone missing.
  await d.getByTestId('checkout-next').click();
  await d.getByText('O nome completo é obrigatório').waitFor();
  await d.getByText('O Endereço é obrigatório').waitFor();
  await d.getByLabel('Nome completo').fill('Ana Souza');
  await d.getByLabel('Endereço').fill('Rua das Flores, 10');
  await d.getByLabel('CEP').fill('01000-000');
  await d.getByTestId('checkout-next').click();
  await d.getByText('Cidade é obrigatória').waitFor();
  expect(await d.getByText('O nome completo é obrigatório').count()).toBe(0);
  await screenshot(page, `${shots}-checkout-data`);
  await d.getByLabel('Cidade').fill('São Paulo');
  await d.getByLabel('Estado').fill('SP');
  expect(await d.getByLabel('País').locator('option').allTextContents()).toEqual(['Brasil', 'United States']);
  await d.getByTestId('checkout-next').click();
  await d.getByTestId('checkout-plan').waitFor();
  expect(await steps.nth(1).getAttribute('aria-current')).toBe('step');
  await d.getByTestId('checkout-next').click();
  const review = d.getByTestId('checkout-review');
  await review.waitFor();
  expect(await review.textContent()).toContain('Ana Souza — Rua das Flores, 10, São Paulo SP 01000-000, Brasil');
  await screenshot(page, `${shots}-checkout-review`);

  const answered = page.waitForResponse((r) => new URL(r.url()).pathname === '/subscription' && r.request().method() === 'POST');
  const subscribed = await watchText(page, 'Assinatura realizada com sucesso!, aguardando a realização do pagamento');
  await d.getByTestId('checkout-pay').click();
  const res = await answered;
  expect(res.status()).toBe(200);
  await subscribed();
  const qr = d.getByTestId('checkout-qr');
  await qr.waitFor();
  const box = await qr.boundingBox();
  expect([box?.width, box?.height]).toEqual([256, 256]);
  return { d, chargeId: ((await res.json()) as { chargeId: string }).chargeId };
}

describe('billing pages', () => {
  it('an invoice opened by the job is paid from /financeiro: checkout, Pix QR, the sandbox pays, the toast, home after 4 s, the new due date', { timeout: 240_000 }, async () => {
    const { t, due, ana } = await dueTenant(49.9);
    // Nothing before the window (the stack's own sweeper runs at the real clock); the job at the window's start opens it.
    expect((await t.admin.get('/invoices/all?pageNumber=1')).body).toMatchObject({ invoices: [], hasMore: false });
    const invoice = await openInvoiceAt(t, due);
    expect(invoice).toMatchObject({ value: 49.9 });

    const page = await watchedPage(browser, web(), { email: ana.email, password: PASSWORD }, { viewport: WIDE });
    await page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: web() });
    await page.getByRole('navigation', { name: 'menu' }).getByRole('link', { name: 'Financeiro' }).click();
    await page.waitForURL((u) => u.pathname === '/financeiro');
    const row = page.getByTestId(`invoice-row-${invoice.id}`);
    await row.waitFor();
    expect(await row.getAttribute('data-state')).toBe('open');
    expect(await row.locator('td').allTextContents()).toEqual([String(invoice.id), invoice.detail, brl(49.9), formatDateBR(due, ZONE), 'Em Aberto', 'Pagar']);
    expect(await page.locator('.financeiro th').allTextContents()).toEqual(['Nº', 'Detalhes', 'Valor', 'Vencimento', 'Status', 'Ação']);
    await screenshot(page, 'billing-financeiro-light-wide');

    await row.getByRole('button', { name: 'Pagar' }).click();
    const { d, chargeId } = await checkout(page, 'billing-light-wide');
    expect(await d.getByTestId('checkout-amount').textContent()).toBe(`Valor: ${brl(49.9)}`);
    const code = (await d.getByTestId('checkout-pix-code').textContent()) ?? '';
    expect(code).toMatch(/^000201/);
    await d.getByTestId('checkout-copy').click();
    await page.getByText('Código copiado').waitFor();
    expect(await page.evaluate('navigator.clipboard.readText()')).toBe(code);
    await screenshot(page, 'billing-checkout-qr-light-wide');

    // The sandbox pays: it calls the webhook as Asaas would; the console hears `payment` CONCLUIDA.
    await realtimeOpen(page);
    const newDue = advanceDueDate(due, 'MENSAL');
    const renewed = await watchText(page, `Licença renovada com sucesso até ${formatDateBR(newDue, ZONE)}!`);
    const paid = await payInSandbox(chargeId);
    expect(paid).toMatchObject({ status: 'RECEIVED', webhook: { status: 200, body: { status: 'paid' } } });
    await renewed();
    const seenAt = Date.now();
    await screenshot(page, 'billing-renewed-light-wide');
    await page.waitForURL((u) => u.pathname === '/', { timeout: 20_000 });
    // Home after the 4 s of the toast (less the time the screenshot took after the toast showed).
    expect(Date.now() - seenAt).toBeGreaterThan(2_500);

    const sup = await superUser();
    expect((await sup.get(`/companies/${t.companyId}`)).body).toMatchObject({ dueDate: newDue, status: true });
    expect((await t.admin.get(`/invoices/${invoice.id}`)).body).toMatchObject({ status: 'paid' });
    // Back on the page: Pago, no Pay button.
    await page.goto(`${web()}/financeiro`);
    await row.waitFor();
    expect(await row.getAttribute('data-state')).toBe('paid');
    expect(await row.getByRole('button', { name: 'Pagar' }).count()).toBe(0);
    await closeWatched(page);
  });

  it('/subscription shows the trial days left and the billing e-mail, and subscribes into the checkout (dark, narrow)', { timeout: 180_000 }, async () => {
    const { t, due, ana } = await dueTenant(120);
    const invoice = await openInvoiceAt(t, due);
    // A trial ending in 4 days and a bit: 5 days left, rounded up.
    const { updateItem } = await import('../../functions/src/core/db.js');
    const { keys } = await import('../../functions/src/table/keys.js');
    await updateItem(keys.company(t.companyId), { trialExpiration: new Date(Date.now() + 4 * DAY + 3 * 3_600_000).toISOString() });

    const page = await watchedPage(browser, web(), { email: ana.email, password: PASSWORD }, { viewport: NARROW, colorScheme: 'dark' });
    await page.goto(`${web()}/subscription`);
    const card = page.getByTestId('subscription');
    await card.getByRole('heading', { name: 'Assinatura' }).waitFor();
    expect(await card.getByTestId('trial-days').textContent()).toBe('Teste grátis: 5 dia(s) restante(s)');
    await card.getByText(`E-mail de cobrança: ${t.email}`).waitFor();
    const subscribe = card.getByTestId('subscribe');
    await expect.poll(() => subscribe.isEnabled()).toBe(true);
    await screenshot(page, 'billing-subscription-dark-narrow');
    await subscribe.click();
    const { d } = await checkout(page, 'billing-dark-narrow');
    expect(await d.getByTestId('checkout-amount').textContent()).toBe(`Valor: ${brl(120)}`);
    await screenshot(page, 'billing-checkout-qr-dark-narrow');
    // Nothing overflows the narrow dialog sideways.
    const overflow = await d.evaluate((el) => el.scrollWidth - el.clientWidth);
    expect(overflow).toBeLessThanOrEqual(0);
    await d.getByRole('button', { name: 'Fechar' }).first().click();
    // The list shows it too, still open, in the narrow dark page.
    await page.goto(`${web()}/financeiro`);
    const row = page.getByTestId(`invoice-row-${invoice.id}`);
    await row.waitFor();
    // Narrow: the status folds under the due date and Pay stays within the screen.
    const payBox = await row.getByRole('button', { name: 'Pagar' }).boundingBox();
    expect((payBox?.x ?? 0) + (payBox?.width ?? 0)).toBeLessThanOrEqual(NARROW.width);
    expect(await page.evaluate('document.scrollingElement.scrollWidth')).toBeLessThanOrEqual(NARROW.width);
    await screenshot(page, 'billing-financeiro-dark-narrow');
    await closeWatched(page);
  });

  it("the super user sees every company's invoices and narrows them to one company", { timeout: 180_000 }, async () => {
    const a = await dueTenant(10);
    const b = await dueTenant(20);
    const invA = await openInvoiceAt(a.t, a.due);
    const invB = await openInvoiceAt(b.t, b.due);
    // A super user of this test's own for the browser (its sign-in would end another's API session).
    await services();
    const { createUser } = await import('../../functions/src/services/users.js');
    const { getItem } = await import('../../functions/src/core/db.js');
    const { keys } = await import('../../functions/src/table/keys.js');
    const seeded = await getItem<{ companyId: number }>(keys.uniqueEmail(endpoints().admin.email));
    const email = `${uniq('websuper')}@balcao.test`;
    await createUser(seeded!.companyId, { name: 'Super Financeiro', email, password: PASSWORD, profile: 'admin' }, [], { isSuper: true, skipLimit: true });

    const page = await watchedPage(browser, web(), { email, password: PASSWORD }, { viewport: WIDE });
    await page.goto(`${web()}/financeiro`);
    await page.getByTestId(`invoice-row-${invA.id}`).waitFor();
    expect(await page.locator('.financeiro th').allTextContents()).toEqual(['Nº', 'Empresa', 'Detalhes', 'Valor', 'Vencimento', 'Status', 'Ação']);
    await page.getByTestId(`invoice-row-${invB.id}`).waitFor();
    const companyName = (await (await superUser()).get(`/companies/${a.t.companyId}`)).body.name as string;
    expect(await page.getByTestId(`invoice-row-${invA.id}`).locator('td').nth(1).textContent()).toBe(companyName);
    await page.getByRole('combobox', { name: 'Empresa' }).selectOption(String(a.t.companyId));
    await expect.poll(() => page.getByTestId(`invoice-row-${invB.id}`).count()).toBe(0);
    await page.getByTestId(`invoice-row-${invA.id}`).waitFor();
    expect(await page.locator('.financeiro tbody tr').count()).toBe(1);
    await screenshot(page, 'billing-financeiro-super-filter-light-wide');
    await closeWatched(page);
  });
});
