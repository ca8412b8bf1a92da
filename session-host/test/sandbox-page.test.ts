import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromium, type Browser } from 'playwright-core';
import { newWaMessageId } from '@balcao/shared';
import { memoryContext, ofType, session, sessions, startNetwork, tempDir, waitFor } from './sandbox-helpers.js';

/** The simulator page in Debian's Chromium, playing a customer against a real provider session. */

function chromiumPath(): string {
  const found = [process.env.CHROMIUM_PATH, '/usr/bin/chromium', '/usr/bin/chromium-browser'].find((p) => p && fs.existsSync(p));
  if (!found) throw new Error('Chromium not found: apt-get install -y chromium (or set CHROMIUM_PATH)');
  return found;
}

describe('sandbox simulator page', () => {
  let dir: string;
  let net: Awaited<ReturnType<typeof startNetwork>>;
  let browser: Browser;

  beforeAll(async () => {
    dir = tempDir();
    net = await startNetwork(dir, { qrIntervalMs: 60_000 });
    browser = await chromium.launch({ executablePath: chromiumPath(), headless: true, args: ['--no-sandbox', '--disable-gpu'] });
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await net?.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('scans, chats with an attachment, shows our reply read, calls and drops the link', async () => {
    const mem = memoryContext(31);
    const s = session(net.url, mem.ctx);
    await s.start();
    const page = await browser.newPage({ viewport: { width: 1300, height: 800 } });
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    try {
      await page.goto(`${net.url}/?conexao=31`);
      await page.locator('#qr img').waitFor();
      expect(await page.locator('#situacao').textContent()).toBe('Aguardando leitura do QR');
      await page.getByRole('button', { name: 'Escanear QR' }).click();
      await waitFor(() => s.connected, 'CONNECTED');
      await page.locator('#situacao', { hasText: 'Vinculada' }).waitFor();

      await page.getByPlaceholder('Número do cliente (com DDI)').fill('5511987654321');
      await page.getByPlaceholder('Nome do cliente').fill('Maria');
      await page.getByRole('button', { name: 'Abrir conversa' }).click();
      await page.getByPlaceholder('Mensagem do cliente').fill('Segue a foto');
      await page.locator('#anexo').setInputFiles({ name: 'foto.png', mimeType: 'image/png', buffer: Buffer.from('89504e470d0a1a0a', 'hex') });
      await page.getByRole('button', { name: 'Enviar', exact: true }).click();
      const msg = await waitFor(() => ofType(mem.events, 'message')[0], 'the customer message');
      expect(msg).toMatchObject({ chat: { number: '5511987654321', name: 'Maria' }, body: 'Segue a foto', mediaType: 'image', media: { fileName: 'foto.png', size: 8 } });

      // Our reply, quoting the customer: the open conversation confirms delivery and reading.
      const id = newWaMessageId();
      await s.send({ v: 1, type: 'send', commandId: 'c1', companyId: 1, connectionId: 31, ticketId: 1, waMessageId: id, to: { number: '5511987654321' }, body: 'Recebido, obrigado!', quotedWaId: msg.waMessageId });
      await page.locator('#mensagens').getByText('Recebido, obrigado!').waitFor();
      await waitFor(() => ofType(mem.events, 'ack').some((a) => a.ack === 4 && a.waMessageIds.includes(id)), 'read receipt');
      await page.locator('.msg .lida').waitFor();

      await page.getByRole('button', { name: /Ligar/ }).click();
      await waitFor(() => ofType(mem.events, 'call')[0], 'the call');

      await page.getByRole('button', { name: 'Queda de conexão' }).click();
      await waitFor(() => sessions(mem.events).filter((e) => e.status === 'CONNECTED').length === 2, 'reconnected');
      expect(errors).toEqual([]);
    } finally {
      await page.close();
      await s.stop();
    }
  }, 60_000);
});
