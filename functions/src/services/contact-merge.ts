import { AppError, companyEvent } from '@balcao/shared';
import { env } from '../core/env.js';
import { getItem, isConditionFailure, isTransactionCanceled, queryAll, queryIndexAll, transact, tx, updateItem, deleteItem, type TransactItem } from '../core/db.js';
import { log } from '../core/observability.js';
import { nowIso } from '../core/ports.js';
import { publish } from '../core/realtime.js';
import {
  contactKey,
  contactTicketListKey,
  contactTicketsPartition,
  currentMarker,
  keys,
  lidMarker,
  noteIndexKeys,
  notesOfContact,
  schedulesPartition,
  ticketKey,
} from '../table/keys.js';
import { contactViewOf, type ContactItem, type CurrentTicketMarker, type ScheduleItem, type TicketItem, type TicketNoteItem } from '../table/items.js';
import { commit, laterThan, publishTicketChange, Raced } from './ticket-lifecycle.js';
import { contactTicketWrites, unindexContact } from './search-index.js';
import { contactTicketIds, refreshContactViews } from './contact-view.js';
import { changeContactTags } from './tags.js';
import { publishContact } from './contact-api.js';

/**
 * Merging a contact known only by its LID into the contact of its number, once WhatsApp tells the
 * pair (docs/decisions.md 48). The number's contact stays: agents named it, tagged it, may have
 * imported it. The LID-only contact's tickets, notes, schedules and tags move to it, then the
 * LID-only contact is deleted.
 *
 * The merge starts with one transaction (the LID marker names the number's contact and remembers
 * `mergingFrom`; the LID-only contact gets `mergedInto` and leaves the lists), so two events that
 * learn the pair at once start it once. Every later step is conditional and may run twice: any
 * event that finds the LID marker still `mergingFrom` finishes the merge (a crash midway is
 * finished by the next event of that person, or by the redelivery of the same one).
 */

/** The LID marker (`lidMarker`): the contact of a LID, and while a merge is unfinished, where from. */
export interface LidMarkerItem {
  contactId: number;
  mergingFrom?: number;
}

/** A LID-only contact being merged names the contact it goes into. */
export type MergedContact = ContactItem & { mergedInto?: number };

/** The company's contact total (`USAGE.contacts`), as contacts.ts keeps it. */
const countContacts = (companyId: number, by: number): TransactItem =>
  tx.update(keys.usage(companyId), 'ADD #n :by', { ':by': by }, undefined, { '#n': 'contacts' });

/**
 * Starts the merge of `from` (LID only) into `into` (the number's contact). False when another
 * write got there first (the pair was merged, the LID re-pointed, a number given): look again.
 */
export async function startMerge(companyId: number, lid: string, from: ContactItem, into: ContactItem): Promise<boolean> {
  try {
    await transact([
      tx.update(lidMarker(companyId, lid), 'SET contactId = :to, mergingFrom = :from', { ':to': into.id, ':from': from.id }, 'contactId = :from'),
      tx.update(contactKey(companyId, into.id), 'SET lid = :lid, updatedAt = :at', { ':lid': lid, ':at': nowIso(), ':num': into.number }, 'attribute_exists(PK) AND #num = :num', {
        '#num': 'number',
      }),
      tx.update(
        contactKey(companyId, from.id),
        // updatedAt moves: an agent's edit prepared from an older read reads again (and finds it merged).
        'SET mergedInto = :to, updatedAt = :at REMOVE GSI1PK, GSI1SK, GSI3PK, GSI3SK',
        { ':to': into.id, ':none': '', ':at': nowIso() },
        'attribute_exists(PK) AND #num = :none AND attribute_not_exists(mergedInto)',
        { '#num': 'number' },
      ),
    ]);
    return true;
  } catch (err) {
    if (isTransactionCanceled(err)) return false;
    throw err;
  }
}

/** Finishes a started merge (idempotent; concurrent runs are safe), then clears `mergingFrom`. */
export async function finishMerge(companyId: number, lid: string, fromId: number, toId: number): Promise<void> {
  const from = await getItem<MergedContact>(contactKey(companyId, fromId), true);
  let into = await getItem<ContactItem>(contactKey(companyId, toId), true);
  if (from?.mergedInto === toId && into) {
    // Twice: a ticket the old contact started while the first pass ran is moved by the second.
    for (let pass = 0; pass < 2; pass++) {
      for (const id of await contactTicketIds(companyId, fromId)) await moveTicket(companyId, id, fromId, into);
    }
    await moveNotes(companyId, fromId, toId);
    await moveSchedules(companyId, fromId, into);
    if (from.tagIds?.length) {
      try {
        into = await changeContactTags(companyId, toId, (current) => [...current, ...from.tagIds]);
      } catch (err) {
        // A tag deleted meanwhile: the number's contact keeps its own tags.
        log.warn('tags of a merged contact not carried over', { err, companyId, contactId: toId });
      }
      try {
        await changeContactTags(companyId, fromId, () => []);
      } catch (err) {
        if (!(err instanceof AppError && err.status === 404)) throw err; // another run removed it
      }
    }
    await removeMerged(companyId, fromId, toId);
  }
  try {
    await updateItem(lidMarker(companyId, lid), {}, { condition: 'mergingFrom = :from', values: { ':from': fromId }, remove: ['mergingFrom'] });
  } catch (err) {
    if (!isConditionFailure(err)) throw err; // another run cleared it
  }
  if (!into) return;
  await refreshContactViews(companyId, toId);
  const fresh = await getItem<ContactItem>(contactKey(companyId, toId), true);
  if (fresh) await publishContact(companyId, fresh, 'update');
}

/**
 * One ticket of the LID-only contact becomes the number's contact's, with its chat marker: when the
 * number's contact has no ticket going on that connection, this one goes on as its ticket; when it
 * has one (agents wrote to the number while the customer's answers came by a LID not yet paired),
 * that one goes on and this one is closed, its messages kept in the contact's history.
 */
async function moveTicket(companyId: number, ticketId: number, fromId: number, into: ContactItem) {
  const t = await getItem<TicketItem>(ticketKey(companyId, ticketId), true);
  if (!t || (t.contactId !== fromId && t.contactId !== into.id)) return;
  if (t.contactId === fromId) await moveTicketItem(companyId, t, fromId, into);
  // Messages name their contact too (edits, deletes and reactions read it): those stored before the move follow.
  const messages = await queryAll<{ PK: string; SK: string; contactId?: number }>(t.PK, 'MSG#', { ProjectionExpression: 'PK, SK, contactId' });
  for (const m of messages.filter((x) => x.contactId === fromId)) {
    try {
      await updateItem({ PK: m.PK, SK: m.SK }, { contactId: into.id }, { condition: 'contactId = :from', values: { ':from': fromId } });
    } catch (err) {
      if (!isConditionFailure(err)) throw err;
    }
  }
}

async function moveTicketItem(companyId: number, first: TicketItem, fromId: number, into: ContactItem) {
  const ticketId = first.id;
  for (let attempt = 0; attempt < 6; attempt++) {
    const t = attempt === 0 ? first : await getItem<TicketItem>(ticketKey(companyId, ticketId), true);
    if (!t || t.contactId !== fromId) return;
    const [mine, theirs] = await Promise.all([
      getItem<CurrentTicketMarker>(currentMarker(companyId, t.whatsappId, fromId), true),
      getItem<CurrentTicketMarker>(currentMarker(companyId, t.whatsappId, into.id), true),
    ]);
    const next: TicketItem = { ...t, contactId: into.id, contactView: contactViewOf(into) };
    // The guarded ticket write makes this run once, so the list append below happens once.
    const extra: TransactItem[] = [...contactTicketWrites(companyId, into.id, t.id)];
    if (mine?.ticketId === t.id) {
      extra.push({
        Delete: { TableName: env.tableName, Key: currentMarker(companyId, t.whatsappId, fromId), ConditionExpression: 'ticketId = :t', ExpressionAttributeValues: { ':t': t.id } },
      });
      const free = !theirs || theirs.status === 'closed';
      if (free && (t.status !== 'closed' || !theirs)) {
        extra.push({
          Put: {
            TableName: env.tableName,
            Item: { ...currentMarker(companyId, t.whatsappId, into.id), entity: 'currentTicket', ticketId: t.id, status: mine.status, ...(mine.closedAt ? { closedAt: mine.closedAt } : {}) },
            ConditionExpression: theirs ? '#s = :closed AND ticketId = :old' : 'attribute_not_exists(PK)',
            ExpressionAttributeNames: theirs ? { '#s': 'status' } : undefined,
            ExpressionAttributeValues: theirs ? { ':closed': 'closed', ':old': theirs.ticketId } : undefined,
          },
        });
      } else if (t.status !== 'closed') {
        Object.assign(next, { status: 'closed', finishedAt: nowIso(), unreadMessages: 0, awaitingRatingUntil: null, updatedAt: laterThan(t.updatedAt) });
      }
    }
    try {
      const saved = await commit(t, next, extra);
      await publishTicketChange(saved, 'update', t);
      return;
    } catch (err) {
      if (!(err instanceof Raced)) throw err;
    }
  }
  throw new Error(`ticket ${ticketId} kept changing while its contact was merged`);
}

async function moveNotes(companyId: number, fromId: number, toId: number) {
  for (const n of await queryIndexAll<TicketNoteItem>('GSI1', notesOfContact(companyId, fromId))) {
    try {
      await updateItem({ PK: n.PK, SK: n.SK }, { contactId: toId, ...noteIndexKeys(companyId, toId, n.createdAt, n.id) }, { condition: 'contactId = :from', values: { ':from': fromId } });
    } catch (err) {
      if (!isConditionFailure(err)) throw err; // moved by another run, or deleted
    }
  }
}

/** Schedules name their contact by id: those of the LID-only contact are sent to the number's. */
async function moveSchedules(companyId: number, fromId: number, into: ContactItem) {
  const mine = (await queryIndexAll<ScheduleItem>('GSI1', schedulesPartition(companyId))).filter((s) => s.contactId === fromId);
  for (const s of mine) {
    try {
      await updateItem({ PK: s.PK, SK: s.SK }, { contactId: into.id, contactName: into.name, contactNumber: into.number }, { condition: 'contactId = :from', values: { ':from': fromId } });
    } catch (err) {
      if (!isConditionFailure(err)) throw err;
    }
  }
}

/** Deletes the merged contact (counted once: the delete is conditional) and its search items. */
async function removeMerged(companyId: number, fromId: number, toId: number) {
  let deleted = false;
  try {
    await transact([
      { Delete: { TableName: env.tableName, Key: contactKey(companyId, fromId), ConditionExpression: 'mergedInto = :to', ExpressionAttributeValues: { ':to': toId } } },
      countContacts(companyId, -1),
    ]);
    deleted = true;
  } catch (err) {
    if (!isTransactionCanceled(err)) throw err; // another run deleted it
  }
  await unindexContact(companyId, fromId);
  const relations = await queryAll<{ PK: string; SK: string }>(contactTicketsPartition(companyId, fromId), undefined, { ProjectionExpression: 'PK, SK' });
  for (const r of relations) await deleteItem({ PK: r.PK, SK: r.SK });
  await deleteItem(contactTicketListKey(companyId, fromId));
  if (deleted) await publish({ companyId, event: companyEvent(companyId, 'contact'), data: { action: 'delete', contactId: fromId }, audience: [{ kind: 'company' }] });
}
