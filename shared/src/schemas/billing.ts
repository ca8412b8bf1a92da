import { z } from 'zod';
import { MSG } from '../validation.js';

/** Invoices per page (`GET /invoices/all`). */
export const INVOICES_PAGE = 20;
/** Countries the checkout offers (spec 003 §5). */
export const CHECKOUT_COUNTRIES = ['Brasil', 'United States'] as const;

const text = (max: number) => z.preprocess((v) => (v === null || v === undefined ? '' : typeof v === 'string' ? v.trim() : v), z.string({ error: MSG.invalidValue }).max(max, { error: MSG.tooLong }));
const required = (message: string, max = 200) =>
  z.preprocess((v) => (typeof v === 'string' ? v.trim() : v), z.string({ error: message }).min(1, { error: message }).max(max, { error: MSG.tooLong }));

/**
 * `GET /invoices/all` (spec 003 §7): `searchParam` over the detail (and, for the super user, the
 * company's name), `pageNumber`; the super user may narrow to one company.
 */
export const invoiceListQuerySchema = z.object({
  searchParam: z.string().max(100, { error: MSG.tooLong }).optional(),
  pageNumber: z.coerce.number({ error: MSG.invalidValue }).int({ error: MSG.invalidValue }).min(1, { error: MSG.invalidValue }).optional(),
  companyId: z.coerce.number({ error: MSG.invalidValue }).int({ error: MSG.invalidValue }).min(1, { error: MSG.invalidValue }).optional(),
});

/**
 * The checkout's payload (spec 003 §3 "Subscription payload", §5 address validations). The card
 * fields are the spec's but Pix needs none of them: they are accepted and never stored. The amount
 * charged is the invoice's, never `price`.
 */
export const subscriptionSchema = z.object({
  firstName: required(MSG.fullNameRequired),
  lastName: text(200).optional(),
  address2: required(MSG.addressRequired),
  city: required(MSG.cityRequired),
  state: text(100).optional(),
  zipcode: required(MSG.zipRequired, 20),
  country: z.preprocess((v) => (typeof v === 'string' ? v.trim() : v), z.enum(CHECKOUT_COUNTRIES, { error: MSG.countryRequired })),
  useAddressForPaymentDetails: z.boolean().optional(),
  nameOnCard: text(200).optional(),
  cardNumber: text(30).optional(),
  cvv: text(4).optional(),
  plan: z.unknown().optional(),
  price: z.unknown().optional(),
  users: z.unknown().optional(),
  connections: z.unknown().optional(),
  invoiceId: z.coerce.number({ error: MSG.obrigatorio }).int({ error: MSG.invalidValue }).min(1, { error: MSG.obrigatorio }),
});
export type SubscriptionInput = z.output<typeof subscriptionSchema>;

/** Asaas' webhook body (the fields we read; the rest of Asaas' payment object passes through). */
export const paymentWebhookSchema = z.object({
  event: z.string({ error: MSG.invalidValue }).min(1, { error: MSG.invalidValue }).max(100),
  payment: z
    .object({
      id: z.string({ error: MSG.invalidValue }).min(1, { error: MSG.invalidValue }).max(100),
      value: z.number({ error: MSG.invalidValue }).optional(),
      externalReference: z.string().max(200).nullable().optional(),
    })
    .passthrough(),
});
export type PaymentWebhook = z.output<typeof paymentWebhookSchema>;

/**
 * The super user's payment provider setting (`PUT /settings/asaas`): the Asaas API key (`value`) and
 * the token Asaas sends back in `asaas-access-token` (`webhookToken`). A value that is the mask sent
 * back keeps what is stored; an empty key switches back to the sandbox (local runs only).
 */
export const asaasSettingSchema = z.object({
  value: z.string({ error: MSG.invalidValue }).max(500, { error: MSG.tooLong }),
  webhookToken: z.string({ error: MSG.invalidValue }).max(500, { error: MSG.tooLong }).optional(),
});
