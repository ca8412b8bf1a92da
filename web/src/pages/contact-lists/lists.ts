import type { ApiContactList, ContactListImport } from '@balcao/shared';

/** Accents and case aside, as the server compares names (a search in a list, a name's order). */
export const fold = (s: string) => s.normalize('NFD').replace(/[\u0300-\u036f]/g, '').toLowerCase();

/** How far an import is, 0-100 (a file of no rows is done). */
export const importPercent = (i: ContactListImport) => (i.total > 0 ? Math.min(100, Math.floor((i.processed / i.total) * 100)) : i.status === 'running' ? 0 : 100);

/** Imported numbers not checked on WhatsApp (no connected default connection, or no answer in time). */
export const uncheckedCount = (i: ContactListImport) => Math.max(0, i.imported - i.whatsappValid - i.whatsappInvalid);

/**
 * The list as a newer answer or event shows it, without taking an import back: the upload's answer
 * (its import just started) can land after the first progress events, and an event read before the
 * end after the report.
 */
export function mergeList(known: ApiContactList | null, incoming: ApiContactList): ApiContactList {
  const a = known?.import;
  const b = incoming.import;
  if (!a || !b || a.id !== b.id) return incoming;
  const behind = (a.status !== 'running' && b.status === 'running') || (a.status === b.status && b.processed < a.processed);
  return behind ? { ...incoming, import: a } : incoming;
}

/** The example spreadsheets (web/public/examples), one per accepted type. */
export const EXAMPLE_FILES = ['csv', 'xlsx', 'xls'].map((ext) => ({ ext, href: `/examples/contact-list-example.${ext}` }));

/** The header names an import recognises (any order, any case): not translated, they are the file's words. */
export const IMPORT_COLUMNS = [
  { key: 'name', headers: ['nome', 'name'] },
  { key: 'number', headers: ['numero', 'número', 'number'] },
  { key: 'email', headers: ['email', 'e-mail'] },
] as const;

export const IMPORT_ACCEPT = '.csv,.xls,.xlsx';
