import { AppError, companyEvent, type Peer } from '@balcao/shared';
import { clean, getItem, nextId, transact, tx, updateItem } from '../core/db.js';
import { pad } from '../core/keys.js';
import { publish } from '../core/realtime.js';

export interface ContactItem {
  PK: string;
  SK: string;
  entity: 'contact';
  GSI1PK: string;
  GSI1SK: string;
  id: number;
  companyId: number;
  name: string;
  number: string;
  lid: string | null;
  email: string;
  isGroup: boolean;
  profilePicUrl: string | null;
  extraInfo: { name: string; value: string }[];
  tagIds: number[];
  userId: number | null;
  disableBot: boolean;
  /** The connection it first wrote through. */
  whatsappId: number | null;
  createdAt: string;
  updatedAt: string;
}

export const contactKey = (companyId: number, id: number) => ({ PK: `C#${companyId}#CT#${pad(id)}`, SK: 'CONTACT' });
export const numberMarker = (companyId: number, number: string) => ({ PK: `C#${companyId}#NUM#${number}`, SK: 'NUM' });
export const lidMarker = (companyId: number, lid: string) => ({ PK: `C#${companyId}#LID#${lid}`, SK: 'LID' });
export const fold = (s: string) => s.normalize('NFD').replace(/[\u0300-\u036f]/g, '').toLowerCase().trim();
export const contactsIndexKeys = (companyId: number, name: string, id: number) => ({
  GSI1PK: `C#${companyId}#CONTACTS`,
  GSI1SK: `${fold(name)}#${pad(id)}`,
});

export async function getContactItem(companyId: number, id: number): Promise<ContactItem> {
  const item = await getItem<ContactItem>(contactKey(companyId, id));
  if (!item) throw new AppError(404, 'ERR_NO_CONTACT_FOUND');
  return item;
}

export function toApiContact(c: ContactItem) {
  return clean(c);
}

/** The identity of a chat in our contacts: the phone number, or the group id for groups. */
const identityOf = (peer: Peer) => peer.groupId ?? peer.number;

async function byMarker(marker: { PK: string; SK: string }, companyId: number) {
  const found = await getItem<{ contactId: number }>(marker);
  return found ? getItem<ContactItem>(contactKey(companyId, found.contactId)) : undefined;
}

/**
 * Finds the contact of a WhatsApp peer (by LID, then by number; server-behaviour §2 step 3) or
 * creates it with the push name (or the digits). Concurrent first messages of one number race on
 * the number marker: the loser reads the winner's contact.
 */
export async function findOrCreateContact(companyId: number, peer: Peer, opts: { pushName?: string; connectionId?: number } = {}): Promise<ContactItem> {
  const identity = identityOf(peer);
  let contact = peer.lid && !peer.groupId ? await byMarker(lidMarker(companyId, peer.lid), companyId) : undefined;
  if (!contact && identity) contact = await byMarker(numberMarker(companyId, identity), companyId);
  if (contact) {
    // Keep both identities (a contact first seen by number later shows its LID, or the other way).
    const set: Partial<ContactItem> = {};
    if (peer.lid && !peer.groupId && contact.lid !== peer.lid) set.lid = peer.lid;
    const betterName = (peer.groupId ? peer.name : opts.pushName) ?? undefined;
    if (betterName && contact.name === contact.number && betterName !== contact.name) {
      set.name = betterName;
      Object.assign(set, contactsIndexKeys(companyId, betterName, contact.id));
    }
    if (Object.keys(set).length) {
      if (set.lid) await transact([tx.put({ ...lidMarker(companyId, set.lid), entity: 'lid', contactId: contact.id })]);
      contact = await updateItem<ContactItem>(contactKey(companyId, contact.id), { ...set, updatedAt: new Date().toISOString() });
      await publish({ companyId, event: companyEvent(companyId, 'contact'), data: { action: 'update', contact: toApiContact(contact) }, audience: [{ kind: 'company' }] });
    }
    return contact;
  }
  if (!identity) throw new AppError(400, 'ERR_NO_CONTACT_FOUND', { message: 'A mensagem não identifica o número do contato' });
  const id = await nextId(companyId, 'contact');
  const now = new Date().toISOString();
  const name = (peer.groupId ? peer.name : opts.pushName)?.trim() || identity;
  const item: ContactItem = {
    ...contactKey(companyId, id),
    entity: 'contact',
    ...contactsIndexKeys(companyId, name, id),
    id,
    companyId,
    name,
    number: identity,
    lid: peer.groupId ? null : peer.lid ?? null,
    email: '',
    isGroup: !!peer.groupId,
    profilePicUrl: null,
    extraInfo: [],
    tagIds: [],
    userId: null,
    disableBot: false,
    whatsappId: opts.connectionId ?? null,
    createdAt: now,
    updatedAt: now,
  };
  const items = [tx.putUnique({ ...numberMarker(companyId, identity), entity: 'num', contactId: id }), tx.put(item, 'attribute_not_exists(PK)')];
  if (item.lid) items.push(tx.put({ ...lidMarker(companyId, item.lid), entity: 'lid', contactId: id }));
  try {
    await transact(items, (i) => (i === 0 ? new AppError(409, 'ERR_DUPLICATED_CONTACT') : undefined));
  } catch (err) {
    if (err instanceof AppError && err.code === 'ERR_DUPLICATED_CONTACT') {
      const winner = await byMarker(numberMarker(companyId, identity), companyId);
      if (winner) return winner;
    }
    throw err;
  }
  await publish({ companyId, event: companyEvent(companyId, 'contact'), data: { action: 'create', contact: toApiContact(item) }, audience: [{ kind: 'company' }] });
  return item;
}

/** Name and picture updates from WhatsApp (server-behaviour §2 step 3). */
export async function updateContactProfile(companyId: number, peer: Peer, name?: string, pictureUrl?: string | null) {
  const identity = identityOf(peer);
  const contact =
    (peer.lid ? await byMarker(lidMarker(companyId, peer.lid), companyId) : undefined) ??
    (identity ? await byMarker(numberMarker(companyId, identity), companyId) : undefined);
  if (!contact) return;
  const set: Partial<ContactItem> = {};
  // A name the agents typed wins over the push name; only a placeholder (the digits) is replaced.
  if (name && contact.name === contact.number) Object.assign(set, { name }, contactsIndexKeys(companyId, name, contact.id));
  if (pictureUrl !== undefined && pictureUrl !== contact.profilePicUrl) set.profilePicUrl = pictureUrl;
  if (!Object.keys(set).length) return;
  const updated = await updateItem<ContactItem>(contactKey(companyId, contact.id), { ...set, updatedAt: new Date().toISOString() });
  await publish({ companyId, event: companyEvent(companyId, 'contact'), data: { action: 'update', contact: toApiContact(updated) }, audience: [{ kind: 'company' }] });
}
