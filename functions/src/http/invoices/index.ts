import { createRouter, idParam } from '../../core/http.js';
import { checkout, getInvoice, listInvoices, paymentWebhook } from '../../services/billing.js';

/** Invoices, the Pix checkout and the payment provider's webhook (issue 22 §2; spec 003 §7; decision 61). */
export const handler = createRouter('invoices', {
  'GET /invoices/all': (req) => listInvoices(req.identity, req.query),
  'GET /invoices/{id}': (req) => getInvoice(req.identity, idParam(req.params.id)),
  'POST /subscription': (req) => checkout(req.identity, req.body),
  'POST /subscription/webhook': (req) => paymentWebhook(req.headers, req.body),
});
