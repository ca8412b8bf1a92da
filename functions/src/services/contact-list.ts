import { AppError, CONTACTS_EXPORT_PAGE, CONTACTS_PAGE, contactExportQuerySchema, contactListQuerySchema, parseOrThrow } from '@balcao/shared';
import { table } from '../core/ports.js';
import { env } from '../core/env.js';
import { batchGet, getItem, prefixCondition } from '../core/db.js';
import { contactAttendantPartition, contactKey, contactPkPrefix, contactsPartition, keys, tagKey, tagLinkPrefix } from '../table/keys.js';
import { type ContactItem } from '../table/items.js';
import type { Identity } from '../core/identity.js';
import { contactIdsByToken, contactMatches, contactsByPhrase, parseQuery } from './search-index.js';
import { contactIdsWithTag } from './tags.js';
import { toApiContacts } from './contact-api.js';

/*
 * Reading the contacts (spec 001 §7-8): the paged list with its search and filters, the brief list
 * for pickers, and the CSV export by cursor. Never a Scan: the alphabetical, attendant and search
 * indexes and the tags' link items.
 */

/** Candidate bounds of one filtered or searched page (typing more or filtering more narrows). */
const MAX_FILTER_IDS = 5000;
const SEARCH_PER_WORD = 500;

export async function queryPartition(index: 'GSI1' | 'GSI3' | undefined, pk: string, limit: number, prefix?: string) {
  const out: ContactItem[] = [];
  let start: Record<string, unknown> | undefined;
  const keyName = index ? `${index}PK` : 'PK';
  const skName = index ? `${index}SK` : 'SK';
  do {
    const page = await table().query({
      TableName: env.tableName,
      IndexName: index,
      ...prefixCondition(keyName, pk, skName, prefix),
      Limit: Math.min(limit - out.length, 1000),
      ExclusiveStartKey: start,
    });
    out.push(...((page.Items ?? []) as ContactItem[]));
    start = page.LastEvaluatedKey;
  } while (start && out.length < limit);
  return { items: out, more: !!start };
}

/** Contacts of the search index (services/search-index.ts): name words by prefix, digits inside numbers. */
const tokenIds = (companyId: number, kind: 'N' | 'D', token: string, limit: number) => contactIdsByToken(companyId, kind, token, limit);

type Words = ReturnType<typeof parseQuery>;

/** Ids that may match every word (name prefix or digits), from the search index; `truncated` when a word had more. */
async function wordCandidates(companyId: number, words: Words, text: string): Promise<{ ids: Set<number> | undefined; truncated: boolean }> {
  let ids: Set<number> | undefined;
  let truncated = false;
  for (const w of words) {
    const [byName, byDigits] = await Promise.all([
      tokenIds(companyId, 'N', w.name, SEARCH_PER_WORD),
      w.digits ? tokenIds(companyId, 'D', w.digits, SEARCH_PER_WORD) : Promise.resolve({ ids: [] as number[], more: false }),
    ]);
    truncated ||= byName.more || byDigits.more;
    const these = [...byName.ids, ...byDigits.ids];
    ids = ids ? new Set(these.filter((x) => ids!.has(x))) : new Set(these);
  }
  // A name typed in its order finds its contacts whole even when each word alone had too many.
  const byPhrase = truncated ? await contactsByPhrase(companyId, text, SEARCH_PER_WORD) : undefined;
  if (byPhrase) ids = new Set([...(ids ?? []), ...byPhrase.ids]);
  return { ids, truncated };
}

/**
 * Whether a contact read matches the filters: the index may hold tokens of an old name or number
 * (and prefixes cut at 20), and links or attendant entries may lag a change, so each is checked.
 */
const fitsQuery = (c: ContactItem, words: Words, q: { tagsContact?: number[]; users?: number[] }) =>
  c.entity === 'contact' &&
  words.every((w) => contactMatches(c, w)) &&
  (q.tagsContact ?? []).every((t) => (c.tagIds ?? []).includes(t)) &&
  (!q.users?.length || (c.userId !== null && q.users.includes(c.userId)));

/**
 * `GET /contacts` (spec 001 §7): alphabetical pages of 20 with `{contacts, count, hasMore}`.
 * Search: words of the name (prefix, accents and case folded) and digits of the number, through
 * the company's search index; `tagsContact` (every tag) through the tags' link items; `users`
 * (any of them) through the attendants' index. Never a Scan.
 */
export async function listContacts(identity: Identity, query: Record<string, string | undefined>) {
  const companyId = identity.companyId;
  const q = parseOrThrow(contactListQuerySchema, query);
  const pageNumber = q.pageNumber ?? 1;
  const skip = (pageNumber - 1) * CONTACTS_PAGE;
  const term = (q.searchParam ?? '').trim();

  if (!term && !q.tagsContact?.length && !q.users?.length) {
    // The plain list: the alphabetical index, read up to this page.
    const { items, more } = await queryPartition('GSI1', contactsPartition(companyId), skip + CONTACTS_PAGE + 1);
    const page = items.slice(skip, skip + CONTACTS_PAGE);
    const usage = await getItem<{ contacts?: number }>(keys.usage(companyId));
    return {
      contacts: await toApiContacts(companyId, page),
      count: Math.max(usage?.contacts ?? 0, items.length),
      hasMore: items.length > skip + CONTACTS_PAGE || (more && items.length >= skip + CONTACTS_PAGE),
    };
  }

  let candidate: Set<number> | undefined;
  let truncated = false;
  const narrow = (ids: number[]) => {
    candidate = candidate ? new Set(ids.filter((x) => candidate!.has(x))) : new Set(ids);
  };
  const words = term ? parseQuery(term) : [];
  if (words.length) {
    const byWords = await wordCandidates(companyId, words, term);
    truncated ||= byWords.truncated;
    narrow([...(byWords.ids ?? [])]);
  }
  for (const tagId of q.tagsContact ?? []) {
    const r = await contactIdsWithTag(companyId, tagId, MAX_FILTER_IDS);
    truncated ||= r.truncated;
    narrow(r.ids);
  }
  if (q.users?.length) {
    const ids: number[] = [];
    for (const u of q.users) {
      const r = await queryPartition('GSI3', contactAttendantPartition(companyId, u), MAX_FILTER_IDS);
      truncated ||= r.more;
      ids.push(...r.items.map((c) => c.id));
    }
    narrow(ids);
  }
  const found = await batchGet<ContactItem>([...(candidate ?? [])].map((id) => contactKey(companyId, id)));
  const matches = found.filter((c) => fitsQuery(c, words, q)).sort((a, b) => (a.GSI1SK < b.GSI1SK ? -1 : 1));
  const page = matches.slice(skip, skip + CONTACTS_PAGE);
  return { contacts: await toApiContacts(companyId, page), count: matches.length, hasMore: matches.length > skip + CONTACTS_PAGE || truncated };
}

// ---------------------------------------------------------------- export

type ExportCursor = { k: Record<string, string>; u?: number };
const badCursor = () => new AppError(400, 'ERR_VALIDATION', { message: 'Valor inválido', fields: [{ field: 'cursor', message: 'Valor inválido' }] });
const encodeCursor = (c: ExportCursor) => Buffer.from(JSON.stringify(c)).toString('base64url');

/** A cursor of this export only: its key must lie in the partition this query reads (never another tenant's). */
function decodeCursor(raw: string | undefined, fits: (c: ExportCursor) => boolean): ExportCursor | undefined {
  if (!raw) return undefined;
  let c: ExportCursor;
  try {
    c = JSON.parse(Buffer.from(raw, 'base64url').toString('utf8')) as ExportCursor;
  } catch {
    throw badCursor();
  }
  const keyOk = !!c && typeof c === 'object' && !!c.k && typeof c.k === 'object' && Object.keys(c.k).length <= 4 && Object.values(c.k).every((v) => typeof v === 'string');
  if (!keyOk || !fits(c)) throw badCursor();
  return c;
}

/** One page of a partition (or its `prefix`), from `start`; `next` is DynamoDB's key to go on from. */
async function queryPage(index: 'GSI1' | 'GSI3' | undefined, pk: string, limit: number, start?: Record<string, string>, prefix?: string) {
  const keyName = index ? `${index}PK` : 'PK';
  const skName = index ? `${index}SK` : 'SK';
  const out = await table().query({
    TableName: env.tableName,
    IndexName: index,
    ...prefixCondition(keyName, pk, skName, prefix),
    Limit: limit,
    ExclusiveStartKey: start && Object.keys(start).length ? start : undefined,
  });
  return { items: out.Items ?? [], next: out.LastEvaluatedKey as Record<string, string> | undefined };
}

/**
 * `GET /contacts/export` (the CSV export, spec 001 §8): every contact matching the contacts page's
 * filters, in pages of at most CONTACTS_EXPORT_PAGE read with a cursor, so a company of any size
 * exports in full at a cost linear in its contacts (the list's `pageNumber` re-reads every earlier
 * page). One partition drives the reading, each contact appearing in it once: the first tag's links,
 * else the attendants' index one attendant after the other, else the search index (bounded like the
 * list's search: one page), else the alphabetical index; the other filters are checked on each
 * contact. A page may hold fewer contacts than read (filtered out), even none, with a `next`.
 */
export async function exportContacts(identity: Identity, query: Record<string, string | undefined>) {
  const companyId = identity.companyId;
  const q = parseOrThrow(contactExportQuerySchema, query);
  const term = (q.searchParam ?? '').trim();
  const words = term ? parseQuery(term) : [];
  const tags = q.tagsContact ?? [];
  const users = q.users ?? [];
  let found: ContactItem[];
  let next: ExportCursor | undefined;
  if (tags.length) {
    const pk = tagKey(companyId, tags[0]).PK;
    const linkPrefix = tagLinkPrefix('CT');
    const cursor = decodeCursor(q.cursor, (c) => c.k.PK === pk && c.k.SK?.startsWith(linkPrefix));
    const page = await queryPage(undefined, pk, CONTACTS_EXPORT_PAGE, cursor?.k, linkPrefix);
    const ids = page.items.filter((l) => l.entity === 'tagLink').map((l) => Number(l.targetId));
    found = await batchGet<ContactItem>(ids.map((id) => contactKey(companyId, id)));
    next = page.next && { k: page.next };
  } else if (users.length) {
    const cursor = decodeCursor(
      q.cursor,
      (c) => Number.isInteger(c.u) && c.u! >= 0 && c.u! < users.length && (!Object.keys(c.k).length || c.k.GSI3PK === contactAttendantPartition(companyId, users[c.u!])),
    );
    const u = cursor?.u ?? 0;
    const page = await queryPage('GSI3', contactAttendantPartition(companyId, users[u]), CONTACTS_EXPORT_PAGE, cursor?.k);
    found = page.items as ContactItem[];
    next = page.next ? { u, k: page.next } : u + 1 < users.length ? { u: u + 1, k: {} } : undefined;
  } else if (words.length) {
    if (q.cursor) throw badCursor();
    const { ids } = await wordCandidates(companyId, words, term);
    found = await batchGet<ContactItem>([...(ids ?? [])].map((id) => contactKey(companyId, id)));
  } else {
    const pk = contactsPartition(companyId);
    const cursor = decodeCursor(q.cursor, (c) => c.k.GSI1PK === pk && !!c.k.PK?.startsWith(contactPkPrefix(companyId)));
    const page = await queryPage('GSI1', pk, CONTACTS_EXPORT_PAGE, cursor?.k);
    found = page.items as ContactItem[];
    next = page.next && { k: page.next };
  }
  const contacts = found
    .filter((c) => fitsQuery(c, words, q))
    .sort((a, b) => (a.GSI1SK < b.GSI1SK ? -1 : 1))
    .map((c) => ({ id: c.id, name: c.name, number: c.number, email: c.email ?? '' }));
  return { contacts, next: next ? encodeCursor(next) : null };
}

/** `GET /contacts/list`: a brief alphabetical list for pickers (at most 1 000; `searchParam` narrows). */
export async function listContactsBrief(identity: Identity, query: Record<string, string | undefined>) {
  const term = (query.searchParam ?? '').trim();
  const list = term
    ? (await listContacts(identity, { searchParam: term })).contacts
    : await toApiContacts(identity.companyId, (await queryPartition('GSI1', contactsPartition(identity.companyId), 1000)).items);
  return list.map((c) => ({ id: c.id, name: c.name, number: c.number, email: c.email, profilePicUrl: c.profilePicUrl, isGroup: c.isGroup, tags: c.tags }));
}
