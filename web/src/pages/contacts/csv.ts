import Papa from 'papaparse';

/** One row for `POST /contacts/importList` (spec 001 §5: columns name, number, email). */
export interface CsvRow {
  name?: string;
  number?: string;
  email?: string;
}

// Header names as people write them in the three languages; matched without case and accents.
const HEADERS: Record<string, keyof CsvRow> = {
  name: 'name',
  nome: 'name',
  nombre: 'name',
  number: 'number',
  numero: 'number',
  telefone: 'number',
  phone: 'number',
  whatsapp: 'number',
  email: 'email',
  'e-mail': 'email',
  correo: 'email',
};
const fold = (s: string) => s.normalize('NFD').replace(/[\u0300-\u036f]/g, '').toLowerCase().trim();
const unquote = (s: string) => s.replace(/["']/g, '').trim();

/**
 * A contacts CSV (spec 001 §5): semicolon separated, the first row is the header, quotes removed,
 * empty cells skipped (a row keeps only the cells that have text; a blank row is dropped).
 * Unknown columns are ignored. `lines` holds each row's line in the file, for the import report.
 */
export function parseContactsCsv(text: string): { rows: CsvRow[]; lines: number[]; columns: (keyof CsvRow)[] } {
  const parsed = Papa.parse<string[]>(text.replace(/^\uFEFF/, ''), { delimiter: ';' });
  const [header, ...body] = parsed.data;
  if (!header) return { rows: [], lines: [], columns: [] };
  const map = header.map((h) => HEADERS[fold(unquote(h))]);
  const rows: CsvRow[] = [];
  const lines: number[] = [];
  body.forEach((cells, index) => {
    const row: CsvRow = {};
    cells.forEach((cell, i) => {
      const key = map[i];
      const value = unquote(cell ?? '');
      if (key && value) row[key] = value;
    });
    if (Object.keys(row).length === 0) return;
    rows.push(row);
    lines.push(index + 2);
  });
  return { rows, lines, columns: [...new Set(map.filter((k): k is keyof CsvRow => !!k))] };
}

/** `contacts.csv` (spec 001 §8): name, number, email, semicolon separated like the import. */
export function contactsCsv(list: { name: string; number: string; email?: string | null }[]): string {
  return Papa.unparse(
    { fields: ['name', 'number', 'email'], data: list.map((c) => [c.name, c.number, c.email ?? '']) },
    { delimiter: ';', newline: '\r\n' },
  );
}

export function download(name: string, text: string) {
  // A BOM so spreadsheet programs read the accents as UTF-8.
  const url = URL.createObjectURL(new Blob(['\uFEFF', text], { type: 'text/csv;charset=utf-8' }));
  const a = document.createElement('a');
  a.href = url;
  a.download = name;
  document.body.appendChild(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}
