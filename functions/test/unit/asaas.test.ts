import http from 'node:http';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { memoryWorld, refusal, run } from '../fakes/world.js';

/**
 * Issue 22 §3, "the same against a local fake Asaas server speaking its API's shapes" (decision 61):
 * the Asaas provider of services/payments.ts against a fake HTTP server that answers as Asaas v3
 * does (docs.asaas.com: `GET /customers?externalReference=` → a list object, `POST /customers` → a
 * customer, `POST /payments` → a payment, `GET /payments/{id}/pixQrCode` → `encodedImage`,
 * `payload`, `expirationDate`; errors `{errors: [{code, description}]}`), the `access_token` header,
 * and the call rules: GETs retried on network errors, 429 and 5xx; a POST sent again only when the
 * connection was refused. Then the whole checkout → webhook path of services/billing.ts with the
 * `asaas` setting pointing at the fake.
 */
const { asaasProvider } = await import('../../src/services/payments.js');
const { log } = await import('../../src/core/observability.js');

const API_KEY = '$aact_YTU5YTE0M2M2N2I4MTliNzk0YTI5N2U5MzdjNWZmNDQ6OjAwMDAwMDAwMDAwMDAwMDAwMDA6OiRhYWNoXzRlNTU';

interface Seen {
  method: string;
  path: string;
  query: Record<string, string>;
  headers: http.IncomingHttpHeaders;
  body: any;
}
/** What a route does once, before its normal answer: an HTTP error, a dropped socket, or a stall. */
type Fault = { status: number; body?: unknown } | 'drop' | { stallMs: number } | 'stallBody';

/** The fake Asaas v3: customers and Pix payments in memory, with faults queued per route. */
function fakeAsaas() {
  const seen: Seen[] = [];
  const customers: any[] = [];
  const payments = new Map<string, any>();
  const faults = new Map<string, Fault[]>();
  /** Asaas' today (YYYY-MM-DD): when set, a new payment due before it is refused as Asaas does. */
  const clock = { today: '' };
  let seq = 0;
  const route = (method: string, path: string) => `${method} ${path.replace(/\/pay_[^/]+/, '/{id}')}`;
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    let raw = '';
    req.on('data', (c) => (raw += c));
    req.on('end', () => {
      const path = url.pathname.replace(/^\/v3/, '');
      seen.push({ method: req.method!, path, query: Object.fromEntries(url.searchParams), headers: req.headers, body: raw ? JSON.parse(raw) : undefined });
      const json = (status: number, body: unknown) => {
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(JSON.stringify(body));
      };
      const fault = faults.get(route(req.method!, path))?.shift();
      if (fault === 'drop') return req.socket.destroy();
      if (fault === 'stallBody') {
        res.writeHead(200, { 'content-type': 'application/json' });
        return res.write('{"object":');
      }
      if (fault && 'stallMs' in fault) return void setTimeout(() => json(200, {}), fault.stallMs);
      if (fault) return json(fault.status, fault.body ?? {});
      if (req.headers.access_token !== API_KEY) return json(401, {});
      const body = raw ? JSON.parse(raw) : {};
      if (req.method === 'GET' && path === '/customers') {
        const data = customers.filter((c) => !url.searchParams.get('externalReference') || c.externalReference === url.searchParams.get('externalReference'));
        return json(200, { object: 'list', hasMore: false, totalCount: data.length, limit: 10, offset: 0, data });
      }
      if (req.method === 'POST' && path === '/customers') {
        if (!body.name) return json(400, { errors: [{ code: 'invalid_name', description: 'O nome do cliente é obrigatório.' }] });
        const customer = {
          object: 'customer',
          id: `cus_${String(++seq).padStart(12, '0')}`,
          dateCreated: '2026-11-27',
          name: body.name,
          email: body.email ?? null,
          phone: null,
          mobilePhone: body.mobilePhone ?? null,
          address: body.address ?? null,
          addressNumber: null,
          complement: null,
          province: null,
          postalCode: body.postalCode ?? null,
          cpfCnpj: body.cpfCnpj ?? null,
          personType: 'JURIDICA',
          deleted: false,
          additionalEmails: null,
          externalReference: body.externalReference ?? null,
          notificationDisabled: !!body.notificationDisabled,
          observations: null,
          foreignCustomer: false,
        };
        customers.push(customer);
        return json(200, customer);
      }
      if (req.method === 'POST' && path === '/payments') {
        if (!customers.some((c) => c.id === body.customer)) return json(400, { errors: [{ code: 'invalid_customer', description: 'Cliente inválido ou não informado.' }] });
        if (clock.today && String(body.dueDate) < clock.today) return json(400, { errors: [{ code: 'invalid_dueDate', description: 'Não é permitido data de vencimento inferior a hoje.' }] });
        const id = `pay_${(++seq).toString(36).padStart(16, 'x')}`;
        const payment = {
          object: 'payment',
          id,
          dateCreated: '2026-11-27',
          customer: body.customer,
          paymentLink: null,
          value: body.value,
          netValue: Math.round(body.value * 0.99 * 100) / 100,
          originalValue: null,
          interestValue: null,
          description: body.description,
          billingType: body.billingType,
          pixTransaction: null,
          status: 'PENDING',
          dueDate: body.dueDate,
          originalDueDate: body.dueDate,
          paymentDate: null,
          clientPaymentDate: null,
          installmentNumber: null,
          invoiceUrl: `https://sandbox.asaas.com/i/${id.slice(4)}`,
          invoiceNumber: String(seq).padStart(8, '0'),
          externalReference: body.externalReference,
          deleted: false,
          anticipated: false,
          anticipable: false,
        };
        payments.set(id, payment);
        return json(200, payment);
      }
      const one = /^\/payments\/([^/]+)$/.exec(path);
      if (req.method === 'DELETE' && one) {
        if (!payments.has(one[1])) return json(404, {});
        payments.delete(one[1]);
        return json(200, { deleted: true, id: one[1] });
      }
      const qr = /^\/payments\/([^/]+)\/pixQrCode$/.exec(path);
      if (req.method === 'GET' && qr) {
        if (!payments.has(qr[1])) return json(404, {});
        return json(200, {
          encodedImage: 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==',
          payload: `00020101021226820014br.gov.bcb.pix2560pix.asaas.com/qr/cobv/${qr[1]}5204000053039865406${payments.get(qr[1]).value.toFixed(2)}5802BR6304ABCD`,
          expirationDate: '2027-12-08 23:59:59',
        });
      }
      return json(404, {});
    });
  });
  return {
    server,
    clock,
    seen,
    customers,
    payments,
    fail: (method: string, path: string, ...f: Fault[]) => faults.set(route(method, path), [...(faults.get(route(method, path)) ?? []), ...f]),
    reset() {
      seen.length = 0;
      customers.length = 0;
      payments.clear();
      faults.clear();
      clock.today = '';
    },
    calls: () => seen.map((s) => `${s.method} ${s.path}`),
  };
}

const asaas = fakeAsaas();
let baseUrl = '';
beforeAll(async () => {
  await new Promise<void>((r) => asaas.server.listen(0, '127.0.0.1', r));
  baseUrl = `http://127.0.0.1:${(asaas.server.address() as AddressInfo).port}/v3`;
});
afterAll(() => new Promise<void>((r) => asaas.server.close(() => r())));
afterEach(() => {
  asaas.reset();
  vi.restoreAllMocks();
});

const input = (companyId = 7) => ({
  reference: `inv-${companyId}-41`,
  value: 99.9,
  dueDate: '2026-12-08',
  description: 'Plano Ouro — fatura 41',
  customer: { companyId, name: 'Ana Souza', email: 'financeiro@loja.example', document: '24971563792', postalCode: '01000-000', address: 'Rua das Flores, 10', phone: '11987654321' },
});
/** The provider with a short timeout, counting the HTTP attempts it makes (refused ones too). */
function provider(opts: { timeoutMs?: number; baseUrl?: string } = {}) {
  const attempts: string[] = [];
  const counting: typeof fetch = (url, init) => {
    attempts.push(`${init?.method} ${new URL(String(url)).pathname.replace(/^\/v3/, '')}`);
    return fetch(url, init);
  };
  return { attempts, p: asaasProvider({ baseUrl: opts.baseUrl ?? baseUrl, apiKey: API_KEY, http: counting, timeoutMs: opts.timeoutMs ?? 2_000 }) };
}
const failure = (p: Promise<unknown>) => refusal(p);

describe('the Asaas provider against a fake Asaas v3', () => {
  it('first checkout: looks the customer up by externalReference, creates it, makes a PIX payment and reads its QR code, with access_token on every call', async () => {
    const { p } = provider();
    const charge = await p.createPixCharge(input());
    expect(asaas.calls()).toEqual(['GET /customers', 'POST /customers', 'POST /payments', `GET /payments/${charge.chargeId}/pixQrCode`]);
    for (const s of asaas.seen) {
      expect(s.headers.access_token).toBe(API_KEY);
      expect(s.headers.authorization).toBeUndefined();
    }
    expect(asaas.seen[0].query).toEqual({ externalReference: 'company-7' });
    const [customer] = asaas.customers;
    expect(asaas.seen[1].headers['content-type']).toBe('application/json');
    expect(asaas.seen[1].body).toEqual({
      name: 'Ana Souza',
      email: 'financeiro@loja.example',
      cpfCnpj: '24971563792',
      mobilePhone: '11987654321',
      postalCode: '01000-000',
      address: 'Rua das Flores, 10',
      externalReference: 'company-7',
      notificationDisabled: true,
    });
    expect(asaas.seen[2].body).toEqual({ customer: customer.id, billingType: 'PIX', value: 99.9, dueDate: '2026-12-08', description: 'Plano Ouro — fatura 41', externalReference: 'inv-7-41' });
    const payment = asaas.payments.get(charge.chargeId)!;
    expect(charge).toEqual({ chargeId: payment.id, payload: expect.stringContaining(`cobv/${payment.id}`), encodedImage: expect.stringMatching(/^iVBOR/), value: 99.9 });
  });

  it('a second checkout of the company reuses its customer', async () => {
    await provider().p.createPixCharge(input());
    asaas.seen.length = 0;
    const again = await provider().p.createPixCharge({ ...input(), reference: 'inv-7-42' });
    expect(asaas.calls()).toEqual(['GET /customers', 'POST /payments', `GET /payments/${again.chargeId}/pixQrCode`]);
    expect(asaas.customers).toHaveLength(1);
    // Another company: another customer.
    await provider().p.createPixCharge(input(8));
    expect(asaas.customers.map((c) => c.externalReference)).toEqual(['company-7', 'company-8']);
  });

  it('cancelCharge removes the payment with DELETE /payments/{id} and the access_token; a 5xx is retried', async () => {
    const { p } = provider();
    const charge = await p.createPixCharge(input());
    asaas.seen.length = 0;
    asaas.fail('DELETE', `/payments/${charge.chargeId}`, { status: 503 });
    await p.cancelCharge(charge.chargeId);
    expect(asaas.calls()).toEqual([`DELETE /payments/${charge.chargeId}`, `DELETE /payments/${charge.chargeId}`]);
    expect(asaas.seen[1].headers.access_token).toBe(API_KEY);
    expect(asaas.payments.has(charge.chargeId)).toBe(false);
  });

  it('GETs are retried on 5xx, 429, a dropped connection, a timeout and a stalled body; the charge is made once', async () => {
    asaas.fail('GET', '/customers', { status: 503 }, { status: 429, body: { errors: [{ code: 'rate_limit', description: 'Too many requests' }] } });
    asaas.fail('GET', '/payments/pay_x/pixQrCode', 'drop', { stallMs: 1_500 });
    const { p, attempts } = provider({ timeoutMs: 500 });
    const charge = await p.createPixCharge(input());
    expect(attempts.filter((a) => a === 'GET /customers')).toHaveLength(3);
    expect(attempts.filter((a) => a === 'POST /payments')).toHaveLength(1);
    expect(attempts.filter((a) => a.endsWith('/pixQrCode'))).toHaveLength(3);
    expect(asaas.payments.size).toBe(1);
    expect(charge.chargeId).toBe([...asaas.payments.keys()][0]);

    asaas.reset();
    asaas.fail('GET', '/customers', 'stallBody');
    const second = provider({ timeoutMs: 500 });
    await second.p.createPixCharge(input());
    expect(second.attempts.filter((a) => a === 'GET /customers')).toHaveLength(2);
  });

  it('a GET failing three times is a 502 with a message, not a crash', async () => {
    asaas.fail('GET', '/customers', { status: 500 }, { status: 502 }, { status: 503 });
    const { p, attempts } = provider();
    expect(await failure(p.createPixCharge(input()))).toMatchObject({ status: 502, code: 'ERR_PAYMENT_PROVIDER' });
    expect(attempts).toEqual(['GET /customers', 'GET /customers', 'GET /customers']);
  });

  it.each<[string, Fault]>([
    ['a 5xx', { status: 500 }],
    ['a 429', { status: 429 }],
    ['a dropped connection', 'drop'],
    ['a timeout', { stallMs: 1_500 }],
    ['a stalled body', 'stallBody'],
  ])('POST /payments is never sent again after %s: one attempt, 502', async (_what, fault) => {
    asaas.fail('POST', '/payments', fault);
    const { p, attempts } = provider({ timeoutMs: 500 });
    expect(await failure(p.createPixCharge(input()))).toMatchObject({ status: 502, code: 'ERR_PAYMENT_PROVIDER' });
    expect(attempts.filter((a) => a === 'POST /payments')).toHaveLength(1);
    expect(attempts.some((a) => a.endsWith('/pixQrCode'))).toBe(false);
  });

  it("Asaas' 400 errors are a 502 without retry, and the API key is never logged", async () => {
    const warn = vi.spyOn(log, 'warn');
    asaas.fail('POST', '/customers', { status: 400, body: { errors: [{ code: 'invalid_cpfCnpj', description: 'O CPF/CNPJ informado é inválido.' }] } });
    const { p, attempts } = provider();
    expect(await failure(p.createPixCharge(input()))).toMatchObject({ status: 502, code: 'ERR_PAYMENT_PROVIDER' });
    expect(attempts).toEqual(['GET /customers', 'POST /customers']);
    const logged = JSON.stringify(warn.mock.calls);
    expect(logged).toContain('invalid_cpfCnpj');
    expect(logged).not.toContain(API_KEY);
  });

  it('a refused connection (nothing reached Asaas) is the only case a POST is sent again', async () => {
    // A port with nobody listening: every attempt is refused, so even the POST may be tried again.
    const closed = await new Promise<number>((resolve) => {
      const s = net.createServer().listen(0, '127.0.0.1', () => {
        const port = (s.address() as AddressInfo).port;
        s.close(() => resolve(port));
      });
    });
    const { asaasProvider: make } = await import('../../src/services/payments.js');
    const attempts: string[] = [];
    const refusedPost = make({
      baseUrl: `http://127.0.0.1:${closed}/v3`,
      apiKey: API_KEY,
      timeoutMs: 500,
      // The customer is found (answered here), then POST /payments goes to the closed port.
      http: async (url, init) => {
        attempts.push(`${init?.method} ${new URL(String(url)).pathname}`);
        if (init?.method === 'GET') return new Response(JSON.stringify({ object: 'list', hasMore: false, totalCount: 1, limit: 10, offset: 0, data: [{ object: 'customer', id: 'cus_000000000001' }] }), { status: 200 });
        return fetch(url, init);
      },
    });
    expect(await failure(refusedPost.createPixCharge(input()))).toMatchObject({ status: 502 });
    expect(attempts).toEqual(['GET /v3/customers', 'POST /v3/payments', 'POST /v3/payments', 'POST /v3/payments']);
  });
});

describe('checkout and webhook with the asaas setting pointing at the fake', () => {
  const TOKEN = 'whsec_balcao_0123456789abcdef';
  beforeAll(() => {
    process.env.ASAAS_API_URL = baseUrl;
  });
  afterAll(() => {
    delete process.env.ASAAS_API_URL;
  });

  it('charges through Asaas, answers the Pix, and the Asaas-shaped webhook with its token pays the invoice once', async () => {
    const billing = await import('../../src/services/billing.js');
    const { updateItem, queryAll } = await import('../../src/core/db.js');
    const { keys, invoicesPartition, invoicePrefix } = await import('../../src/table/keys.js');
    const w = await memoryWorld();
    await run(w, () => updateItem(keys.plan(w.plan.id), { value: 149.9 }));
    const { updateCompany } = await import('../../src/services/companies.js');
    await run(w, () => updateCompany(w.companyId, { dueDate: '2026-12-08T00:00:00.000Z', recurrence: 'MENSAL', document: '11222333000181' }));
    await run(w, () => billing.sweepInvoices(Date.parse('2026-11-28T00:00:00.000Z')));

    // The super user's setting: sealed, answered masked (never whole).
    const view = await run(w, () => billing.saveBillingSetting({ value: API_KEY, webhookToken: TOKEN }));
    expect(view).toMatchObject({ key: 'asaas', provider: 'asaas' });
    expect(JSON.stringify(view)).not.toContain(API_KEY);
    expect(JSON.stringify(view)).not.toContain(TOKEN);

    const [inv] = await run(w, () => queryAll<{ id: number }>(invoicesPartition(w.companyId), invoicePrefix()));
    const identity = { companyId: w.companyId, isSuper: false };
    const body = { firstName: 'Ana', lastName: 'Souza', address2: 'Rua das Flores, 10', city: 'São Paulo', zipcode: '01000-000', country: 'Brasil', invoiceId: inv.id, price: 0.01 };
    const pix = await run(w, () => billing.checkout(identity, body));
    // The invoice's amount, never the payload's price; Asaas' Pix code and image.
    expect(asaas.seen.find((s) => s.path === '/payments')!.body).toMatchObject({ value: 149.9, billingType: 'PIX', externalReference: `inv-${w.companyId}-${inv.id}`, dueDate: '2026-12-08' });
    expect(asaas.seen.find((s) => s.path === '/customers' && s.method === 'POST')!.body).toMatchObject({ name: 'Ana Souza', cpfCnpj: '11222333000181', externalReference: `company-${w.companyId}` });
    expect(pix).toMatchObject({ valor: { original: 149.9 }, qrcode: { qrcode: expect.stringContaining(pix.chargeId), encodedImage: expect.stringMatching(/^iVBOR/) } });
    // A second checkout answers the stored charge: no second payment at Asaas.
    expect((await run(w, () => billing.checkout(identity, body))).chargeId).toBe(pix.chargeId);
    expect(asaas.payments.size).toBe(1);

    // Asaas' webhook delivery (its event shape), with the configured token.
    const payment = asaas.payments.get(pix.chargeId)!;
    const delivery = {
      id: 'evt_05b708f961d739ea7eba7e4db318f621&368604920',
      event: 'PAYMENT_RECEIVED',
      dateCreated: '2026-11-28 10:15:00',
      payment: { ...payment, status: 'RECEIVED', paymentDate: '2026-11-28', clientPaymentDate: '2026-11-28' },
    };
    const hook = (token: string) => run(w, () => billing.paymentWebhook({ 'asaas-access-token': token }, delivery));
    expect(await refusal(hook('not-the-token'))).toMatchObject({ status: 401 });
    expect(await hook(TOKEN)).toEqual({ received: true, status: 'paid' });
    expect(await hook(TOKEN)).toEqual({ received: true, status: 'alreadyPaid' });
    const { getItem } = await import('../../src/core/db.js');
    expect(await run(w, () => getItem(keys.company(w.companyId)))).toMatchObject({ dueDate: '2027-01-08T00:00:00.000Z', status: true });
    expect(w.ports.events(`company-${w.companyId}-payment`)).toHaveLength(1);
  });

  it("an overdue invoice is charged due today in the company's calendar (Asaas refuses a past due date)", async () => {
    const billing = await import('../../src/services/billing.js');
    const { updateItem, queryAll } = await import('../../src/core/db.js');
    const { keys, invoicesPartition, invoicePrefix } = await import('../../src/table/keys.js');
    const { updateCompany } = await import('../../src/services/companies.js');
    const w = await memoryWorld();
    await run(w, () => updateItem(keys.plan(w.plan.id), { value: 149.9 }));
    await run(w, () => updateCompany(w.companyId, { dueDate: '2026-03-01T00:00:00.000Z', recurrence: 'MENSAL' }));
    await run(w, () => billing.sweepInvoices(Date.parse('2026-02-25T00:00:00.000Z')));
    await run(w, () => billing.saveBillingSetting({ value: API_KEY, webhookToken: TOKEN }));
    const [inv] = await run(w, () => queryAll<{ id: number }>(invoicesPartition(w.companyId), invoicePrefix()));
    // 01:00 UTC on 10/03 is still 09/03 in São Paulo (the company's default zone): Asaas' today.
    w.ports.time = Date.parse('2026-03-10T01:00:00.000Z');
    asaas.clock.today = '2026-03-09';
    const body = { firstName: 'Ana', lastName: 'Souza', address2: 'Rua das Flores, 10', city: 'São Paulo', zipcode: '01000-000', country: 'Brasil', invoiceId: inv.id };
    const pix = await run(w, () => billing.checkout({ companyId: w.companyId, isSuper: true }, body));
    expect(asaas.seen.find((s) => s.path === '/payments' && s.method === 'POST')!.body).toMatchObject({ dueDate: '2026-03-09', value: 149.9 });
    expect(pix).toMatchObject({ invoiceId: inv.id, valor: { original: 149.9 } });
    expect(asaas.payments.get(pix.chargeId)!.dueDate).toBe('2026-03-09');
  });
});
