import { beforeAll, describe, expect, it } from 'vitest';
import { advanceDueDate } from '@balcao/shared';
import { applyStackEnv, call, endpoints, socket, superUser, tenant } from './client.js';

/**
 * Billing over the real stack (issue 22 §2-§3; decision 61) with the sandbox payment provider: the
 * invoice job (called here with the stack's clock; the stack's own sweeper may run it too, which the
 * job's idempotency makes harmless), the Pix checkout, the sandbox's pay endpoint calling the webhook
 * exactly as Asaas would, replay and wrong token, blocking 3 days past due and unblocking on payment.
 */
const DAY = 86_400_000;
let billing: typeof import('../../src/services/billing.js');

beforeAll(async () => {
  applyStackEnv();
  await import('../../src/core/aws-ports.js');
  billing = await import('../../src/services/billing.js');
});

const ADDRESS = { firstName: 'Ana Souza', address2: 'Rua das Flores, 10', city: 'São Paulo', state: 'SP', zipcode: '01000-000', country: 'Brasil' };
const pay = async (chargeId: string): Promise<any> => (await fetch(`${endpoints().sandboxUrl}/payments/${encodeURIComponent(chargeId)}/pay`, { method: 'POST' })).json();
const webhook = (token: string | undefined, body: unknown) => call('POST', '/subscription/webhook', { body, headers: token ? { 'asaas-access-token': token } : {} });

async function tenantDue(dueDate: string) {
  const t = await tenant({ value: 49.9 });
  const sup = await superUser();
  expect((await sup.put(`/companies/${t.companyId}`, { dueDate })).status).toBe(200);
  return t;
}

describe('billing with the sandbox provider', () => {
  it('the job opens one invoice; checkout answers the Pix; the sandbox pays through the webhook once; wrong token and unknown charge change nothing', async () => {
    const due = new Date(Date.now() + 5 * DAY).toISOString();
    const t = await tenantDue(due);
    await billing.sweepInvoices(Date.now());
    await billing.sweepInvoices(Date.now());
    const list = await t.admin.get('/invoices/all?pageNumber=1');
    expect(list.status).toBe(200);
    expect(list.body).toMatchObject({ invoices: [{ value: 49.9, dueDate: due, status: 'open' }], hasMore: false });
    const invoice = list.body.invoices[0];

    // Another tenant's invoice is not found; a bad payload names the field with the spec's message.
    const other = await tenant();
    expect((await other.admin.get(`/invoices/${invoice.id}`)).status).toBe(404);
    expect((await other.admin.post('/subscription', { ...ADDRESS, invoiceId: invoice.id })).status).toBe(404);
    const bad = await t.admin.post('/subscription', { ...ADDRESS, city: ' ', invoiceId: invoice.id });
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ error: 'ERR_VALIDATION', field: 'city', message: 'Cidade é obrigatória' });

    const pix = await t.admin.post('/subscription', { ...ADDRESS, invoiceId: invoice.id });
    expect(pix.status).toBe(200);
    expect(pix.body).toMatchObject({ qrcode: { qrcode: expect.stringMatching(/^000201/) }, valor: { original: 49.9 } });
    const chargeId = pix.body.chargeId as string;

    // Wrong or missing token: 401, nothing changes. Unknown charge with the right token: 404.
    const paidEvent = { event: 'PAYMENT_RECEIVED', payment: { id: chargeId, value: 49.9, externalReference: 'x' } };
    expect((await webhook('not-the-token', paidEvent)).status).toBe(401);
    expect((await webhook(undefined, paidEvent)).status).toBe(401);
    expect((await webhook(process.env.PAYMENTS_SANDBOX_TOKEN, { ...paidEvent, payment: { id: 'pay_unknown' } })).status).toBe(404);
    expect((await t.admin.get(`/invoices/${invoice.id}`)).body).toMatchObject({ status: 'open' });

    const ws = await socket(t.adminToken);
    const first = await pay(chargeId);
    expect(first).toMatchObject({ status: 'RECEIVED', webhook: { status: 200, body: { status: 'paid' } } });
    // A repeated delivery, and two at once, change nothing twice.
    const again = await Promise.all([pay(chargeId), pay(chargeId)]);
    expect(again.map((a) => a.webhook.body.status)).toEqual(['alreadyPaid', 'alreadyPaid']);
    const newDue = advanceDueDate(due, 'MENSAL');
    const event = await ws.waitFor(`company-${t.companyId}-payment`);
    expect(event.data).toMatchObject({ action: 'CONCLUIDA', invoiceId: invoice.id, company: { id: t.companyId, dueDate: newDue, status: true } });
    await new Promise((r) => setTimeout(r, 300));
    expect(ws.frames.filter((f) => f.event === `company-${t.companyId}-payment`)).toHaveLength(1);
    ws.close();
    expect((await t.admin.get(`/invoices/${invoice.id}`)).body).toMatchObject({ status: 'paid' });
    expect((await (await superUser()).get(`/companies/${t.companyId}`)).body).toMatchObject({ dueDate: newDue, status: true });
  });

  it('a company 3 days past due is blocked (its users are refused), the super user pays its invoice, and it is unblocked with the new due date', async () => {
    const due = new Date(Date.now() - 4 * DAY).toISOString();
    const t = await tenantDue(due);
    const sup = await superUser();
    await billing.sweepInvoices(Date.now());
    await billing.sweepInvoices(Date.now());
    expect((await sup.get(`/companies/${t.companyId}`)).body).toMatchObject({ status: false, dueDate: due });
    const refused = await t.admin.get('/invoices/all');
    expect(refused.status).toBe(403);
    expect(refused.body).toMatchObject({ error: 'ERR_COMPANY_BLOCKED', message: 'Sistema bloqueado, entre em contato com o suporte' });

    // The super user sees it with the company filter and pays it (support's way for a blocked company).
    const mine = await sup.get(`/invoices/all?companyId=${t.companyId}`);
    expect(mine.body.invoices).toMatchObject([{ companyId: t.companyId, status: 'open', dueDate: due }]);
    const pix = await sup.post('/subscription', { ...ADDRESS, invoiceId: mine.body.invoices[0].id });
    expect(pix.status).toBe(200);
    expect((await pay(pix.body.chargeId)).webhook).toMatchObject({ status: 200, body: { status: 'paid' } });
    expect((await sup.get(`/companies/${t.companyId}`)).body).toMatchObject({ status: true, dueDate: advanceDueDate(due, 'MENSAL') });
    expect((await t.admin.get('/invoices/all')).status).toBe(200);
  });
});
