/**
 * Writes the example contact-list spreadsheets the console offers for download
 * (web/public/examples/contact-list-example.{csv,xls,xlsx}), made by the importer's own library.
 * Run again after changing CONTACT_LIST_EXAMPLE_ROWS: `npx tsx infra/bin/list-examples.ts`.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { CONTACT_LIST_EXAMPLE_ROWS, writeSpreadsheet } from '@balcao/functions/tools';

const dir = fileURLToPath(new URL('../../web/public/examples/', import.meta.url));
mkdirSync(dir, { recursive: true });
for (const kind of ['csv', 'xls', 'xlsx'] as const) writeFileSync(`${dir}contact-list-example.${kind}`, writeSpreadsheet(kind, CONTACT_LIST_EXAMPLE_ROWS));
