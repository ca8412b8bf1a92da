import { TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { AppError, TAGS_PAGE, companyEvent, kanbanTagsQuerySchema, kanbanTypeQuerySchema, parseOrThrow, tagListQuerySchema, tagSchema, tagSyncSchema, tagUpdateSchema, type TagType, type ApiTag } from '@balcao/shared';
import { nowIso, table } from '../core/ports.js';
import { env } from '../core/env.js';
import { batchGet, clean, getItem, isConditionFailure, nextId, prefixCondition, queryIndexAll, tx, updateItem, type TransactItem, isTransactionCanceled } from '../core/db.js';
import {
  contactKey,
  fold,
  tagIndexKeys,
  tagKey,
  tagLinkKey,
  type TagLinkKind,
  tagLinkPrefix,
  tagsPartition,
  ticketKey,
} from '../table/keys.js';
import { publish } from '../core/realtime.js';
import { log } from '../core/observability.js';
import type { Identity } from '../core/identity.js';
import { visibleTicket } from './conversation.js';
import { publishContact } from './contact-api.js';
import { refsOf, tagRef, tagRefs } from './tag-refs.js';
import { getTicketItem } from './tickets.js';
import { ticketEvent, toApiTickets } from './ticket-view.js';
import { refreshContactViews } from './contact-view.js';
import { type ContactItem, type TagItem, ticketGuard, type TicketItem } from '../table/items.js';



const DEFAULT_COLOR = '#5C59A0';
const notFound = () => new AppError(404, 'ERR_NOT_FOUND');
const invalidTags = (field = 'tags') => new AppError(400, 'ERR_VALIDATION', { message: 'Etiqueta inválida', fields: [{ field, message: 'Etiqueta inválida' }] });

export function toApiTag(t: TagItem): ApiTag {
  const { deleting: _d, ...rest } = clean(t);
  return { ...rest, ticketsCount: t.ticketsCount ?? 0, contactsCount: t.contactsCount ?? 0, countsVersion: t.countsVersion ?? 0 };
}

export async function getTagItem(companyId: number, id: number): Promise<TagItem> {
  const t = await getItem<TagItem>(tagKey(companyId, id), true);
  if (!t || t.entity !== 'tag' || t.deleting) throw notFound();
  return t;
}



/**
 * Every tag of the company (they are few: a handful to a few hundred), alphabetical. Pages and
 * searches are cut from this in memory, like users and queues.
 */
async function allTags(companyId: number): Promise<TagItem[]> {
  const items = await queryIndexAll<TagItem>('GSI1', tagsPartition(companyId));
  return items.filter((t) => t.entity === 'tag' && !t.deleting).sort((a, b) => (a.GSI1SK < b.GSI1SK ? -1 : 1));
}

// ---------------------------------------------------------------- links

/**
 * Transaction items that move a target's links from `before` to `after`: each new link must not
 * exist yet and its tag must exist, be of `type` and not be deleting; each dropped link must exist.
 */
function linkOps(companyId: number, kind: TagLinkKind, targetId: number, before: number[], after: number[], type: TagType): TransactItem[] {
  const counter = kind === 'TK' ? 'ticketsCount' : 'contactsCount';
  const added = after.filter((x) => !before.includes(x));
  const removed = before.filter((x) => !after.includes(x));
  const items: TransactItem[] = [];
  for (const tagId of added) {
    items.push(tx.put({ ...tagLinkKey(companyId, tagId, kind, targetId), entity: 'tagLink', tagId, targetId, kind }, 'attribute_not_exists(PK)'));
    items.push(
      tx.update(
        tagKey(companyId, tagId),
        'ADD #c :one, countsVersion :one',
        { ':one': 1, ':type': type },
        'attribute_exists(PK) AND #t = :type AND attribute_not_exists(deleting)',
        { '#c': counter, '#t': 'type' },
      ),
    );
  }
  for (const tagId of removed) {
    items.push(tx.delete(tagLinkKey(companyId, tagId, kind, targetId), 'attribute_exists(PK)'));
    items.push(tx.update(tagKey(companyId, tagId), 'ADD #c :minus, countsVersion :one', { ':minus': -1, ':one': 1 }, 'attribute_exists(PK)', { '#c': counter }));
  }
  return items;
}

class Retry extends Error {}

/** Runs a tag transaction: a lost race (condition or conflict) is `Retry`, the caller re-reads. */
async function runTagTransaction(items: TransactItem[], onCondition?: (index: number) => Error | undefined): Promise<void> {
  try {
    await table().send(new TransactWriteCommand({ TransactItems: items }));
  } catch (err) {
    if (isTransactionCanceled(err)) {
      const reasons = err.CancellationReasons ?? [];
      const idx = reasons.findIndex((r) => r.Code === 'ConditionalCheckFailed');
      const mapped = idx >= 0 ? onCondition?.(idx) : undefined;
      if (mapped) throw mapped;
      throw new Retry();
    }
    throw err;
  }
}

const backoff = (attempt: number) => new Promise((r) => setTimeout(r, 15 * 2 ** attempt + Math.random() * 25));
const MAX_ATTEMPTS = 10;

/** Checks that every tag exists, is of `type` and is not being deleted. */
async function assertTags(companyId: number, ids: number[], type: TagType, field = 'tags') {
  if (!ids.length) return;
  const found = await batchGet<TagItem>(ids.map((id) => tagKey(companyId, id)));
  const ok = found.filter((t) => t.entity === 'tag' && !t.deleting && t.type === type);
  if (ok.length !== new Set(ids).size) throw invalidTags(field);
}

/**
 * Changes a ticket's tags with `change(current) → next`, retrying on races. The ticket write is
 * guarded by its write version (`ticketGuard`), so a lifecycle change or a stored message at the
 * same moment never loses the tags, and the tags never lose those.
 */
export async function changeTicketTags(
  companyId: number,
  ticketId: number,
  change: (current: number[], ticket: TicketItem) => number[] | Promise<number[]>,
  opts: { quiet?: boolean } = {},
): Promise<TicketItem> {
  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
    const t = await getTicketItem(companyId, ticketId);
    const before = [...new Set(t.tagIds ?? [])];
    const after = [...new Set(await change(before, t))];
    const same = before.length === after.length && before.every((x) => after.includes(x));
    if (same) return t;
    await assertTags(companyId, after.filter((x) => !before.includes(x)), 'ticket');
    const guard = ticketGuard(t);
    const items = [
      tx.update(ticketKey(companyId, ticketId), 'SET tagIds = :tags, wv = :nwv', { ...guard.values, ':tags': after, ':nwv': guard.wv }, guard.condition),
      ...linkOps(companyId, 'TK', ticketId, before, after, 'ticket'),
    ];
    try {
      await runTagTransaction(items);
      if (!opts.quiet) await publishTagCounts(companyId, changedTags(before, after));
      return { ...t, tagIds: after, wv: guard.wv };
    } catch (err) {
      if (!(err instanceof Retry)) throw err;
      await backoff(attempt);
    }
  }
  throw new AppError(409, 'ERR_VALIDATION', { message: 'As etiquetas mudaram ao mesmo tempo; tente de novo' });
}

/**
 * Changes a contact's tags with `change(current) → next`. `also` adds attribute changes of the
 * contact's own edit (the dialog saves fields and tags together) to the same conditional update.
 */
export async function changeContactTags(
  companyId: number,
  contactId: number,
  change: (current: number[], contact: ContactItem) => number[],
  opts: { quiet?: boolean } = {},
): Promise<ContactItem> {
  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
    const c = await getItem<ContactItem>(contactKey(companyId, contactId), true);
    if (!c) throw new AppError(404, 'ERR_NO_CONTACT_FOUND');
    const before = [...new Set(c.tagIds ?? [])];
    const after = [...new Set(change(before, c))];
    const same = before.length === after.length && before.every((x) => after.includes(x));
    if (same) return c;
    await assertTags(companyId, after.filter((x) => !before.includes(x)), 'contact');
    const items = [contactTagsUpdate(companyId, c, after), ...linkOps(companyId, 'CT', contactId, before, after, 'contact')];
    try {
      await runTagTransaction(items);
      await refreshContactViews(companyId, contactId);
      if (!opts.quiet) await publishTagCounts(companyId, changedTags(before, after));
      return { ...c, tagIds: after };
    } catch (err) {
      if (!(err instanceof Retry)) throw err;
      await backoff(attempt);
    }
  }
  throw new AppError(409, 'ERR_VALIDATION', { message: 'As etiquetas mudaram ao mesmo tempo; tente de novo' });
}

/** The contact's `tagIds` write, conditional on the list read (two edits never interleave). */
export function contactTagsUpdate(companyId: number, c: Pick<ContactItem, 'id' | 'tagIds'>, after: number[], extra?: { set: string[]; values: Record<string, unknown>; names?: Record<string, string> }) {
  const condition = c.tagIds === undefined ? 'attribute_exists(PK) AND attribute_not_exists(tagIds)' : 'attribute_exists(PK) AND tagIds = :oldTags';
  const values: Record<string, unknown> = { ':tags': after, ...(c.tagIds === undefined ? {} : { ':oldTags': c.tagIds }), ...extra?.values };
  const set = ['tagIds = :tags', ...(extra?.set ?? [])];
  return tx.update(contactKey(companyId, c.id), `SET ${set.join(', ')}`, values, condition, extra?.names);
}

/** Link items (and count changes) of a ticket whose tags go from `before` to `after` (delete: `[]`). */
export const ticketLinkOps = (companyId: number, ticketId: number, before: number[], after: number[]) =>
  linkOps(companyId, 'TK', ticketId, before, after, 'ticket');

/** Link items (and count changes) of a contact whose tags go from `before` to `after`. */
export const contactLinkOps = (companyId: number, contactId: number, before: number[], after: number[]) =>
  linkOps(companyId, 'CT', contactId, before, after, 'contact');
export { assertTags as assertContactTags };

/** Ids of the contacts carrying a tag (its link items), at most `limit`. */
export async function contactIdsWithTag(companyId: number, tagId: number, limit: number): Promise<{ ids: number[]; truncated: boolean }> {
  const links = await queryLinks(companyId, tagId, 'CT', limit + 1);
  const ids = links.map((l) => l.targetId);
  return { ids: ids.slice(0, limit), truncated: ids.length > limit };
}

/** Link items of a tag (tickets `TK`, contacts `CT` or both with `''`), at most `limit`. */
async function queryLinks(companyId: number, tagId: number, kind: TagLinkKind | '', limit: number) {
  const out: { kind: TagLinkKind; targetId: number }[] = [];
  let start: Record<string, unknown> | undefined;
  do {
    const page = await table().query({
      TableName: env.tableName,
      ...prefixCondition('PK', tagKey(companyId, tagId).PK, 'SK', tagLinkPrefix(kind)),
      Limit: Math.min(1000, limit - out.length),
      ExclusiveStartKey: start,
    });
    for (const i of (page.Items ?? []) as { entity: string; kind: TagLinkKind; targetId: number }[]) if (i.entity === 'tagLink') out.push({ kind: i.kind, targetId: i.targetId });
    start = page.LastEvaluatedKey;
  } while (start && out.length < limit);
  return out;
}

// ---------------------------------------------------------------- events

async function publishTag(companyId: number, action: 'create' | 'update' | 'delete', tag: TagItem) {
  const data = action === 'delete' ? { action, tagId: tag.id } : { action, tag: toApiTag(tag) };
  await publish({ companyId, event: companyEvent(companyId, 'tag'), data, audience: [{ kind: 'company' }] });
}

/** Tags added or dropped between two lists of a target's tags. */
export const changedTags = (before: number[], after: number[]) => [
  ...after.filter((x) => !before.includes(x)),
  ...before.filter((x) => !after.includes(x)),
];

/**
 * The new `ticketsCount`/`contactsCount` of tags whose links just changed (`counts` event, company
 * audience like the other tag events), read consistently after the write. Each carries the tag's
 * `countsVersion`: the tags page keeps the highest, so events landing out of order never undo a count.
 */
export async function publishTagCounts(companyId: number, tagIds: number[]) {
  const ids = [...new Set(tagIds)];
  if (!ids.length) return;
  try {
    const tags = (await Promise.all(ids.map((id) => getItem<TagItem>(tagKey(companyId, id), true)))).filter(
      (t): t is TagItem => !!t && t.entity === 'tag' && !t.deleting,
    );
    if (!tags.length) return;
    const counts = tags.map((t) => ({ id: t.id, ticketsCount: t.ticketsCount ?? 0, contactsCount: t.contactsCount ?? 0, countsVersion: t.countsVersion ?? 0 }));
    await publish({ companyId, event: companyEvent(companyId, 'tag'), data: { action: 'counts', counts }, audience: [{ kind: 'company' }] });
  } catch (err) {
    // The change is stored; a lost event only leaves the tags page's count until its next load.
    log.warn('tag counts event', { err, companyId });
  }
}

/** A ticket whose tags changed: the same `ticket update` the lists already apply, with its tags. */
export async function publishTicketTags(ticket: TicketItem) {
  const [api] = await toApiTickets(ticket.companyId, [ticket]);
  await publish(ticketEvent(ticket, api));
}

// ---------------------------------------------------------------- routes' services

const canSetKanban = (identity: Identity) => identity.isAdmin || identity.isSuper;

export async function listTags(companyId: number, query: Record<string, string | undefined>) {
  const q = parseOrThrow(tagListQuerySchema, query);
  const term = fold(q.searchParam ?? '');
  const pageNumber = q.pageNumber ?? 1;
  const all = (await allTags(companyId)).filter((t) => (!term || fold(t.name).includes(term)) && (!q.type || t.type === q.type));
  const page = all.slice((pageNumber - 1) * TAGS_PAGE, pageNumber * TAGS_PAGE);
  return { tags: page.map(toApiTag), count: all.length, hasMore: pageNumber * TAGS_PAGE < all.length };
}

/** `GET /tags/list`: every tag, optionally of one type (and only kanban lanes with `kanban=1`). */
export async function listTagsBrief(companyId: number, query: Record<string, string | undefined>) {
  const q = parseOrThrow(tagListQuerySchema, query);
  return (await allTags(companyId))
    .filter((t) => (!q.type || t.type === q.type) && (q.kanban === undefined || (t.kanban === 1) === q.kanban))
    .map((t) => ({ ...tagRef(t), kanban: t.kanban }));
}

/** The kanban board's lanes of one tag type: the tags marked kanban, oldest first. */
export async function kanbanLaneTags(companyId: number, type: TagType): Promise<TagItem[]> {
  return (await allTags(companyId)).filter((t) => t.kanban === 1 && t.type === type).sort((a, b) => a.id - b.id);
}

/** `GET /tags/kanban?type=`: the lanes of the kanban board (ticket tags unless `type=contact`). */
export async function kanbanTags(companyId: number, query: Record<string, string | undefined> = {}) {
  const { type } = parseOrThrow(kanbanTagsQuerySchema, query);
  return { lista: (await kanbanLaneTags(companyId, type ?? 'ticket')).map(toApiTag) };
}

export async function createTag(identity: Identity, input: unknown): Promise<TagItem> {
  const data = parseOrThrow(tagSchema, input);
  if (data.kanban === 1 && !canSetKanban(identity)) throw new AppError(403, 'ERR_NO_PERMISSION', { fields: [{ field: 'kanban', message: 'ERR_NO_PERMISSION' }] });
  const type = data.type ?? 'ticket';
  const companyId = identity.companyId;
  const id = await nextId(companyId, 'tag');
  const now = nowIso();
  const item: TagItem = {
    ...tagKey(companyId, id),
    entity: 'tag',
    ...tagIndexKeys(companyId, data.name, id),
    id,
    companyId,
    name: data.name,
    color: data.color ?? DEFAULT_COLOR,
    type,
    kanban: data.kanban ?? 0,
    userId: identity.userId,
    ticketsCount: 0,
    contactsCount: 0,
    createdAt: now,
    updatedAt: now,
  };
  await runTagTransaction([tx.put(item, 'attribute_not_exists(PK)')]);
  await publishTag(companyId, 'create', item);
  return item;
}

export async function updateTag(identity: Identity, id: number, input: unknown): Promise<TagItem> {
  const current = await getTagItem(identity.companyId, id);
  const data = parseOrThrow(tagUpdateSchema, input);
  if (data.kanban !== undefined && data.kanban !== current.kanban && !canSetKanban(identity)) {
    throw new AppError(403, 'ERR_NO_PERMISSION', { fields: [{ field: 'kanban', message: 'ERR_NO_PERMISSION' }] });
  }
  const type = data.type ?? current.type;
  const kanban = data.kanban ?? current.kanban;
  // A tag in use keeps its type: its links are tickets or contacts, not both.
  if (type !== current.type && (current.ticketsCount || current.contactsCount)) {
    throw new AppError(400, 'ERR_VALIDATION', { message: 'A etiqueta está em uso; o tipo não pode mudar', fields: [{ field: 'type', message: 'A etiqueta está em uso; o tipo não pode mudar' }] });
  }
  const name = data.name ?? current.name;
  const updated = await updateItem<TagItem>(
    tagKey(identity.companyId, id),
    { name, ...tagIndexKeys(identity.companyId, name, id), color: data.color, type, kanban, updatedAt: nowIso() },
    {
      // The type check above was made on counts read now: a link added meanwhile fails this.
      condition: 'attribute_exists(PK) AND attribute_not_exists(deleting) AND #oldType = :oldType AND (#t = :oldType OR (ticketsCount = :zero AND contactsCount = :zero))',
      names: { '#oldType': 'type', '#t': 'type' },
      values: { ':oldType': current.type, ':zero': 0 },
    },
  ).catch((err) => {
    if ((err as { name?: string }).name === 'ConditionalCheckFailedException') throw new AppError(409, 'ERR_VALIDATION', { message: 'A etiqueta mudou ao mesmo tempo; tente de novo' });
    throw err;
  });
  await publishTag(identity.companyId, 'update', updated);
  return updated;
}

/**
 * Deletes a tag: first marked `deleting` (no new links), then stripped from every ticket and
 * contact carrying it (each through the normal conditional change, so counts and `tagIds` stay
 * right), then removed once its counts are zero. A delete cut short can simply be repeated.
 */
export async function deleteTag(identity: Identity, id: number): Promise<void> {
  const companyId = identity.companyId;
  const exists = await getItem<TagItem>(tagKey(companyId, id), true);
  if (!exists || exists.entity !== 'tag') throw notFound();
  await updateItem(tagKey(companyId, id), { deleting: true }).catch((err) => {
    // Deleted by someone else between the read and here.
    if (isConditionFailure(err)) throw notFound();
    throw err;
  });
  const touchedTickets: TicketItem[] = [];
  for (let round = 0; round < 20; round++) {
    const targets = await queryLinks(companyId, id, '', 5000);
    await inParallel(targets, 8, async (l) => {
      try {
        // No count events: the tag's own `delete` event ends its row.
        if (l.kind === 'TK') touchedTickets.push(await changeTicketTags(companyId, l.targetId, (cur) => cur.filter((x) => x !== id), { quiet: true }));
        else await changeContactTags(companyId, l.targetId, (cur) => cur.filter((x) => x !== id), { quiet: true });
      } catch (err) {
        if (err instanceof AppError && err.status === 404) return dropOrphanLink(companyId, id, l);
        throw err;
      }
    });
    try {
      await runTagTransaction([
        {
          Delete: {
            TableName: env.tableName,
            Key: tagKey(companyId, id),
            ConditionExpression: 'attribute_exists(PK) AND ticketsCount = :z AND contactsCount = :z',
            ExpressionAttributeValues: { ':z': 0 },
          },
        },
      ]);
      await publishTag(companyId, 'delete', exists);
      for (const t of touchedTickets.slice(0, 200)) await publishTicketTags(t).catch((err) => log.warn('tag event', { err }));
      return;
    } catch (err) {
      if (!(err instanceof Retry)) throw err;
    }
  }
  throw new AppError(409, 'ERR_VALIDATION', { message: 'A etiqueta continua em uso; tente de novo' });
}

/** A link whose ticket or contact is gone (deleted elsewhere): the link and its count go too. */
async function dropOrphanLink(companyId: number, tagId: number, l: { kind: TagLinkKind; targetId: number }) {
  const counter = l.kind === 'TK' ? 'ticketsCount' : 'contactsCount';
  try {
    await runTagTransaction([
      tx.delete(tagLinkKey(companyId, tagId, l.kind, l.targetId), 'attribute_exists(PK)'),
      tx.update(tagKey(companyId, tagId), 'ADD #c :minus, countsVersion :one', { ':minus': -1, ':one': 1 }, 'attribute_exists(PK)', { '#c': counter }),
    ]);
  } catch (err) {
    if (!(err instanceof Retry)) throw err;
  }
}

async function inParallel<T>(list: T[], width: number, fn: (x: T) => Promise<unknown>) {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(width, list.length) }, async () => {
      while (next < list.length) await fn(list[next++]);
    }),
  );
}

/**
 * `POST /tags/sync`: the ticket's tags (type ticket) or its contact's tags (type contact) become
 * exactly `tags`. The caller must be able to see the ticket.
 */
export async function syncTags(identity: Identity, input: unknown) {
  const data = parseOrThrow(tagSyncSchema, input);
  const ticket = await visibleTicket(identity, data.ticketId);
  const wanted = [...new Set(data.tags)];
  if ((data.type ?? 'ticket') === 'contact') {
    const contact = await changeContactTags(identity.companyId, ticket.contactId, () => wanted);
    await publishContact(identity.companyId, contact, 'update');
    const fresh = await getTicketItem(identity.companyId, ticket.id);
    await publishTicketTags(fresh);
    return { ticketId: ticket.id, contactId: contact.id, tags: refsOf(contact.tagIds, await tagRefs(identity.companyId, contact.tagIds)) };
  }
  const updated = await changeTicketTags(identity.companyId, ticket.id, () => wanted);
  await publishTicketTags(updated);
  return { ticketId: updated.id, tags: refsOf(updated.tagIds, await tagRefs(identity.companyId, updated.tagIds)) };
}

/**
 * `PUT /ticket-tags/{ticketId}/{tagId}` (the kanban board): puts the ticket in that tag's lane. A
 * card sits in one lane, so moving it drops its other lanes' tags in the same change. A contact
 * tag's lane (the board by Contato) is the ticket's contact's: the contact's tags change.
 */
export async function addTicketTag(identity: Identity, ticketId: number, tagId: number) {
  const ticket = await visibleTicket(identity, ticketId);
  const tag = await getTagItem(identity.companyId, tagId);
  const lanes = new Set((await kanbanLaneTags(identity.companyId, tag.type)).map((t) => t.id));
  const intoLane = (cur: number[]) => [...cur.filter((x) => tag.kanban !== 1 || !lanes.has(x) || x === tagId), tagId];
  if (tag.type === 'contact') {
    const contact = await changeContactTags(identity.companyId, ticket.contactId, intoLane);
    await publishContact(identity.companyId, contact, 'update');
    const fresh = await getTicketItem(identity.companyId, ticket.id);
    await publishTicketTags(fresh);
    return (await toApiTickets(identity.companyId, [fresh]))[0];
  }
  const updated = await changeTicketTags(identity.companyId, ticketId, intoLane);
  await publishTicketTags(updated);
  return (await toApiTickets(identity.companyId, [updated]))[0];
}

/**
 * `DELETE /ticket-tags/{ticketId}?type=`: takes the card back to 'Em aberto': the ticket loses its
 * kanban tags (or, with `type=contact`, its contact loses the contact kanban tags).
 */
export async function removeKanbanTags(identity: Identity, ticketId: number, query: Record<string, string | undefined> = {}) {
  const { type = 'ticket' } = parseOrThrow(kanbanTypeQuerySchema, query);
  const ticket = await visibleTicket(identity, ticketId);
  const lanes = new Set((await kanbanLaneTags(identity.companyId, type)).map((t) => t.id));
  const outOfLanes = (cur: number[]) => cur.filter((x) => !lanes.has(x));
  if (type === 'contact') {
    const contact = await changeContactTags(identity.companyId, ticket.contactId, outOfLanes);
    await publishContact(identity.companyId, contact, 'update');
    await publishTicketTags(await getTicketItem(identity.companyId, ticket.id));
    return;
  }
  const updated = await changeTicketTags(identity.companyId, ticketId, outOfLanes);
  await publishTicketTags(updated);
}
