import { beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { NARROW, newContext, realtimeOpen, screenshot, signInUi, WIDE } from './support/browser.js';
import { browser, useBrowser, web } from './support/world.js';
import { endpoints, tenant, uniq } from './support/stack.js';
import { formatWhatsappNumber } from '../src/ui/phone.js';

// Issue 3 §5, first proof: a sandbox connection connected from the console, live, in Chromium.

let t: Awaited<ReturnType<typeof tenant>>;

useBrowser();
beforeAll(async () => {
  t = await tenant({ planOverrides: { connections: 2 } });
});

async function scan(id: number, body: Record<string, unknown> = {}): Promise<{ status: number; body: { number?: string } }> {
  const res = await fetch(`${endpoints().sandboxUrl}/connections/${id}/scan`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json().catch(() => ({}))) as { number?: string } };
}

const rowOf = (page: Page, name: string) => page.locator('tbody tr', { has: page.getByText(name, { exact: true }) });

/** Adds a sandbox connection from the page's dialog; its row once it waits for a QR scan. */
async function addSandboxConnection(page: Page, name: string) {
  await page.getByRole('button', { name: 'Adicionar conexão' }).click();
  const dialog = page.getByRole('dialog', { name: 'Adicionar conexão' });
  await dialog.getByLabel('Nome', { exact: true }).fill(name);
  await dialog.getByRole('combobox', { name: 'Provedor' }).selectOption('sandbox');
  await dialog.getByRole('button', { name: 'Salvar' }).click();
  const row = rowOf(page, name);
  await row.waitFor({ timeout: 15_000 });
  await expect.poll(() => row.getAttribute('data-status'), { timeout: 30_000 }).toBe('qrcode');
  return row;
}

describe('connections page', () => {
  // Retried while the users-dialog flake under full-suite load is investigated (see the issue
  // note): its last part reopens the users dialog and sometimes reads stale data.
  it('connects a sandbox connection: QR shown, scanned, CONNECTED live; edit, duplicate name, delete', { retry: 2, timeout: 180_000 }, async () => {
    const ctx = await newContext(browser);
    const page = await ctx.newPage();
    await signInUi(page, web(), t.admin.email, t.admin.password);
    await page.getByTestId('admin-section').getByRole('link', { name: 'Conexões' }).click();
    await page.getByRole('heading', { name: 'Conexões' }).waitFor();
    await page.getByText('Nenhum registro encontrado').waitFor();
    // No connection at all is not an alert (the badge needs every connection to be in trouble).
    await page.waitForTimeout(2500);
    expect(await page.getByTestId('connections-badge').count()).toBe(0);

    // Validation of the dialog (spec 000 §5: name 2-50).
    await page.getByRole('button', { name: 'Adicionar conexão' }).click();
    const dialog = page.getByRole('dialog', { name: 'Adicionar conexão' });
    await dialog.getByRole('button', { name: 'Salvar' }).click();
    await dialog.getByText('Obrigatório').waitFor();
    await dialog.getByLabel('Nome', { exact: true }).fill('A');
    await dialog.getByRole('button', { name: 'Salvar' }).click();
    await dialog.getByText('Muito curto!').waitFor();
    await dialog.getByLabel('Nome', { exact: true }).fill('x'.repeat(51));
    await dialog.getByRole('button', { name: 'Salvar' }).click();
    await dialog.getByText('Muito longo!').waitFor();

    const name = uniq('Loja ');
    await dialog.getByLabel('Nome', { exact: true }).fill(name);
    expect(await dialog.getByRole('combobox', { name: 'Provedor' }).inputValue()).toBe('beta');
    await dialog.getByRole('combobox', { name: 'Provedor' }).selectOption('sandbox');
    expect(await dialog.getByLabel('Máximo de envios do chatbot').inputValue()).toBe('3');
    // The server makes the token when the connection is saved; nobody types one.
    await dialog.getByRole('button', { name: 'Gerar token' }).click();
    await dialog.getByText('Um token será gerado ao salvar e mostrado uma única vez.').waitFor();
    // The plan has AI prompts and integrations (issue 19): their selectors are offered, with none made yet.
    await expect.poll(() => dialog.getByRole('combobox', { name: 'Prompt (Open.Ai)' }).locator('option').allTextContents(), { timeout: 10_000 }).toEqual(['Nenhum']);
    expect(await dialog.getByRole('combobox', { name: 'Prompt (Open.Ai)' }).isDisabled()).toBe(false);
    await screenshot(page, 'connection-dialog-token');
    await dialog.getByRole('button', { name: 'Salvar' }).click();
    await page.getByText('Conexão salva com sucesso.').waitFor();
    // Shown once, after the save, with a copy button.
    const reveal = page.getByTestId('token-reveal');
    await reveal.waitFor();
    expect(await reveal.getByLabel('Token da API').inputValue()).toMatch(/^[A-Za-z0-9_-]{43}$/);
    await reveal.getByText('Guarde este token agora: ele não será mostrado de novo.').waitFor();
    await screenshot(page, 'connection-token-reveal');
    await reveal.getByRole('button', { name: 'Fechar' }).click();
    await reveal.waitFor({ state: 'detached' });

    const row = rowOf(page, name);
    await row.waitFor();
    const id = Number((await row.getAttribute('data-testid'))!.replace('connection-row-', ''));
    expect(id).toBeGreaterThan(0);
    // The first connection is the company's default.
    await row.getByTestId('connection-default').waitFor();
    // The session host starts the session and shows a QR: the row follows live.
    await expect.poll(() => row.getAttribute('data-status'), { timeout: 30_000 }).toBe('qrcode');
    expect(await row.getByTestId('connection-status').textContent()).toBe('Aguardando QR code');
    // Every connection waits for a QR: the menu item carries the alert.
    await page.getByTestId('connections-badge').waitFor({ timeout: 10_000 });

    await row.getByRole('button', { name: 'QR CODE' }).click();
    const qr = page.getByTestId('qr-dialog');
    await qr.waitFor();
    await qr.getByTestId('qr-code').waitFor({ timeout: 15_000 });
    expect(await qr.locator('svg').first().isVisible()).toBe(true);
    for (const step of ['Abra o WhatsApp no seu celular.', 'Toque em Dispositivos conectados e depois em Conectar dispositivo.']) {
      await qr.getByText(step).waitFor();
    }
    expect(await qr.locator('ol > li').count()).toBe(4);
    await screenshot(page, 'connection-qr-light-wide');

    const scanned = await scan(id);
    expect(scanned.status, JSON.stringify(scanned.body)).toBe(200);
    // The dialog closes by itself, the row turns CONNECTED with the phone number, no reload.
    await qr.waitFor({ state: 'detached', timeout: 20_000 });
    await expect.poll(() => row.getAttribute('data-status'), { timeout: 20_000 }).toBe('CONNECTED');
    expect(await row.getByTestId('connection-status').textContent()).toBe('Conectado');
    if (scanned.body.number) {
      await expect.poll(() => row.getByTestId('connection-number').textContent(), { timeout: 10_000 }).toBe(formatWhatsappNumber(scanned.body.number));
    } else {
      await expect.poll(() => row.getByTestId('connection-number').textContent(), { timeout: 10_000 }).toMatch(/^\+\d+/);
    }
    await row.getByRole('button', { name: 'Desconectar' }).waitFor();
    expect(await row.textContent()).toMatch(/\d{2}\/\d{2}\/\d{2} \d{2}:\d{2}/);
    await page.getByTestId('connections-badge').waitFor({ state: 'detached', timeout: 10_000 });

    // Another context of the same admin would replace this session: the same page changes theme and size.
    let dark = false;
    for (const [scheme, size, viewport] of [
      ['light', 'wide', WIDE],
      ['light', 'narrow', NARROW],
      ['dark', 'narrow', NARROW],
      ['dark', 'wide', WIDE],
    ] as const) {
      if ((scheme === 'dark') !== dark) {
        await page.getByTestId('theme-toggle').click();
        dark = !dark;
      }
      await page.setViewportSize(viewport);
      await page.waitForTimeout(400);
      await screenshot(page, `connections-connected-${scheme}-${size}`);
      await page.getByRole('button', { name: 'Adicionar conexão' }).click();
      await page.getByRole('dialog', { name: 'Adicionar conexão' }).getByLabel('Nome', { exact: true }).waitFor();
      await screenshot(page, `connection-dialog-${scheme}-${size}`);
      await page.getByRole('dialog', { name: 'Adicionar conexão' }).getByRole('button', { name: 'Cancelar' }).click();
    }
    await page.getByTestId('theme-toggle').click();

    // Edit the name.
    const renamed = `${name} Centro`;
    await page.getByRole('button', { name: `Editar ${name}` }).click();
    const edit = page.getByRole('dialog', { name: 'Editar conexão' });
    await expect.poll(() => edit.getByLabel('Nome', { exact: true }).inputValue(), { timeout: 15_000 }).toBe(name);
    expect(await edit.getByRole('combobox', { name: 'Provedor' }).inputValue()).toBe('sandbox');
    await edit.getByText('Esta conexão já tem um token. Gere um novo para substituí-lo.').waitFor();
    await edit.getByLabel('Nome', { exact: true }).fill(renamed);
    await edit.getByRole('button', { name: 'Salvar' }).click();
    await page.getByText('Conexão salva com sucesso.').first().waitFor();
    const renamedRow = rowOf(page, renamed);
    await renamedRow.waitFor();
    expect(await renamedRow.getAttribute('data-status')).toBe('CONNECTED');

    // Disconnect (confirmed) → DISCONNECTED with Try again and New QR; New QR brings a QR back live.
    await renamedRow.getByRole('button', { name: 'Desconectar' }).click();
    await page.getByRole('dialog', { name: `Desconectar ${renamed}?` }).getByRole('button', { name: 'Confirmar' }).click();
    await expect.poll(() => renamedRow.getAttribute('data-status'), { timeout: 20_000 }).toBe('DISCONNECTED');
    await renamedRow.getByRole('button', { name: 'Tentar novamente' }).waitFor();
    await renamedRow.getByRole('button', { name: 'Novo QR CODE' }).click();
    await expect.poll(() => renamedRow.getAttribute('data-status'), { timeout: 30_000 }).toBe('qrcode');
    // The drawer stayed closed after the phone-size screenshots: the badge is there, not visible.
    await page.getByTestId('connections-badge').waitFor({ state: 'attached', timeout: 10_000 });
    // The QR dialog on a phone-sized screen, closed again by the scan.
    await page.setViewportSize(NARROW);
    await renamedRow.getByRole('button', { name: 'QR CODE' }).click();
    await qr.getByTestId('qr-code').waitFor({ timeout: 15_000 });
    await screenshot(page, 'connection-qr-light-narrow');
    expect((await scan(id)).status).toBe(200);
    await qr.waitFor({ state: 'detached', timeout: 20_000 });
    await expect.poll(() => renamedRow.getAttribute('data-status'), { timeout: 20_000 }).toBe('CONNECTED');
    await page.setViewportSize(WIDE);

    // The users dialog lists the connection as a default connection, and keeps it once saved.
    const adminName = t.admin.user.name as string;
    await page.goto(`${web()}/users`);
    await page.getByRole('button', { name: `Editar ${adminName}` }).click();
    const userDialog = page.getByRole('dialog', { name: 'Editar usuário' });
    const defaultConnection = userDialog.getByRole('combobox', { name: 'Conexão padrão' });
    await expect.poll(() => defaultConnection.isEnabled(), { timeout: 15_000 }).toBe(true);
    await defaultConnection.selectOption({ label: renamed });
    await userDialog.getByRole('button', { name: 'Salvar' }).click();
    await page.getByText('Usuário salvo com sucesso.').waitFor();
    await page.getByRole('button', { name: `Editar ${adminName}` }).click();
    await expect.poll(() => defaultConnection.inputValue(), { timeout: 15_000 }).toBe(String(id));
    await userDialog.getByRole('button', { name: 'Cancelar' }).click();
    await page.goto(`${web()}/connections`);
    await renamedRow.waitFor();

    // A second connection with the same name: the server's 409 lands under the name field.
    await page.getByRole('button', { name: 'Adicionar conexão' }).click();
    const dup = page.getByRole('dialog', { name: 'Adicionar conexão' });
    await dup.getByLabel('Nome', { exact: true }).fill(renamed.toUpperCase());
    await dup.getByRole('combobox', { name: 'Provedor' }).selectOption('sandbox');
    await dup.getByRole('button', { name: 'Salvar' }).click();
    await dup.locator('.amplify-field__error-message', { hasText: 'Já existe uma conexão com esse nome' }).waitFor();
    await screenshot(page, 'connection-dialog-duplicate');
    await dup.getByRole('button', { name: 'Cancelar' }).click();

    // Delete, with the spec's confirmation.
    await page.getByRole('button', { name: `Excluir ${renamed}` }).click();
    await page.getByText('Deseja realmente excluir esse registro?').waitFor();
    await page.getByRole('button', { name: 'Confirmar' }).click();
    await page.getByText('Conexão excluída com sucesso.').waitFor();
    await expect.poll(() => renamedRow.count(), { timeout: 10_000 }).toBe(0);
    await ctx.close();
  });

  it('keeps the QR dialog open across a socket reconnect (the list comes again without QR codes)', { timeout: 120_000 }, async () => {
    const ctx = await newContext(browser);
    const page = await ctx.newPage();
    const sockets: { close: () => Promise<void> }[] = [];
    await page.routeWebSocket(
      (url) => url.toString().startsWith(endpoints().wsUrl),
      (ws) => {
        ws.connectToServer();
        sockets.push(ws);
      },
    );
    await signInUi(page, web(), t.admin.email, t.admin.password, '/connections');
    await page.getByRole('heading', { name: 'Conexões' }).waitFor();
    const name = uniq('Religar ');
    const row = await addSandboxConnection(page, name);
    await row.getByRole('button', { name: 'QR CODE' }).click();
    const qr = page.getByTestId('qr-dialog');
    await qr.getByTestId('qr-code').waitFor({ timeout: 15_000 });

    // The socket drops and opens again: the page reads its list again, the dialog its connection.
    await realtimeOpen(page, 15_000);
    const opened = sockets.length;
    await sockets[opened - 1].close();
    await expect.poll(() => sockets.length, { timeout: 20_000 }).toBeGreaterThan(opened);
    await realtimeOpen(page, 15_000);
    await page.waitForTimeout(1_500);
    expect(await qr.getByTestId('qr-code').count()).toBe(1);
    expect(await row.getAttribute('data-status')).toBe('qrcode');

    await page.keyboard.press('Escape');
    await qr.waitFor({ state: 'detached', timeout: 10_000 });
    await page.getByRole('button', { name: `Excluir ${name}` }).click();
    await page.getByRole('button', { name: 'Confirmar' }).click();
    await expect.poll(() => row.count(), { timeout: 10_000 }).toBe(0);
    await ctx.close();
  });

  it('links with a pairing code instead of the QR', async () => {
    const ctx = await newContext(browser);
    const page = await ctx.newPage();
    await signInUi(page, web(), t.admin.email, t.admin.password, '/connections');
    await page.getByRole('heading', { name: 'Conexões' }).waitFor();
    const name = uniq('Pareamento ');
    const row = await addSandboxConnection(page, name);
    const id = Number((await row.getAttribute('data-testid'))!.replace('connection-row-', ''));

    await row.getByRole('button', { name: 'QR CODE' }).click();
    const qr = page.getByTestId('qr-dialog');
    await qr.getByTestId('qr-code').waitFor({ timeout: 15_000 });
    await qr.getByRole('button', { name: 'Conectar com número de telefone' }).click();
    const phone = qr.getByLabel('Número do WhatsApp (com código do país e DDD)');
    await phone.fill('123');
    await qr.getByRole('button', { name: 'Gerar código' }).click();
    await qr.getByText('Número inválido').waitFor({ timeout: 15_000 });
    await phone.fill('55 11 98765-0000');
    await qr.getByRole('button', { name: 'Gerar código' }).click();
    // The same dialog follows the session into PAIRING and shows the code; the phone types it.
    await expect.poll(() => row.getAttribute('data-status'), { timeout: 30_000 }).toBe('PAIRING');
    await page.getByRole('dialog', { name: `Código de pareamento: ${name}` }).waitFor();
    const code = (await qr.getByTestId('pairing-code').textContent())!;
    expect(code).toMatch(/^[A-Z0-9]{8}$/);
    await screenshot(page, 'connection-pairing-light-wide');
    expect((await scan(id, { code: 'WRONG123' })).status).toBe(400);
    const scanned = await scan(id, { code });
    expect(scanned.status, JSON.stringify(scanned.body)).toBe(200);
    await qr.waitFor({ state: 'detached', timeout: 20_000 });
    await expect.poll(() => row.getAttribute('data-status'), { timeout: 20_000 }).toBe('CONNECTED');
    await expect.poll(() => row.getByTestId('connection-number').textContent(), { timeout: 10_000 }).toBe('+55 (11) 98765-0000');

    await page.getByRole('button', { name: `Excluir ${name}` }).click();
    await page.getByRole('button', { name: 'Confirmar' }).click();
    await expect.poll(() => row.count(), { timeout: 10_000 }).toBe(0);
    await ctx.close();
  }, 120_000);
});
