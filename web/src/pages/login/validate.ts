import { MSG } from '@balcao/shared';
import { regexes } from 'zod/v4/core';

export interface LoginValues {
  email: string;
  password: string;
}

export type LoginErrors = Partial<Record<keyof LoginValues, string>>;

/**
 * The rules of the shared loginSchema (email: trimmed, lowercased, Required / Invalid email;
 * password: trimmed, Required) without zod and react-hook-form: the sign-in screen is the first load
 * of every user and those two libraries alone were ~40 KB gzip of it. Same messages, same email
 * pattern (zod's own); validate.test.ts checks it agrees with loginSchema.
 */
export function validateLogin(input: LoginValues): { values: LoginValues; errors: LoginErrors } {
  const values = { email: input.email.trim().toLowerCase(), password: input.password.trim() };
  const errors: LoginErrors = {};
  if (!values.email) errors.email = MSG.required;
  else if (!regexes.email.test(values.email)) errors.email = MSG.invalidEmail;
  if (!values.password) errors.password = MSG.required;
  return { values, errors };
}
