import { z } from 'zod';
import { PROFILES, PLAN_FLAGS } from '../profiles.js';
import { RECURRENCES } from '../subscription.js';
import {
  MSG,
  boolish,
  boundedName,
  emailField,
  idList,
  meetsPasswordPolicy,
  nonNegativeInt,
  optionalId,
  passwordField,
  requiredString,
} from '../validation.js';
import { schedulesSchema } from '../business-hours.js';

export const profileSchema = z.enum(PROFILES, { error: MSG.invalidValue });
export const allTicketSchema = z.enum(['enabled', 'desabled'], { error: MSG.invalidValue });

/** User dialog (spec 000 §2.6, §5). Password is required on create only. */
export const userCreateSchema = z.object({
  name: boundedName(2, 50),
  email: emailField(),
  password: passwordField(),
  profile: profileSchema.optional(),
  queueIds: idList().optional(),
  whatsappId: optionalId().optional(),
  allTicket: allTicketSchema.optional(),
  sendGreetingAccepted: boolish().optional(),
  companyId: optionalId().optional(),
});
export const userUpdateSchema = userCreateSchema.partial().extend({
  password: z.preprocess((v) => (v === '' ? undefined : v), passwordField().optional()),
});
export type UserCreateInput = z.infer<typeof userCreateSchema>;
export type UserUpdateInput = z.infer<typeof userUpdateSchema>;

/** The most users `GET /users/list` answers when asked for a bounded list (`limit`). */
export const USER_LIST_LIMIT_MAX = 200;

/**
 * `GET /users/list` (names and online state, open to the company): optionally only one queue's
 * users, narrowed by a name or e-mail fragment of any length, and at most `limit` of them (the
 * ticket transfer dialog; decision 36). Without parameters, every user of the company.
 */
export const userListQuerySchema = z.object({
  queueId: optionalId().optional(),
  searchParam: z.preprocess((v) => (typeof v === 'string' ? v.trim() : v), z.string().max(100, { error: MSG.tooLong }).optional()),
  limit: z.coerce.number({ error: MSG.invalidValue }).int({ error: MSG.invalidValue }).min(1, { error: MSG.invalidValue }).max(USER_LIST_LIMIT_MAX, { error: MSG.invalidValue }).optional(),
});

export const QUEUE_TYPES = ['TEXT', 'INTEGRATION', 'FORM'] as const;
export type QueueType = (typeof QUEUE_TYPES)[number];

/** Queue form (spec 003 §4-§5); its options tree has its own routes (`queueOptionSchema`). */
export const queueSchema = z.object({
  name: boundedName(2, 255),
  color: z.preprocess(
    (v) => (typeof v === 'string' ? v.trim() : v),
    z
      .string({ error: MSG.required })
      .min(1, { error: MSG.required })
      .min(3, { error: MSG.tooShort })
      .max(9, { error: MSG.tooLong }),
  ),
  greetingMessage: z.string().max(10_000, { error: MSG.tooLong }).optional(),
  outOfHoursMessage: z.string().max(10_000, { error: MSG.tooLong }).optional(),
  orderQueue: z.preprocess((v) => (v === '' || v === null ? undefined : v), nonNegativeInt().optional()),
  integrationId: optionalId().optional(),
  promptId: optionalId().optional(),
  type: z.enum(QUEUE_TYPES, { error: MSG.invalidValue }).optional(),
  /** FORM queues: where the ticket goes once every field is answered, and after three invalid answers. */
  nextQueueId: optionalId().optional(),
  nextQueueInvalidFormId: optionalId().optional(),
  /** Used when the setting `scheduleType` is `queue` (server-behaviour §5). */
  schedules: schedulesSchema.optional(),
});
export const queueUpdateSchema = queueSchema.partial();

/** The most levels and the most options per level of a queue's options tree (issue 18 §3). */
export const QUEUE_OPTION_DEPTH_MAX = 10;
export const QUEUE_OPTION_WIDTH_MAX = 50;
/** What a FORM field's answer must look like when `isValidationField` is set. */
export const FORM_VALIDATIONS = ['email', 'number', 'cpfCnpj'] as const;
export type FormValidation = (typeof FORM_VALIDATIONS)[number];

/** A queue option (spec 003 §4): a node of the queue's menu tree, or a field of a FORM queue. */
export const queueOptionSchema = z.object({
  queueId: z.coerce.number({ error: MSG.required }).int({ error: MSG.invalidValue }).positive({ error: MSG.invalidValue }),
  parentId: optionalId().optional(),
  title: boundedName(1, 100),
  message: z.string().max(4_096, { error: MSG.tooLong }).optional(),
  /** The number the customer types to choose it: unique among its siblings. */
  option: z.preprocess((v) => (typeof v === 'string' ? v.trim() : typeof v === 'number' ? String(v) : v), z.string({ error: MSG.required }).regex(/^[1-9]\d{0,2}$/, { error: MSG.invalidValue })),
  fieldName: z.preprocess((v) => (typeof v === 'string' ? v.trim() || null : v), z.string().max(50, { error: MSG.tooLong }).nullable().optional()),
  isValidationField: boolish().optional(),
  validation: z.preprocess((v) => (v === '' ? null : v), z.enum(FORM_VALIDATIONS, { error: MSG.invalidValue }).nullable().optional()),
  transferToQueueId: optionalId().optional(),
});
export const queueOptionUpdateSchema = queueOptionSchema.omit({ queueId: true, parentId: true }).partial();
export const queueOptionListQuerySchema = z.object({
  queueId: z.coerce.number({ error: MSG.required }).int({ error: MSG.invalidValue }).positive({ error: MSG.invalidValue }),
  /** `-1` (or nothing) for the root level. */
  parentId: z.preprocess((v) => (v === undefined || v === '' || v === '-1' || v === -1 || v === 'null' ? null : v), z.coerce.number({ error: MSG.invalidValue }).int({ error: MSG.invalidValue }).positive({ error: MSG.invalidValue }).nullable()),
});
export type QueueInput = z.infer<typeof queueSchema>;

const planNumbers = {
  users: nonNegativeInt(),
  connections: nonNegativeInt(),
  queues: nonNegativeInt(),
  campaigns: nonNegativeInt(),
  schedules: nonNegativeInt(),
  // A price: beyond this it is a typing error (and DynamoDB refuses numbers above 1e125).
  value: z.coerce.number({ error: MSG.invalidValue }).min(0, { error: MSG.invalidValue }).max(999_999_999.99, { error: MSG.invalidValue }),
};
const planFlags = Object.fromEntries(PLAN_FLAGS.map((f) => [f, boolish()])) as Record<
  (typeof PLAN_FLAGS)[number],
  ReturnType<typeof boolish>
>;

/** Plan form (super user). Default plan flags are all true (spec 003 §1). */
export const planSchema = z.object({
  name: boundedName(1, 100),
  users: planNumbers.users.default(0),
  connections: planNumbers.connections.default(0),
  queues: planNumbers.queues.default(0),
  campaigns: planNumbers.campaigns.default(0),
  schedules: planNumbers.schedules.default(0),
  value: planNumbers.value.default(0),
  useCampaigns: planFlags.useCampaigns.default(true),
  useSchedules: planFlags.useSchedules.default(true),
  useInternalChat: planFlags.useInternalChat.default(true),
  useExternalApi: planFlags.useExternalApi.default(true),
  useKanban: planFlags.useKanban.default(true),
  useOpenAi: planFlags.useOpenAi.default(true),
  useIntegrations: planFlags.useIntegrations.default(true),
});
export const planUpdateSchema = z.object({
  name: boundedName(1, 100).optional(),
  ...Object.fromEntries(Object.entries(planNumbers).map(([k, s]) => [k, s.optional()])),
  ...Object.fromEntries(Object.entries(planFlags).map(([k, s]) => [k, s.optional()])),
}) as unknown as z.ZodType<Partial<z.infer<typeof planSchema>>>;
export type PlanInput = z.infer<typeof planSchema>;


/** An empty or invalid due date is sent as null (spec 003 §4). Stored as ISO strings. */
const dueDateField = () =>
  z.preprocess((v) => {
    if (v === '' || v === null || v === undefined) return null;
    const d = new Date(String(v));
    return Number.isNaN(d.getTime()) ? null : d.toISOString();
  }, z.string().nullable());

/** Company form (super user; spec 003 §3, §5). */
export const companySchema = z.object({
  name: boundedName(2, 100),
  email: emailField(),
  phone: z.string().max(30, { error: MSG.tooLong }).optional(),
  planId: z.coerce.number({ error: MSG.required }).int({ error: MSG.required }).positive({ error: MSG.required }),
  status: boolish().optional(),
  campaignsEnabled: boolish().optional(),
  dueDate: dueDateField().optional(),
  recurrence: z.enum(RECURRENCES, { error: MSG.invalidValue }).optional(),
  /** The platform's own company is not billed (decision 61); the companies routes are the super user's. */
  billingExempt: boolish().optional(),
  document: z.string().max(30).optional(),
  addressZipCode: z.string().max(20).optional(),
  addressStreet: z.string().max(200).optional(),
  addressState: z.string().max(50).optional(),
  addressCity: z.string().max(100).optional(),
  addressDistrict: z.string().max(100).optional(),
  /** Creating a company also creates its admin user (e-mail of the company) with this password. */
  password: passwordField().optional(),
});
export const companyUpdateSchema = companySchema.partial().omit({ password: true });
export type CompanyInput = z.infer<typeof companySchema>;
export type CompanyUpdateInput = z.infer<typeof companyUpdateSchema>;

/** Self-signup (spec 003 §3, §5). Trial terms are decided by the server (server-behaviour §13). */
export const signupSchema = z.object({
  name: boundedName(2, 50),
  email: emailField(),
  phone: z.preprocess(
    (v) => (typeof v === 'string' ? v.replace(/\D/g, '') : v),
    z.string({ error: MSG.required }).min(10, { error: MSG.tooShort }).max(11, { error: MSG.tooLong }),
  ),
  password: passwordField(),
  planId: z.coerce.number({ error: MSG.required }).int({ error: MSG.required }).positive({ error: MSG.required }),
  // The client also sends these; the server ignores them and applies the trial terms itself.
  recurrence: z.string().optional(),
  dueDate: z.string().optional(),
  status: z.unknown().optional(),
  campaignsEnabled: z.unknown().optional(),
});
export type SignupInput = z.infer<typeof signupSchema>;

export const forgotPasswordEmailSchema = z.object({ email: emailField() });
export const resetPasswordSchema = z
  .object({
    email: emailField(),
    token: requiredString('Campo obrigatório'),
    newPassword: z
      .string({ error: 'Campo obrigatório' })
      .min(1, { error: 'Campo obrigatório' })
      .refine(meetsPasswordPolicy, { error: MSG.passwordPolicy }),
    confirmPassword: z.string({ error: 'Campo obrigatório' }).min(1, { error: 'Campo obrigatório' }),
  })
  .refine((v) => v.newPassword === v.confirmPassword, { path: ['confirmPassword'], error: MSG.passwordMismatch });

export const loginSchema = z.object({ email: emailField(), password: requiredString() });
