import {
  AppError,
  SAME_ATTENDANT,
  can,
  companyEvent,
  contactSchema,
  contactTransferSchema,
  contactUpdateSchema,
  parseOrThrow,
  type Peer,
} from '@balcao/shared';
import { env } from '../core/env.js';
import { batchGet, getItem, nextId, transact, transactRetryingConflicts, tx, updateItem, type TransactItem, isTransactionCanceled } from '../core/db.js';
import {
  connectionKey,
  contactAttendantKeys,
  contactAttendantPartition,
  contactKey,
  contactsIndexKeys,
  currentMarker,
  keys,
  lidMarker,
  numberMarker,
} from '../table/keys.js';
import { publish } from '../core/realtime.js';
import type { Identity } from '../core/identity.js';
import { indexContact, unindexContact } from './search-index.js';
import { assertContactTags, changeContactTags, changedTags, contactLinkOps, publishTagCounts } from './tags.js';
import { publishContact, toApiContacts } from './contact-api.js';
import { queryPartition } from './contact-list.js';
import { listConnectionItems } from './connections.js';

import { refreshContactViews } from './contact-view.js';
import { newContactsWrite } from './dashboard-stats.js';
import { finishMerge, startMerge, type LidMarkerItem, type MergedContact } from './contact-merge.js';
import { type ConnectionItem, type ContactItem, contactViewOf, sameContactView, type UserItem } from '../table/items.js';
import { nowIso } from '../core/ports.js';


/** The company's contact total (spec's `count`), kept in the usage item with every create/delete. */
const countContacts = (companyId: number, by: number): TransactItem =>
  tx.update(keys.usage(companyId), 'ADD #n :by', { ':by': by }, undefined, { '#n': 'contacts' });

const duplicated = () => new AppError(409, 'ERR_DUPLICATED_CONTACT', { fields: [{ field: 'number', message: 'ERR_DUPLICATED_CONTACT' }] });

export async function getContactItem(companyId: number, id: number): Promise<ContactItem> {
  const item = await getItem<ContactItem>(contactKey(companyId, id));
  if (!item) throw new AppError(404, 'ERR_NO_CONTACT_FOUND');
  return item;
}

/** The identity of a chat in our contacts: the phone number, or the group id for groups. */
const identityOf = (peer: Peer) => peer.groupId ?? peer.number;

async function byMarker(marker: { PK: string; SK: string }, companyId: number, consistent = false) {
  const found = await getItem<{ contactId: number }>(marker, consistent);
  return found ? getItem<ContactItem>(contactKey(companyId, found.contactId), consistent) : undefined;
}

/**
 * Renames a contact from WhatsApp data, conditional on the name read (an agent's edit at the same
 * moment wins); the search tokens follow the new name.
 */
async function renameFromWhatsApp(companyId: number, contact: ContactItem, set: Partial<ContactItem>): Promise<ContactItem | undefined> {
  if (set.name) await indexContact(companyId, contact, { id: contact.id, name: set.name, number: contact.number });
  try {
    return await updateItem<ContactItem>(contactKey(companyId, contact.id), { ...set, updatedAt: nowIso() }, {
      condition: 'attribute_exists(PK) AND #n = :oldName',
      names: { '#n': 'name' },
      values: { ':oldName': contact.name },
    });
  } catch (err) {
    if ((err as { name?: string }).name === 'ConditionalCheckFailedException') return undefined;
    throw err;
  }
}

/** A lost race: read again what the other writer left. */
const AGAIN = Symbol('again');

/**
 * A number↔LID pair that names the connection's own number is not a customer's (a chat with
 * oneself, or a LID filled in from the wrong half): ingest never pairs it with a contact, so the LID
 * is dropped and the event goes on by number (issue 17).
 */
function trustedPeer(peer: Peer, ownNumber: string | null | undefined): Peer {
  if (!ownNumber || peer.groupId || !peer.lid || peer.number !== ownNumber) return peer;
  const { lid: _own, ...rest } = peer;
  return rest;
}

/**
 * The contact of a peer, pairing what the event newly tells: by LID, then by number. A contact
 * known only by its LID gets the number when the event carries both (or is merged into the
 * number's contact when there is one: contact-merge.ts); a contact known by number gets the LID.
 * Every pairing is one conditional transaction, so two events at once pair once; the loser reads
 * again (`AGAIN`).
 */
async function findContact(companyId: number, peer: Peer, fresh: boolean): Promise<ContactItem | undefined | typeof AGAIN> {
  const lid = peer.groupId ? undefined : peer.lid;
  let byLid: MergedContact | undefined;
  if (lid) {
    const marker = await getItem<LidMarkerItem>(lidMarker(companyId, lid), fresh);
    if (marker?.mergingFrom !== undefined) {
      await finishMerge(companyId, lid, marker.mergingFrom, marker.contactId);
      return AGAIN;
    }
    byLid = marker ? await getItem<MergedContact>(contactKey(companyId, marker.contactId), fresh) : undefined;
    if (marker && !byLid) {
      // Only a consistent read may say the contact is gone (a contact just created may not show yet).
      if (!fresh) return AGAIN;
      await dropStaleLidMarker(companyId, lid, marker.contactId);
    }
    if (byLid?.mergedInto !== undefined) return AGAIN; // the marker moved on since it was read
  }
  // A contact found by its LID that has a number keeps it (agents may have typed it): WhatsApp's
  // LID is the stabler id of the two.
  if (byLid && (byLid.number || !peer.number)) return byLid;
  const identity = identityOf(peer);
  const byNumber = identity ? await byMarker(numberMarker(companyId, identity), companyId, fresh) : undefined;
  if (byLid && lid) {
    if (!byNumber) return (await giveNumber(companyId, byLid, peer.number!)) ?? AGAIN;
    if (await startMerge(companyId, lid, byLid, byNumber)) await finishMerge(companyId, lid, byLid.id, byNumber.id);
    return AGAIN;
  }
  if (byNumber && lid && byNumber.lid !== lid) return (await attachLid(companyId, byNumber, lid)) ?? AGAIN;
  return byNumber;
}

/** A LID marker whose contact was deleted (an older LID of that contact) no longer names anyone. */
async function dropStaleLidMarker(companyId: number, lid: string, contactId: number) {
  await transact([{ Delete: { TableName: env.tableName, Key: lidMarker(companyId, lid), ConditionExpression: 'contactId = :id', ExpressionAttributeValues: { ':id': contactId } } }]).catch((err) => {
    if (!isTransactionCanceled(err)) throw err;
  });
}

/**
 * A contact known only by its LID gets the number WhatsApp now tells, with its number marker: if
 * the marker is taken meanwhile, the number's contact appeared and the next look merges.
 */
async function giveNumber(companyId: number, c: ContactItem, number: string): Promise<ContactItem | undefined> {
  // The name placeholder of a contact without number is '' (like the digits of a numbered one).
  const name = c.name || number;
  const next: ContactItem = { ...c, number, name, ...contactsIndexKeys(companyId, name, c.id), ...contactAttendantKeys(companyId, c.userId, name, c.id), updatedAt: nowIso() };
  await indexContact(companyId, c, next);
  const set = ['#num = :num', '#n = :name', 'GSI1SK = :sk', 'updatedAt = :at'];
  const values: Record<string, unknown> = { ':num': number, ':name': name, ':sk': next.GSI1SK, ':at': next.updatedAt, ':none': '' };
  if (next.GSI3SK) {
    set.push('GSI3SK = :usk');
    values[':usk'] = next.GSI3SK;
  }
  try {
    await transact([
      tx.putUnique({ ...numberMarker(companyId, number), entity: 'num', contactId: c.id }),
      tx.update(contactKey(companyId, c.id), `SET ${set.join(', ')}`, values, 'attribute_exists(PK) AND #num = :none AND attribute_not_exists(mergedInto)', { '#num': 'number', '#n': 'name' }),
    ]);
  } catch (err) {
    if (!isTransactionCanceled(err)) throw err;
    // The number went elsewhere (the next look merges): its tokens, written first so a crash cannot
    // leave a numbered contact unfindable, are put back to the contact as it now stands.
    const now = await getItem<MergedContact | ContactItem>(contactKey(companyId, c.id), true);
    if (now && (now as MergedContact).mergedInto === undefined) await indexContact(companyId, next, now as ContactItem);
    else await unindexContact(companyId, c.id);
    return undefined;
  }
  await refreshContactViews(companyId, c.id);
  await publishContact(companyId, next, 'update');
  return next;
}

/** A contact known by number gets the LID WhatsApp now tells, with its LID marker (unless another contact holds it). */
async function attachLid(companyId: number, c: ContactItem, lid: string): Promise<ContactItem | undefined> {
  const updatedAt = nowIso();
  try {
    await transact([
      {
        Put: {
          TableName: env.tableName,
          Item: { ...lidMarker(companyId, lid), entity: 'lid', contactId: c.id },
          ConditionExpression: 'attribute_not_exists(PK) OR contactId = :id',
          ExpressionAttributeValues: { ':id': c.id },
        },
      },
      // updatedAt moves: an agent's edit prepared from an older read reads again instead of dropping the LID.
      tx.update(contactKey(companyId, c.id), 'SET lid = :lid, updatedAt = :at', { ':lid': lid, ':at': updatedAt }, 'attribute_exists(PK)'),
    ]);
  } catch (err) {
    if (isTransactionCanceled(err)) return undefined;
    throw err;
  }
  const updated = { ...c, lid, updatedAt };
  await publishContact(companyId, updated, 'update');
  return updated;
}

/** A contact still named by its placeholder (its digits, or '' without number) takes the push name or group subject. */
async function adoptWhatsAppName(companyId: number, contact: ContactItem, betterName: string | undefined): Promise<ContactItem> {
  if (!betterName || contact.name !== contact.number || betterName === contact.name) return contact;
  const set: Partial<ContactItem> = { name: betterName, ...contactsIndexKeys(companyId, betterName, contact.id) };
  if (contact.userId) Object.assign(set, contactAttendantKeys(companyId, contact.userId, betterName, contact.id));
  const updated = await renameFromWhatsApp(companyId, contact, set);
  if (!updated) return contact;
  await refreshContactViews(companyId, contact.id);
  await publishContact(companyId, updated, 'update');
  return updated;
}

/**
 * Finds the contact of a WhatsApp peer (by LID, then by number; server-behaviour §2 step 3) or
 * creates it with the push name (or the digits). A peer known only by its LID makes a contact
 * without number (`number: ''`, "Contato sem número" in the console) until an event tells the
 * number (`findContact`). Concurrent first messages race on the number and LID markers: the loser
 * reads the winner's contact. `ownNumber` is the connection's number (never paired, issue 17).
 */
export async function findOrCreateContact(
  companyId: number,
  rawPeer: Peer,
  opts: { pushName?: string; connectionId?: number; ownNumber?: string | null } = {},
): Promise<ContactItem> {
  const peer = trustedPeer(rawPeer, opts.ownNumber);
  const betterName = ((peer.groupId ? peer.name : opts.pushName) ?? '').trim() || undefined;
  for (let attempt = 0; attempt < 6; attempt++) {
    // After a lost race, read what the winner wrote.
    const found = await findContact(companyId, peer, attempt > 0);
    if (found === AGAIN) continue;
    if (found) return adoptWhatsAppName(companyId, found, betterName);
    const created = await createFromWhatsApp(companyId, peer, betterName, opts.connectionId);
    if (created) return created;
  }
  throw new AppError(409, 'ERR_VALIDATION', { message: 'O contato mudou ao mesmo tempo; tente de novo' });
}

/** A new contact from WhatsApp; undefined when another event created it (or its marker) first. */
async function createFromWhatsApp(companyId: number, peer: Peer, betterName: string | undefined, connectionId: number | undefined): Promise<ContactItem | undefined> {
  const identity = identityOf(peer);
  const lid = peer.groupId ? undefined : peer.lid;
  if (!identity && !lid) throw new AppError(400, 'ERR_NO_CONTACT_FOUND', { message: 'A mensagem não identifica o contato' });
  const id = await nextId(companyId, 'contact');
  const now = nowIso();
  const number = identity ?? '';
  const name = betterName ?? number;
  const item: ContactItem = {
    ...contactKey(companyId, id),
    entity: 'contact',
    ...contactsIndexKeys(companyId, name, id),
    id,
    companyId,
    name,
    number,
    lid: lid ?? null,
    email: '',
    isGroup: !!peer.groupId,
    profilePicUrl: null,
    extraInfo: [],
    tagIds: [],
    userId: null,
    disableBot: false,
    whatsappId: connectionId ?? null,
    createdAt: now,
    updatedAt: now,
  };
  await indexContact(companyId, undefined, item);
  const items = [tx.put(item, 'attribute_not_exists(PK)'), countContacts(companyId, 1), ...(await newContactsWrite(companyId, 1, now, id))];
  if (identity) items.push(tx.putUnique({ ...numberMarker(companyId, identity), entity: 'num', contactId: id }));
  if (lid) items.push(tx.putUnique({ ...lidMarker(companyId, lid), entity: 'lid', contactId: id }));
  try {
    await transact(items);
  } catch (err) {
    if (isTransactionCanceled(err)) return undefined;
    throw err;
  }
  await publishContact(companyId, item, 'create');
  return item;
}

/**
 * Name and picture updates from WhatsApp (server-behaviour §2 step 3). Never creates a contact; an
 * update that carries both a LID and a number pairs them as a message would (a LID-only contact
 * gets its number or is merged into the number's contact), unless one half is the connection's own.
 */
export async function updateContactProfile(companyId: number, rawPeer: Peer, name?: string, pictureUrl?: string | null, ownNumber?: string | null) {
  const peer = trustedPeer(rawPeer, ownNumber);
  let contact: ContactItem | undefined;
  for (let attempt = 0; attempt < 6; attempt++) {
    const found = await findContact(companyId, peer, attempt > 0);
    if (found === AGAIN) continue;
    contact = found;
    break;
  }
  // A contact being merged into its number's is left alone (the merge publishes the survivor).
  if (!contact || (contact as MergedContact).mergedInto !== undefined) return;
  const set: Partial<ContactItem> = {};
  // A name the agents typed wins over the push name; only a placeholder (the digits) is replaced.
  if (name && contact.name === contact.number) {
    Object.assign(set, { name }, contactsIndexKeys(companyId, name, contact.id));
    if (contact.userId) Object.assign(set, contactAttendantKeys(companyId, contact.userId, name, contact.id));
  }
  if (pictureUrl !== undefined && pictureUrl !== contact.profilePicUrl) set.profilePicUrl = pictureUrl;
  if (!Object.keys(set).length) return;
  const updated = await renameFromWhatsApp(companyId, contact, set);
  if (!updated) return;
  await refreshContactViews(companyId, contact.id);
  await publishContact(companyId, updated, 'update');
}

// ---------------------------------------------------------------- the contacts routes

async function assertAttendant(companyId: number, userId: number | null | undefined) {
  if (!userId) return;
  if (!(await getItem<UserItem>(keys.user(companyId, userId)))) {
    throw new AppError(400, 'ERR_VALIDATION', { message: 'ERR_NO_USER_FOUND', fields: [{ field: 'userId', message: 'ERR_NO_USER_FOUND' }] });
  }
}

/** `POST /contacts`: the contact dialog (spec 001 §5); the number is unique per company. */
export async function createContact(identity: Identity, input: unknown): Promise<ContactItem> {
  const companyId = identity.companyId;
  const data = parseOrThrow(contactSchema, input);
  const tagIds = [...new Set(data.tags ?? [])];
  await assertAttendant(companyId, data.userId);
  await assertContactTags(companyId, tagIds, 'contact');
  if (await getItem(numberMarker(companyId, data.number))) throw duplicated();
  const id = await nextId(companyId, 'contact');
  const now = nowIso();
  const userId = data.userId ?? null;
  const item: ContactItem = {
    ...contactKey(companyId, id),
    entity: 'contact',
    ...contactsIndexKeys(companyId, data.name, id),
    ...(userId ? contactAttendantKeys(companyId, userId, data.name, id) : {}),
    id,
    companyId,
    name: data.name,
    number: data.number,
    lid: null,
    email: data.email ?? '',
    isGroup: false,
    profilePicUrl: null,
    extraInfo: data.extraInfo ?? [],
    tagIds,
    userId,
    disableBot: data.disableBot ?? false,
    whatsappId: null,
    createdAt: now,
    updatedAt: now,
  };
  await indexContact(companyId, undefined, item);
  const links = contactLinkOps(companyId, id, [], tagIds);
  await transactRetryingConflicts(
    [tx.putUnique({ ...numberMarker(companyId, data.number), entity: 'num', contactId: id }), tx.put(item, 'attribute_not_exists(PK)'), countContacts(companyId, 1), ...links, ...(await newContactsWrite(companyId, 1, now, id))],
    (i) => (i === 0 ? duplicated() : i >= 3 && i < 3 + links.length ? new AppError(400, 'ERR_VALIDATION', { message: 'Etiqueta inválida', fields: [{ field: 'tags', message: 'Etiqueta inválida' }] }) : undefined),
  );
  await publishContact(companyId, item, 'create');
  await publishTagCounts(companyId, tagIds);
  return item;
}

/**
 * `PUT /contacts/{id}`: fields, number (its marker moves in the same transaction), attendant and
 * tags in one conditional write on the state read; a concurrent change makes it read again.
 */
export async function updateContact(identity: Identity, id: number, input: unknown): Promise<ContactItem> {
  const companyId = identity.companyId;
  const data = parseOrThrow(contactUpdateSchema, input);
  await assertAttendant(companyId, data.userId);
  for (let attempt = 0; attempt < 6; attempt++) {
    const c = await getItem<MergedContact>(contactKey(companyId, id), true);
    // A contact being merged into its number's (contact-merge.ts) is going away.
    if (!c || c.mergedInto !== undefined) throw new AppError(404, 'ERR_NO_CONTACT_FOUND');
    const before = c.tagIds ?? [];
    const after = data.tags ? [...new Set(data.tags)] : before;
    await assertContactTags(companyId, after.filter((x) => !before.includes(x)), 'contact');
    const name = data.name ?? c.name;
    const number = data.number ?? c.number;
    const userId = data.userId === undefined ? c.userId : data.userId;
    const next: ContactItem = {
      ...c,
      name,
      number,
      email: data.email ?? c.email,
      extraInfo: data.extraInfo ?? c.extraInfo ?? [],
      userId,
      disableBot: data.disableBot ?? c.disableBot ?? false,
      tagIds: after,
      ...contactsIndexKeys(companyId, name, id),
      ...contactAttendantKeys(companyId, userId, name, id),
      updatedAt: nowIso(),
    };
    const items: TransactItem[] = [];
    const numberChanged = number !== c.number;
    if (numberChanged) {
      items.push(tx.putUnique({ ...numberMarker(companyId, number), entity: 'num', contactId: id }));
      // A contact known only by its LID has no number marker to give up.
      if (c.number) {
        items.push({
          Delete: { TableName: env.tableName, Key: numberMarker(companyId, c.number), ConditionExpression: 'contactId = :id', ExpressionAttributeValues: { ':id': id } },
        });
      }
    }
    // The whole item is written over the version read: name, number and tags must be unchanged.
    const values: Record<string, unknown> = { ':oldName': c.name, ':oldNumber': c.number, ':oldUpdated': c.updatedAt };
    if (c.tagIds !== undefined) values[':oldTags'] = c.tagIds;
    items.push({
      Put: {
        TableName: env.tableName,
        Item: Object.fromEntries(Object.entries(next).filter(([, v]) => v !== undefined)),
        ConditionExpression: `attribute_exists(PK) AND #n = :oldName AND #num = :oldNumber AND updatedAt = :oldUpdated AND ${c.tagIds === undefined ? 'attribute_not_exists(tagIds)' : 'tagIds = :oldTags'}`,
        ExpressionAttributeNames: { '#n': 'name', '#num': 'number' },
        ExpressionAttributeValues: values,
      },
    });
    items.push(...contactLinkOps(companyId, id, before, after));
    if (name !== c.name || numberChanged) await indexContact(companyId, c, next);
    try {
      await transact(items, (i) => (numberChanged && i === 0 ? duplicated() : undefined));
      if (!sameContactView(contactViewOf(c), contactViewOf(next))) await refreshContactViews(companyId, id);
      await publishContact(companyId, next, 'update');
      await publishTagCounts(companyId, changedTags(before, after));
      return next;
    } catch (err) {
      if (err instanceof AppError) throw err;
      if (!isTransactionCanceled(err)) throw err;
      await new Promise((r) => setTimeout(r, 20 * 2 ** attempt));
    }
  }
  throw new AppError(409, 'ERR_VALIDATION', { message: 'O contato mudou ao mesmo tempo; tente de novo' });
}

/**
 * `DELETE /contacts/{id}` (permission contacts-page:deleteContact). A contact with a pending or
 * open ticket stays: the conversation would lose its number.
 */
export async function deleteContact(identity: Identity, id: number): Promise<void> {
  if (!identity.isSuper && !can(identity.profile, 'contacts-page:deleteContact')) throw new AppError(403, 'ERR_NO_PERMISSION');
  const companyId = identity.companyId;
  const c = await getContactItem(companyId, id);
  const connections = await listConnectionItems(companyId);
  const markers = await batchGet<{ status: string; ticketId: number }>(connections.map((w) => currentMarker(companyId, w.id, id)));
  const open = markers.find((m) => m.status !== 'closed');
  if (open) {
    throw new AppError(409, 'ERR_OTHER_OPEN_TICKET', { message: 'O contato tem um atendimento em andamento', details: { ticketId: open.ticketId } });
  }
  // Tags first (links and counts, conditional like any tag change), then the records.
  if (c.tagIds?.length) {
    await changeContactTags(companyId, id, () => []);
  }
  const items: TransactItem[] = [tx.delete(contactKey(companyId, id), 'attribute_exists(PK)'), countContacts(companyId, -1)];
  if (c.number) {
    items.push({ Delete: { TableName: env.tableName, Key: numberMarker(companyId, c.number), ConditionExpression: 'attribute_not_exists(PK) OR contactId = :id', ExpressionAttributeValues: { ':id': id } } });
  }
  if (c.lid) items.push({ Delete: { TableName: env.tableName, Key: lidMarker(companyId, c.lid), ConditionExpression: 'attribute_not_exists(PK) OR contactId = :id', ExpressionAttributeValues: { ':id': id } } });
  await transact(items, (i) => (i === 0 ? new AppError(404, 'ERR_NO_CONTACT_FOUND') : undefined));
  await publish({ companyId, event: companyEvent(companyId, 'contact'), data: { action: 'delete', contactId: id }, audience: [{ kind: 'company' }] });
}

/** `GET /contacts/{id}`: with tags, extra info and the connection of origin. */
export async function getContact(identity: Identity, id: number) {
  const c = await getContactItem(identity.companyId, id);
  const [api] = await toApiContacts(identity.companyId, [c]);
  const wapp = c.whatsappId ? await getItem<ConnectionItem>(connectionKey(identity.companyId, c.whatsappId)) : undefined;
  return { ...api, whatsapp: wapp ? { id: wapp.id, name: wapp.name } : null };
}

/**
 * `POST /contacts/transferUser` (spec 000 §2.7): the source attendant's contacts become the
 * destination's. Each contact moves with a conditional write (still the source's), so a contact
 * edited meanwhile is not taken from its new attendant.
 */
export async function transferContacts(identity: Identity, input: unknown) {
  const companyId = identity.companyId;
  const data = parseOrThrow(contactTransferSchema, input);
  if (data.userIdSource === data.userIdDestination) {
    throw new AppError(400, 'ERR_VALIDATION', { message: SAME_ATTENDANT, fields: [{ field: 'userIdDestination', message: SAME_ATTENDANT }] });
  }
  const [src, dst] = await Promise.all([getItem<UserItem>(keys.user(companyId, data.userIdSource)), getItem<UserItem>(keys.user(companyId, data.userIdDestination))]);
  if (!src) throw new AppError(404, 'ERR_NO_USER_FOUND', { fields: [{ field: 'userIdSource', message: 'ERR_NO_USER_FOUND' }] });
  if (!dst) throw new AppError(404, 'ERR_NO_USER_FOUND', { fields: [{ field: 'userIdDestination', message: 'ERR_NO_USER_FOUND' }] });
  let transferred = 0;
  const moved: ContactItem[] = [];
  for (;;) {
    const { items } = await queryPartition('GSI3', contactAttendantPartition(companyId, src.id), 200);
    if (!items.length) break;
    let roundMoved = 0;
    for (const c of items) {
      try {
        const updated = await updateItem<ContactItem>(
          contactKey(companyId, c.id),
          { userId: dst.id, ...contactAttendantKeys(companyId, dst.id, c.name, c.id), updatedAt: nowIso() },
          { condition: 'attribute_exists(PK) AND userId = :src', values: { ':src': src.id } },
        );
        transferred++;
        roundMoved++;
        if (moved.length < 200) moved.push(updated);
      } catch (err) {
        if ((err as { name?: string }).name !== 'ConditionalCheckFailedException') throw err;
      }
    }
    // A round that moved nothing only saw the index lagging behind moves already made.
    if (items.length < 200 || !roundMoved) break;
  }
  const apis = await toApiContacts(companyId, moved);
  await publish(apis.map((contact) => ({ companyId, event: companyEvent(companyId, 'contact'), data: { action: 'update', contact }, audience: [{ kind: 'company' as const }] })));
  return { transferred, userIdSource: src.id, userIdDestination: dst.id };
}
