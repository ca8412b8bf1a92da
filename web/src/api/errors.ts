import i18n, { translateMessage } from '../i18n';
import { toast } from '../ui/toast';
import { ApiError } from './http';

// Codes whose message is the spec's own text for the user (plan limits, blocked company, ...).
const MESSAGE_FIRST = new Set(['ERR_PLAN_LIMIT', 'ERR_VALIDATION', 'ERR_COMPANY_BLOCKED', 'ERR_SUBSCRIPTION_EXPIRED']);

/** Spec 000 §8: the translated code when known, else the raw text, else the generic message. */
export function errorText(err: unknown): string {
  if (err instanceof ApiError) {
    const { error: code, message } = err.body;
    if (code && MESSAGE_FIRST.has(code) && message) return translateMessage(message) ?? message;
    if (code && i18n.exists(`errors.${code}`)) return i18n.t(`errors.${code}`);
    if (message) return translateMessage(message) ?? message;
    if (code) return code;
  }
  return i18n.t('common.genericError');
}

export function toastError(err: unknown) {
  toast.error(errorText(err), 3000);
}

/** Pushes the field messages of a 400 (or a 409 naming a taken value) into a react-hook-form instance; answers whether any field matched. */
export function applyFieldErrors(
  err: unknown,
  setError: (name: never, e: { type: string; message: string }, opts?: { shouldFocus?: boolean }) => void,
  known: readonly string[],
): boolean {
  if (!(err instanceof ApiError) || (err.status !== 400 && err.status !== 409)) return false;
  const issues = err.body.fields ?? (err.body.field ? [{ field: err.body.field, message: err.body.message ?? '' }] : []);
  let matched = false;
  for (const issue of issues) {
    if (known.includes(issue.field)) {
      // The first field in error gets the focus, which scrolls a long dialog to it.
      setError(issue.field as never, { type: 'server', message: translateMessage(issue.message) ?? issue.message }, { shouldFocus: !matched });
      matched = true;
    }
  }
  return matched;
}
