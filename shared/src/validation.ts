import { z } from 'zod';
import { AppError, type FieldIssue } from './errors.js';
import { MSG } from './messages.js';

export { MSG };

/** A string that must be present (after trimming), with the spec's Required message. */
export const requiredString = (message: string = MSG.required) =>
  z.preprocess(
    (v) => (typeof v === 'string' ? v.trim() : v),
    z.string({ error: message }).min(1, { error: message }),
  );

export const boundedName = (min: number, max: number, required: string = MSG.required) =>
  z.preprocess(
    (v) => (typeof v === 'string' ? v.trim() : v),
    z
      .string({ error: required })
      .min(1, { error: required })
      .min(min, { error: MSG.tooShort })
      .max(max, { error: MSG.tooLong }),
  );

export const emailField = () =>
  z.preprocess(
    (v) => (typeof v === 'string' ? v.trim().toLowerCase() : v),
    z.string({ error: MSG.required }).min(1, { error: MSG.required }).email({ error: MSG.invalidEmail }),
  );

/**
 * Cognito's password policy (DESIGN §4): at least 8 characters with upper, lower and digit. The
 * forms keep the spec's 5-50 bounds for their messages; the policy refines on top.
 */
export const meetsPasswordPolicy = (p: string) => p.length >= 8 && /[A-Z]/.test(p) && /[a-z]/.test(p) && /\d/.test(p);
export const passwordField = () =>
  z
    .string({ error: MSG.required })
    .min(5, { error: MSG.tooShort })
    .max(50, { error: MSG.tooLong })
    .refine(meetsPasswordPolicy, { error: MSG.passwordPolicy });

/** Multipart forms send everything as text; these accept both shapes. */
export const boolish = () =>
  z.preprocess((v) => (v === 'true' || v === '1' ? true : v === 'false' || v === '0' || v === '' ? false : v), z.boolean());
export const optionalId = () =>
  z.preprocess(
    (v) => (v === '' || v === 'null' || v === null || v === undefined ? null : typeof v === 'string' ? Number(v) : v),
    z.number().int().positive().nullable(),
  );
export const idList = () =>
  z.preprocess((v) => {
    if (typeof v === 'string') {
      if (v.trim() === '') return [];
      try {
        return JSON.parse(v);
      } catch {
        return v.split(',').map((s) => s.trim());
      }
    }
    return v;
  }, z.array(z.coerce.number().int().positive()));
export const nonNegativeInt = () => z.coerce.number({ error: MSG.invalidValue }).int({ error: MSG.invalidValue }).min(0, { error: MSG.invalidValue });

/** Parses with a schema; any issue becomes a 400 naming the first field and the spec's message. */
export function parseOrThrow<S extends z.ZodType>(schema: S, input: unknown): z.output<S> {
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  const fields: FieldIssue[] = result.error.issues.map((issue) => ({
    field: issue.path.length ? issue.path.map(String).join('.') : 'body',
    message: issue.message,
  }));
  throw new AppError(400, 'ERR_VALIDATION', { message: fields[0]?.message, fields });
}
