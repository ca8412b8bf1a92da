import { ScanCommand, type ScanCommandInput } from '@aws-sdk/lib-dynamodb';
import { nowIso, table } from '../core/ports.js';
import { env } from '../core/env.js';
import { getItem, isConditionFailure, putItem, updateItem } from '../core/db.js';
import { contactsPartition, contactTicketListKey, keys } from '../table/keys.js';
import { contactIndexItems, contactTicketItem, indexContact, messageIndexItems, pool, writeIndexItems, type ContactTicketList } from './search-index.js';
import { contactTicketIds, fillContactViews } from './contact-view.js';
import { type ContactItem } from '../table/items.js';

/**
 * One-off data migrations, run by the versioned seed (`seedLocal`: the local stack's start and
 * `infra/bin/seed.ts` for a deployed stage). Not request paths: they may Scan the table.
 */

type Scanned =
  | { entity: 'contact'; companyId: number; id: number; name: string; number: string }
  | { entity: 'message'; companyId: number; ticketId: number; body?: string; mediaType?: string | null; isDeleted?: boolean }
  | { entity: 'ticket'; companyId: number; id: number; contactId: number };

/** Index items flushed together: a page of a Scan gives a few thousand. */
const FLUSH_AT = 2_000;

/**
 * Search-index backfill (data-model.md, "Search index"): contacts, messages and tickets stored
 * before the index existed get their items — a contact's name words and number suffixes, a
 * message's words, a ticket's contact → ticket item. Every write is a Put of a key fixed by token
 * and id, the same as the live code writes, so running it again (or over data that is already
 * indexed, or beside live traffic) writes the same items and changes nothing. Deleted messages are
 * left out (their words are not worth finding again). `companyId` limits it to one company (tests).
 */
export async function backfillSearchIndex(opts: { companyId?: number; log?: (line: string) => void } = {}) {
  const counts = { contacts: 0, messages: 0, tickets: 0, items: 0 };
  let pending: Record<string, unknown>[] = [];
  const flush = async () => {
    counts.items += pending.length;
    const batch = pending;
    pending = [];
    await writeIndexItems(batch, 4);
  };
  const values: Record<string, unknown> = { ':c': 'contact', ':m': 'message', ':t': 'ticket' };
  let filter = '#e IN (:c, :m, :t)';
  if (opts.companyId !== undefined) {
    filter += ' AND companyId = :cid';
    values[':cid'] = opts.companyId;
  }
  let start: ScanCommandInput['ExclusiveStartKey'];
  do {
    const out = await table().send(
      new ScanCommand({
        TableName: env.tableName,
        FilterExpression: filter,
        ProjectionExpression: '#e, companyId, id, #n, #num, ticketId, contactId, body, mediaType, isDeleted',
        ExpressionAttributeNames: { '#e': 'entity', '#n': 'name', '#num': 'number' },
        ExpressionAttributeValues: values,
        ExclusiveStartKey: start,
      }),
    );
    for (const item of (out.Items ?? []) as Scanned[]) {
      if (item.entity === 'contact' && typeof item.name === 'string' && typeof item.number === 'string') {
        counts.contacts++;
        pending.push(...contactIndexItems(item.companyId, item));
      } else if (item.entity === 'message' && !item.isDeleted && typeof item.body === 'string') {
        counts.messages++;
        pending.push(...messageIndexItems(item.companyId, item.ticketId, item.body, item.mediaType));
      } else if (item.entity === 'ticket' && typeof item.contactId === 'number') {
        counts.tickets++;
        pending.push(contactTicketItem(item.companyId, item.contactId, item.id));
      }
    }
    if (pending.length >= FLUSH_AT) await flush();
    start = out.LastEvaluatedKey;
  } while (start);
  await flush();
  opts.log?.(`search index backfill: ${counts.contacts} contacts, ${counts.messages} messages, ${counts.tickets} tickets, ${counts.items} index puts`);
  return counts;
}

/**
 * Name tokens of the search index as the name from each word on ("maria silva santos", "silva
 * santos", "santos") instead of single words (data-model.md, "Search index"): every contact of a
 * company, read from its alphabetical index, has its stored tokens compared with the ones it
 * should have and put right (`indexContact`). Running it again finds nothing to change.
 */
export async function reindexContactNames(companyId: number, log?: (line: string) => void) {
  const n = await forEachContact<{ id: number; name: string; number: string }>(companyId, ['id', 'name', 'number'], 8, (c) => indexContact(companyId, c, c));
  if (n) log?.(`search index: name tokens of ${n} contacts of company ${companyId} checked`);
  return n;
}

/**
 * Contacts' ticket lists (`CTL#`, search-index.ts `ContactTicketList`) for the tickets stored
 * before the lists existed. First the company's `ticketListsSince` is set to now: a contact made
 * from then on has every ticket in its list (the code that writes the lists is already running).
 * Then every contact existing before gets its list built from its `CTK#` partition and marked
 * `base`. A ticket created meanwhile appends to the list and adds to `n`: the Put expects no list,
 * and the merge of a list that appeared expects its `n`; a lost race reads again. Running it again
 * rebuilds the same lists.
 */
export async function buildContactTicketLists(companyId: number, log?: (line: string) => void) {
  await updateItem(keys.company(companyId), { ticketListsSince: nowIso() });
  const build = async (contactId: number) => {
    const key = contactTicketListKey(companyId, contactId);
    for (let attempt = 0; attempt < 8; attempt++) {
      const current = attempt ? await getItem<ContactTicketList>(key, true) : undefined;
      const ids = [...new Set([...(current?.ids ?? []), ...(await contactTicketIds(companyId, contactId))])].sort((a, b) => a - b);
      try {
        await putItem(
          { ...key, entity: 'contactTicketList', contactId, ids, n: ids.length, base: true },
          current ? 'n = :n' : 'attribute_not_exists(PK)',
          undefined,
          current ? { ':n': current.n } : undefined,
        );
        return;
      } catch (err) {
        if (!isConditionFailure(err)) throw err;
      }
    }
    throw new Error(`ticket list of contact ${contactId} kept changing`);
  };
  const n = await forEachContact<{ id: number }>(companyId, ['id'], 16, (c) => build(c.id));
  if (n) log?.(`search index: ticket lists of ${n} contacts of company ${companyId} built`);
  return n;
}

/**
 * The contact's shown fields on the tickets stored before tickets kept them (`contactView`,
 * services/contact-view.ts). Only tickets without a copy are written, so it never puts back an older
 * copy over one a live change wrote; running it again writes nothing.
 */
export async function fillTicketContactViews(companyId: number, log?: (line: string) => void) {
  let written = 0;
  const n = await forEachContact<ContactItem>(companyId, ['id', 'name', 'number', 'email', 'profilePicUrl', 'isGroup', 'tagIds'], 8, async (c) => {
    const wrote = await fillContactViews(companyId, c);
    written += wrote;
  });
  if (written) log?.(`ticket lists: contact fields copied to ${written} tickets of ${n} contacts of company ${companyId}`);
  return written;
}

/**
 * Runs `fn` over every contact of a company, read from its alphabetical index a page at a time
 * (only `attributes`), `width` at once: a company of any size without holding it in memory.
 */
async function forEachContact<T>(companyId: number, attributes: string[], width: number, fn: (contact: T) => Promise<unknown>): Promise<number> {
  let start: Record<string, unknown> | undefined;
  let n = 0;
  do {
    const out = await table().query({
      TableName: env.tableName,
      IndexName: 'GSI1',
      KeyConditionExpression: 'GSI1PK = :pk',
      ExpressionAttributeValues: { ':pk': contactsPartition(companyId) },
      ProjectionExpression: attributes.map((_, i) => `#a${i}`).join(', '),
      ExpressionAttributeNames: Object.fromEntries(attributes.map((a, i) => [`#a${i}`, a])),
      ExclusiveStartKey: start,
    });
    const contacts = (out.Items ?? []) as T[];
    await pool(contacts, width, fn);
    n += contacts.length;
    start = out.LastEvaluatedKey;
  } while (start);
  return n;
}
