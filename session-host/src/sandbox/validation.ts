import crypto from 'node:crypto';

/** A refusal of the sandbox API: the HTTP status and the message the caller sees. */
export class SandboxError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

export const NUMBER_RE = /^\d{10,15}$/;
/** Message ids chosen by callers (customers' redeliveries, the device's sends). */
export const ID_RE = /^[A-Za-z0-9_.:-]{1,128}$/;

export function randomId(prefix: string, bytes = 10) {
  return `${prefix}${crypto.randomBytes(bytes).toString('hex').toUpperCase()}`;
}

/** Digits only; 400 unless 10-15 digits (numbers carry their country code). */
export function checkNumber(raw: unknown, field = 'number'): string {
  if (typeof raw !== 'string' && typeof raw !== 'number') throw new SandboxError(400, `${field} is required (digits with country code)`);
  const digits = String(raw).replace(/\D/g, '');
  if (!NUMBER_RE.test(digits)) throw new SandboxError(400, `${field} must have 10 to 15 digits with the country code, got "${raw}"`);
  return digits;
}

export function checkConnectionId(raw: string | undefined): number {
  const id = Number(raw);
  if (!raw || !/^\d+$/.test(raw) || !Number.isSafeInteger(id) || id <= 0) throw new SandboxError(400, `connection id must be a positive integer, got "${raw}"`);
  return id;
}
