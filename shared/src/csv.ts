import Papa from 'papaparse';

/*
 * CSV files as people bring them (issue 14 §4): written by Excel in any language, Google Sheets,
 * LibreOffice or by hand. Reading detects the encoding and the delimiter and matches the header by
 * name; writing produces what Excel in Portuguese opens as columns. No zod here: the console's
 * contacts page uses it, and the contact-list import (issue 20, parsed on the server) is meant to;
 * the console's first load does not.
 */

/** The delimiters an import accepts, in order of preference on a tie (';' is spec 001's separator). */
export const CSV_DELIMITERS = [';', ',', '\t'] as const;
export type CsvDelimiter = (typeof CSV_DELIMITERS)[number];

/** Records looked at to detect the delimiter: the header and enough rows to see it hold. */
const SAMPLE_RECORDS = 20;

/**
 * The text of a file's bytes. A UTF-8 or UTF-16 byte-order mark decides (Excel's "CSV UTF-8" and
 * "Unicode text" exports); without one, bytes that are valid UTF-8 are UTF-8, anything else is
 * windows-1252, the superset of Latin-1 that Excel's plain "CSV" export writes on a Portuguese,
 * Spanish or English Windows (so "João" keeps its "ã" instead of becoming U+FFFD).
 */
export function decodeCsv(bytes: ArrayBuffer | Uint8Array): string {
  const b = bytes instanceof Uint8Array ? bytes : new Uint8Array(bytes);
  // The decoders drop their own byte-order mark.
  if (b[0] === 0xff && b[1] === 0xfe) return new TextDecoder('utf-16le').decode(b);
  if (b[0] === 0xfe && b[1] === 0xff) return new TextDecoder('utf-16be').decode(b);
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(b);
  } catch {
    return new TextDecoder('windows-1252').decode(b);
  }
}

/**
 * The delimiter of a CSV text among `;`, `,` and tab. Each candidate is counted outside quoted
 * cells in the first records (blank lines skipped); the one found in the header that splits the most
 * sample records into as many cells as the header wins, then the one splitting the header most,
 * then the order of CSV_DELIMITERS. A file without any (one column) is read with `;`.
 */
export function detectDelimiter(text: string): CsvDelimiter {
  const records: Record<CsvDelimiter, number>[] = [];
  const zero = (): Record<CsvDelimiter, number> => ({ ';': 0, ',': 0, '\t': 0 });
  let counts = zero();
  let quoted = false;
  let cellStart = true;
  let blank = true;
  for (let i = 0; i < text.length && records.length < SAMPLE_RECORDS; i++) {
    const c = text[i];
    if (quoted) {
      // `""` inside quotes is one quote; a lone one closes the cell's quotes.
      if (c === '"') {
        if (text[i + 1] === '"') i++;
        else quoted = false;
      }
      continue;
    }
    if (c === '\n' || c === '\r') {
      if (!blank) records.push(counts);
      counts = zero();
      cellStart = true;
      blank = true;
      continue;
    }
    if (c === ';' || c === ',' || c === '\t') {
      counts[c]++;
      cellStart = true;
      blank = false;
      continue;
    }
    // Like the parser, a quote opens a quoted cell only as the cell's first character.
    if (c === '"' && cellStart) quoted = true;
    cellStart = false;
    if (c.trim()) blank = false;
  }
  if (!blank && records.length < SAMPLE_RECORDS) records.push(counts);
  const header = records[0];
  if (!header) return ';';
  let best: CsvDelimiter = ';';
  let bestScore = [-1, -1];
  for (const d of CSV_DELIMITERS) {
    if (header[d] === 0) continue;
    const score = [records.filter((r) => r[d] === header[d]).length, header[d]];
    if (score[0] > bestScore[0] || (score[0] === bestScore[0] && score[1] > bestScore[1])) {
      best = d;
      bestScore = score;
    }
  }
  return best;
}

/** A header cell as matched: without accents, case, spaces and punctuation ("E-mail" → "email", "NÚMERO" → "numero"). */
export function foldHeader(s: string): string {
  return s
    .normalize('NFD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]/g, '');
}

/**
 * A cell's value (spec 001 §5: quotes removed). A text formula `="0011…"`, which spreadsheets show
 * as its text and which our exports write for numbers (see csvNumberCell), gives its text.
 */
function cellValue(raw: string): string {
  const formula = /^\s*="(.*)"\s*$/s.exec(raw);
  return (formula ? formula[1] : raw).replace(/["']/g, '').trim();
}

export interface CsvTable<K extends string> {
  /** The rows that have at least one known column with text, with only those cells. */
  rows: Partial<Record<K, string>>[];
  /** Each row's line in the file, counting every line (blank ones too), for the import report. */
  lines: number[];
  /** The known columns the header has. */
  columns: K[];
  /** The header's cells as read, for a message when a column is missing. */
  header: string[];
  delimiter: CsvDelimiter;
}

/**
 * Reads a CSV (text, or the file's bytes: see decodeCsv) whose first non-blank record is a header.
 * `aliases` maps the header names people write to column keys; they are compared folded
 * (foldHeader), so "Número", "NUMERO" and "numero" are one name. Unknown columns are ignored, empty
 * cells skipped, blank rows dropped; when two columns map to one key, the first with text wins.
 */
export function readCsvTable<K extends string>(input: string | ArrayBuffer | Uint8Array, aliases: Record<string, K>): CsvTable<K> {
  const known = new Map(Object.entries(aliases).map(([name, key]) => [foldHeader(name), key]));
  // One line break kind, so lines are counted alike and a file mixing them still splits on each.
  const text = (typeof input === 'string' ? input : decodeCsv(input)).replace(/^\uFEFF/, '').replace(/\r\n?/g, '\n');
  const delimiter = detectDelimiter(text);
  const table: CsvTable<K> = { rows: [], lines: [], columns: [], header: [], delimiter };
  let map: (K | undefined)[] | null = null;
  // Line breaks before the current record (meta.cursor is where each record ended).
  let breaks = 0;
  let scanned = 0;
  Papa.parse<string[]>(text, {
    delimiter,
    newline: '\n',
    quoteChar: '"',
    step: ({ data: cells, meta }) => {
      const line = breaks + 1;
      for (; scanned < meta.cursor; scanned++) if (text[scanned] === '\n') breaks++;
      if (!map) {
        if (cells.every((c) => !cellValue(c))) return;
        table.header = cells.map(cellValue);
        map = table.header.map((h) => known.get(foldHeader(h)));
        table.columns = [...new Set(map.filter((k): k is K => !!k))];
        return;
      }
      const keys = map;
      const row: Partial<Record<K, string>> = {};
      cells.forEach((cell, i) => {
        const key = keys[i];
        const value = cellValue(cell ?? '');
        if (key && value && !row[key]) row[key] = value;
      });
      if (Object.keys(row).length === 0) return;
      table.rows.push(row);
      table.lines.push(line);
    },
  });
  return table;
}

/**
 * The text of a CSV file as Excel in Portuguese opens it by a double click: a UTF-8 byte-order mark
 * (without it Excel reads windows-1252 and garbles accents), `;` between cells (Excel uses the
 * system's list separator, `;` wherever the decimal separator is a comma; Google Sheets detects it),
 * CRLF line ends. Cells are taken as given: see csvTextCell and csvNumberCell.
 */
export function writeCsv(fields: string[], rows: string[][]): string {
  return `\uFEFF${Papa.unparse({ fields, data: rows }, { delimiter: ';', newline: '\r\n' })}`;
}

/**
 * A text cell that a spreadsheet must not run: text starting with = + - @ (or a tab/CR) would be a
 * formula in Excel and Sheets (a contact named `=HYPERLINK(…)` comes from WhatsApp, not from us), so
 * it gets a leading apostrophe, the usual guard. Our import removes apostrophes (spec 001 §5).
 */
export function csvTextCell(value: string): string {
  return /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
}

/**
 * A phone number cell. Excel turns a cell of digits into a number: 5511999998888 shows as
 * 5,5112E+12 (and is saved back that way), digits past the 15th become zeros and leading zeros are
 * dropped; Google Sheets drops leading zeros too. A text formula `="5511999998888"` is shown by
 * both as exactly those digits, as text, and saving from Excel writes the plain digits; our import
 * reads either form. Anything that is not only digits is no number to them and is kept as text.
 */
export function csvNumberCell(value: string): string {
  return /^\d+$/.test(value) ? `="${value}"` : csvTextCell(value);
}

/**
 * A contacts CSV's columns (spec 001 §5) and the header names that mean each, in pt, en and es;
 * compared folded, so "numero", "NÚMERO" and "E-mail" match "número" and "email".
 */
export type ContactCsvColumn = 'name' | 'number' | 'email';
export type ContactCsvRow = Partial<Record<ContactCsvColumn, string>>;
export const CONTACT_CSV_HEADERS: Record<string, ContactCsvColumn> = {
  name: 'name',
  nome: 'name',
  nombre: 'name',
  number: 'number',
  número: 'number',
  telefone: 'number',
  teléfono: 'number',
  celular: 'number',
  phone: 'number',
  whatsapp: 'number',
  email: 'email',
  correo: 'email',
};

/** A contacts CSV (spec 001 §5) as the console's import sends it and the server's imports read it. */
export function parseContactsCsv(input: string | ArrayBuffer | Uint8Array): CsvTable<ContactCsvColumn> {
  return readCsvTable(input, CONTACT_CSV_HEADERS);
}

/** `contacts.csv` (spec 001 §8): name, number, email, readable back by parseContactsCsv. */
export function contactsCsv(list: { name: string; number: string; email?: string | null }[]): string {
  return writeCsv(
    ['name', 'number', 'email'],
    list.map((c) => [csvTextCell(c.name), csvNumberCell(c.number), csvTextCell(c.email ?? '')]),
  );
}
