import { AppError, IMPORT_MAX_ROWS, addressBookPage, companyEvent, contactImportRowSchema, contactImportSchema, parseOrThrow, type ContactImportRow } from '@balcao/shared';
import { nowIso } from '../core/ports.js';
import { newContactsWrite } from './dashboard-stats.js';
import { log } from '../core/observability.js';
import { batchGet, getItem, reserveIds, transact, transactRetryingConflicts, tx, updateItem, type TransactItem, isTransactionCanceled } from '../core/db.js';
import { connectionKey, contactKey, contactsIndexKeys, keys, numberMarker } from '../table/keys.js';
import { publish } from '../core/realtime.js';
import { askSessionHost } from '../core/rpc.js';
import type { Identity } from '../core/identity.js';
import { contactIndexItems, indexContact } from './search-index.js';
import { defaultConnection } from './connections.js';
import { toApiContacts } from './contact-api.js';
import { refreshContactViews } from './contact-view.js';
import { type ConnectionItem, type ContactItem } from '../table/items.js';

/**
 * Contact imports (spec 001 §5, §7): a CSV's rows (`POST /contacts/importList`) or the phone's
 * address book (`POST /contacts/import`). Rows are checked one by one; numbers are looked up 100 at
 * a time (their markers); new contacts get their search tokens in shared BatchWrites, then are
 * written 25 to a transaction with their number markers (several transactions at once), so an
 * import never duplicates a number, even against another import or messages arriving meanwhile.
 * The console sends a big file in consecutive calls of IMPORT_MAX_ROWS rows.
 */
export type { ImportResult } from '@balcao/shared';
import type { ImportResult } from '@balcao/shared';

/** Markers read per BatchGet (DynamoDB's limit). */
const LOOKUP = 100;
/**
 * Items per transaction (DynamoDB's limit): a new contact is its marker, itself and its search
 * tokens (about 15 for a 13-digit number and two name words).
 */
const TRANSACTION_ITEMS = 100;
/**
 * Calls in flight for one import (transactions, index BatchWrites, updates). Bounded so that one
 * import leaves room for the company's live traffic; transactions of one call never share an item
 * (distinct numbers and ids, and the usage counter is added once per call), so they cannot conflict.
 */
const WIDTH = 4;
/** More created contacts than this are announced with one `reload` event instead of one each. */
const EVENTS_ONE_BY_ONE = 100;

/** The rows of the request body: a JSON array, or `{contacts: [...]}` / `{rows: [...]}`. */
function rowsOf(body: Record<string, unknown>): unknown[] {
  const list = body.items ?? body.contacts ?? body.rows;
  if (!Array.isArray(list)) throw new AppError(400, 'ERR_VALIDATION', { message: 'Valor inválido', fields: [{ field: 'body', message: 'Valor inválido' }] });
  if (list.length > IMPORT_MAX_ROWS) {
    const message = `No máximo ${IMPORT_MAX_ROWS} linhas por importação`;
    throw new AppError(400, 'ERR_VALIDATION', { message, fields: [{ field: 'body', message }] });
  }
  return list;
}

function newContact(companyId: number, id: number, row: ContactImportRow, now: string, whatsappId: number | null): ContactItem {
  const name = row.name || row.number;
  return {
    ...contactKey(companyId, id),
    entity: 'contact',
    ...contactsIndexKeys(companyId, name, id),
    id,
    companyId,
    name,
    number: row.number,
    lid: null,
    email: row.email ?? '',
    isGroup: false,
    profilePicUrl: null,
    extraInfo: [],
    tagIds: [],
    userId: null,
    disableBot: false,
    whatsappId,
    createdAt: now,
    updatedAt: now,
  };
}

/** A new contact's writes: its number marker first (a taken number cancels the rest), the contact, its tokens. */
const createItems = (companyId: number, c: ContactItem): TransactItem[] => [
  tx.putUnique({ ...numberMarker(companyId, c.number), entity: 'num', contactId: c.id }),
  tx.put(c, 'attribute_not_exists(PK)'),
  ...contactIndexItems(companyId, c).map((item) => tx.put(item)),
];

async function inParallel<T>(list: T[], width: number, fn: (x: T) => Promise<void>) {
  let next = 0;
  await Promise.all(Array.from({ length: Math.min(width, list.length) }, async () => {
    while (next < list.length) await fn(list[next++]);
  }));
}

const cancelReasons = (err: unknown) => ((err as { CancellationReasons?: { Code?: string }[] }).CancellationReasons ?? []).map((r) => r.Code);

/**
 * One new contact alone, after its group's transaction was cancelled: `false` when its number
 * exists (another import or a message created it meanwhile). A transaction still in flight on the
 * same marker (TransactionConflict) is waited out and retried.
 */
async function createOne(writes: TransactItem[]): Promise<boolean> {
  for (let attempt = 0; ; attempt++) {
    try {
      await transact(writes);
      return true;
    } catch (err) {
      if (!isTransactionCanceled(err)) throw err;
      const codes = cancelReasons(err);
      if (codes[0] === 'ConditionalCheckFailed') return false;
      if (!codes.includes('TransactionConflict') || attempt >= 6) throw err;
      await new Promise((r) => setTimeout(r, 50 * 2 ** attempt * (0.5 + Math.random())));
    }
  }
}

/** Imports parsed rows: new numbers are created, known ones get the row's name and e-mail. */
async function importRows(companyId: number, raw: unknown[], whatsappId: number | null = null): Promise<{ result: ImportResult; createdItems: ContactItem[] }> {
  const result: ImportResult = { created: 0, updated: 0, unchanged: 0, refused: [], contacts: [] };
  const createdItems: ContactItem[] = [];
  const seen = new Set<string>();
  const valid: { row: number; data: ContactImportRow }[] = [];
  raw.forEach((r, i) => {
    const row = i + 1;
    const candidate = r && typeof r === 'object' ? (r as Record<string, unknown>) : {};
    const numberText = String(candidate.number ?? candidate.numero ?? candidate['número'] ?? '');
    const parsed = contactImportRowSchema.safeParse({
      name: candidate.name ?? candidate.nome,
      number: candidate.number ?? candidate.numero ?? candidate['número'],
      email: candidate.email ?? candidate['e-mail'],
    });
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      result.refused.push({ row, number: numberText, reason: `${issue.path.join('.') || 'row'}: ${issue.message}` });
      return;
    }
    if (parsed.data.name && parsed.data.name.length < 2) {
      result.refused.push({ row, number: numberText, reason: 'name: Too Short!' });
      return;
    }
    if (seen.has(parsed.data.number)) {
      result.refused.push({ row, number: parsed.data.number, reason: 'ERR_DUPLICATED_CONTACT' });
      return;
    }
    seen.add(parsed.data.number);
    valid.push({ row, data: parsed.data });
  });
  const now = nowIso();
  const phases: Record<string, number> = {};
  let mark = Date.now();
  const lap = (phase: string) => {
    phases[phase] = Date.now() - mark;
    mark = Date.now();
  };
  const markerPk = (r: { data: ContactImportRow }) => numberMarker(companyId, r.data.number).PK;

  // Which numbers exist: their markers, 100 to a BatchGet.
  const lookups: (typeof valid)[] = [];
  for (let i = 0; i < valid.length; i += LOOKUP) lookups.push(valid.slice(i, i + LOOKUP));
  const known = new Map<string, number>();
  await inParallel(lookups, WIDTH, async (part) => {
    const markers = await batchGet<{ PK: string; contactId: number }>(part.map((r) => numberMarker(companyId, r.data.number)));
    for (const m of markers) known.set(m.PK, m.contactId);
  });
  lap('lookupMs');
  const existing = valid.filter((r) => known.has(markerPk(r)));
  const fresh = valid.filter((r) => !known.has(markerPk(r)));

  // Known numbers: the row's name and e-mail are applied when given and different.
  if (existing.length) {
    const contacts = await batchGet<ContactItem>(existing.map((r) => contactKey(companyId, known.get(markerPk(r))!)));
    const byId = new Map(contacts.map((c) => [c.id, c]));
    await inParallel(existing, WIDTH, async (r) => {
      const c = byId.get(known.get(markerPk(r))!);
      if (!c) {
        // A marker whose contact is being deleted right now: the number is taken, not importable.
        result.refused.push({ row: r.row, number: r.data.number, reason: 'ERR_DUPLICATED_CONTACT' });
        return;
      }
      const name = r.data.name && r.data.name !== c.name ? r.data.name : undefined;
      const email = r.data.email && r.data.email !== c.email ? r.data.email : undefined;
      if (!name && !email) {
        result.unchanged++;
        result.contacts.push({ row: r.row, contactId: c.id, number: c.number, status: 'unchanged' });
        return;
      }
      if (name) await indexContact(companyId, c, { id: c.id, name, number: c.number });
      await updateItem(contactKey(companyId, c.id), { name, email, ...(name ? contactsIndexKeys(companyId, name, c.id) : {}), updatedAt: now });
      await refreshContactViews(companyId, c.id);
      result.updated++;
      result.contacts.push({ row: r.row, contactId: c.id, number: c.number, status: 'updated' });
    });
    lap('updateMs');
  }

  if (fresh.length) {
    // New numbers: ids reserved at once; each contact goes with its number marker and its search
    // tokens, packed into transactions of up to 100 items (about 6 contacts), several at once: a
    // contact is never stored unsearchable, and a number taken meanwhile writes nothing at all.
    const first = await reserveIds(companyId, 'contact', fresh.length);
    const items = fresh.map((r, i) => {
      const c = newContact(companyId, first + i, r.data, now, whatsappId);
      return { r, c, writes: createItems(companyId, c) };
    });
    const groups: (typeof items)[] = [];
    let size = TRANSACTION_ITEMS;
    for (const item of items) {
      if (size + item.writes.length > TRANSACTION_ITEMS) {
        groups.push([]);
        size = 0;
      }
      groups[groups.length - 1].push(item);
      size += item.writes.length;
    }
    const created = (r: { row: number }, c: ContactItem) => {
      result.created++;
      result.contacts.push({ row: r.row, contactId: c.id, number: c.number, status: 'created' });
      createdItems.push(c);
    };
    try {
      await inParallel(groups, WIDTH, async (group) => {
        try {
          await transact(group.flatMap((g) => g.writes));
          for (const { r, c } of group) created(r, c);
        } catch (err) {
          if (!isTransactionCanceled(err)) throw err;
          // A number of the group appeared meanwhile (a message, another import): one by one.
          for (const { r, c, writes } of group) {
            if (await createOne(writes)) {
              created(r, c);
              continue;
            }
            result.unchanged++;
            const m = (await batchGet<{ contactId: number }>([numberMarker(companyId, c.number)]))[0];
            result.contacts.push({ row: r.row, contactId: m?.contactId ?? 0, number: c.number, status: 'unchanged' });
          }
        }
      });
    } finally {
      // The company's contact total, once for the call (in every transaction it would make them
      // conflict); also when a later group failed, for those stored before it.
      if (result.created) await transactRetryingConflicts([countBy(companyId, result.created), ...(await newContactsWrite(companyId, result.created, nowIso(), result.created))]);
    }
    lap('createMs');
  }
  // How long each phase took (the call must stay well inside the gateway's 30 s).
  log.info('contact import', { companyId, rows: raw.length, created: result.created, updated: result.updated, ...phases });
  result.contacts.sort((a, b) => a.row - b.row);
  result.refused.sort((a, b) => a.row - b.row);
  return { result, createdItems };
}

const countBy = (companyId: number, n: number) => tx.update(keys.usage(companyId), 'ADD #n :by', { ':by': n }, undefined, { '#n': 'contacts' });

async function announce(companyId: number, created: ContactItem[], changed: boolean) {
  if (created.length && created.length <= EVENTS_ONE_BY_ONE) {
    const apis = await toApiContacts(companyId, created);
    await publish(apis.map((contact) => ({ companyId, event: companyEvent(companyId, 'contact'), data: { action: 'create', contact }, audience: [{ kind: 'company' as const }] })));
  } else if (created.length || changed) {
    // Thousands of events would only make every console reload anyway.
    await publish({ companyId, event: companyEvent(companyId, 'contact'), data: { action: 'reload' }, audience: [{ kind: 'company' }] });
  }
}

/** `POST /contacts/importList`: rows name, number, email. */
export async function importContactList(identity: Identity, body: Record<string, unknown>): Promise<ImportResult> {
  const { result, createdItems } = await importRows(identity.companyId, rowsOf(body));
  await announce(identity.companyId, createdItems, result.updated > 0);
  return result;
}

/**
 * `POST /contacts/import`: the address book of a connection's phone (the given `whatsappId`, else
 * the default connection), asked through the session host one page at a time: IMPORT_MAX_ROWS
 * entries in number order after `after`. The answer adds `total` (entries in the book) and `next`
 * (the `after` of the following call, null at the end); the console calls until `next` is null.
 * Rows are numbered through the whole book. Importing a page again changes nothing (unchanged).
 */
export async function importFromPhone(identity: Identity, body: Record<string, unknown>): Promise<ImportResult & { total: number; next: string | null }> {
  const data = parseOrThrow(contactImportSchema, body);
  const connection = data.whatsappId
    ? await getItem<ConnectionItem>(connectionKey(identity.companyId, data.whatsappId))
    : await defaultConnection(identity.companyId, identity.user.whatsappId);
  if (!connection) throw new AppError(data.whatsappId ? 404 : 400, data.whatsappId ? 'ERR_NO_WAPP_FOUND' : 'ERR_NO_DEF_WAPP_FOUND');
  if (connection.status !== 'CONNECTED') throw new AppError(400, 'ERR_WAPP_NOT_INITIALIZED');
  const asked = { after: data.after, limit: IMPORT_MAX_ROWS };
  const answer = await askSessionHost(identity.companyId, connection.id, { op: 'addressBook', ...asked }, 20_000);
  if (answer.op !== 'addressBook') throw new AppError(502, 'ERR_WAPP_NOT_INITIALIZED');
  // A session host of an older version answers the whole book: the page is cut here the same way.
  const page = answer.total === undefined || answer.offset === undefined ? addressBookPage(answer.contacts, asked) : answer;
  const entries = page.contacts.slice(0, IMPORT_MAX_ROWS);
  const rows = entries.map((c) => ({ name: (c.name ?? '').slice(0, 50), number: c.number }));
  const { result, createdItems } = await importRows(identity.companyId, rows, connection.id);
  await announce(identity.companyId, createdItems, result.updated > 0);
  const offset = page.offset ?? 0;
  for (const r of result.contacts) r.row += offset;
  for (const r of result.refused) r.row += offset;
  const total = page.total ?? entries.length;
  const last = entries.at(-1)?.number;
  return { ...result, total, next: last && offset + entries.length < total ? last : null };
}
