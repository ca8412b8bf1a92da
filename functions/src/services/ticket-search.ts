import { batchGet } from '../core/db.js';
import type { Identity } from '../core/identity.js';
import { contactKey, type ContactItem } from './contacts.js';
import { MAX_CANDIDATES, contactMatches, lookupWord, parseQuery, ticketsWithWord } from './search-index.js';
import { byContactTags, sortKey, type Plan } from './ticket-list.js';
import { ticketKey, type TicketItem } from './tickets.js';

/**
 * `searchParam`: every word of the text must match the ticket's contact (a name word starting
 * with it; for 4+ digits, digits inside the number) or a word of one of its messages. The token
 * partitions of each word are read (bounded), intersected starting from the smallest; a word whose
 * partitions were cut short is checked on the candidates instead (the contact, or one BatchGet of
 * its token keys). Only then are the candidates' tickets read: never a Scan, never other tickets.
 */
export async function searchTickets(identity: Identity, plan: Plan): Promise<{ list: TicketItem[]; truncated: boolean }> {
  const cid = identity.companyId;
  const parsed = parseQuery(plan.q.searchParam ?? '');
  const words = parsed.filter((w) => !w.filterOnly);
  const letters = parsed.filter((w) => w.filterOnly);
  const hits = await Promise.all(words.map((w) => lookupWord(cid, w)));
  const order = [...hits].sort((a, b) => (a.truncated === b.truncated ? a.tickets.size - b.tickets.size : a.truncated ? 1 : -1));
  const driver = order[0];
  let ids = [...driver.tickets];
  let truncated = driver.truncated;
  for (const h of order.slice(1)) if (!h.truncated) ids = ids.filter((id) => h.tickets.has(id));
  ids.sort((a, b) => b - a);
  if (ids.length > MAX_CANDIDATES) {
    ids = ids.slice(0, MAX_CANDIDATES);
    truncated = true;
  }
  let list = (await batchGet<TicketItem>(ids.map((id) => ticketKey(cid, id)))).filter(plan.pass);

  // Words the intersection could not decide: cut short, or looked up by a shortened key.
  const toCheck = hits.filter((h) => h.superset || (h !== driver && h.truncated));
  const contacts =
    list.length && (toCheck.length || letters.length || plan.q.tagsContact?.length)
      ? new Map((await batchGet<ContactItem>(list.map((t) => contactKey(cid, t.contactId)))).map((c) => [c.id, c]))
      : new Map<number, ContactItem>();
  for (const h of toCheck) {
    const sure = (t: TicketItem) => h.byMessage.has(t.id) || (!h.superset && h.tickets.has(t.id)) || contactMatches(contacts.get(t.contactId), h.w);
    const unsure = list.filter((t) => !sure(t));
    const viaMessages = h.w.message ? await ticketsWithWord(cid, h.w.word, unsure.map((t) => t.id)) : new Set<number>();
    list = list.filter((t) => sure(t) || viaMessages.has(t.id));
  }
  for (const w of letters) list = list.filter((t) => contactMatches(contacts.get(t.contactId), w));
  list = await byContactTags(cid, plan.q, list, contacts);
  list.sort((a, b) => (sortKey(a) < sortKey(b) ? 1 : -1));
  return { list, truncated };
}
