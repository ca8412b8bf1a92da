import { RECURRENCES, type Recurrence } from './subscription.js';

/**
 * Billing rules (issue 22 §2; spec 003 §4; server-behaviour §13; decision 61). Pure and zod-free:
 * the console's invoices page and the functions' invoice job both read them.
 */
const DAY = 86_400_000;
/** An invoice opens when the company's due date is within this many days. */
export const INVOICE_WINDOW_DAYS = 10;
/** A company this many days past due is blocked (status false). */
export const BLOCK_AFTER_DAYS = 3;

/** Stored invoice states: `cancelled` is an open invoice superseded by a due date moved by hand. */
export const INVOICE_STATUSES = ['open', 'paid', 'cancelled'] as const;
export type InvoiceStatus = (typeof INVOICE_STATUSES)[number];

/** Midnight UTC of the due date's calendar day (the day `isPastDue` counts from). */
const dueDay = (dueDate: string) => {
  const d = new Date(dueDate);
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate());
};

/** When the invoice for `dueDate` opens: 10 days before its day. */
export const invoiceOpensAt = (dueDate: string) => dueDay(dueDate) - INVOICE_WINDOW_DAYS * DAY;

/**
 * When a company due on `dueDate` is blocked: the start of the third day past the due day (due on the
 * 1st: past due on the 2nd, blocked from the 4th at 00:00 UTC).
 */
export const blockAt = (dueDate: string) => dueDay(dueDate) + BLOCK_AFTER_DAYS * DAY;

/**
 * When the invoice job must next look at a company (its due index key), or undefined when it never
 * needs to: blocked or without a due date. Before its invoice for the current due date is opened,
 * at the window's start; after, at the blocking instant.
 */
export function billingLookAt(c: { status: boolean; dueDate: string | null | undefined; invoicedDueDate?: string | null }): number | undefined {
  if (c.status === false || !c.dueDate) return undefined;
  return c.invoicedDueDate === c.dueDate ? blockAt(c.dueDate) : invoiceOpensAt(c.dueDate);
}

/** The invoices table's state (spec 003 §4): paid is Pago; due before today and unpaid is Vencido; else Em Aberto. */
export type InvoiceDisplay = 'paid' | 'overdue' | 'open';
export function invoiceDisplay(inv: { status: string; dueDate: string }, now: Date = new Date()): InvoiceDisplay {
  if (inv.status === 'paid') return 'paid';
  return dueDay(inv.dueDate) + DAY <= now.getTime() ? 'overdue' : 'open';
}

/** Trial days left on the subscription page (spec 002 §9): the day difference, rounded up, never negative. */
export const trialDaysLeft = (trialExpiration: string | null | undefined, now: Date = new Date()) =>
  trialExpiration ? Math.max(0, Math.ceil((Date.parse(trialExpiration) - now.getTime()) / DAY)) : 0;

export const isRecurrence = (v: unknown): v is Recurrence => typeof v === 'string' && (RECURRENCES as readonly string[]).includes(v);

/** Asaas' payment events that mean the money arrived (docs: PAYMENT_RECEIVED for Pix, PAYMENT_CONFIRMED for cards). */
export const PAID_EVENTS = ['PAYMENT_RECEIVED', 'PAYMENT_CONFIRMED'] as const;

/** Texts of the billing flow (spec 003 §8), kept here so the server and the console share them. */
export const SUBSCRIPTION_SUCCESS = 'Assinatura realizada com sucesso!, aguardando a realização do pagamento';
