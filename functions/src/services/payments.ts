import { AppError } from '@balcao/shared';
import { log } from '../core/observability.js';

/**
 * Payment providers behind one interface (issue 22 §2, decision 61): Asaas (its real API: customers,
 * Pix charges, the charge's QR code) and the local sandbox (the stack's sandbox server, which pays a
 * charge by calling our webhook as Asaas would). Each takes its HTTP client (`fetch` by default);
 * every call has a timeout, reads are retried, and nothing here runs inside a table transaction.
 */
export interface PixChargeInput {
  /** Our reference, sent back by the webhook (`externalReference`): `inv-<companyId>-<invoiceId>`. */
  reference: string;
  value: number;
  /** YYYY-MM-DD. */
  dueDate: string;
  description: string;
  customer: { companyId: number; name: string; email: string; document?: string; postalCode?: string; address?: string; city?: string; state?: string; phone?: string };
}
export interface PixCharge {
  chargeId: string;
  /** The Pix copy-and-paste code (what the QR encodes). */
  payload: string;
  /** The QR image Asaas draws (base64 PNG), when the provider gives one. */
  encodedImage?: string;
  value: number;
}
export interface PaymentProvider {
  readonly name: 'asaas' | 'sandbox';
  createPixCharge(input: PixChargeInput): Promise<PixCharge>;
  /** Removes a charge not yet paid (one that lost a race to record it): it can no longer be paid. */
  cancelCharge(chargeId: string): Promise<void>;
}

export type HttpClient = typeof fetch;
const TIMEOUT_MS = 10_000;
const ATTEMPTS = 3;

const providerError = (what: string, detail?: string) => {
  log.warn('payment provider call failed', { what, detail: detail?.slice(0, 300) });
  return new AppError(502, 'ERR_PAYMENT_PROVIDER', { message: 'O provedor de pagamento não respondeu; tente novamente.' });
};

/**
 * One JSON call with a timeout. GETs and DELETEs (idempotent) are retried on network errors, 429 and
 * 5xx; a POST only when the connection was refused (nothing reached the provider), so a charge is
 * never made twice.
 */
async function call<T>(http: HttpClient, method: 'GET' | 'POST' | 'DELETE', url: string, headers: Record<string, string>, body?: unknown, timeoutMs = TIMEOUT_MS): Promise<T> {
  let last = '';
  for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
    if (attempt) await new Promise((r) => setTimeout(r, 200 * 2 ** attempt));
    let res: Response;
    try {
      res = await http(url, {
        method,
        headers: { accept: 'application/json', ...(body !== undefined ? { 'content-type': 'application/json' } : {}), ...headers },
        body: body !== undefined ? JSON.stringify(body) : undefined,
        signal: AbortSignal.timeout(timeoutMs),
      });
    } catch (err) {
      last = (err as Error).message;
      const refused = /ECONNREFUSED/.test(String((err as { cause?: { code?: string } }).cause?.code ?? last));
      if (method !== 'POST' || refused) continue;
      throw providerError(`${method} ${new URL(url).pathname}`, last);
    }
    // The body is read under the same timeout: a stalled body is a network error like any other.
    let text: string;
    try {
      text = await res.text();
    } catch (err) {
      last = `${res.status} body: ${(err as Error).message}`;
      if (method !== 'POST') continue;
      throw providerError(`${method} ${new URL(url).pathname}`, last);
    }
    if (res.ok) {
      try {
        return JSON.parse(text) as T;
      } catch {
        throw providerError(`${method} ${new URL(url).pathname}`, 'not JSON');
      }
    }
    last = `${res.status} ${text}`;
    if (method !== 'POST' && (res.status === 429 || res.status >= 500)) continue;
    throw providerError(`${method} ${new URL(url).pathname}`, last);
  }
  throw providerError(`${method} ${new URL(url).pathname}`, last);
}

/**
 * Asaas v3 (docs.asaas.com): `access_token` header; customers, payments (billingType PIX), pixQrCode;
 * `DELETE /payments/{id}` removes a payment awaiting payment (answers `{deleted: true, id}`).
 */
export function asaasProvider(opts: { baseUrl: string; apiKey: string; http?: HttpClient; timeoutMs?: number }): PaymentProvider {
  const http: HttpClient = opts.http ?? fetch;
  const base = opts.baseUrl.replace(/\/+$/, '');
  const headers = { access_token: opts.apiKey, 'user-agent': 'balcao' };
  const get = <T>(url: string) => call<T>(http, 'GET', url, headers, undefined, opts.timeoutMs);
  const post = <T>(url: string, body: unknown) => call<T>(http, 'POST', url, headers, body, opts.timeoutMs);
  return {
    name: 'asaas',
    async createPixCharge(input) {
      // The company's customer: found by our reference, else created (a second checkout reuses it).
      const ref = `company-${input.customer.companyId}`;
      const found = await get<{ data?: { id: string }[] }>(`${base}/customers?externalReference=${encodeURIComponent(ref)}`);
      let customerId = found.data?.[0]?.id;
      if (!customerId) {
        const c = input.customer;
        const made = await post<{ id: string }>(`${base}/customers`, {
          name: c.name,
          email: c.email,
          ...(c.document ? { cpfCnpj: c.document } : {}),
          ...(c.phone ? { mobilePhone: c.phone } : {}),
          ...(c.postalCode ? { postalCode: c.postalCode } : {}),
          ...(c.address ? { address: c.address } : {}),
          externalReference: ref,
          notificationDisabled: true,
        });
        customerId = made.id;
      }
      const payment = await post<{ id: string; value: number }>(`${base}/payments`, {
        customer: customerId,
        billingType: 'PIX',
        value: input.value,
        dueDate: input.dueDate,
        description: input.description,
        externalReference: input.reference,
      });
      const qr = await get<{ encodedImage: string; payload: string; expirationDate?: string }>(`${base}/payments/${encodeURIComponent(payment.id)}/pixQrCode`);
      return { chargeId: payment.id, payload: qr.payload, encodedImage: qr.encodedImage, value: payment.value ?? input.value };
    },
    async cancelCharge(chargeId) {
      await call<{ deleted?: boolean }>(http, 'DELETE', `${base}/payments/${encodeURIComponent(chargeId)}`, headers, undefined, opts.timeoutMs);
    },
  };
}

/**
 * The local sandbox (infra/local/payments-sandbox.ts): `POST {url}/payments` makes a charge with a
 * Pix code; `DELETE {url}/payments/{id}` deletes it; `POST {url}/payments/{id}/pay` (or its page's
 * button) calls our webhook as Asaas does.
 */
export function sandboxProvider(opts: { baseUrl: string; http?: HttpClient }): PaymentProvider {
  const http = opts.http ?? fetch;
  const base = opts.baseUrl.replace(/\/+$/, '');
  return {
    name: 'sandbox',
    async createPixCharge(input) {
      const out = await call<{ id: string; value: number; payload: string }>(http, 'POST', `${base}/payments`, {}, {
        billingType: 'PIX',
        value: input.value,
        dueDate: input.dueDate,
        description: input.description,
        externalReference: input.reference,
        customer: { name: input.customer.name, email: input.customer.email },
      });
      return { chargeId: out.id, payload: out.payload, value: out.value };
    },
    async cancelCharge(chargeId) {
      await call<{ deleted?: boolean }>(http, 'DELETE', `${base}/payments/${encodeURIComponent(chargeId)}`, {});
    },
  };
}
