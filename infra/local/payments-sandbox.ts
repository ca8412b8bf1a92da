import fs from 'node:fs';
import path from 'node:path';
import { randomBytes, randomUUID } from 'node:crypto';
import type { SandboxServer } from './sandbox-server.js';
import type { Log } from './http-util.js';

/**
 * The sandbox payment provider (issue 22 §2, decision 61): a stand-in for Asaas on one machine.
 * The functions' sandbox provider makes a Pix charge with `POST /payments` (and deletes one with
 * `DELETE /payments/{id}`); the charge is paid by
 * `POST /payments/{id}/pay` (or the button of the `/payments` page), which calls the platform's
 * webhook exactly as Asaas does: `POST {apiUrl}/subscription/webhook`, header `asaas-access-token`,
 * body `{id, event: 'PAYMENT_RECEIVED', dateCreated, payment: {object, id, customer, value, netValue,
 * billingType, status, dueDate, paymentDate, externalReference, description}}`. Charges are kept in
 * `<dataDir>/payments.json`, written before the answer.
 */
interface SandboxCharge {
  id: string;
  value: number;
  dueDate: string;
  description: string;
  externalReference: string;
  customer: { name?: string; email?: string };
  payload: string;
  status: 'PENDING' | 'RECEIVED';
  dateCreated: string;
  paymentDate: string | null;
  /** The webhook's answers to each delivery (status codes). */
  deliveries: number[];
}

/** A Pix copy-and-paste text shaped like a BR Code (EMV), with our charge id; good enough to draw as a QR. */
function pixPayload(id: string, value: number) {
  const field = (tag: string, v: string) => `${tag}${String(v.length).padStart(2, '0')}${v}`;
  const account = field('00', 'br.gov.bcb.pix') + field('25', `sandbox.balcao.local/pix/${id}`);
  return field('00', '01') + field('26', account) + field('52', '0000') + field('53', '986') + field('54', value.toFixed(2)) + field('58', 'BR') + field('59', 'BALCAO SANDBOX') + field('60', 'SAO PAULO') + field('62', field('05', id.slice(0, 25))) + '6304SBOX';
}

export function attachPaymentsSandbox(sandbox: SandboxServer, opts: { dataDir: string; apiUrl: string; token: string; log: Log }) {
  const file = path.join(opts.dataDir, 'payments.json');
  const charges = new Map<string, SandboxCharge>();
  try {
    for (const c of JSON.parse(fs.readFileSync(file, 'utf8')) as SandboxCharge[]) charges.set(c.id, c);
  } catch {
    // First start: no charges yet.
  }
  const save = () => {
    fs.writeFileSync(`${file}.tmp`, JSON.stringify([...charges.values()]));
    fs.renameSync(`${file}.tmp`, file);
  };

  sandbox.route('POST', '/payments', async (req) => {
    const body = await req.json<Partial<SandboxCharge> & { value?: number }>();
    const value = Number(body?.value);
    if (!Number.isFinite(value) || value < 0) throw new Error('value required');
    const id = `pay_sbx_${randomUUID().replace(/-/g, '').slice(0, 16)}`;
    const charge: SandboxCharge = {
      id,
      value,
      dueDate: String(body?.dueDate ?? ''),
      description: String(body?.description ?? ''),
      externalReference: String(body?.externalReference ?? ''),
      customer: (body?.customer as SandboxCharge['customer']) ?? {},
      payload: pixPayload(id, value),
      status: 'PENDING',
      dateCreated: new Date().toISOString(),
      paymentDate: null,
      deliveries: [],
    };
    charges.set(id, charge);
    save();
    return { id, value, status: charge.status, payload: charge.payload, billingType: 'PIX' };
  });

  /** Deletes a charge not yet paid (Asaas' `DELETE /payments/{id}`): a checkout that lost a race cancels its charge. */
  sandbox.route('DELETE', '/payments/{id}', (req, res) => {
    const charge = charges.get(req.params.id);
    if (!charge || charge.status !== 'PENDING') {
      res.writeHead(charge ? 400 : 404, { 'content-type': 'application/json' });
      return res.end(JSON.stringify({ message: charge ? 'charge already paid' : 'charge not found' }));
    }
    charges.delete(charge.id);
    save();
    opts.log('payments', `${charge.id} deleted`);
    return { deleted: true, id: charge.id };
  });

  sandbox.route('GET', '/payments.json', () => [...charges.values()].sort((a, b) => b.dateCreated.localeCompare(a.dateCreated)));

  /**
   * Pays the charge and delivers the webhook (again on every call: a repeated delivery, as Asaas
   * retries). Answers the webhook's status and body.
   */
  sandbox.route('POST', '/payments/{id}/pay', async (req, res) => {
    const charge = charges.get(req.params.id);
    if (!charge) {
      res.writeHead(404, { 'content-type': 'application/json' });
      return res.end(JSON.stringify({ message: 'charge not found' }));
    }
    const event = (req.url.searchParams.get('event') ?? 'PAYMENT_RECEIVED').toUpperCase();
    if (charge.status === 'PENDING') {
      charge.status = 'RECEIVED';
      charge.paymentDate = new Date().toISOString().slice(0, 10);
    }
    const delivery = {
      id: `evt_${randomBytes(12).toString('hex')}`,
      event,
      dateCreated: new Date().toISOString().replace('T', ' ').slice(0, 19),
      payment: {
        object: 'payment',
        id: charge.id,
        customer: 'cus_sandbox',
        value: charge.value,
        netValue: charge.value,
        billingType: 'PIX',
        status: charge.status,
        dueDate: charge.dueDate,
        paymentDate: charge.paymentDate,
        description: charge.description,
        externalReference: charge.externalReference,
      },
    };
    const token = req.url.searchParams.get('token') ?? opts.token;
    const answer = await fetch(`${opts.apiUrl}/subscription/webhook`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'asaas-access-token': token },
      body: JSON.stringify(delivery),
      signal: AbortSignal.timeout(15_000),
    });
    const text = await answer.text();
    charge.deliveries.push(answer.status);
    save();
    opts.log('payments', `${charge.id} ${event}: webhook answered ${answer.status}`);
    let parsed: unknown = text;
    try {
      parsed = JSON.parse(text);
    } catch {
      // Not JSON: answered as text.
    }
    return { chargeId: charge.id, status: charge.status, webhook: { status: answer.status, body: parsed } };
  });

  sandbox.route('GET', '/payments', (_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(PAGE);
  });
}

/** The "Pagamentos" page: the sandbox's charges, each with a Pay button. */
const PAGE = `<!doctype html>
<html lang="pt-BR"><head><meta charset="utf-8"><title>Pagamentos (sandbox)</title>
<style>body{font-family:system-ui,sans-serif;margin:2rem;max-width:60rem}table{border-collapse:collapse;width:100%}td,th{border-bottom:1px solid #ddd;padding:.4rem;text-align:left}button{padding:.3rem .8rem}</style></head>
<body><h1>Pagamentos</h1><p>Cobranças Pix feitas pelo provedor sandbox. <b>Pagar</b> chama o webhook da plataforma como o Asaas faria.</p>
<table><thead><tr><th>Cobrança</th><th>Referência</th><th>Valor</th><th>Vencimento</th><th>Estado</th><th></th></tr></thead><tbody id="rows"></tbody></table>
<script>
const brl = new Intl.NumberFormat('pt-BR', { style: 'currency', currency: 'BRL' });
async function load() {
  const list = await (await fetch('/payments.json')).json();
  const rows = document.getElementById('rows');
  rows.replaceChildren(...list.map((c) => {
    const tr = document.createElement('tr');
    for (const v of [c.id, c.externalReference, brl.format(c.value), c.dueDate, c.status]) { const td = document.createElement('td'); td.textContent = v; tr.append(td); }
    const td = document.createElement('td'); const b = document.createElement('button');
    b.textContent = c.status === 'RECEIVED' ? 'Reenviar webhook' : 'Pagar';
    b.onclick = async () => { b.disabled = true; const r = await (await fetch('/payments/' + encodeURIComponent(c.id) + '/pay', { method: 'POST' })).json(); alert('Webhook: ' + r.webhook.status); load(); };
    td.append(b); tr.append(td); return tr;
  }));
}
load();
</script></body></html>`;
