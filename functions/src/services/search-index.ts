import { table } from '../core/ports.js';
import { env } from '../core/env.js';
import { batchGet, batchWrite, prefixCondition, queryAll, transact, tx, type TransactItem, type WriteRequest, isTransactionCanceled } from '../core/db.js';
import {
  contactSearchPartition,
  contactTicketKey,
  contactTicketListKey,
  contactTicketsPartition,
  contactTokenKeys,
  contactTokensPartition,
  messageTokenKey,
  messageTokenPartition,
  type SearchContactKind,
  ticketIdSortKey,
} from '../table/keys.js';

/**
 * The per-company word index behind the ticket search (docs/data-model.md, "Search index").
 *
 * - Contacts: one item per word of the name holding the name from that word on ("maria silva
 *   santos", "silva santos", "santos") and one per digit suffix (4+ digits) of the number, under
 *   the contact (`CTOK#<contactId>`, so its tokens are read and replaced with one Query), listed
 *   in the company's GSI1 partitions `SRCH#N` / `SRCH#D` sorted `<token>#<contactId>`: a name
 *   word prefix is a key range on SRCH#N, and so is a run of words typed in the name's order
 *   ("maria silva", "silva san"), which finds the few contacts of a common full name at once; any
 *   run of digits inside a number is the prefix of one of its suffixes on SRCH#D. About a dozen
 *   small items per contact.
 * - Messages: `TOK#M#<word>` → tickets, one item per word and ticket (SK the ticket id, newest
 *   first), for the words (2-30 characters, common stop words left out) of every stored message.
 * - `CTK#<contactId>` → the contact's tickets (written with the ticket), which turns a matched
 *   contact into its tickets without reading anything else; `CTL#<contactId>` holds the same ids
 *   in one item (`ContactTicketList`), so many contacts' tickets come from one BatchGet.
 *
 * Every write is a Put of a key that depends only on the token and the id, so repeated or
 * redelivered writes change nothing.
 */

/** Accents and case folded, the same way for the index and the query (ç → c, Á → a). */
export const foldText = (s: string) => s.normalize('NFD').replace(/[\u0300-\u036f]/g, '').toLowerCase();

/** Words of a text: letters and digits of any script, folded. */
export const wordsOf = (s: string) => foldText(s).split(/[^\p{L}\p{N}]+/u).filter(Boolean);

const NAME_WORD_MAX = 30;
const NAME_WORDS = 8;
/** A name token's length: its words (each cut to NAME_WORD_MAX) from one position on. */
const NAME_TOKEN_MAX = 120;
const DIGITS_MIN = 4;
const WORD_MIN = 2;
const WORD_MAX = 30;
/** Distinct words indexed per message: a long text costs a bounded number of writes. */
const WORDS_PER_MESSAGE = 64;

/**
 * Words too common to tell tickets apart (pt, es, en): not indexed in messages (they would cost a
 * write in nearly every message) and ignored in a query that has other words.
 */
export const STOP_WORDS = new Set(
  (
    'de da do das dos e o a os as um uma uns umas em no na nos nas por para pra com sem que se ou ao aos eu voce vc ' +
    'me te ele ela isso esse essa este esta ja nao sim mais muito la el los las y en con es un una por lo le su al del ' +
    'the an and or of to in on at is it for with you this that be are'
  ).split(' '),
);

/**
 * The writes a new ticket adds to its creation transaction for the search: its `CTK#` item and its
 * id appended to the contact's ticket list (`CTL#`).
 */
export const contactTicketWrites = (companyId: number, contactId: number, ticketId: number): TransactItem[] => [
  tx.put(contactTicketItem(companyId, contactId, ticketId)),
  tx.update(contactTicketListKey(companyId, contactId), 'SET ids = list_append(if_not_exists(ids, :none), :id), entity = :e, contactId = :c ADD n :one', {
    ':none': [],
    ':id': [ticketId],
    ':e': 'contactTicketList',
    ':c': contactId,
    ':one': 1,
  }),
];

/**
 * A contact's ticket ids in one item, so that the search reads the tickets of a hundred matched
 * contacts with one BatchGet instead of a Query of each `CTK#` partition (docs/data-model.md,
 * "Search index"). Every ticket creation appends its id and adds 1 to `n` in its transaction, so
 * the list holds every ticket made since it began: all of the contact's tickets when the contact
 * was made after the company's `ticketListsSince`, or when the migration built it from `CTK#`
 * (`base`). Otherwise the search queries `CTK#`. Deleted tickets stay listed (the search reads
 * each candidate ticket and skips missing ones).
 */
export interface ContactTicketList {
  contactId: number;
  ids: number[];
  n: number;
  base?: boolean;
}

/** The contact's ticket list when it holds all of its tickets, else undefined (query `CTK#`). */
export function wholeTicketList(list: ContactTicketList | undefined, contact: { createdAt?: string } | undefined, since: string | undefined): number[] | undefined {
  if (!since) return undefined;
  const whole = list?.base === true || (!!contact?.createdAt && contact.createdAt >= since);
  if (!whole) return undefined;
  if (!list) return [];
  return list.ids.length === list.n ? list.ids : undefined;
}

/** Name words as tokens hold them (and queries look them up): cut to NAME_WORD_MAX. */
const nameWords = (name: string) => wordsOf(name).map((w) => w.slice(0, NAME_WORD_MAX));
/** The name from one word on, as one token (or a query's run of words, to find by prefix). */
const namePhrase = (words: string[]) => words.join(' ').slice(0, NAME_TOKEN_MAX).trimEnd();

/** Tokens of a contact: its name from each word on, and the digit suffixes of its number. */
export function contactTokens(contact: { name: string; number: string }): { kind: SearchContactKind; token: string }[] {
  const out = new Map<string, { kind: SearchContactKind; token: string }>();
  const digits = contact.number.replace(/\D/g, '');
  // A contact still named by its number (no push name yet) has no name words worth indexing.
  const placeholder = /^[\d\s()+.-]*$/.test(contact.name) && contact.name.replace(/\D/g, '') === digits;
  const words = placeholder ? [] : nameWords(contact.name).slice(0, NAME_WORDS);
  for (let i = 0; i < words.length; i++) {
    const token = namePhrase(words.slice(i));
    out.set(`N#${token}`, { kind: 'N', token });
  }
  for (let i = 0; i + DIGITS_MIN <= digits.length; i++) out.set(`D#${digits.slice(i)}`, { kind: 'D', token: digits.slice(i) });
  return [...out.values()];
}

/** Words of a message worth indexing. */
export function messageTokens(body: string): string[] {
  const out = new Set<string>();
  for (const w of wordsOf(body)) {
    if (w.length < WORD_MIN || w.length > WORD_MAX || STOP_WORDS.has(w)) continue;
    out.add(w);
    if (out.size >= WORDS_PER_MESSAGE) break;
  }
  return [...out];
}

const contactTokenItem = (companyId: number, id: number, t: { kind: SearchContactKind; token: string }) => ({
  ...contactTokenKeys(companyId, id, t),
  entity: 'searchToken',
  contactId: id,
});
const contactTokenPut = (companyId: number, id: number, t: { kind: SearchContactKind; token: string }): WriteRequest => ({ PutRequest: { Item: contactTokenItem(companyId, id, t) } });

/** The index items of a contact that has none yet (an import writes them in its transaction). */
export const contactIndexItems = (companyId: number, c: { id: number; name: string; number: string }) =>
  contactTokens(c).map((t) => contactTokenItem(companyId, c.id, t));

/** The index items of a message's words. */
export function messageIndexItems(companyId: number, ticketId: number, body: string, mediaType?: string | null): Record<string, unknown>[] {
  // A contact card's body is a vCard: its field names are not words anyone searches for.
  if (mediaType === 'contactMessage') return [];
  return messageTokens(body).map((w) => ({ ...messageTokenKey(companyId, w, ticketId), entity: 'searchToken', ticketId }));
}

/** The contact → ticket item (new tickets write it in their creation transaction). */
export const contactTicketItem = (companyId: number, contactId: number, ticketId: number) => ({ ...contactTicketKey(companyId, contactId, ticketId), entity: 'contactTicket', ticketId });

/**
 * Writes many index items at once (a backfill): unconditional Puts, 100 to a transaction, `width`
 * transactions in flight. Not BatchWrite: DynamoDB Local commits a batch item by item but a
 * transaction at once, 3-4 times faster on the local stack; on DynamoDB a transaction costs twice
 * the write units, which a one-off migration can afford. A transaction meeting a live write of the
 * same item (TransactionConflict) is retried; Puts of the same key are merged first.
 */
export async function writeIndexItems(items: Record<string, unknown>[], width = 4) {
  const unique = [...new Map(items.map((i) => [`${String(i.PK)}|${String(i.SK)}`, i])).values()];
  const chunks: Record<string, unknown>[][] = [];
  for (let i = 0; i < unique.length; i += 100) chunks.push(unique.slice(i, i + 100));
  await pool(chunks, width, async (chunk) => {
    for (let attempt = 0; ; attempt++) {
      try {
        return await transact(chunk.map((item) => tx.put(item)));
      } catch (err) {
        if (!isTransactionCanceled(err) || attempt >= 8) throw err;
        await new Promise((r) => setTimeout(r, 25 * 2 ** attempt * (0.5 + Math.random())));
      }
    }
  });
}

/**
 * Keeps a contact's tokens in step with its name and number. A new contact (`before` undefined)
 * is indexed before it is first written (a crash in between leaves only tokens of an id that
 * resolves to nothing); a changed one is compared with the tokens stored under it (one Query),
 * so the index ends right whatever `before` said.
 */
export async function indexContact(companyId: number, before: { name: string; number: string } | undefined, after: { id: number; name: string; number: string }) {
  const pk = contactTokensPartition(companyId, after.id);
  const next = contactTokens(after);
  const stored = before ? (await queryAll<{ SK: string }>(pk, undefined, { ProjectionExpression: 'SK' })).map((i) => i.SK) : [];
  const want = new Set(next.map((t) => `${t.kind}#${t.token}`));
  const have = new Set(stored);
  await batchWrite([
    ...next.filter((t) => !have.has(`${t.kind}#${t.token}`)).map((t) => contactTokenPut(companyId, after.id, t)),
    ...stored.filter((sk) => !want.has(sk)).map((sk): WriteRequest => ({ DeleteRequest: { Key: { PK: pk, SK: sk } } })),
  ]);
}

/** Removes a deleted contact's tokens (its tickets' relation items stay with the tickets). */
export async function unindexContact(companyId: number, contactId: number) {
  const pk = contactTokensPartition(companyId, contactId);
  const stored = await queryAll<{ SK: string }>(pk, undefined, { ProjectionExpression: 'SK' });
  await batchWrite(stored.map((i) => ({ DeleteRequest: { Key: { PK: pk, SK: i.SK } } })));
}

/**
 * Contacts with a name word starting with `token` (kind N) or digits `token` inside the number
 * (kind D), at most `limit` (`more` when there are others). Shared by the ticket and contact searches.
 */
export async function contactIdsByToken(companyId: number, kind: SearchContactKind, token: string, limit: number): Promise<{ ids: number[]; more: boolean }> {
  const ids = new Set<number>();
  let start: Record<string, unknown> | undefined;
  do {
    const out = await table().query({
      TableName: env.tableName,
      IndexName: 'GSI1',
      ...prefixCondition('GSI1PK', contactSearchPartition(companyId, kind), 'GSI1SK', token),
      ProjectionExpression: 'contactId',
      Limit: limit + 1,
      ExclusiveStartKey: start,
    });
    for (const i of out.Items ?? []) ids.add(Number(i.contactId));
    start = out.LastEvaluatedKey;
  } while (start && ids.size <= limit);
  const list = [...ids];
  return list.length > limit ? { ids: list.slice(0, limit), more: true } : { ids: list, more: false };
}

/**
 * Indexes the words of a message under its ticket (alongside the message's own write, see
 * `storeMessage`); a word already indexed for the ticket is simply overwritten (one item per word
 * and ticket, however often it is written).
 */
export async function indexMessageText(companyId: number, ticketId: number, body: string, mediaType?: string | null) {
  const items = messageIndexItems(companyId, ticketId, body, mediaType);
  if (items.length) await batchWrite(items.map((Item) => ({ PutRequest: { Item } })));
}

// ------------------------------------------------------------------------------------ query

/** A query word: what it is looked up by and how a ticket is checked against it. */
export interface QueryWord {
  word: string;
  /** What name words must start with (the word cut to 30 characters, as names are indexed). */
  name: string;
  /** Digits to find inside numbers, when the word is 4 or more digits. */
  digits?: string;
  /** Looked up in message words (2-30 characters, not a stop word). */
  message: boolean;
  /**
   * A one-letter word beside longer ones ("souza m"): too broad to look up, but it still narrows
   * the result to contacts with a name word starting with it, as an agent typing it expects.
   */
  filterOnly?: boolean;
}

/**
 * The words of a search text. A text made only of phone characters ("+55 (11) 9988-7766") is one
 * number; otherwise every word must match (stop words and one-letter words are dropped when the
 * text has other words).
 */
export function parseQuery(text: string): QueryWord[] {
  const trimmed = text.trim();
  let words: string[];
  if (/^[\d\s()+.-]+$/.test(trimmed) && /\d/.test(trimmed)) words = [trimmed.replace(/\D/g, '')];
  else {
    words = [...new Set(wordsOf(trimmed))];
    const strong = words.filter((w) => w.length > 1 && !STOP_WORDS.has(w));
    if (strong.length) {
      const letters = words.filter((w) => w.length === 1 && !/\d/.test(w) && !STOP_WORDS.has(w));
      return [...strong.slice(0, 6).map(toQueryWord), ...letters.slice(0, 2).map((word) => ({ word, name: word, message: false, filterOnly: true }))];
    }
  }
  return words.slice(0, 6).map(toQueryWord);
}

const toQueryWord = (word: string): QueryWord => ({
  word,
  name: word.slice(0, NAME_WORD_MAX),
  digits: /^\d+$/.test(word) && word.length >= DIGITS_MIN ? word : undefined,
  message: word.length >= WORD_MIN && word.length <= WORD_MAX && !STOP_WORDS.has(word),
});

/** Does the contact itself satisfy the word (name word prefix, or digits inside the number)? */
export function contactMatches(contact: { name: string; number: string } | undefined, w: QueryWord): boolean {
  if (!contact) return false;
  if (wordsOf(contact.name).some((x) => x.startsWith(w.word))) return true;
  return !!w.digits && contact.number.replace(/\D/g, '').includes(w.word);
}

/** Whether the contact lookups of a word are exact (a word over 30 characters is looked up cut). */
export const contactLookupExact = (w: QueryWord) => w.word.length <= NAME_WORD_MAX;

/**
 * Contacts whose name holds the text's words in the order typed, one after another, the last one
 * as a prefix ("maria silva" → Maria Silva Santos, Maria Silvana): a subset of the contacts
 * matching every word, found with one key range however common each word is. Undefined for a
 * text of fewer than two words or a phone number (the words' own lookups cover those).
 */
export async function contactsByPhrase(companyId: number, text: string, limit: number): Promise<{ ids: number[]; more: boolean } | undefined> {
  // Every word as typed, stop words and letters too ("maria da silva", "souza m"): names keep them.
  const words = nameWords(text);
  if (words.length < 2 || /^[\d\s()+.-]+$/.test(text.trim())) return undefined;
  return contactIdsByToken(companyId, 'N', namePhrase(words), limit);
}

/**
 * The contacts of a word (name word prefix, digits inside the number), at most `limit`;
 * `complete` when there are no others.
 */
export async function contactsOfWord(companyId: number, w: QueryWord, limit: number): Promise<{ ids: Set<number>; complete: boolean }> {
  const [byName, byDigits] = await Promise.all([
    contactIdsByToken(companyId, 'N', w.name, limit),
    w.digits ? contactIdsByToken(companyId, 'D', w.digits, limit) : Promise.resolve({ ids: [], more: false }),
  ]);
  return { ids: new Set([...byName.ids, ...byDigits.ids]), complete: !byName.more && !byDigits.more };
}

/**
 * Ticket ids of one index partition whose sort key is the ticket id (`TOK#M#<word>`, `CTK#<contactId>`),
 * newest first, below an exclusive bound, read lazily in growing chunks: a search reads only as far
 * as its page needs. `seen` keeps every id read, `low` the lowest: membership is exact down to it.
 */
export class IdStream {
  private buf: number[] = [];
  private start: Record<string, unknown> | undefined;
  done = false;
  low = Infinity;
  readonly seen = new Set<number>();
  constructor(
    private pk: string,
    private below: number | undefined,
    private limit: number,
  ) {}

  static message = (companyId: number, word: string, below: number | undefined, limit: number) => new IdStream(messageTokenPartition(companyId, word), below, limit);
  static contact = (companyId: number, contactId: number, below: number | undefined, limit: number) =>
    new IdStream(contactTicketsPartition(companyId, contactId), below, limit);
  /** A stream already read whole: a contact's ticket list (`wholeTicketList`). */
  static fixed(ids: number[], below: number | undefined) {
    const s = new IdStream('', below, 0);
    s.buf = [...new Set(ids)].filter((id) => below === undefined || id < below).sort((a, b) => b - a);
    for (const id of s.buf) s.seen.add(id);
    s.low = s.buf.length ? s.buf[s.buf.length - 1] : Infinity;
    s.done = true;
    return s;
  }

  /** Nothing buffered but more to read. */
  get starved() {
    return !this.buf.length && !this.done;
  }
  head(): number | undefined {
    return this.buf[0];
  }
  shift() {
    return this.buf.shift();
  }
  /** Whether `id` is in the partition, when what was read can say so. */
  knows(id: number) {
    return this.done || id >= this.low;
  }

  /** Reads the next chunk: about `hint` ids (what the caller still needs), within the growing limit. */
  async fill(hint?: number) {
    if (this.done) return;
    const limit = hint === undefined ? this.limit : Math.min(this.limit, Math.max(hint, 8));
    const out = await table().query({
      TableName: env.tableName,
      KeyConditionExpression: this.below ? 'PK = :pk AND SK < :b' : 'PK = :pk',
      ExpressionAttributeValues: this.below ? { ':pk': this.pk, ':b': ticketIdSortKey(this.below) } : { ':pk': this.pk },
      ProjectionExpression: 'SK',
      ScanIndexForward: false,
      Limit: limit,
      ExclusiveStartKey: this.start,
    });
    for (const i of out.Items ?? []) {
      const id = Number(i.SK);
      this.buf.push(id);
      this.seen.add(id);
      this.low = Math.min(this.low, id);
    }
    this.start = out.LastEvaluatedKey;
    this.done = !this.start;
    // A partition read past its first chunk is a common word: later chunks are bigger.
    this.limit = Math.min(this.limit * 2, 200);
  }
}

/** Runs `fn` over `xs` with at most `n` at a time. */
export async function pool<T, R>(xs: T[], n: number, fn: (x: T) => Promise<R>): Promise<R[]> {
  const out: R[] = new Array(xs.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(n, xs.length) }, async () => {
      while (next < xs.length) {
        const i = next++;
        out[i] = await fn(xs[i]);
      }
    }),
  );
  return out;
}

/** Which of `ticketIds` have `word` in one of their messages (one BatchGet of token keys). */
export async function ticketsWithWord(companyId: number, word: string, ticketIds: number[]): Promise<Set<number>> {
  if (!ticketIds.length) return new Set();
  const found = await batchGet<{ ticketId: number }>(ticketIds.map((id) => messageTokenKey(companyId, word, id)));
  return new Set(found.map((f) => f.ticketId));
}
