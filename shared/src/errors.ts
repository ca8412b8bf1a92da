/**
 * The error catalogue (spec 000 §8, server-behaviour §15). Every error leaves the API as
 * `{"error": CODE}` plus, for validation, the field and the spec's message.
 */
export const ERROR_CODES = [
  'ERR_NO_OTHER_WHATSAPP',
  'ERR_NO_DEF_WAPP_FOUND',
  'ERR_WAPP_NOT_INITIALIZED',
  'ERR_WAPP_CHECK_CONTACT',
  'ERR_WAPP_INVALID_CONTACT',
  'ERR_WAPP_DOWNLOAD_MEDIA',
  'ERR_INVALID_CREDENTIALS',
  'ERR_SENDING_WAPP_MSG',
  'ERR_DELETE_WAPP_MSG',
  'ERR_OTHER_OPEN_TICKET',
  'ERR_SESSION_EXPIRED',
  'ERR_USER_CREATION_DISABLED',
  'ERR_NO_PERMISSION',
  'ERR_DUPLICATED_CONTACT',
  'ERR_NO_SETTING_FOUND',
  'ERR_NO_CONTACT_FOUND',
  'ERR_NO_TICKET_FOUND',
  'ERR_NO_USER_FOUND',
  'ERR_NO_WAPP_FOUND',
  'ERR_CREATING_MESSAGE',
  'ERR_CREATING_TICKET',
  'ERR_FETCH_WAPP_MSG',
  'ERR_QUEUE_COLOR_ALREADY_EXISTS',
  'ERR_WAPP_GREETING_REQUIRED',
  'ERR_CHECK_NUMBER',
  'ERR_COMPANY_EMAIL_ALREADY_EXISTS',
  // Codes of our own (translated in the console like the others).
  'ERR_VALIDATION',
  'ERR_NOT_FOUND',
  'ERR_NO_QUEUE_FOUND',
  'ERR_NO_QUEUE_OPTION_FOUND',
  'ERR_NO_PLAN_FOUND',
  'ERR_NO_COMPANY_FOUND',
  'ERR_EMAIL_ALREADY_EXISTS',
  'ERR_PLAN_LIMIT',
  'ERR_PLAN_FEATURE_DISABLED',
  'ERR_COMPANY_BLOCKED',
  'ERR_SUBSCRIPTION_EXPIRED',
  'ERR_INVALID_TOKEN',
  'ERR_INTERNAL',
  'ERR_ROUTE_NOT_FOUND',
  'ERR_PAYLOAD_TOO_LARGE',
  'ERR_UNSUPPORTED_MEDIA_TYPE',
  'ERR_RATE_LIMITED',
  'ERR_PLAN_IN_USE',
  'ERR_DUPLICATED_SHORTCODE',
  'ERR_WAPP_ALREADY_CONNECTED',
  'ERR_WAPP_STATE_CHANGED',
  'ERR_INTEGRATION_IN_USE',
  'ERR_PROMPT_IN_USE',
  'ERR_INTEGRATION_TEST_FAILED',
  'ERR_DUPLICATED_LIST_ITEM',
  /** A contact list already has an import running (one at a time per list). */
  'ERR_IMPORT_RUNNING',
  /** Campaigns (spec 002 §4): edits only while INATIVA or scheduled over an hour ahead; no delete while running. */
  'ERR_CAMPAIGN_NOT_EDITABLE',
  'ERR_CAMPAIGN_IN_PROGRESS',
  'ERR_CAMPAIGN_NOT_RUNNING',
  'ERR_CAMPAIGN_NOT_CANCELLED',
  /** Spreadsheet imports refused as a whole (400, field `file`; nothing imported). */
  'ERR_SPREADSHEET_EMPTY',
  'ERR_SPREADSHEET_TOO_LARGE',
  'ERR_SPREADSHEET_TOO_MANY_ROWS',
  'ERR_SPREADSHEET_TYPE',
  'ERR_SPREADSHEET_NO_NUMBER_COLUMN',
  // Internal chat (issue 21 §2): edits and deletes are the owner's; a one-to-one chat keeps two members.
  'ERR_CHAT_OWNER_ONLY',
  'ERR_CHAT_ONE_TO_ONE',
  // Billing (issue 22 §2): an unknown invoice or charge; an invoice already paid; the payment provider failed or is not set.
  'ERR_NO_INVOICE_FOUND',
  'ERR_INVOICE_ALREADY_PAID',
  'ERR_PAYMENT_PROVIDER',
] as const;

export type ErrorCode = (typeof ERROR_CODES)[number];

export interface FieldIssue {
  field: string;
  message: string;
}

/** A failure the API answers with a status and a catalogue code (never a 500). */
export class AppError extends Error {
  readonly status: number;
  readonly code: ErrorCode;
  readonly fields?: FieldIssue[];
  /** Extra data the client may show (e.g. the holder of an open ticket). */
  readonly details?: Record<string, unknown>;

  constructor(
    status: number,
    code: ErrorCode,
    opts: { message?: string; fields?: FieldIssue[]; details?: Record<string, unknown> } = {},
  ) {
    super(opts.message ?? code);
    this.status = status;
    this.code = code;
    this.fields = opts.fields;
    this.details = opts.details;
  }

  toJSON(): Record<string, unknown> {
    const body: Record<string, unknown> = { error: this.code };
    if (this.message !== this.code) body.message = this.message;
    if (this.fields?.length) {
      body.field = this.fields[0].field;
      body.fields = this.fields;
      if (!('message' in body)) body.message = this.fields[0].message;
    }
    if (this.details) Object.assign(body, this.details);
    return body;
  }
}

export const badRequest = (code: ErrorCode, message?: string, fields?: FieldIssue[]) =>
  new AppError(400, code, { message, fields });
export const validationError = (field: string, message: string) =>
  new AppError(400, 'ERR_VALIDATION', { message, fields: [{ field, message }] });
export const notFound = (code: ErrorCode = 'ERR_NOT_FOUND') => new AppError(404, code);
export const forbidden = (code: ErrorCode = 'ERR_NO_PERMISSION', message?: string) =>
  new AppError(403, code, { message });
export const unauthorized = (code: ErrorCode = 'ERR_SESSION_EXPIRED', message?: string) =>
  new AppError(401, code, { message });
export const conflict = (code: ErrorCode, details?: Record<string, unknown>, message?: string) =>
  new AppError(409, code, { details, message });
