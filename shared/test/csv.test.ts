import { describe, expect, it } from 'vitest';
import { contactsCsv, decodeCsv, detectDelimiter, parseContactsCsv } from '../src/csv.js';

// Issue 14 §4: contact CSVs as Excel, Google Sheets and people write them. The console hands the
// file's bytes to parseContactsCsv, so every case goes in as bytes.
const utf8 = (text: string) => Buffer.from(text, 'utf8');
const read = (bytes: Uint8Array) => {
  const { rows, lines, columns } = parseContactsCsv(bytes);
  return { rows, lines, columns };
};

const ANA = '5511999990001';
const BIA = '5521988880002';

describe('contacts CSV import: delimiters', () => {
  it('reads a comma-separated file', () => {
    expect(read(utf8(`name,number,email\nAna Lima,${ANA},ana@example.com\nBia Reis,${BIA},\n`))).toEqual({
      rows: [{ name: 'Ana Lima', number: ANA, email: 'ana@example.com' }, { name: 'Bia Reis', number: BIA }],
      lines: [2, 3],
      columns: ['name', 'number', 'email'],
    });
  });

  it('reads a semicolon-separated file, with commas inside its cells', () => {
    const table = parseContactsCsv(utf8(`nome;numero;saldo\nSilva, Ana;${ANA};1,50\n`));
    expect(table.delimiter).toBe(';');
    expect(table.rows).toEqual([{ name: 'Silva, Ana', number: ANA }]);
  });

  it('reads a tab-separated file (Excel and Sheets copy-paste, "Texto Unicode")', () => {
    expect(read(utf8(`Nome\ttelefone\tE-mail\nAna Lima\t${ANA}\tana@example.com\n`)).rows).toEqual([
      { name: 'Ana Lima', number: ANA, email: 'ana@example.com' },
    ]);
    // Excel's "Texto Unicode (*.txt)" is UTF-16LE with a byte-order mark and tabs.
    const utf16 = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(`Nome\tNúmero\nJoão\t${ANA}\r\n`, 'utf16le')]);
    expect(read(utf16).rows).toEqual([{ name: 'João', number: ANA }]);
  });

  it('detects the delimiter outside quoted cells only', () => {
    expect(detectDelimiter('"Nome; completo",Número\n"Silva; Ana",5511999990001\n')).toBe(',');
    expect(detectDelimiter('"Nome, completo";Número\n"Silva, Ana";5511999990001\n')).toBe(';');
    expect(detectDelimiter('"a\tb",c\n')).toBe(',');
    // One column: nothing to detect, the spec's separator.
    expect(detectDelimiter('numero\n5511999990001\n')).toBe(';');
  });
});

describe('contacts CSV import: headers', () => {
  for (const header of ['Nome', 'NOME', 'name']) {
    it(`"${header}" is the name column`, () => {
      expect(read(utf8(`${header},numero\nAna Lima,${ANA}\n`)).rows).toEqual([{ name: 'Ana Lima', number: ANA }]);
    });
  }
  for (const header of ['NÚMERO', 'Número', 'numero', 'telefone', 'Telefone', 'number']) {
    it(`"${header}" is the number column`, () => {
      expect(read(utf8(`nome,${header}\nAna Lima,${ANA}\n`)).rows).toEqual([{ name: 'Ana Lima', number: ANA }]);
    });
  }
  for (const header of ['E-mail', 'e-mail', 'EMAIL']) {
    it(`"${header}" is the email column`, () => {
      expect(read(utf8(`nome,numero,${header}\nAna Lima,${ANA},ana@example.com\n`)).rows).toEqual([
        { name: 'Ana Lima', number: ANA, email: 'ana@example.com' },
      ]);
    });
  }

  it('reports the header as read when no column is a number, and ignores unknown columns', () => {
    const table = parseContactsCsv(utf8('Nome,Cidade\nAna Lima,Recife\n'));
    expect(table.columns).toEqual(['name']);
    expect(table.header).toEqual(['Nome', 'Cidade']);
    expect(table.rows).toEqual([{ name: 'Ana Lima' }]);
  });
});

describe('contacts CSV import: encodings', () => {
  it('drops a UTF-8 byte-order mark before the first header', () => {
    const bytes = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), utf8(`Nome,Número\nJoão Araújo,${ANA}\n`)]);
    expect(read(bytes)).toEqual({ rows: [{ name: 'João Araújo', number: ANA }], lines: [2], columns: ['name', 'number'] });
  });

  it("reads Excel's Latin-1 (windows-1252) export with its accents", () => {
    const bytes = Buffer.from(`Nome;Número;Cidade\r\nJoão;${ANA};São Paulo\r\nConceição Guimarães;${BIA};Maceió\r\n`, 'latin1');
    expect(decodeCsv(bytes)).toContain('Conceição Guimarães');
    expect(read(bytes).rows).toEqual([
      { name: 'João', number: ANA },
      { name: 'Conceição Guimarães', number: BIA },
    ]);
  });
});

describe('contacts CSV import: spec 001 §5 rules', () => {
  it('keeps the delimiter inside quoted cells and removes the quotes', () => {
    const comma = `"nome","numero","email"\n"Silva, Ana","${ANA}","ana@example.com"\n"Reis, ""Bia""",${BIA},\n`;
    expect(read(utf8(comma)).rows).toEqual([
      { name: 'Silva, Ana', number: ANA, email: 'ana@example.com' },
      { name: 'Reis, Bia', number: BIA },
    ]);
    expect(read(utf8(`nome;numero\n"Silva; Ana";${ANA}\n`)).rows).toEqual([{ name: 'Silva; Ana', number: ANA }]);
  });

  it('reads CRLF line ends', () => {
    expect(read(utf8(`nome,numero,email\r\nAna Lima,${ANA},ana@example.com\r\nBia Reis,${BIA},\r\n`))).toEqual({
      rows: [{ name: 'Ana Lima', number: ANA, email: 'ana@example.com' }, { name: 'Bia Reis', number: BIA }],
      lines: [2, 3],
      columns: ['name', 'number', 'email'],
    });
  });

  it('skips blank lines and empty cells, and numbers the rows by their line in the file', () => {
    const text = ['', 'nome,numero,email', `Ana Lima,${ANA},`, '', ',,', `,${BIA},`, '"Multi', 'linha",5511977770003,', ''].join('\r\n');
    expect(read(utf8(text))).toEqual({
      rows: [{ name: 'Ana Lima', number: ANA }, { number: BIA }, { name: 'Multi\nlinha', number: '5511977770003' }],
      lines: [3, 6, 7],
      columns: ['name', 'number', 'email'],
    });
  });
});

describe('contacts.csv export', () => {
  const contacts = [
    { name: 'João Araújo', number: ANA, email: 'joao@example.com' },
    { name: 'Silva; Ana', number: BIA, email: null },
    { name: 'Zero à esquerda', number: '00351912345678', email: '' },
    { name: '=HYPERLINK("x")', number: '5531966660004' },
  ];

  it('starts with a UTF-8 BOM, separates with ";" and writes the numbers as text for Excel', () => {
    const file = contactsCsv(contacts);
    expect(file.startsWith('\uFEFFname;number;email\r\n')).toBe(true);
    const lines = file.slice(1).split('\r\n');
    expect(lines[1]).toBe(`João Araújo;"=""${ANA}""";joao@example.com`);
    expect(lines[2]).toBe(`"Silva; Ana";"=""${BIA}""";`);
    expect(lines[3]).toBe('Zero à esquerda;"=""00351912345678""";');
    // A name that a spreadsheet would run as a formula is written as text.
    expect(lines[4]).toBe(`"'=HYPERLINK(""x"")";"=""5531966660004""";`);
  });

  it('imports back to the same rows, from its bytes and after Excel saved it again (plain digits)', () => {
    const file = contactsCsv(contacts);
    const rows = [
      { name: 'João Araújo', number: ANA, email: 'joao@example.com' },
      { name: 'Silva; Ana', number: BIA },
      { name: 'Zero à esquerda', number: '00351912345678' },
      // Quotes are removed on import (spec 001 §5), so only they differ.
      { name: '=HYPERLINK(x)', number: '5531966660004' },
    ];
    expect(file.charCodeAt(0)).toBe(0xfeff);
    expect(read(utf8(file)).rows).toEqual(rows);
    // Excel pt-BR's "CSV (separado por vírgulas)" saves what it shows: plain digits, windows-1252, no BOM.
    const resaved = file.slice(1).replace(/"=""(\d+)"""/g, '$1');
    expect(read(Buffer.from(resaved, 'latin1')).rows).toEqual(rows);
  });
});
