import { TICKETS_PAGE, validationError, type TicketListQuery } from '@balcao/shared';
import { batchGet } from '../core/db.js';
import type { Identity } from '../core/identity.js';
import { IdStream, contactLookupExact, contactMatches, contactsByPhrase, contactsOfWord, parseQuery, pool, ticketsWithWord, wholeTicketList, type ContactTicketList, type QueryWord } from './search-index.js';
import type { Plan } from './ticket-list.js';
import { contactKey, contactTicketListKey, ticketKey } from '../table/keys.js';
import { type ContactItem, type TicketItem } from '../table/items.js';

/**
 * Keeps the tickets whose contact has ANY of the chosen contact tags: from `known` contacts, else
 * the ticket's contact copy, else one BatchGet of the rest of the batch.
 */
export async function byContactTags(companyId: number, q: TicketListQuery, batch: TicketItem[], known?: Map<number, ContactItem>): Promise<TicketItem[]> {
  if (!q.tagsContact?.length || !batch.length) return batch;
  const tagsOf = new Map<number, number[]>();
  for (const c of known?.values() ?? []) tagsOf.set(c.id, c.tagIds ?? []);
  for (const t of batch) if (t.contactView && !tagsOf.has(t.contactId)) tagsOf.set(t.contactId, t.contactView.tagIds);
  const missing = [...new Set(batch.filter((t) => !tagsOf.has(t.contactId)).map((t) => t.contactId))];
  if (missing.length) for (const c of await batchGet<ContactItem>(missing.map((id) => contactKey(companyId, id)))) tagsOf.set(c.id, c.tagIds ?? []);
  return batch.filter((t) => q.tagsContact!.some((tag) => (tagsOf.get(t.contactId) ?? []).includes(tag)));
}

/**
 * Bounds of one search request (docs/decisions.md, "Search pages"): what it reads depends on the
 * page, never on how many tickets match. A bound reached answers `hasMore` (the next page goes on
 * from there) or `truncated` (older matches may be missed: more words narrow the search).
 */
/** First look at a word: its contacts and its newest message hits. */
const CONTACT_PROBE = 12;
const MESSAGE_PROBE = 24;
/** Contacts whose tickets one search walks (after intersecting the words' contacts). */
const CONTACTS_MAX = 100;
/** Tickets examined by one request (visibility and filters may reject many). */
const EXAMINED_MAX = 400;
/** Message hits per ticket id below which a word's partition counts as sparse. */
const SPARSE = 0.05;

interface Word {
  w: QueryWord;
  /** Contacts matching the word (complete: every one of them). */
  contacts: { ids: Set<number>; complete: boolean };
  /** The word's message partition, newest first below the cursor (its first chunk read). */
  messages: IdStream | undefined;
}

export interface SearchPage {
  list: TicketItem[];
  hasMore: boolean;
  /** The next page's cursor: the id below which it goes on. */
  nextCursor: string | null;
  /** Known only when the whole result was read (no cursor, nothing left, no bound reached). */
  count?: number;
  truncated: boolean;
  /** Tickets read (for the bounds' tests). */
  examined: number;
}

/** A search cursor is a ticket id (older lists' `<updatedAt>#<id>` keep working by their id). */
export function searchCursor(cursor: string | undefined): number | undefined {
  if (!cursor) return undefined;
  const m = /(\d+)$/.exec(cursor);
  if (!m || !(Number(m[1]) > 0)) throw validationError('cursor', 'Valor inválido');
  return Number(m[1]);
}

/**
 * `searchParam` (docs/data-model.md, "Search"): every word of the text must match the ticket's
 * contact (a name word starting with it; for 4+ digits, digits inside the number) or a word of one
 * of its messages. Results are ordered by ticket id, newest first, which is the order of every
 * token partition: candidates are merged lazily from a few partitions and read a chunk at a time
 * until the page (+1) is filled with tickets that pass visibility and the filters.
 *
 * The candidates of a set S of the words are the tickets of the contacts matching every word of S
 * plus the message hits of each word of S: a ticket matching all words either matches S through
 * its contact, or some word of S through a message. S is a word whose contacts and message hits
 * are all known and few, else the words whose message partitions are sparsest; every candidate is
 * then checked against all words (contact sets in memory, contact items, or token keys).
 */
export async function searchTickets(identity: Identity, plan: Plan, opts: { below?: number; skip?: number; examine?: number } = {}): Promise<SearchPage> {
  const cid = identity.companyId;
  const { below, skip = 0, examine = EXAMINED_MAX } = opts;
  const parsed = parseQuery(plan.q.searchParam ?? '');
  const letters = parsed.filter((w) => w.filterOnly);
  // A name typed in its order ("maria da silva"): its contacts come whole from one key range,
  // however many contacts each word alone has (those lists stop at CONTACTS_MAX).
  const phrase = contactsByPhrase(cid, plan.q.searchParam ?? '', CONTACTS_MAX);
  const words: Word[] = await Promise.all(
    parsed
      .filter((w) => !w.filterOnly)
      .map(async (w) => {
        const messages = w.message ? IdStream.message(cid, w.word, below, MESSAGE_PROBE + 1) : undefined;
        const [contacts] = await Promise.all([contactsOfWord(cid, w, CONTACT_PROBE), messages?.fill()]);
        return { w, contacts, messages };
      }),
  );
  const msgDone = (x: Word) => !x.messages || x.messages.done;
  const hits = (x: Word) => x.messages?.seen.size ?? 0;

  // S: a closed word (every candidate known, few); else the sparsest message partitions.
  const closed = words.filter((x) => x.contacts.complete && msgDone(x)).sort((a, b) => a.contacts.ids.size + hits(a) - (b.contacts.ids.size + hits(b)));
  const byPhrase = await phrase;
  // Words no message holds: every result's contact matches them.
  const contactOnly = words.filter((x) => msgDone(x) && hits(x) === 0);
  // A name typed in order whose words are each too common to list whole ("eduardo silva"), one of
  // them never said in a message: the phrase's contacts are the ones typed. The words' first
  // hundred contacts would only add arbitrary others, and another word's message hits tickets
  // whose contact must still match the first: both are left out, and the answer says `truncated`.
  const phraseOnly = !closed.length && !!byPhrase?.ids.length && contactOnly.length > 0;
  let drivers: Word[];
  if (closed.length) drivers = [closed[0]];
  else if (phraseOnly) drivers = contactOnly;
  else {
    // Density of a partition's first chunk: ids read over the id span they cover.
    const density = (x: Word) => (msgDone(x) ? 0 : hits(x) / Math.max(1, (below ?? x.messages!.seen.values().next().value!) - x.messages!.low));
    // A sparse partition adds few candidates and its word narrows the contacts' intersection; a
    // dense one ("pedido") is left to the per-candidate check.
    const least = Math.min(...words.map(density));
    drivers = words.filter((x) => density(x) <= Math.max(2 * least, SPARSE));
  }

  // Contacts matching every driver word.
  let truncated = phraseOnly;
  if (!phraseOnly) {
    await Promise.all(
      drivers.map(async (x) => {
        if (!x.contacts.complete) x.contacts = await contactsOfWord(cid, x.w, CONTACTS_MAX);
      }),
    );
  }
  const lists = [...drivers].sort((a, b) => Number(b.contacts.complete) - Number(a.contacts.complete) || a.contacts.ids.size - b.contacts.ids.size);
  const base = lists[0];
  if (!base.contacts.complete) truncated = true;
  let matched = phraseOnly ? [] : [...base.contacts.ids].filter((c) => lists.slice(1).every((x) => !(x.contacts.complete && contactLookupExact(x.w)) || x.contacts.ids.has(c)));
  const contactCache = new Map<number, ContactItem | null>();
  const contactsOf = async (ids: number[]) => {
    const missing = [...new Set(ids)].filter((c) => !contactCache.has(c));
    if (missing.length) {
      const found = await batchGet<ContactItem>(missing.map((c) => contactKey(cid, c)));
      for (const c of missing) contactCache.set(c, null);
      for (const c of found) contactCache.set(c.id, c);
    }
  };
  if (matched.length && lists.some((x) => !(x.contacts.complete && contactLookupExact(x.w)))) {
    await contactsOf(matched);
    matched = matched.filter((c) => lists.every((x) => contactMatches(contactCache.get(c) ?? undefined, x.w)));
  }
  // The phrase's contacts match every word by construction.
  if (byPhrase?.more) truncated = true;
  if (byPhrase?.ids.length) matched = [...new Set([...matched, ...byPhrase.ids])];
  const driverSet = new Set(drivers);

  // The candidate streams, merged by id, newest first. A matched contact's tickets come from its
  // ticket list when that holds them all (one BatchGet for all contacts), else from `CTK#`.
  const byContact = await contactStreams(cid, identity.company?.ticketListsSince, matched, below, contactCache);
  const streams: IdStream[] = [...byContact, ...drivers.flatMap((x) => (x.messages ? [x.messages] : []))];
  const fromContacts = new Set<number>();
  const nextCandidates = async (n: number): Promise<number[]> => {
    const out: number[] = [];
    while (out.length < n) {
      await pool(
        streams.filter((s) => s.starved),
        16,
        (s) => s.fill(n - out.length + 1),
      );
      let top: number | undefined;
      for (const s of streams) {
        const h = s.head();
        if (h !== undefined && (top === undefined || h > top)) top = h;
      }
      if (top === undefined) break;
      for (const s of streams) if (s.head() === top) s.shift();
      if (byContact.some((s) => s.seen.has(top))) fromContacts.add(top);
      out.push(top);
    }
    return out;
  };

  // Does ticket t satisfy word x? true / false, or undefined when an item must be read to say.
  const byContactSide = (t: TicketItem, x: Word): boolean | undefined => {
    if (driverSet.has(x) && fromContacts.has(t.id)) return true;
    if (x.contacts.complete && contactLookupExact(x.w)) return x.contacts.ids.has(t.contactId);
    const c = contactCache.get(t.contactId);
    return c === undefined ? undefined : contactMatches(c ?? undefined, x.w);
  };
  const byMessageSide = (t: TicketItem, x: Word): boolean | undefined => {
    if (!x.messages) return false;
    return x.messages.knows(t.id) ? x.messages.seen.has(t.id) : undefined;
  };
  const viaTokens = new Map<Word, Set<number>>();
  const satisfies = (t: TicketItem, x: Word): boolean | undefined => {
    const c = byContactSide(t, x);
    if (c) return true;
    const m = viaTokens.get(x)?.has(t.id) || byMessageSide(t, x);
    if (m) return true;
    return c === false && m === false ? false : undefined;
  };

  const want = skip + TICKETS_PAGE + 1;
  const accepted: TicketItem[] = [];
  let examined = 0;
  let last: number | undefined;
  let exhausted = false;
  while (accepted.length < want) {
    if (examined >= examine) break;
    // The next chunk: what the page still lacks, scaled by the share of candidates accepted so
    // far (a viewer who sees few of them needs more), in few round trips.
    const rate = examined ? Math.max(accepted.length / examined, 0.1) : 1;
    const ids = await nextCandidates(Math.min(Math.max(Math.ceil((want - accepted.length) / rate), 10), examine - examined, 100));
    if (!ids.length) {
      exhausted = true;
      break;
    }
    examined += ids.length;
    last = ids[ids.length - 1];
    const read = new Map((await batchGet<TicketItem>(ids.map((id) => ticketKey(cid, id)))).map((t) => [t.id, t]));
    let batch = ids.map((id) => read.get(id)).filter((t): t is TicketItem => !!t && plan.pass(t));
    // Contact items for the words the contact sets cannot decide, the letters and the contact tags.
    const needContact = batch.filter((t) => letters.length || plan.q.tagsContact?.length || words.some((x) => byContactSide(t, x) === undefined && !byMessageSide(t, x)));
    await contactsOf(needContact.map((t) => t.contactId));
    // Token keys for what is still open (one BatchGet per word).
    for (const x of words) {
      const open = batch.filter((t) => satisfies(t, x) === undefined).map((t) => t.id);
      if (open.length && x.w.message) viaTokens.set(x, new Set([...(viaTokens.get(x) ?? []), ...(await ticketsWithWord(cid, x.w.word, open))]));
    }
    batch = batch.filter((t) => words.every((x) => satisfies(t, x)) && letters.every((w) => contactMatches(contactCache.get(t.contactId) ?? undefined, w)));
    const known = new Map([...contactCache].filter((e): e is [number, ContactItem] => !!e[1]));
    accepted.push(...(await byContactTags(cid, plan.q, batch, known)));
  }
  if (!exhausted && accepted.length < want && streams.every((s) => s.done && s.head() === undefined)) exhausted = true;

  const list = accepted.slice(skip, skip + TICKETS_PAGE);
  const full = accepted.length > skip + TICKETS_PAGE;
  const hasMore = full || !exhausted;
  const nextCursor = full ? String(list[list.length - 1].id) : hasMore && last !== undefined ? String(last) : null;
  const count = below === undefined && exhausted && !truncated ? accepted.length : undefined;
  return { list, hasMore, nextCursor, ...(count !== undefined ? { count } : {}), truncated, examined };
}

/**
 * The ticket streams of the matched contacts: their ticket lists and the contact items still
 * unknown (each list is whole only for a contact made after `since`) in one BatchGet per 100 keys;
 * a contact whose list is not whole is queried.
 */
async function contactStreams(cid: number, since: string | undefined, contactIds: number[], below: number | undefined, contactCache: Map<number, ContactItem | null>): Promise<IdStream[]> {
  if (!since || !contactIds.length) return contactIds.map((c) => IdStream.contact(cid, c, below, 4));
  const missing = contactIds.filter((c) => !contactCache.has(c));
  const got = await batchGet<(ContactItem | ContactTicketList) & { entity: string }>([
    ...contactIds.map((c) => contactTicketListKey(cid, c)),
    ...missing.map((c) => contactKey(cid, c)),
  ]);
  const lists = new Map<number, ContactTicketList>();
  for (const c of missing) contactCache.set(c, null);
  for (const item of got) {
    if (item.entity === 'contactTicketList') lists.set((item as ContactTicketList).contactId, item as ContactTicketList);
    else if (item.entity === 'contact') contactCache.set((item as ContactItem).id, item as ContactItem);
  }
  return contactIds.map((c) => {
    const ids = wholeTicketList(lists.get(c), contactCache.get(c) ?? undefined, since);
    return ids ? IdStream.fixed(ids, below) : IdStream.contact(cid, c, below, 4);
  });
}

/** How many tickets a search finds, read page by page up to a bound (the tab badges under a search). */
export async function countSearch(identity: Identity, plan: Plan, examine = 4000): Promise<number> {
  let n = 0;
  let below: number | undefined;
  let left = examine;
  for (;;) {
    const page = await searchTickets(identity, plan, { below, examine: Math.min(EXAMINED_MAX, left) });
    n += page.list.length;
    left -= page.examined;
    if (!page.hasMore || !page.nextCursor || left <= 0) return n;
    below = Number(page.nextCursor);
  }
}
