import { describe, expect, it } from 'vitest';
import { launch, newContext, screenshot } from '../../../web/e2e/support/browser.js';
import { endpoints } from './client.js';
import { PDF, PNG, conversation, upload, wav } from './messages-helpers.js';

describe('the simulated phone shows what the agent sent', () => {
  it('pictures, voice notes, documents, contact cards, edits, deletes and reactions', async () => {
    const t = await conversation('5511976545001', 'Rita Melo');
    const send = async (b: unknown) => {
      const r = await t.admin.post(`/messages/${t.ticketId}`, b);
      expect(r.status, JSON.stringify(r.body)).toBe(201);
      return r.body;
    };
    const image = await send({ medias: [{ key: await upload(t.admin, t.ticketId, 'loja.png', 'image/png', PNG), name: 'loja.png', caption: 'Nossa loja' }] });
    const voice = await send({ medias: [{ key: await upload(t.admin, t.ticketId, 'voz.wav', 'audio/wav', wav()), name: 'voz.wav', ptt: true }] });
    const doc = await send({ medias: [{ key: await upload(t.admin, t.ticketId, 'proposta.pdf', 'application/pdf', PDF), name: 'proposta.pdf' }] });
    const card = await send({ contacts: [{ name: 'Ana Souza', number: '5511987650000' }] });
    const edited = await send({ body: 'Chegamos às 10h' });
    const gone = await send({ body: 'Mensagem errada' });
    for (const m of [image, voice, doc, card, edited, gone]) await t.onPhone((x) => x.id === m.id, `message ${m.id} on the phone`);
    expect((await t.admin.post(`/messages/${t.ticketId}`, { body: 'Chegamos às 11h', editMsg: { id: edited.id } })).status).toBe(200);
    expect((await t.admin.del(`/messages/${gone.id}`)).status).toBe(200);
    expect((await t.admin.post(`/messages/${t.customerMessageId}/reactions`, { emoji: '👍' })).status).toBe(200);
    await t.onPhone((x) => x.id === gone.id && x.deleted, 'the delete');
    await t.onPhone((x) => x.id === edited.id && x.edited, 'the edit');
    await t.onPhone((x) => x.id === t.customerMessageId && x.reactions.length, 'the reaction');

    const browser = await launch();
    try {
      const page = await (await newContext(browser, { viewport: { width: 1100, height: 1300 } })).newPage();
      await page.goto(`${endpoints().sandboxUrl}/?conexao=${t.connectionId}`);
      await page.getByText('Rita Melo').first().click();
      const chat = page.locator('#mensagens');
      await chat.locator('img.midia').first().waitFor();
      expect(await chat.locator('.msg', { hasText: 'Nossa loja' }).locator('img.midia').count()).toBe(1);
      await chat.getByText('🎤 Mensagem de voz').waitFor();
      expect(await chat.locator('audio').count()).toBe(1);
      expect(await chat.locator('a', { hasText: 'proposta.pdf' }).count()).toBe(1);
      const cartao = chat.locator('.cartao');
      await expect.poll(() => cartao.innerText()).toContain('Ana Souza');
      expect(await cartao.innerText()).toContain('+5511987650000');
      await expect.poll(() => chat.locator('.msg', { hasText: 'Chegamos às 11h' }).innerText()).toContain('editada');
      expect(await chat.getByText('Mensagem errada').count()).toBe(0);
      expect(await chat.getByText('🚫 Mensagem apagada').count()).toBe(1);
      expect(await chat.locator('.msg', { hasText: 'Olá, bom dia' }).locator('.reacoes').innerText()).toBe('👍');
      await screenshot(page, 'sandbox-phone-media');
    } finally {
      await browser.close();
      t.ws.close();
    }
  });
});
