/** (99) 99999-9999 while typing; at most 11 digits are kept (spec 003 §2). */
export function maskPhone(raw: string): string {
  const d = raw.replace(/\D/g, '').slice(0, 11);
  if (d.length === 0) return '';
  if (d.length <= 2) return `(${d}`;
  if (d.length <= 7) return `(${d.slice(0, 2)}) ${d.slice(2)}`;
  return `(${d.slice(0, 2)}) ${d.slice(2, 7)}-${d.slice(7)}`;
}

/**
 * A WhatsApp number (digits with country code) as +CC (AA) NNNNN-NNNN; Brazilian landlines keep
 * four digits before the dash. Numbers of other shapes are shown as +digits.
 */
export function formatWhatsappNumber(raw: string | null | undefined): string {
  const d = (raw ?? '').replace(/\D/g, '');
  if (!d) return '';
  if (d.length === 12 || d.length === 13) {
    const local = d.slice(4);
    return `+${d.slice(0, 2)} (${d.slice(2, 4)}) ${local.slice(0, -4)}-${local.slice(-4)}`;
  }
  return `+${d}`;
}
