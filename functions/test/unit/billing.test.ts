import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RECURRENCES, advanceDueDate } from '@balcao/shared';
import { memoryWorld, refusal, run } from '../fakes/world.js';

/**
 * Issue 22 §2, billing on in-memory ports: the invoice job (index by due date, idempotent, blocking
 * 3 days past due), the provider's webhook (once only, token, unknown charge, recurrences) and
 * '+ Vencimento' superseding the stale open invoice. The checkout's provider is the sandbox one,
 * pointed at a tiny HTTP server standing in for the stack's sandbox.
 */
const billing = await import('../../src/services/billing.js');
const { updateCompany } = await import('../../src/services/companies.js');
const { getItem, updateItem, queryAll, putItem } = await import('../../src/core/db.js');
const { keys, invoicesPartition, invoicePrefix, connectionKey } = await import('../../src/table/keys.js');

type World = Awaited<ReturnType<typeof memoryWorld>>;
const TOKEN = 'sandbox-webhook-token-0123456789';

let sandbox: http.Server;
let charges = 0;
/** The charges the sandbox was asked to delete (`DELETE /payments/{id}`). */
const deleted: string[] = [];
beforeAll(async () => {
  sandbox = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'application/json' });
      if (req.method === 'DELETE') {
        const id = decodeURIComponent(req.url!.split('/').pop()!);
        deleted.push(id);
        return res.end(JSON.stringify({ deleted: true, id }));
      }
      const { value } = JSON.parse(body || '{}') as { value: number };
      res.end(JSON.stringify({ id: `pay_test_${++charges}`, value, payload: `PIX-${charges}` }));
    });
  });
  await new Promise<void>((r) => sandbox.listen(0, '127.0.0.1', r));
  process.env.PAYMENTS_SANDBOX_URL = `http://127.0.0.1:${(sandbox.address() as AddressInfo).port}`;
  process.env.PAYMENTS_SANDBOX_TOKEN = TOKEN;
});
afterAll(() => {
  sandbox.close();
  delete process.env.PAYMENTS_SANDBOX_URL;
  delete process.env.PAYMENTS_SANDBOX_TOKEN;
});

const company = (w: World) => run(w, () => getItem<import('../../src/table/items.js').CompanyItem>(keys.company(w.companyId)));
const invoices = (w: World) => run(w, () => queryAll<import('../../src/table/items.js').InvoiceItem>(invoicesPartition(w.companyId), invoicePrefix()));
const admin = (w: World) => ({ companyId: w.companyId, isSuper: false });
const iso = (ms: number) => new Date(ms).toISOString();

/** A world whose plan costs 99.9 and whose company is due on `due`. */
async function world(due: string, recurrence = 'MENSAL') {
  const w = await memoryWorld();
  await run(w, () => updateItem(keys.plan(w.plan.id), { value: 99.9 }));
  await run(w, () => updateCompany(w.companyId, { dueDate: due, recurrence }));
  w.ports.forgetRecords();
  return w;
}

/** Queries of the due index the job made (GSI4), and every item it read by key. */
const calls = (w: World) => w.ports.table.calls.slice();

async function payThroughCheckout(w: World) {
  const [inv] = await invoices(w);
  const pix = await run(w, () => billing.checkout(admin(w), { firstName: 'Ana Souza', address2: 'Rua A, 1', city: 'São Paulo', zipcode: '01000-000', country: 'Brasil', invoiceId: inv.id }));
  return { inv, pix };
}
const webhook = (w: World, chargeId: string, token = TOKEN, event = 'PAYMENT_RECEIVED') =>
  run(w, () => billing.paymentWebhook({ 'asaas-access-token': token }, { event, payment: { id: chargeId, value: 99.9, externalReference: 'x' } }));

describe('the invoice job', () => {
  it('reads only companies due within 10 days through the due index, and nothing else when nothing is due', async () => {
    const w = await world('2026-06-01T00:00:00.000Z');
    const before = calls(w).length;
    // Far from the due date: one Query of the index, no item read, no invoice.
    expect(await run(w, () => billing.sweepInvoices(Date.parse('2026-05-20T00:00:00.000Z')))).toBe(0);
    expect(calls(w).slice(before)).toEqual(['Query']);
    expect(await invoices(w)).toEqual([]);
    // 10 days before the due day: the invoice opens with the plan's name and value and the due date.
    expect(await run(w, () => billing.sweepInvoices(Date.parse('2026-05-22T00:00:00.000Z')))).toBe(1);
    expect(await invoices(w)).toMatchObject([{ detail: 'Plano Teste', value: 99.9, dueDate: '2026-06-01T00:00:00.000Z', status: 'open' }]);
    // Opened: the index now points at the blocking instant, so the next runs read nothing.
    const after = calls(w).length;
    expect(await run(w, () => billing.sweepInvoices(Date.parse('2026-05-30T00:00:00.000Z')))).toBe(0);
    expect(calls(w).slice(after)).toEqual(['Query']);
  });

  it('is idempotent: two runs, and two instances interleaved, open exactly one invoice', async () => {
    const w = await world('2026-06-01T00:00:00.000Z');
    const now = Date.parse('2026-05-25T00:00:00.000Z');
    await run(w, () => billing.sweepInvoices(now));
    await run(w, () => billing.sweepInvoices(now));
    expect(await invoices(w)).toHaveLength(1);

    // Two instances that both read the company before either wrote.
    const w2 = await world('2026-06-01T00:00:00.000Z');
    const c = (await company(w2))!;
    const [a, b] = await Promise.all([run(w2, () => billing.openInvoice(c)), run(w2, () => billing.openInvoice(c))]);
    expect([a, b].filter(Boolean)).toHaveLength(1);
    expect(await invoices(w2)).toHaveLength(1);
  });

  it('blocks a company 3 days past due and not before: stops its sessions, deletes nothing; the API refuses it', async () => {
    const w = await world('2026-06-01T00:00:00.000Z');
    await run(w, () => updateItem(connectionKey(w.companyId, w.connectionId), { status: 'CONNECTED' }));
    await run(w, () => billing.sweepInvoices(Date.parse('2026-05-25T00:00:00.000Z')));
    w.ports.forgetRecords();
    // Past due for two days: not yet.
    expect(await run(w, () => billing.sweepInvoices(Date.parse('2026-06-04T00:00:00.000Z') - 1))).toBe(0);
    expect((await company(w))!.status).toBe(true);
    // The third day past due: blocked, its session stopped, nothing deleted.
    expect(await run(w, () => billing.sweepInvoices(Date.parse('2026-06-04T00:00:00.000Z')))).toBe(1);
    const blocked = (await company(w))!;
    expect(blocked).toMatchObject({ status: false, stoppedConnectionIds: [w.connectionId] });
    expect((blocked as unknown as Record<string, unknown>).GSI4PK).toBeUndefined();
    expect(w.ports.sentCommands.map((c) => c.type)).toEqual(['stop']);
    expect(await invoices(w)).toHaveLength(1);
    expect(await run(w, () => getItem(connectionKey(w.companyId, w.connectionId)))).toBeTruthy();
    const { assertCompanyActive } = await import('../../src/core/identity.js');
    expect(() => assertCompanyActive(blocked, false)).toThrow(expect.objectContaining({ code: 'ERR_COMPANY_BLOCKED', message: 'Sistema bloqueado, entre em contato com o suporte' }));
    // Blocked companies leave the index: later runs do not read them again.
    const before = calls(w).length;
    expect(await run(w, () => billing.sweepInvoices(Date.parse('2026-07-01T00:00:00.000Z')))).toBe(0);
    expect(calls(w).slice(before)).toEqual(['Query']);
  });
});

describe('the payment webhook', () => {
  it('marks the invoice paid once under replay and concurrency, advances the due date, unblocks and publishes CONCLUIDA', async () => {
    const w = await world('2026-06-01T00:00:00.000Z');
    await run(w, () => updateItem(connectionKey(w.companyId, w.connectionId), { status: 'CONNECTED' }));
    await run(w, () => billing.sweepInvoices(Date.parse('2026-05-25T00:00:00.000Z')));
    await run(w, () => billing.sweepInvoices(Date.parse('2026-06-05T00:00:00.000Z')));
    expect((await company(w))!.status).toBe(false);
    const { pix } = await payThroughCheckout(w);
    expect(pix).toMatchObject({ qrcode: { qrcode: expect.stringMatching(/^PIX-/) }, valor: { original: 99.9 } });
    // A second checkout answers the same charge (no second charge at the provider).
    expect((await payThroughCheckout(w)).pix.chargeId).toBe(pix.chargeId);
    w.ports.forgetRecords();

    const answers = await Promise.all([webhook(w, pix.chargeId), webhook(w, pix.chargeId, TOKEN, 'PAYMENT_CONFIRMED')]);
    expect(answers.map((a) => a.status).sort()).toEqual(['alreadyPaid', 'paid']);
    expect((await webhook(w, pix.chargeId)).status).toBe('alreadyPaid');
    const paid = (await company(w))!;
    expect(paid).toMatchObject({ status: true, dueDate: '2026-07-01T00:00:00.000Z' });
    expect(paid.stoppedConnectionIds).toBeUndefined();
    expect(await invoices(w)).toMatchObject([{ status: 'paid' }]);
    expect(w.ports.events(`company-${w.companyId}-payment`)).toEqual([
      { action: 'CONCLUIDA', company: expect.objectContaining({ id: w.companyId, dueDate: '2026-07-01T00:00:00.000Z', status: true }), invoiceId: pix.invoiceId },
    ]);
    // The session the block stopped starts again, once.
    expect(w.ports.sentCommands.map((c) => c.type)).toEqual(['start']);
  });

  it('a wrong token is 401 and changes nothing; an unknown charge is 404', async () => {
    const w = await world('2026-06-01T00:00:00.000Z');
    await run(w, () => billing.sweepInvoices(Date.parse('2026-05-25T00:00:00.000Z')));
    const { pix } = await payThroughCheckout(w);
    const before = await company(w);
    expect(await refusal(webhook(w, pix.chargeId, 'wrong-token'))).toMatchObject({ status: 401, code: 'ERR_INVALID_TOKEN' });
    expect(await refusal(run(w, () => billing.paymentWebhook({}, { event: 'PAYMENT_RECEIVED', payment: { id: pix.chargeId } })))).toMatchObject({ status: 401 });
    expect(await company(w)).toEqual(before);
    expect(await invoices(w)).toMatchObject([{ status: 'open' }]);
    expect(await refusal(webhook(w, 'pay_nobody'))).toMatchObject({ status: 404, code: 'ERR_NO_INVOICE_FOUND' });
  });

  it.each(RECURRENCES)('advances the due date by the %s recurrence', async (recurrence) => {
    const w = await world('2026-01-31T00:00:00.000Z', recurrence);
    await run(w, () => billing.sweepInvoices(Date.parse('2026-01-25T00:00:00.000Z')));
    w.ports.time = Date.parse('2026-01-26T12:00:00.000Z');
    const { pix } = await payThroughCheckout(w);
    await webhook(w, pix.chargeId);
    const months = { MENSAL: 1, BIMESTRAL: 2, TRIMESTRAL: 3, SEMESTRAL: 6, ANUAL: 12 }[recurrence];
    const expected = { 1: '2026-02-28', 2: '2026-03-31', 3: '2026-04-30', 6: '2026-07-31', 12: '2027-01-31' }[months];
    expect((await company(w))!.dueDate).toBe(`${expected}T00:00:00.000Z`);
    expect(advanceDueDate('2026-01-31T00:00:00.000Z', recurrence)).toBe(`${expected}T00:00:00.000Z`);
  });
});

describe("'+ Vencimento'", () => {
  it('moving the due date by hand supersedes the open invoice of the old date in the same write; the job opens the new one', async () => {
    const w = await world('2026-06-01T00:00:00.000Z');
    await run(w, () => billing.sweepInvoices(Date.parse('2026-05-25T00:00:00.000Z')));
    const [old] = await invoices(w);
    await run(w, () => updateCompany(w.companyId, { dueDate: '2026-07-01T00:00:00.000Z' }));
    expect((await invoices(w)).find((i) => i.id === old.id)).toMatchObject({ status: 'cancelled' });
    // Not listed, not payable, and the job does not block on the old date.
    expect((await run(w, () => billing.listInvoices(admin(w), {}))).invoices).toEqual([]);
    expect(await refusal(run(w, () => billing.checkout(admin(w), { firstName: 'A', address2: 'B', city: 'C', zipcode: 'D', country: 'Brasil', invoiceId: old.id })))).toMatchObject({ status: 404 });
    expect(await run(w, () => billing.sweepInvoices(Date.parse('2026-06-10T00:00:00.000Z')))).toBe(0);
    expect((await company(w))!.status).toBe(true);
    // Within 10 days of the new date: its invoice.
    expect(await run(w, () => billing.sweepInvoices(Date.parse('2026-06-25T00:00:00.000Z')))).toBe(1);
    expect((await run(w, () => billing.listInvoices(admin(w), {}))).invoices).toMatchObject([{ dueDate: '2026-07-01T00:00:00.000Z', status: 'open' }]);
  });

  it('unblocking by hand restarts the stopped sessions', async () => {
    const w = await world(iso(Date.parse('2026-06-01T00:00:00.000Z')));
    await run(w, () => updateItem(connectionKey(w.companyId, w.connectionId), { status: 'CONNECTED' }));
    await run(w, () => billing.sweepInvoices(Date.parse('2026-05-25T00:00:00.000Z')));
    await run(w, () => billing.sweepInvoices(Date.parse('2026-06-05T00:00:00.000Z')));
    w.ports.forgetRecords();
    await run(w, () => updateCompany(w.companyId, { status: true, dueDate: '2026-07-01T00:00:00.000Z' }));
    expect(w.ports.sentCommands.map((c) => c.type)).toEqual(['start']);
    expect((await company(w))!).toMatchObject({ status: true, GSI4PK: 'COMPANYDUE' });
  });
});

describe('the checkout payload', () => {
  it('answers 400 with the field and the spec message for each missing address field', async () => {
    const w = await world('2026-06-01T00:00:00.000Z');
    const r = await refusal(run(w, () => billing.checkout(admin(w), { country: 'Alemanha', invoiceId: 1 })));
    expect(r?.status).toBe(400);
    expect(r?.fields).toEqual(
      expect.arrayContaining([
        { field: 'firstName', message: 'O nome completo é obrigatório' },
        { field: 'address2', message: 'O Endereço é obrigatório' },
        { field: 'city', message: 'Cidade é obrigatória' },
        { field: 'zipcode', message: 'CEP é obrigatório' },
        { field: 'country', message: 'País é obrigatório' },
      ]),
    );
  });

  it("another company's invoice is 404", async () => {
    const w = await world('2026-06-01T00:00:00.000Z');
    await run(w, () => billing.sweepInvoices(Date.parse('2026-05-25T00:00:00.000Z')));
    const [inv] = await invoices(w);
    const other = { companyId: w.companyId + 100, isSuper: false };
    expect(await refusal(run(w, () => billing.getInvoice(other, inv.id)))).toMatchObject({ status: 404 });
    void putItem;
  });
});

// ------------------------------------------------------------------ review findings (decision 61)

type Cmd = { constructor: { name: string } };
/** Runs `between` once, just before the next TransactWrite reaches the table (a write racing the one in flight). */
function beforeNextTransaction(w: World, between: () => Promise<unknown>) {
  const send = w.ports.table.send.bind(w.ports.table);
  w.ports.table.send = (async (cmd: Cmd) => {
    if (cmd.constructor.name === 'TransactWriteCommand') {
      w.ports.table.send = send as never;
      await between();
    }
    return send(cmd as never);
  }) as never;
}
const checkoutBody = (invoiceId: number) => ({ firstName: 'Ana Souza', address2: 'Rua A, 1', city: 'São Paulo', zipcode: '01000-000', country: 'Brasil', invoiceId });

describe('review findings', () => {
  it('two checkouts at once record one charge, cancel the other at the provider, and both answer the same Pix', async () => {
    const w = await world('2026-06-01T00:00:00.000Z');
    await run(w, () => billing.sweepInvoices(Date.parse('2026-05-25T00:00:00.000Z')));
    const [inv] = await invoices(w);
    deleted.length = 0;
    const [a, b] = await Promise.all([run(w, () => billing.checkout(admin(w), checkoutBody(inv.id))), run(w, () => billing.checkout(admin(w), checkoutBody(inv.id)))]);
    expect(a).toEqual(b);
    const [stored] = await invoices(w);
    expect(stored).toMatchObject({ chargeId: a.chargeId, pixPayload: a.qrcode.qrcode, chargeProvider: 'sandbox' });
    // The losing charge was deleted at the provider and has no pointer: it can never pay anything.
    expect(deleted).toHaveLength(1);
    expect(deleted[0]).not.toBe(a.chargeId);
    expect(await refusal(webhook(w, deleted[0]))).toMatchObject({ status: 404 });
    // A third checkout answers the stored charge without a new one.
    expect(await run(w, () => billing.checkout(admin(w), checkoutBody(inv.id)))).toEqual(a);
  });

  it('a payment more than a period late moves the due date past today, keeping the day of the month', async () => {
    const w = await world('2026-01-31T00:00:00.000Z');
    await run(w, () => billing.sweepInvoices(Date.parse('2026-01-25T00:00:00.000Z')));
    await run(w, () => billing.sweepInvoices(Date.parse('2026-02-05T00:00:00.000Z')));
    expect((await company(w))!.status).toBe(false);
    // Paid on 15/04: 28/02 and 31/03 are past, so the new due date is 30/04 (31/01 + 3 months; not 28/04).
    w.ports.time = Date.parse('2026-04-15T12:00:00.000Z');
    const { pix } = await payThroughCheckout(w);
    expect((await webhook(w, pix.chargeId)).status).toBe('paid');
    expect((await company(w))!).toMatchObject({ status: true, dueDate: '2026-04-30T00:00:00.000Z' });
    // The next run neither blocks it nor bills it yet.
    expect(await run(w, () => billing.sweepInvoices(w.ports.time + 10 * 60_000))).toBe(0);
    expect((await company(w))!.status).toBe(true);
    // Paid on its new due day exactly: one more period (the due day is not after today).
    expect(billing.nextDueDate('2026-01-31T00:00:00.000Z', 'MENSAL', Date.parse('2026-02-28T23:00:00.000Z'))).toBe('2026-03-31T00:00:00.000Z');
    expect(billing.nextDueDate('2026-01-31T00:00:00.000Z', 'MENSAL', Date.parse('2026-02-27T23:00:00.000Z'))).toBe('2026-02-28T00:00:00.000Z');
  });

  it('a block committed between the webhook read and its write: the webhook reads again, unblocks and restarts the stopped session', async () => {
    const w = await world('2026-06-01T00:00:00.000Z');
    await run(w, () => updateItem(connectionKey(w.companyId, w.connectionId), { status: 'CONNECTED' }));
    await run(w, () => billing.sweepInvoices(Date.parse('2026-05-25T00:00:00.000Z')));
    const { pix } = await payThroughCheckout(w);
    const read = (await company(w))!;
    w.ports.forgetRecords();
    beforeNextTransaction(w, () => billing.blockCompany(read));
    expect((await webhook(w, pix.chargeId)).status).toBe('paid');
    const after = (await company(w))!;
    expect(after).toMatchObject({ status: true, dueDate: '2026-07-01T00:00:00.000Z' });
    expect(after.stoppedConnectionIds).toBeUndefined();
    expect(w.ports.sentCommands.map((c) => c.type)).toEqual(['stop', 'start']);
  });

  it('a manual unblock racing a block restarts the sessions of the version it replaced', async () => {
    const w = await world('2026-06-01T00:00:00.000Z');
    await run(w, () => updateItem(connectionKey(w.companyId, w.connectionId), { status: 'CONNECTED' }));
    await run(w, () => billing.sweepInvoices(Date.parse('2026-05-25T00:00:00.000Z')));
    const read = (await company(w))!;
    w.ports.forgetRecords();
    beforeNextTransaction(w, () => billing.blockCompany(read));
    await run(w, () => updateCompany(w.companyId, { status: true, dueDate: '2026-07-01T00:00:00.000Z' }));
    const after = (await company(w))!;
    expect(after).toMatchObject({ status: true, dueDate: '2026-07-01T00:00:00.000Z' });
    expect(after.stoppedConnectionIds).toBeUndefined();
    expect(w.ports.sentCommands.map((c) => c.type)).toEqual(['stop', 'start']);
  });

  it("'+ Vencimento' racing the job opening the invoice (same millisecond) supersedes that invoice", async () => {
    const w = await world('2026-06-01T00:00:00.000Z');
    const read = (await company(w))!;
    beforeNextTransaction(w, () => billing.openInvoice(read));
    await run(w, () => updateCompany(w.companyId, { dueDate: '2026-07-01T00:00:00.000Z' }));
    expect(await invoices(w)).toMatchObject([{ dueDate: '2026-06-01T00:00:00.000Z', status: 'cancelled' }]);
    expect((await company(w))!.dueDate).toBe('2026-07-01T00:00:00.000Z');
    expect(await run(w, () => billing.sweepInvoices(Date.parse('2026-06-25T00:00:00.000Z')))).toBe(1);
    expect((await run(w, () => billing.listInvoices(admin(w), {}))).invoices).toMatchObject([{ dueDate: '2026-07-01T00:00:00.000Z', status: 'open' }]);
  });

  it('a due date moved back to an already invoiced date gets a payable invoice again', async () => {
    const A = '2026-06-01T00:00:00.000Z';
    const B = '2026-07-01T00:00:00.000Z';
    // A invoiced, moved to B before B is invoiced, then back to A.
    const w = await world(A);
    await run(w, () => billing.sweepInvoices(Date.parse('2026-05-25T00:00:00.000Z')));
    await run(w, () => updateCompany(w.companyId, { dueDate: B }));
    await run(w, () => updateCompany(w.companyId, { dueDate: A }));
    expect(await run(w, () => billing.sweepInvoices(Date.parse('2026-05-26T00:00:00.000Z')))).toBe(1);
    const listed = (await run(w, () => billing.listInvoices(admin(w), {}))).invoices;
    expect(listed).toMatchObject([{ dueDate: A, status: 'open' }]);
    expect((await run(w, () => billing.checkout(admin(w), checkoutBody(listed[0].id)))).invoiceId).toBe(listed[0].id);

    // A invoiced, moved to B and B invoiced, then back to A: one new invoice, then nothing more to do.
    const w2 = await world(A);
    await run(w2, () => billing.sweepInvoices(Date.parse('2026-05-25T00:00:00.000Z')));
    await run(w2, () => updateCompany(w2.companyId, { dueDate: B }));
    await run(w2, () => billing.sweepInvoices(Date.parse('2026-06-25T00:00:00.000Z')));
    await run(w2, () => updateCompany(w2.companyId, { dueDate: A }));
    expect(await run(w2, () => billing.sweepInvoices(Date.parse('2026-05-26T00:00:00.000Z')))).toBe(1);
    expect(await run(w2, () => billing.sweepInvoices(Date.parse('2026-05-27T00:00:00.000Z')))).toBe(0);
    expect((await run(w2, () => billing.listInvoices(admin(w2), {}))).invoices).toMatchObject([{ dueDate: A, status: 'open' }]);
    expect((await invoices(w2)).map((i) => i.status).sort()).toEqual(['cancelled', 'cancelled', 'open']);
  });

  it('an empty webhook token keeps the stored one; a new token replaces it', async () => {
    const w = await world('2026-06-01T00:00:00.000Z');
    const key = '$aact_test_key_0123456789abcdef';
    const first = await run(w, () => billing.saveBillingSetting({ value: key, webhookToken: 'whsec_first_0123456789' }));
    expect(first.webhookToken).not.toBe('');
    // A form that never loaded the stored values sends the key's mask back and an empty token.
    const again = await run(w, () => billing.saveBillingSetting({ value: first.value, webhookToken: '' }));
    expect(again).toMatchObject({ value: first.value, webhookToken: first.webhookToken, provider: 'asaas' });
    const again2 = await run(w, () => billing.saveBillingSetting({ value: first.value, webhookToken: '   ' }));
    expect(again2.webhookToken).toBe(first.webhookToken);
    const replaced = await run(w, () => billing.saveBillingSetting({ value: first.value, webhookToken: 'whsec_second_9876543210' }));
    expect(replaced.webhookToken).not.toBe(first.webhookToken);
    expect(replaced.webhookToken).not.toBe('');
  });

  it("the platform's company (billingExempt) is never indexed, invoiced nor blocked", async () => {
    const w = await world('2026-06-01T00:00:00.000Z');
    expect((await company(w)) as unknown as Record<string, unknown>).toMatchObject({ GSI4PK: 'COMPANYDUE' });
    await run(w, () => updateCompany(w.companyId, { billingExempt: true }));
    const c = (await company(w))! as unknown as Record<string, unknown>;
    expect(c).toMatchObject({ billingExempt: true, status: true });
    expect(c.GSI4PK).toBeUndefined();
    for (const at of ['2026-05-25', '2026-06-10', '2027-01-01']) expect(await run(w, () => billing.sweepInvoices(Date.parse(`${at}T00:00:00.000Z`)))).toBe(0);
    expect(await invoices(w)).toEqual([]);
    expect((await company(w))!.status).toBe(true);
    // Even listed by a stale index, the job leaves it alone; the backfill does not key it again.
    await run(w, () => updateItem(keys.company(w.companyId), { GSI4PK: 'COMPANYDUE', GSI4SK: `2026-05-22T00:00:00.000Z#${w.companyId}` }));
    expect(await run(w, () => billing.sweepInvoices(Date.parse('2026-06-10T00:00:00.000Z')))).toBe(0);
    expect(await invoices(w)).toEqual([]);
    await run(w, () => updateItem(keys.company(w.companyId), {}, { remove: ['GSI4PK', 'GSI4SK'] }));
    expect(await run(w, () => billing.backfillDueIndex())).toBe(0);
    // Created exempt by the super user: no due-index key from the start.
    const { createCompany } = await import('../../src/services/companies.js');
    const made = await run(w, () => createCompany({ name: 'Plataforma', email: 'plataforma@example.com', planId: w.plan.id, dueDate: '2026-06-01T00:00:00.000Z', billingExempt: true }));
    expect((made.company as unknown as Record<string, unknown>).GSI4PK).toBeUndefined();
    // Its users keep signing in after its due date; another company's do not.
    const { assertCompanyActive } = await import('../../src/core/identity.js');
    const past = { ...(await company(w))!, dueDate: '2020-01-01T00:00:00.000Z' };
    expect(() => assertCompanyActive(past, false)).not.toThrow();
    expect(() => assertCompanyActive({ ...past, billingExempt: false }, false)).toThrow(expect.objectContaining({ code: 'ERR_SUBSCRIPTION_EXPIRED' }));
  });
});
