import {
  AppError,
  CONTACT_LISTS_PAGE,
  CONTACT_LIST_ITEMS_PAGE,
  companyEvent,
  contactListItemSchema,
  contactListItemsQuerySchema,
  contactListItemUpdateSchema,
  contactListSchema,
  contactListsQuerySchema,
  parseOrThrow,
  type ApiContactList,
  type ApiContactListItem,
  type CompanyEventData,
} from '@balcao/shared';
import { batchWrite, clean, getItem, isConditionFailure, nextId, queryAll, transact, tx, updateItem, type WriteRequest } from '../core/db.js';
import type { Identity } from '../core/identity.js';
import { log } from '../core/observability.js';
import { pageByName } from '../core/paging.js';
import { nowIso, table } from '../core/ports.js';
import { askSessionHost } from '../core/rpc.js';
import { publish } from '../core/realtime.js';
import {
  contactListItemPointer,
  contactListItemPrefix,
  contactListItemsPartition,
  contactListItemSk,
  contactListKey,
  contactListNumberMarker,
  contactListPrefix,
  contactListsPartition,
  fold,
} from '../table/keys.js';
import type { ContactListEntryItem, ContactListRecord } from '../table/items.js';
import { defaultConnection } from './connections.js';

/**
 * Contact lists and their items (issue 20 §2; spec 002 §4, §7): the lists campaigns send to. Not
 * the contacts page's list (services/contact-list.ts). A list keeps its items in its own partition
 * in name order, one marker per number (no number twice in a list) and its `contactsCount`, moved
 * in the same transaction as each item. Items are named by id alone in the routes: a pointer in the
 * company's partition says which list and where.
 */

const notFound = () => new AppError(404, 'ERR_NOT_FOUND');
const listField = () => new AppError(400, 'ERR_VALIDATION', { message: 'ERR_NOT_FOUND', fields: [{ field: 'contactListId', message: 'ERR_NOT_FOUND' }] });
const duplicated = () => new AppError(409, 'ERR_DUPLICATED_LIST_ITEM', { fields: [{ field: 'number', message: 'ERR_DUPLICATED_LIST_ITEM' }] });
const changedMeanwhile = () => new AppError(409, 'ERR_VALIDATION', { message: 'O registro mudou ao mesmo tempo; tente de novo' });

interface Pointer {
  contactListId: number;
  sk: string;
}

export const toApiContactList = (l: ContactListRecord): ApiContactList => {
  const { deleting: _d, importRun: _r, ...rest } = clean(l as ContactListRecord & { deleting?: boolean });
  return rest;
};

export const toApiContactListItem = (i: ContactListEntryItem): ApiContactListItem => {
  const { search: _s, ...rest } = clean(i);
  return rest;
};

export async function announceList(companyId: number, data: CompanyEventData['ContactList']) {
  await publish({ companyId, event: companyEvent(companyId, 'ContactList'), data, audience: [{ kind: 'admins' }] });
}
async function announceItem(companyId: number, data: CompanyEventData['ContactListItem']) {
  await publish({ companyId, event: companyEvent(companyId, 'ContactListItem'), data, audience: [{ kind: 'admins' }] });
}

// ------------------------------------------------------------------ lists

const allLists = async (companyId: number) =>
  (await queryAll<ContactListRecord>(contactListsPartition(companyId), contactListPrefix()))
    .filter((l) => !(l as { deleting?: boolean }).deleting)
    .sort((a, b) => fold(a.name).localeCompare(fold(b.name)) || a.id - b.id);

async function getList(companyId: number, id: number): Promise<ContactListRecord> {
  const l = await getItem<ContactListRecord & { deleting?: boolean }>(contactListKey(companyId, id), true);
  if (!l || l.deleting) throw notFound();
  return l;
}

/** `GET /contact-lists`: by name, pages of 20, narrowed by a name fragment. */
export async function listContactLists(identity: Identity, query: Record<string, string | undefined>) {
  const { page, count, hasMore } = pageByName(await allLists(identity.companyId), parseOrThrow(contactListsQuerySchema, query), CONTACT_LISTS_PAGE);
  return { records: page.map(toApiContactList), count, hasMore };
}

/** `GET /contact-lists/list`: every list (the campaign dialog's selector). */
export const listAllContactLists = async (identity: Identity) => (await allLists(identity.companyId)).map(toApiContactList);

export const getContactList = async (identity: Identity, id: number) => toApiContactList(await getList(identity.companyId, id));

export async function createContactList(identity: Identity, body: unknown): Promise<ApiContactList> {
  const data = parseOrThrow(contactListSchema, body);
  const companyId = identity.companyId;
  const id = await nextId(companyId, 'contactList');
  const now = nowIso();
  const item: ContactListRecord = { ...contactListKey(companyId, id), entity: 'contactList', id, companyId, name: data.name, contactsCount: 0, createdAt: now, updatedAt: now };
  await transact([tx.put(item, 'attribute_not_exists(PK)')]);
  const record = toApiContactList(item);
  await announceList(companyId, { action: 'create', record });
  return record;
}

export async function updateContactList(identity: Identity, id: number, body: unknown): Promise<ApiContactList> {
  const data = parseOrThrow(contactListSchema.partial(), body);
  await getList(identity.companyId, id);
  let updated: ContactListRecord;
  try {
    updated = await updateItem<ContactListRecord>(contactListKey(identity.companyId, id), { ...(data.name ? { name: data.name } : {}), updatedAt: nowIso() }, { condition: 'attribute_exists(PK) AND attribute_not_exists(deleting)' });
  } catch (err) {
    if (isConditionFailure(err)) throw notFound();
    throw err;
  }
  const record = toApiContactList(updated);
  await announceList(identity.companyId, { action: 'update', record });
  return record;
}

/**
 * Deletes a list with its items: the list is marked first (no item joins it meanwhile, it is gone
 * from every answer), then its partition and the items' pointers go, then the list itself; a delete
 * stopped midway is finished by the next one.
 */
export async function deleteContactList(identity: Identity, id: number): Promise<void> {
  const companyId = identity.companyId;
  const current = await getItem<ContactListRecord>(contactListKey(companyId, id), true);
  if (!current) throw notFound();
  await updateItem(contactListKey(companyId, id), { deleting: true }, { condition: 'attribute_exists(PK)' });
  const inside = await queryAll<{ PK: string; SK: string; entity?: string; id?: number }>(contactListItemsPartition(companyId, id));
  const requests: WriteRequest[] = [];
  for (const it of inside) {
    requests.push({ DeleteRequest: { Key: { PK: it.PK, SK: it.SK } } });
    if (it.entity === 'contactListItem' && it.id) requests.push({ DeleteRequest: { Key: contactListItemPointer(companyId, it.id) } });
  }
  await batchWrite(requests);
  await transact([tx.delete(contactListKey(companyId, id))]);
  await announceList(companyId, { action: 'delete', id });
}

// ------------------------------------------------------------------ items

async function getEntry(companyId: number, id: number): Promise<ContactListEntryItem> {
  const pointer = await getItem<Pointer>(contactListItemPointer(companyId, id), true);
  if (!pointer) throw notFound();
  const item = await getItem<ContactListEntryItem>({ PK: contactListItemsPartition(companyId, pointer.contactListId), SK: pointer.sk }, true);
  if (!item) throw notFound();
  return item;
}

/**
 * `GET /contact-list-items`: one list's items by name, pages of 40, narrowed by a fragment of the
 * name, number or e-mail. Reads the list's partition in order until the page is full (a search in a
 * list of tens of thousands reads its matches' way, never the company's other data).
 */
export async function listContactListItems(identity: Identity, query: Record<string, string | undefined>) {
  const q = parseOrThrow(contactListItemsQuerySchema, query);
  const list = await getList(identity.companyId, q.contactListId);
  const term = fold(q.searchParam ?? '');
  const pageNumber = q.pageNumber ?? 1;
  const want = pageNumber * CONTACT_LIST_ITEMS_PAGE + 1;
  const found: ContactListEntryItem[] = [];
  let start: Record<string, unknown> | undefined;
  do {
    const out = await table().query({
      TableName: process.env.TABLE_NAME!,
      KeyConditionExpression: 'PK = :pk AND begins_with(SK, :p)',
      ...(term ? { FilterExpression: 'contains(#s, :t)', ExpressionAttributeNames: { '#s': 'search' } } : {}),
      ExpressionAttributeValues: { ':pk': contactListItemsPartition(identity.companyId, list.id), ':p': contactListItemPrefix(), ...(term ? { ':t': term } : {}) },
      ExclusiveStartKey: start,
      Limit: Math.max(100, want - found.length),
    });
    found.push(...((out.Items ?? []) as ContactListEntryItem[]));
    start = out.LastEvaluatedKey;
  } while (start && found.length < want);
  const page = found.slice((pageNumber - 1) * CONTACT_LIST_ITEMS_PAGE, pageNumber * CONTACT_LIST_ITEMS_PAGE);
  return { contacts: page.map(toApiContactListItem), count: term ? found.length : list.contactsCount, hasMore: found.length > pageNumber * CONTACT_LIST_ITEMS_PAGE };
}

export const getContactListItem = async (identity: Identity, id: number) => toApiContactListItem(await getEntry(identity.companyId, id));

/**
 * Whether a number is on WhatsApp, asked through the company's default connection when it is
 * connected; null (not known yet) otherwise or when the phone does not answer in time.
 */
async function whatsappValidity(identity: Identity, number: string): Promise<boolean | null> {
  const connection = await defaultConnection(identity.companyId, identity.user.whatsappId);
  if (!connection || connection.status !== 'CONNECTED') return null;
  try {
    const answer = await askSessionHost(identity.companyId, connection.id, { op: 'checkNumber', number }, 5_000);
    return answer.op === 'checkNumber' ? answer.exists : null;
  } catch (err) {
    log.warn('number not checked on WhatsApp', { err, companyId: identity.companyId });
    return null;
  }
}

export const itemSearchText = (name: string, number: string, email: string) => `${fold(name)} ${number} ${email.toLowerCase()}`;

export async function createContactListItem(identity: Identity, body: unknown): Promise<ApiContactListItem> {
  const data = parseOrThrow(contactListItemSchema, body);
  const companyId = identity.companyId;
  const list = await getItem<ContactListRecord & { deleting?: boolean }>(contactListKey(companyId, data.contactListId), true);
  if (!list || list.deleting) throw listField();
  const isWhatsappValid = await whatsappValidity(identity, data.number);
  const id = await nextId(companyId, 'contactListItem');
  const now = nowIso();
  const email = data.email ?? '';
  const item: ContactListEntryItem = {
    PK: contactListItemsPartition(companyId, list.id),
    SK: contactListItemSk(data.name, id),
    entity: 'contactListItem',
    id,
    companyId,
    contactListId: list.id,
    name: data.name,
    number: data.number,
    email,
    isWhatsappValid,
    search: itemSearchText(data.name, data.number, email),
    createdAt: now,
    updatedAt: now,
  };
  await transact(
    [
      tx.putUnique({ ...contactListNumberMarker(companyId, list.id, data.number), entity: 'unique', itemId: id }),
      tx.put(item, 'attribute_not_exists(PK)'),
      tx.put({ ...contactListItemPointer(companyId, id), entity: 'contactListItemPointer', contactListId: list.id, sk: item.SK }),
      tx.update(contactListKey(companyId, list.id), 'ADD contactsCount :one SET updatedAt = :u', { ':one': 1, ':u': now }, 'attribute_exists(PK) AND attribute_not_exists(deleting)'),
    ],
    (i) => (i === 0 ? duplicated() : i === 3 ? listField() : undefined),
  );
  const record = toApiContactListItem(item);
  await announceItem(companyId, { action: 'create', record });
  await announceList(companyId, { action: 'update', record: toApiContactList({ ...list, contactsCount: list.contactsCount + 1, updatedAt: now }) });
  return record;
}

export async function updateContactListItem(identity: Identity, id: number, body: unknown): Promise<ApiContactListItem> {
  const data = parseOrThrow(contactListItemUpdateSchema, body);
  const companyId = identity.companyId;
  const current = await getEntry(companyId, id);
  const name = data.name ?? current.name;
  const number = data.number ?? current.number;
  const email = data.email ?? current.email;
  const numberChanged = number !== current.number;
  const next: ContactListEntryItem = {
    ...current,
    SK: contactListItemSk(name, id),
    name,
    number,
    email,
    isWhatsappValid: numberChanged ? await whatsappValidity(identity, number) : current.isWhatsappValid,
    search: itemSearchText(name, number, email),
    updatedAt: nowIso(),
  };
  const partition = contactListItemsPartition(companyId, current.contactListId);
  const items = [];
  if (numberChanged) {
    items.push(tx.putUnique({ ...contactListNumberMarker(companyId, current.contactListId, number), entity: 'unique', itemId: id }));
    items.push(tx.delete(contactListNumberMarker(companyId, current.contactListId, current.number), 'itemId = :id', { ':id': id }));
  }
  if (next.SK !== current.SK) {
    // A new name moves the item in its list's order: the old place goes, the pointer follows.
    items.push(tx.delete({ PK: partition, SK: current.SK }, 'updatedAt = :seen', { ':seen': current.updatedAt }));
    items.push(tx.put(next, 'attribute_not_exists(PK)'));
    items.push(tx.put({ ...contactListItemPointer(companyId, id), entity: 'contactListItemPointer', contactListId: current.contactListId, sk: next.SK }));
  } else {
    items.push(tx.put(next, 'attribute_exists(PK) AND updatedAt = :seen', { ':seen': current.updatedAt }));
  }
  await transact(items, (i) => (numberChanged && i === 0 ? duplicated() : changedMeanwhile()));
  const record = toApiContactListItem(next);
  await announceItem(companyId, { action: 'update', record });
  return record;
}

export async function deleteContactListItem(identity: Identity, id: number): Promise<void> {
  const companyId = identity.companyId;
  const current = await getEntry(companyId, id);
  const now = nowIso();
  await transact(
    [
      tx.delete({ PK: current.PK, SK: current.SK }, 'attribute_exists(PK)'),
      tx.delete(contactListNumberMarker(companyId, current.contactListId, current.number), 'itemId = :id', { ':id': id }),
      tx.delete(contactListItemPointer(companyId, id)),
      tx.update(contactListKey(companyId, current.contactListId), 'ADD contactsCount :minus SET updatedAt = :u', { ':minus': -1, ':u': now }, 'attribute_exists(PK)'),
    ],
    () => notFound(),
  );
  await announceItem(companyId, { action: 'delete', id, contactListId: current.contactListId });
  const list = await getItem<ContactListRecord>(contactListKey(companyId, current.contactListId), true);
  if (list) await announceList(companyId, { action: 'update', record: toApiContactList(list) });
}

/** A company being removed: its contact lists with their items, markers, pointers and import chunks. */
export async function deleteCompanyContactLists(companyId: number): Promise<void> {
  for (const l of await queryAll<ContactListRecord>(contactListsPartition(companyId), contactListPrefix())) {
    const inside = await queryAll<{ PK: string; SK: string; entity?: string; id?: number }>(contactListItemsPartition(companyId, l.id));
    const requests: WriteRequest[] = [];
    for (const it of inside) {
      requests.push({ DeleteRequest: { Key: { PK: it.PK, SK: it.SK } } });
      if (it.entity === 'contactListItem' && it.id) requests.push({ DeleteRequest: { Key: contactListItemPointer(companyId, it.id) } });
    }
    requests.push({ DeleteRequest: { Key: contactListKey(companyId, l.id) } });
    await batchWrite(requests);
  }
}
