import { describe, expect, it } from 'vitest';
import { PNG } from './messages-helpers.js';
import { connected, sandbox, until } from './pipeline-helpers.js';

/*
 * Contact-list imports and campaigns through the running stack and the sandbox's phones (issue 20
 * §2, §4, §6): a spreadsheet imported in the background, a 200-recipient campaign started at its
 * second with two variants, variables, a file list and media, stopped mid-way and restarted (every
 * phone gets its messages exactly once), the pace measured on the phones' clocks, and the
 * confirmation flow both ways.
 */

type T = Awaited<ReturnType<typeof connected>>;
type Received = { fromMe: boolean; body: string; mediaType: string | null; timestamp: number };

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const fileForm = (field: string, data: Buffer, name: string, type: string) => {
  const form = new FormData();
  form.append(field, new Blob([new Uint8Array(data)], { type }), name);
  return form;
};
let batch = 0;
/** Numbers of one test run: 55 21 9 + run and index digits (distinct across tests and runs). */
const numbersOf = (n: number) => {
  const run = `${Date.now() % 1e4}`.padStart(4, '0') + String(++batch);
  return Array.from({ length: n }, (_, i) => `55219${run}${String(i).padStart(3, '0')}`.slice(0, 13));
};
const received = async (t: T, number: string) => ((await sandbox<Received[]>('GET', `/connections/${t.connectionId}/messages?peer=${number}`)).body ?? []).filter((m) => m.fromMe);

async function settings(t: T, body: Record<string, unknown>) {
  const r = await t.admin.post('/campaign-settings', body);
  expect(r.status, JSON.stringify(r.body)).toBeLessThan(300);
}

async function listOf(t: T, numbers: string[], how: 'upload' | 'items') {
  const list = await t.admin.post('/contact-lists', { name: `Lista ${numbers[0]}` });
  expect(list.status).toBe(201);
  if (how === 'items') {
    for (const [i, number] of numbers.entries()) {
      const r = await t.admin.post('/contact-list-items', { name: `Cliente ${i}`, number, email: `c${i}@example.com`, contactListId: list.body.id });
      expect(r.status, JSON.stringify(r.body)).toBe(201);
    }
    return list.body.id as number;
  }
  const csv = `nome;numero;email\r\n${numbers.map((n, i) => `Cliente ${i};${n};c${i}@example.com`).join('\r\n')}\r\n`;
  const up = await t.admin.form('POST', `/contact-lists/${list.body.id}/upload`, fileForm('file', Buffer.from(csv), 'lista.csv', 'text/csv'));
  expect(up.status, JSON.stringify(up.body)).toBe(202);
  expect(up.body.import).toMatchObject({ status: 'running', total: numbers.length });
  const done = await until(
    async () => {
      const r = await t.admin.get(`/contact-lists/${list.body.id}`);
      return r.body.import?.status === 'done' && r.body;
    },
    'the import finished',
    60_000,
  );
  expect(done).toMatchObject({ contactsCount: numbers.length, import: { imported: numbers.length, whatsappValid: numbers.length, invalid: 0, duplicated: 0 } });
  return list.body.id as number;
}

async function campaignOf(t: T, id: number) {
  const r = await t.admin.get(`/campaigns/${id}`);
  return r.body as { status: string; counts: { recipients: number; delivered: number; confirmationRequested: number; confirmed: number; failed: number }; completedAt: string | null };
}

describe('campaigns through the sandbox', () => {
  it('200 recipients: imported, started at its second, two variants with variables, file list and media; stopped and restarted, nothing twice', { timeout: 240_000 }, async () => {
    const t = await connected();
    await settings(t, { messageInterval: 0, longerIntervalAfter: 0, greaterInterval: 0, variables: [{ key: 'loja', value: 'Loja Centro' }] });
    const numbers = numbersOf(200);
    const listId = await listOf(t, numbers, 'upload');
    const files = await t.admin.post('/files', { name: 'Catálogo', message: 'Veja o catálogo, {nome}', options: [{ name: 'Tabela' }] });
    expect(files.status, JSON.stringify(files.body)).toBe(201);
    const up = await t.admin.form('POST', `/files/uploadList/${files.body.id}`, fileForm('files', PNG, 'tabela.png', 'image/png'));
    expect(up.status, JSON.stringify(up.body)).toBeLessThan(300);

    // Saved without a time (INATIVA: editable, its media attached), then scheduled a few seconds ahead.
    const made = await t.admin.post('/campaigns', {
      name: 'Black Friday',
      contactListId: listId,
      whatsappId: t.connectionId,
      fileListId: files.body.id,
      scheduledAt: '',
      message1: 'A: Olá {nome}, ofertas na {loja}!',
      message2: 'B: {nome} ({numero}), ofertas na {loja}.',
    });
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    expect(made.body).toMatchObject({ status: 'INATIVA', confirmation: false, tagListId: null });
    const media = await t.admin.form('POST', `/campaigns/${made.body.id}/media-upload`, fileForm('file', PNG, 'oferta.png', 'image/png'));
    expect(media.status, JSON.stringify(media.body)).toBe(200);
    expect(media.body).toMatchObject({ mediaName: 'oferta.png' });
    const scheduledAt = new Date(Math.ceil((Date.now() + 5_000) / 1000) * 1000);
    const scheduled = await t.admin.put(`/campaigns/${made.body.id}`, { scheduledAt: scheduledAt.toISOString() });
    expect(scheduled.body).toMatchObject({ status: 'PROGRAMADA', scheduledAt: scheduledAt.toISOString() });

    // Started within 5 s of its time (the first phone's first message on the sandbox clock).
    await until(async () => (await received(t, numbers[0])).length > 0 || (await campaignOf(t, made.body.id)).counts.delivered > 0, 'the first message', 30_000);
    const firstAt = Math.min(...(await Promise.all(numbers.slice(0, 20).map(async (n) => (await received(t, n))[0]?.timestamp ?? Infinity))));
    expect(firstAt - scheduledAt.getTime()).toBeLessThan(5_000);
    expect(firstAt).toBeGreaterThanOrEqual(scheduledAt.getTime() - 1_000);

    // Stopped mid-way: nothing more goes out; restarted: only the rest, once.
    await until(async () => (await campaignOf(t, made.body.id)).counts.delivered >= 40, 'forty delivered', 60_000);
    expect((await t.admin.del(`/campaigns/${made.body.id}`)).body).toMatchObject({ error: 'ERR_CAMPAIGN_IN_PROGRESS' });
    const cancel = await t.admin.post(`/campaigns/${made.body.id}/cancel`, {});
    expect(cancel.status, JSON.stringify(cancel.body)).toBe(200);
    expect(cancel.body.status).toBe('CANCELADA');
    await sleep(3_000);
    const stopped = (await campaignOf(t, made.body.id)).counts.delivered;
    await sleep(2_000);
    expect((await campaignOf(t, made.body.id)).counts.delivered).toBe(stopped);
    expect(stopped).toBeLessThan(200);
    const restart = await t.admin.post(`/campaigns/${made.body.id}/restart`, {});
    expect(restart.status, JSON.stringify(restart.body)).toBe(200);
    const done = await until(async () => {
      const c = await campaignOf(t, made.body.id);
      return c.status === 'FINALIZADA' && c;
    }, 'the campaign finished', 150_000);
    expect(done.counts).toMatchObject({ recipients: 200, delivered: 200, failed: 0 });
    expect(done.completedAt).toBeTruthy();

    // Every phone: one variant with its variables, the file list's message and file, the media; once each.
    const variants = new Set<string>();
    for (const [i, number] of numbers.entries()) {
      const got = await until(async () => {
        const m = await received(t, number);
        return m.length >= 4 && m;
      }, `phone ${i}'s messages`, 30_000);
      const texts = got.filter((m) => !m.mediaType).map((m) => m.body);
      expect(texts.sort()).toEqual(
        [
          texts.find((b) => b.startsWith('A: ')) ? `A: Olá Cliente ${i}, ofertas na Loja Centro!` : `B: Cliente ${i} (${number}), ofertas na Loja Centro.`,
          `Veja o catálogo, Cliente ${i}`,
        ].sort(),
      );
      variants.add(texts.find((b) => /^[AB]: /.test(b))![0]);
      expect(got.filter((m) => m.mediaType === 'image')).toHaveLength(2);
      expect(got).toHaveLength(4);
    }
    expect(variants).toEqual(new Set(['A', 'B']));
    t.ws.close();
  });

  it('paces one connection: the interval ±20% and the long pause, measured on the phones', { timeout: 120_000 }, async () => {
    const t = await connected();
    await settings(t, { messageInterval: 5, longerIntervalAfter: 5, greaterInterval: 5, variables: [] });
    const numbers = numbersOf(6);
    const listId = await listOf(t, numbers, 'items');
    const made = await t.admin.post('/campaigns', { name: 'Ritmo', contactListId: listId, whatsappId: t.connectionId, scheduledAt: new Date(Date.now() + 3_000).toISOString(), message1: 'Oi {nome}' });
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    await until(async () => (await campaignOf(t, made.body.id)).status === 'FINALIZADA', 'the campaign finished', 90_000);
    const times = (await Promise.all(numbers.map(async (n) => (await received(t, n))[0].timestamp))).sort((a, b) => a - b);
    const gaps = times.slice(1).map((x, i) => x - times[i]);
    // 5 s ±20% between messages; after the 5th, 5 s more. A second of slack for the sandbox's clock.
    gaps.forEach((gap, i) => {
      const base = i === 4 ? 10_000 : 5_000;
      expect(gap, `gap ${i}: ${gaps.join(', ')}`).toBeGreaterThanOrEqual(base - 1_000 - 1_000);
      expect(gap, `gap ${i}: ${gaps.join(', ')}`).toBeLessThanOrEqual(base + 1_000 + 1_500);
    });
    t.ws.close();
  });

  it('confirmation: the confirmation message first; the campaign message only to who answered', { timeout: 90_000 }, async () => {
    const t = await connected();
    await settings(t, { messageInterval: 0, longerIntervalAfter: 0, greaterInterval: 0, variables: [] });
    const numbers = numbersOf(2);
    const listId = await listOf(t, numbers, 'items');
    const made = await t.admin.post('/campaigns', {
      name: 'Confirma',
      confirmation: true,
      contactListId: listId,
      whatsappId: t.connectionId,
      scheduledAt: new Date(Date.now() + 2_000).toISOString(),
      message1: 'Aqui está a oferta, {nome}',
      confirmationMessage1: 'Posso enviar a oferta, {nome}?',
    });
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    await until(async () => (await campaignOf(t, made.body.id)).counts.confirmationRequested === 2, 'both asked', 30_000);
    expect((await received(t, numbers[0])).map((m) => m.body)).toEqual(['Posso enviar a oferta, Cliente 0?']);
    await sandbox('POST', `/connections/${t.connectionId}/messages`, { from: numbers[0], name: 'Cliente 0', body: 'Sim' });
    await until(async () => (await received(t, numbers[0])).length === 2, 'the campaign message after the reply', 30_000);
    expect((await received(t, numbers[0])).map((m) => m.body)).toEqual(['Posso enviar a oferta, Cliente 0?', 'Aqui está a oferta, Cliente 0']);
    const done = await until(async () => {
      const c = await campaignOf(t, made.body.id);
      return c.status === 'FINALIZADA' && c;
    }, 'the campaign finished', 30_000);
    expect(done).toMatchObject({ counts: { recipients: 2, confirmationRequested: 2, confirmed: 1, delivered: 1 } });
    await sleep(2_000);
    expect((await received(t, numbers[1])).map((m) => m.body)).toEqual(['Posso enviar a oferta, Cliente 1?']);
    t.ws.close();
  });
});
