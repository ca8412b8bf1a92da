import { createHash, timingSafeEqual } from 'node:crypto';
import {
  AppError,
  INVOICES_PAGE,
  RECURRENCE_MONTHS,
  addMonths,
  PAID_EVENTS,
  advanceDueDate,
  asaasSettingSchema,
  billingLookAt,
  blockAt,
  companyEvent,
  invoiceListQuerySchema,
  invoiceOpensAt,
  isRecurrence,
  maskSecret,
  parseOrThrow,
  paymentWebhookSchema,
  subscriptionSchema,
  defaultSchedule,
  zonedDayKey,
  type ApiInvoice,
  type Company,
  type PixCheckout,
  type SettingItem,
} from '@balcao/shared';
import { env } from '../core/env.js';
import { clean, getItem, isConditionFailure, isTransactionCanceled, nextId, putItem, queryAll, queryIndexAll, transact, tx, updateItem, type TransactItem } from '../core/db.js';
import { invalidateCompanyCache } from '../core/identity.js';
import { log } from '../core/observability.js';
import { nowIso, nowMs, secrets, table } from '../core/ports.js';
import { publish } from '../core/realtime.js';
import { sendCommand } from '../core/commands.js';
import {
  ALL_INVOICES,
  COMPANY_DUE,
  billingConfigKey,
  chargeKey,
  companyDueKeys,
  connectionPrefix,
  invoiceDueMarker,
  invoiceKey,
  invoicePrefix,
  invoicesPartition,
  allInvoicesKeys,
  keys,
} from '../table/keys.js';
import type { BillingConfigItem, ChargeItem, CompanyItem, ConnectionItem, InvoiceItem, PlanItem } from '../table/items.js';
import { asaasProvider, sandboxProvider, type PaymentProvider } from './payments.js';
import { settingValue } from './settings.js';

/**
 * Billing (issue 22 §2; server-behaviour §13; decision 61): the invoice job (run by the sweeper),
 * blocking, the invoices list, the Pix checkout and the provider's webhook.
 */

type Identity = { companyId: number; isSuper: boolean };
const sha256 = (s: string) => createHash('sha256').update(s, 'utf8').digest('hex');
const sameHash = (a: string, b: string) => a.length === b.length && timingSafeEqual(Buffer.from(a), Buffer.from(b));
const noInvoice = () => new AppError(404, 'ERR_NO_INVOICE_FOUND');

// ------------------------------------------------------------------ the due index

/**
 * The company's billing index keys for its state after a write: SET them, or REMOVE them when the
 * job never needs to look at it. Every write of `dueDate`, `status` or `invoicedDueDate` goes through it.
 */
export function dueIndexUpdate(c: BillingState) {
  const k = companyDueKeys(c.id, lookAt(c));
  return k ? { set: k, remove: [] as string[] } : { set: {}, remove: ['GSI4PK', 'GSI4SK'] };
}

type BillingState = { id: number; status: boolean; dueDate: string | null | undefined; invoicedDueDate?: string | null; billingExempt?: boolean };
/** `billingLookAt`, except for a company left out of billing (the platform's own): never looked at. */
const lookAt = (c: BillingState) => (c.billingExempt ? undefined : billingLookAt(c));

/**
 * Seed step 9 (decision 61): companies written before billing have no due-index key, so the job
 * would never look at them. Gives every company the key its state calls for (none while blocked or
 * without a due date), conditional on the fields the key is computed from as read (a concurrent
 * write computes its own key). Idempotent: a company whose key is already right is not written.
 * Answers how many companies were written. `read`: the companies as read (tests: a list that lags).
 */
export async function backfillDueIndex(read?: (CompanyItem & { GSI4PK?: string; GSI4SK?: string })[]): Promise<number> {
  let written = 0;
  for (const c of read ?? (await queryIndexAll<CompanyItem & { GSI4PK?: string; GSI4SK?: string }>('GSI1', keys.companyList()))) {
    const want = companyDueKeys(c.id, lookAt(c));
    if (want ? c.GSI4PK === want.GSI4PK && c.GSI4SK === want.GSI4SK : c.GSI4PK === undefined && c.GSI4SK === undefined) continue;
    const names: Record<string, string> = { '#st': 'status', '#due': 'dueDate', '#inv': 'invoicedDueDate', '#ex': 'billingExempt' };
    const values: Record<string, unknown> = {};
    const same = (name: string, v: unknown, k: string) => {
      if (v === undefined || v === null) return `(attribute_not_exists(${name}) OR ${name} = :null)`;
      values[k] = v;
      return `${name} = ${k}`;
    };
    const condition = ['attribute_exists(PK)', same('#st', c.status, ':st'), same('#due', c.dueDate, ':due'), same('#inv', c.invoicedDueDate, ':inv'), same('#ex', c.billingExempt, ':ex')].join(' AND ');
    if (condition.includes(':null')) values[':null'] = null;
    try {
      await updateItem(keys.company(c.id), want ?? {}, { condition, names, values, remove: want ? [] : ['GSI4PK', 'GSI4SK'] });
      written++;
    } catch (err) {
      if (!isConditionFailure(err)) throw err;
    }
  }
  return written;
}

// ------------------------------------------------------------------ the invoice job

const PAGE = 200;

/** Companies whose next look is due at `now` (GSI4 `COMPANYDUE`, `GSI4SK < now`): nothing read when nothing is due. */
async function dueCompanies(now: number): Promise<CompanyItem[]> {
  const out: CompanyItem[] = [];
  let start: Record<string, unknown> | undefined;
  do {
    const page = await table().query({
      TableName: env.tableName,
      IndexName: 'GSI4',
      KeyConditionExpression: 'GSI4PK = :p AND GSI4SK < :c',
      ExpressionAttributeValues: { ':p': COMPANY_DUE, ':c': `${new Date(now).toISOString()}#~` },
      Limit: PAGE,
      ExclusiveStartKey: start,
    });
    out.push(...((page.Items ?? []) as CompanyItem[]));
    start = page.LastEvaluatedKey as Record<string, unknown> | undefined;
  } while (start && out.length < 5 * PAGE);
  return out;
}

/**
 * The sweeper's invoice job: each company due within 10 days gets one invoice for its due date; a
 * company 3 days past due is blocked. Answers what it did (invoices opened + companies blocked).
 */
export async function sweepInvoices(now = nowMs()): Promise<number> {
  let done = 0;
  for (const listed of await dueCompanies(now)) {
    // The index may lag a write: decide on the company as it is now.
    const c = await getItem<CompanyItem>(keys.company(listed.id), true);
    if (!c || c.status === false || !c.dueDate || c.billingExempt) continue;
    try {
      if (c.invoicedDueDate !== c.dueDate && now >= invoiceOpensAt(c.dueDate)) done += (await openInvoice(c)) ? 1 : 0;
      else if (c.invoicedDueDate === c.dueDate && now >= blockAt(c.dueDate)) done += (await blockCompany(c)) ? 1 : 0;
    } catch (err) {
      log.error('invoice job failed for a company', { err, companyId: c.id });
    }
  }
  return done;
}

/**
 * Opens the invoice for the company's due date: the marker (company + due date), the invoice and the
 * company's `invoicedDueDate` in one transaction, so two runs or two instances make one invoice.
 */
export async function openInvoice(c: CompanyItem): Promise<InvoiceItem | undefined> {
  const dueDate = c.dueDate!;
  const plan = await getItem<PlanItem>(keys.plan(c.planId));
  const id = await nextId(0, 'invoice');
  const now = nowIso();
  const invoice: InvoiceItem = {
    ...invoiceKey(c.id, id),
    ...allInvoicesKeys(c.id, id, dueDate),
    entity: 'invoice',
    id,
    companyId: c.id,
    detail: plan?.name ?? '',
    value: Math.round(Number(plan?.value ?? 0) * 100) / 100,
    dueDate,
    status: 'open',
    paidAt: null,
    createdAt: now,
    updatedAt: now,
  };
  const index = dueIndexUpdate({ ...c, invoicedDueDate: dueDate });
  try {
    await transact([
      tx.put({ ...invoiceDueMarker(c.id, dueDate), entity: 'invoiceDue', invoiceId: id }, 'attribute_not_exists(PK)'),
      tx.put(invoice, 'attribute_not_exists(PK)'),
      // updatedAt too: a company update conditional on the updatedAt it read ('+ Vencimento') must
      // see that an invoice was opened meanwhile, or it would leave that invoice open and stale.
      companyUpdate(c.id, { invoicedDueDate: dueDate, updatedAt: now, ...index.set }, index.remove, 'dueDate = :expectDue AND #status = :true', { ':expectDue': dueDate, ':true': true }),
    ]);
  } catch (err) {
    if (!isTransactionCanceled(err)) throw err;
    // Another run opened it (the marker exists) or the company changed: nothing to do now.
    return undefined;
  }
  return invoice;
}

/** `SET` (and `REMOVE`) on the company item, conditional, as one transaction item. */
function companyUpdate(cid: number, set: Record<string, unknown>, remove: string[], condition: string, condValues: Record<string, unknown> = {}): TransactItem {
  const names: Record<string, string> = condition.includes('#status') ? { '#status': 'status' } : {};
  const values: Record<string, unknown> = { ...condValues };
  const parts = Object.entries(set)
    .filter(([, v]) => v !== undefined)
    .map(([k, v], i) => {
      names[`#s${i}`] = k;
      values[`:s${i}`] = v;
      return `#s${i} = :s${i}`;
    });
  const removes = remove.map((k, i) => ((names[`#r${i}`] = k), `#r${i}`));
  const expr = `${parts.length ? `SET ${parts.join(', ')}` : ''}${removes.length ? ` REMOVE ${removes.join(', ')}` : ''}`.trim();
  return tx.update(keys.company(cid), expr, values, `attribute_exists(PK) AND ${condition}`, names);
}

/**
 * Blocks a company 3 days past due (status false): its users can no longer sign in or call the API
 * (core/identity.ts), its running WhatsApp sessions are stopped (kept linked, restarted when it is
 * unblocked); nothing is deleted. Conditional on the state read, so a payment in between wins.
 */
export async function blockCompany(c: CompanyItem): Promise<boolean> {
  const connections = await queryAll<ConnectionItem>(keys.companyPartition(c.id), connectionPrefix());
  const running = connections.filter((w) => w.status !== 'DISCONNECTED').map((w) => w.id);
  try {
    await transact([
      companyUpdate(
        c.id,
        { status: false, blockedAt: nowIso(), stoppedConnectionIds: running, updatedAt: nowIso() },
        ['GSI4PK', 'GSI4SK'],
        '#status = :true AND dueDate = :due AND invoicedDueDate = :due',
        { ':true': true, ':due': c.dueDate },
      ),
    ]);
  } catch (err) {
    if (isTransactionCanceled(err)) return false;
    throw err;
  }
  invalidateCompanyCache(c.id);
  for (const id of running) await sendCommand({ type: 'stop', companyId: c.id, connectionId: id });
  log.info('company blocked: past due', { companyId: c.id, dueDate: c.dueDate, stopped: running.length });
  return true;
}

/** After an unblock: the sessions the block stopped start again. */
export async function restartStoppedSessions(companyId: number, ids: number[] | undefined) {
  for (const id of ids ?? []) await sendCommand({ type: 'start', companyId, connectionId: id });
}

// ------------------------------------------------------------------ '+ Vencimento' and other company writes

/**
 * The transaction items that keep invoices true when a company's due date is changed by hand
 * (`+ Vencimento`, the companies form): the open invoice of the old due date is superseded
 * (`cancelled`, conditional on it still being open) and its due-date marker deleted, so a due date
 * moved back to that date gets a new invoice from the job. `clearInvoiced`: the company's
 * `invoicedDueDate` no longer names a payable invoice and is removed in the same write.
 */
export async function supersedeOpenInvoice(c: CompanyItem, newDueDate: string | null | undefined): Promise<{ items: TransactItem[]; clearInvoiced: boolean }> {
  const none = { items: [], clearInvoiced: false };
  if (!c.dueDate || newDueDate === c.dueDate) return none;
  const marker = await getItem<{ invoiceId: number }>(invoiceDueMarker(c.id, c.dueDate), true);
  if (!marker) return none;
  const inv = await getItem<InvoiceItem>(invoiceKey(c.id, marker.invoiceId), true);
  if (!inv || inv.status !== 'open') return none;
  return {
    items: [
      tx.update(
        invoiceKey(c.id, inv.id),
        'SET #st = :cancelled, supersededAt = :now, updatedAt = :now',
        { ':cancelled': 'cancelled', ':open': 'open', ':now': nowIso() },
        '#st = :open',
        { '#st': 'status' },
      ),
      tx.delete(invoiceDueMarker(c.id, c.dueDate), 'invoiceId = :inv', { ':inv': inv.id }),
    ],
    clearInvoiced: c.invoicedDueDate === c.dueDate,
  };
}

// ------------------------------------------------------------------ invoices list

const toApiInvoice = (i: InvoiceItem, companyName?: string): ApiInvoice => ({
  id: i.id,
  companyId: i.companyId,
  detail: i.detail,
  value: i.value,
  dueDate: i.dueDate,
  status: i.status === 'paid' ? 'paid' : 'open',
  paidAt: i.paidAt ?? null,
  ...(companyName !== undefined ? { companyName } : {}),
  createdAt: i.createdAt,
  updatedAt: i.updatedAt,
});

/**
 * `GET /invoices/all`: a company's own invoices (one partition); the super user's, every company's
 * (GSI1 `INVOICES`) or one company's. Tens per company a year: read whole, paged in memory.
 */
export async function listInvoices(identity: Identity, query: unknown) {
  const q = parseOrThrow(invoiceListQuerySchema, query);
  const page = q.pageNumber ?? 1;
  let items: InvoiceItem[];
  let names = new Map<number, string>();
  if (identity.isSuper) {
    items = q.companyId ? await queryAll<InvoiceItem>(invoicesPartition(q.companyId), invoicePrefix()) : await queryIndexAll<InvoiceItem>('GSI1', ALL_INVOICES);
    names = new Map((await queryIndexAll<CompanyItem>('GSI1', keys.companyList())).map((c) => [c.id, c.name]));
  } else {
    items = await queryAll<InvoiceItem>(invoicesPartition(identity.companyId), invoicePrefix());
  }
  const term = (q.searchParam ?? '').trim().toLowerCase();
  const shown = items
    .filter((i) => i.status !== 'cancelled')
    .filter((i) => !term || i.detail.toLowerCase().includes(term) || (names.get(i.companyId) ?? '').toLowerCase().includes(term) || String(i.id) === term)
    .sort((a, b) => b.dueDate.localeCompare(a.dueDate) || b.id - a.id);
  const slice = shown.slice((page - 1) * INVOICES_PAGE, page * INVOICES_PAGE);
  return {
    invoices: slice.map((i) => toApiInvoice(i, identity.isSuper ? (names.get(i.companyId) ?? '') : undefined)),
    count: shown.length,
    hasMore: page * INVOICES_PAGE < shown.length,
  };
}

/** One invoice: the company's own; the super user's, any (another tenant's id is 404 for the others). */
async function findInvoice(identity: Identity, id: number): Promise<InvoiceItem> {
  if (!identity.isSuper) {
    const inv = await getItem<InvoiceItem>(invoiceKey(identity.companyId, id), true);
    if (!inv || inv.status === 'cancelled') throw noInvoice();
    return inv;
  }
  const hit = (await queryIndexAll<InvoiceItem>('GSI1', ALL_INVOICES)).find((i) => i.id === id);
  const inv = hit && (await getItem<InvoiceItem>(invoiceKey(hit.companyId, id), true));
  if (!inv || inv.status === 'cancelled') throw noInvoice();
  return inv;
}

export async function getInvoice(identity: Identity, id: number): Promise<ApiInvoice> {
  return toApiInvoice(await findInvoice(identity, id));
}

// ------------------------------------------------------------------ the provider setting

const API_KEY_CONTEXT = 'platform/billing/asaas/apiKey';
const TOKEN_CONTEXT = 'platform/billing/asaas/webhookToken';

const billingConfig = () => getItem<BillingConfigItem>(billingConfigKey(), true);

/** The `asaas` setting as the super user's settings show it: masked, with the provider in use. */
export async function billingSettingView(): Promise<SettingItem & { webhookToken: string; provider: 'asaas' | 'sandbox'; sandboxAvailable: boolean }> {
  const cfg = await billingConfig();
  return {
    key: 'asaas',
    value: cfg?.apiKeyMask ?? '',
    webhookToken: cfg?.webhookTokenMask ?? '',
    provider: cfg?.apiKeySealed ? 'asaas' : 'sandbox',
    sandboxAvailable: !!env.paymentsSandboxUrl,
  };
}

/**
 * `PUT /settings/asaas` (super user): the Asaas API key and the webhook token, sealed with the
 * secrets box; a mask sent back keeps what is stored, and so does an empty token; an empty key goes
 * back to the sandbox.
 */
export async function saveBillingSetting(input: unknown) {
  const data = parseOrThrow(asaasSettingSchema, input);
  const cfg = await billingConfig();
  const value = data.value.trim();
  const token = data.webhookToken?.trim();
  const keepKey = !!cfg && value === cfg.apiKeyMask;
  // An empty token keeps the stored one (a form that never loaded it sends ''): a token is replaced, never wiped.
  const keepToken = !token || (!!cfg && token === cfg.webhookTokenMask);
  const item: BillingConfigItem = {
    ...billingConfigKey(),
    entity: 'billingConfig',
    provider: 'sandbox',
    apiKeySealed: keepKey ? cfg!.apiKeySealed : value ? await secrets().seal(value, API_KEY_CONTEXT) : null,
    apiKeyMask: keepKey ? cfg!.apiKeyMask : maskSecret(value),
    webhookTokenSealed: keepToken ? (cfg?.webhookTokenSealed ?? null) : token ? await secrets().seal(token, TOKEN_CONTEXT) : null,
    webhookTokenMask: keepToken ? (cfg?.webhookTokenMask ?? '') : maskSecret(token ?? ''),
    webhookTokenHash: keepToken ? (cfg?.webhookTokenHash ?? null) : token ? sha256(token) : null,
    updatedAt: nowIso(),
  };
  item.provider = item.apiKeySealed ? 'asaas' : 'sandbox';
  await putItem(item);
  return billingSettingView();
}

/** The provider the checkout uses now: Asaas once its key is set, else the local sandbox. */
async function currentProvider(): Promise<PaymentProvider> {
  const cfg = await billingConfig();
  if (cfg?.apiKeySealed) return asaasProvider({ baseUrl: env.asaasApiUrl, apiKey: await secrets().open(cfg.apiKeySealed, API_KEY_CONTEXT) });
  if (env.paymentsSandboxUrl) return sandboxProvider({ baseUrl: env.paymentsSandboxUrl });
  throw new AppError(503, 'ERR_PAYMENT_PROVIDER', { message: 'Nenhum provedor de pagamento configurado' });
}

// ------------------------------------------------------------------ checkout

/** The checkout's answer for a stored or new charge. */
const pixAnswer = (inv: InvoiceItem, chargeId: string, payload: string, encodedImage: string | undefined | null): PixCheckout => ({
  qrcode: { qrcode: payload, encodedImage: encodedImage ?? undefined },
  valor: { original: inv.value },
  invoiceId: inv.id,
  chargeId,
});

/**
 * The charge's due date (YYYY-MM-DD): the invoice's, or today in the company's calendar when that is
 * already past (an overdue invoice: Asaas refuses a new payment due before today).
 */
async function chargeDueDay(inv: InvoiceItem): Promise<string> {
  const today = zonedDayKey(nowMs(), await settingValue(inv.companyId, 'timezone'));
  const due = inv.dueDate.slice(0, 10);
  return due < today ? today : due;
}

/**
 * `POST /subscription`: a Pix charge for the invoice (the invoice's amount, never the payload's
 * price) from the provider, outside any transaction; then the charge → invoice pointer and the
 * invoice's charge in one transaction, conditional on the invoice holding no charge of this provider
 * yet. A second checkout answers the stored charge; of two at once, the one that loses that
 * condition answers the winner's charge and cancels its own at the provider.
 */
export async function checkout(identity: Identity, body: unknown): Promise<PixCheckout> {
  const data = parseOrThrow(subscriptionSchema, body);
  const inv = await findInvoice(identity, data.invoiceId);
  if (inv.status === 'paid') throw new AppError(409, 'ERR_INVOICE_ALREADY_PAID');
  const provider = await currentProvider();
  if (inv.chargeId && inv.pixPayload && inv.chargeProvider === provider.name) return pixAnswer(inv, inv.chargeId, inv.pixPayload, inv.pixImage);
  const company = await getItem<CompanyItem>(keys.company(inv.companyId), true);
  if (!company) throw noInvoice();
  const charge = await provider.createPixCharge({
    reference: `inv-${inv.companyId}-${inv.id}`,
    value: inv.value,
    dueDate: await chargeDueDay(inv),
    description: `${inv.detail} — fatura ${inv.id}`,
    customer: {
      companyId: company.id,
      name: [data.firstName, data.lastName].filter(Boolean).join(' ') || company.name,
      email: company.email,
      document: company.document || undefined,
      phone: company.phone || undefined,
      postalCode: data.zipcode,
      address: data.address2,
      city: data.city,
      state: data.state,
    },
  });
  const now = nowIso();
  const pointer: ChargeItem = { ...chargeKey(provider.name, charge.chargeId), entity: 'charge', provider: provider.name, chargeId: charge.chargeId, companyId: inv.companyId, invoiceId: inv.id, createdAt: now };
  try {
    await transact([
      tx.put(pointer),
      tx.update(
        invoiceKey(inv.companyId, inv.id),
        'SET chargeId = :c, chargeProvider = :p, pixPayload = :q, pixImage = :img, updatedAt = :now',
        { ':c': charge.chargeId, ':p': provider.name, ':q': charge.payload, ':img': charge.encodedImage ?? null, ':now': now, ':open': 'open' },
        '#st = :open AND (attribute_not_exists(chargeId) OR attribute_not_exists(chargeProvider) OR chargeProvider <> :p)',
        { '#st': 'status' },
      ),
    ]);
  } catch (err) {
    if (!isTransactionCanceled(err)) throw err;
    // Paid, superseded, or another checkout recorded its charge first: ours is never payable here.
    await cancelQuietly(provider, charge.chargeId, inv);
    const now2 = await getItem<InvoiceItem>(invoiceKey(inv.companyId, inv.id), true);
    if (now2?.status === 'open' && now2.chargeId && now2.pixPayload && now2.chargeProvider === provider.name) return pixAnswer(now2, now2.chargeId, now2.pixPayload, now2.pixImage);
    if (now2?.status === 'paid') throw new AppError(409, 'ERR_INVOICE_ALREADY_PAID');
    throw noInvoice();
  }
  return pixAnswer(inv, charge.chargeId, charge.payload, charge.encodedImage);
}

/** A charge that lost the race is cancelled at the provider; a failure is logged, never answered. */
async function cancelQuietly(provider: PaymentProvider, chargeId: string, inv: InvoiceItem) {
  try {
    await provider.cancelCharge(chargeId);
  } catch (err) {
    log.warn('a duplicate charge could not be cancelled at the provider', { err, provider: provider.name, chargeId, companyId: inv.companyId, invoiceId: inv.id });
  }
}

// ------------------------------------------------------------------ the webhook

const DAY = 86_400_000;
const utcDay = (ms: number) => Math.floor(ms / DAY);

/**
 * The due date a payment of the invoice due on `dueDate` moves the company to: one period later, or
 * as many whole periods as it takes for the due day to be after today (a payment more than a period
 * late must not leave the new due date in the past, blocked again at the next run). Each candidate is
 * `dueDate` + k periods, so the day of the month is `advanceDueDate`'s (31/01 → 28/02 → 31/03).
 */
export function nextDueDate(dueDate: string, recurrence: Parameters<typeof advanceDueDate>[1], now: number): string {
  const months = RECURRENCE_MONTHS[recurrence] ?? 1;
  let next = advanceDueDate(dueDate, recurrence);
  for (let k = 2; utcDay(Date.parse(next)) <= utcDay(now) && k < 1200; k++) next = addMonths(dueDate, k * months);
  return next;
}

/** The company as the API shows it (companies.ts `toApiCompany`, without importing it: no cycle). */
function apiCompany(c: CompanyItem): Company {
  const { ticketListsSince: _a, invoicedDueDate: _b, blockedAt: _c, stoppedConnectionIds: _d, ...rest } = clean(c);
  return { ...rest, schedules: c.schedules ?? defaultSchedule() } as unknown as Company;
}

/** Which provider sent this token: the sandbox's (local runs) or the Asaas webhook token. */
async function providerOfToken(token: string | undefined): Promise<'asaas' | 'sandbox' | undefined> {
  if (!token) return undefined;
  const h = sha256(token);
  if (env.paymentsSandboxToken && sameHash(h, sha256(env.paymentsSandboxToken))) return 'sandbox';
  const cfg = await billingConfig();
  if (cfg?.webhookTokenHash && sameHash(h, cfg.webhookTokenHash)) return 'asaas';
  return undefined;
}

/**
 * `POST /subscription/webhook` (public; `asaas-access-token`). A paid event marks the invoice paid
 * once — the invoice's `open → paid` and the company's new due date are one transaction conditional
 * on both as read, so a repeated or concurrent delivery changes nothing twice — advances the due date
 * by the recurrence, unblocks the company, restarts the sessions the block stopped and publishes
 * `company-{id}-payment` `CONCLUIDA`. A wrong token is 401 and an unknown charge 404, both before any write.
 */
export async function paymentWebhook(headers: Record<string, string | undefined>, body: unknown): Promise<{ received: true; status: 'paid' | 'alreadyPaid' | 'ignored' }> {
  const provider = await providerOfToken(headers['asaas-access-token']);
  if (!provider) throw new AppError(401, 'ERR_INVALID_TOKEN');
  const evt = parseOrThrow(paymentWebhookSchema, body);
  const charge = await getItem<ChargeItem>(chargeKey(provider, evt.payment.id), true);
  if (!charge) throw noInvoice();
  if (!(PAID_EVENTS as readonly string[]).includes(evt.event)) return { received: true, status: 'ignored' };
  for (let attempt = 0; attempt < 5; attempt++) {
    const inv = await getItem<InvoiceItem>(invoiceKey(charge.companyId, charge.invoiceId), true);
    const company = await getItem<CompanyItem>(keys.company(charge.companyId), true);
    if (!inv || !company) throw noInvoice();
    if (inv.status === 'paid') return { received: true, status: 'alreadyPaid' };
    const now = nowIso();
    const recurrence = isRecurrence(company.recurrence) ? company.recurrence : 'MENSAL';
    // The due date this invoice pays for moves on; one already moved past it (by hand) stays.
    const advance = inv.status === 'open' && (!company.dueDate || company.dueDate <= inv.dueDate);
    const dueDate = advance ? nextDueDate(inv.dueDate, recurrence, nowMs()) : company.dueDate;
    const next = { ...company, status: true, dueDate };
    const index = dueIndexUpdate(next);
    try {
      await transact([
        tx.update(
          invoiceKey(inv.companyId, inv.id),
          'SET #st = :paid, paidAt = :now, paidEvent = :evt, updatedAt = :now',
          { ':paid': 'paid', ':now': now, ':evt': evt.event, ':read': inv.status },
          '#st = :read',
          { '#st': 'status' },
        ),
        // Conditional on the company as read (due date, status, updatedAt): a block committed in
        // between changes them, so this reads again and restarts the sessions that block stopped.
        companyUpdate(
          company.id,
          { dueDate, status: true, updatedAt: now, ...index.set },
          [...index.remove, 'blockedAt', 'stoppedConnectionIds'],
          `${company.dueDate ? 'dueDate = :readDue' : '(attribute_not_exists(dueDate) OR dueDate = :readDue)'} AND #status = :readStatus AND ${company.updatedAt ? 'updatedAt = :readAt' : 'attribute_not_exists(updatedAt)'}`,
          { ':readDue': company.dueDate ?? null, ':readStatus': company.status, ...(company.updatedAt ? { ':readAt': company.updatedAt } : {}) },
        ),
      ]);
    } catch (err) {
      // Another delivery paid it, or the company changed meanwhile: read again and decide again.
      if (isTransactionCanceled(err)) continue;
      throw err;
    }
    invalidateCompanyCache(company.id);
    // The version just overwritten is the one read: its stopped sessions start again.
    if (company.status === false) await restartStoppedSessions(company.id, company.stoppedConnectionIds);
    const saved = await getItem<CompanyItem>(keys.company(company.id), true);
    await publish({
      companyId: company.id,
      event: companyEvent(company.id, 'payment'),
      data: { action: 'CONCLUIDA', company: apiCompany(saved ?? next), invoiceId: inv.id },
      audience: [{ kind: 'company' }],
    });
    log.info('invoice paid', { companyId: company.id, invoiceId: inv.id, provider, dueDate });
    return { received: true, status: 'paid' };
  }
  throw new AppError(409, 'ERR_INTERNAL');
}
