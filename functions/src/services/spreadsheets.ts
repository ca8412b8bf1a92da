import * as XLSX from '@e965/xlsx';
import { AppError, CONTACT_LIST_HEADERS, SPREADSHEET_MAX_BYTES, SPREADSHEET_MAX_ROWS, csvNumberCell, readCsvTable, writeCsv, type ErrorCode } from '@balcao/shared';

/**
 * Reads a contact-list spreadsheet (issue 20 §2): .csv, .xls or .xlsx, told apart by their bytes
 * (a name says nothing). Excel files go through SheetJS (the only kept reader of the old binary
 * .xls; the npm mirror of its patched 0.20 line, decision 54); CSV through the contacts page's own
 * reader (encodings, `;` or `,`, text formulas). Whole-file problems are 400s naming the file field.
 */
export type SpreadsheetKind = 'csv' | 'xls' | 'xlsx';

export interface SheetRow {
  /** The row's number as the spreadsheet shows it (the header is row 1 when it starts the sheet). */
  row: number;
  name?: string;
  number?: string;
  email?: string;
}

const refused = (code: ErrorCode) => new AppError(400, code, { fields: [{ field: 'file', message: code }] });

const ZIP = Buffer.from([0x50, 0x4b, 0x03, 0x04]);
const CFB = Buffer.from([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1]);

/** The file's kind by its first bytes: a zip (xlsx), an OLE compound file (xls) or plain text (csv). */
export function sniffSpreadsheet(data: Buffer): SpreadsheetKind | undefined {
  if (data.subarray(0, 4).equals(ZIP)) return 'xlsx';
  if (data.subarray(0, 8).equals(CFB)) return 'xls';
  // Text: no NUL and hardly any control characters (an image or PDF renamed .csv has plenty).
  const head = data.subarray(0, 64 * 1024);
  let control = 0;
  for (const byte of head) {
    if (byte === 0) return undefined;
    if (byte < 0x20 && byte !== 0x09 && byte !== 0x0a && byte !== 0x0d) control++;
  }
  return control <= head.length / 100 ? 'csv' : undefined;
}

/** The first sheet of an Excel workbook as CSV text (raw numbers: a phone is never 5.5E+12), and the row it starts at. */
function excelAsCsv(data: Buffer): { text: string; firstRow: number } {
  let book: XLSX.WorkBook;
  try {
    // Two rows past the limit are enough to know it was passed; formulas and styles are not needed.
    book = XLSX.read(data, { type: 'buffer', sheetRows: SPREADSHEET_MAX_ROWS + 2, cellFormula: false, cellHTML: false, cellStyles: false, dense: true });
  } catch {
    throw refused('ERR_SPREADSHEET_TYPE');
  }
  const sheet = book.SheetNames.length ? book.Sheets[book.SheetNames[0]] : undefined;
  if (!sheet) throw refused('ERR_SPREADSHEET_TYPE');
  const ref = sheet['!ref'];
  if (!ref) throw refused('ERR_SPREADSHEET_EMPTY');
  const text = XLSX.utils.sheet_to_csv(sheet, { FS: ',', RS: '\n', rawNumbers: true, blankrows: true, strip: false });
  return { text, firstRow: XLSX.utils.decode_range(ref).s.r + 1 };
}

/** The rows under the header, with the known columns only. */
export function readContactListSpreadsheet(data: Buffer): { kind: SpreadsheetKind; rows: SheetRow[] } {
  if (data.length === 0) throw refused('ERR_SPREADSHEET_EMPTY');
  if (data.length > SPREADSHEET_MAX_BYTES) throw refused('ERR_SPREADSHEET_TOO_LARGE');
  const kind = sniffSpreadsheet(data);
  if (!kind) throw refused('ERR_SPREADSHEET_TYPE');
  const { text, firstRow } = kind === 'csv' ? { text: data, firstRow: 1 } : excelAsCsv(data);
  const table = readCsvTable(text, CONTACT_LIST_HEADERS);
  if (table.header.length === 0) throw refused('ERR_SPREADSHEET_EMPTY');
  if (!table.columns.includes('number')) throw refused('ERR_SPREADSHEET_NO_NUMBER_COLUMN');
  if (table.rows.length === 0) throw refused('ERR_SPREADSHEET_EMPTY');
  if (table.rows.length > SPREADSHEET_MAX_ROWS) throw refused('ERR_SPREADSHEET_TOO_MANY_ROWS');
  return { kind, rows: table.rows.map((cells, i) => ({ row: table.lines[i] + firstRow - 1, ...cells })) };
}

/** A workbook of the given rows (a header first) as a file of that kind: the example files and the tests. */
export function writeSpreadsheet(kind: SpreadsheetKind, rows: (string | number)[][]): Buffer {
  // As the contacts export writes CSV: `;`, a BOM, numbers as text formulas Excel keeps whole.
  if (kind === 'csv') return Buffer.from(writeCsv(rows[0].map(String), rows.slice(1).map((r) => r.map((cell) => csvNumberCell(String(cell))))), 'utf8');
  const sheet = XLSX.utils.aoa_to_sheet(rows);
  const book = XLSX.utils.book_new();
  XLSX.utils.book_append_sheet(book, sheet, 'Contatos');
  return Buffer.from(XLSX.write(book, { type: 'buffer', bookType: kind === 'xls' ? 'biff8' : 'xlsx', compression: true }) as Uint8Array);
}

/** The example spreadsheets' rows (the console links them: web/public/examples, infra/bin/list-examples.ts). */
export const CONTACT_LIST_EXAMPLE_ROWS: string[][] = [
  ['nome', 'numero', 'email'],
  ['Maria Souza', '5511999990001', 'maria@exemplo.com.br'],
  ['João Lima', '5521988880002', ''],
  ['Ana Costa', '5531977770003', 'ana.costa@exemplo.com.br'],
];
