import { fillVariables } from '@balcao/shared';
import { conflictPause, getItem, isTransactionConflict, transact, tx } from '../core/db.js';
import { ticketStatsWrites } from './dashboard-stats.js';
import { connectionKey, contactKey, currentMarker, ticketKey } from '../table/keys.js';
import { type ConnectionItem, type ContactItem, type CurrentTicketMarker, type TicketItem } from '../table/items.js';
import { publishTicketChange, sendAutomated, timeZone } from './ticket-lifecycle.js';
import { nowMs } from '../core/ports.js';

/*
 * The rating of a closed ticket (server-behaviour §2 step 6): closing with a rating request leaves
 * the ticket waiting (`awaitingRatingUntil`, RATING_WINDOW_MS) for the customer's 1-3.
 */

class ChangedFirst extends Error {}

/** The closed ticket of a chat that still waits for a rating answer, if any. */
export async function ticketAwaitingRating(companyId: number, connectionId: number, contactId: number, now = nowMs()): Promise<TicketItem | undefined> {
  const m = await getItem<CurrentTicketMarker>(currentMarker(companyId, connectionId, contactId), true);
  if (!m || m.status !== 'closed') return undefined;
  const t = await getItem<TicketItem>(ticketKey(companyId, m.ticketId), true);
  if (!t || t.status !== 'closed' || !t.awaitingRatingUntil || Date.parse(t.awaitingRatingUntil) <= now) return undefined;
  return t;
}

/**
 * The ingest worker calls this with the chat's ticket and the text of a customer's message before
 * the normal routing. A reply 1-3 while the ticket waits for a rating records it (`rating`,
 * `ratingAt`, for the agent who served) and sends the completion message: answers true, the message
 * belongs to the closed ticket. Any other reply ends the wait and answers false (normal rule).
 */
export async function handleRatingAnswer(ticket: TicketItem, body: string, now = nowMs(), attempt = 0): Promise<boolean> {
  if (ticket.status !== 'closed' || !ticket.awaitingRatingUntil || Date.parse(ticket.awaitingRatingUntil) <= now) return false;
  const answer = body.trim().match(/^\*?([1-3])\*?$/);
  const key = ticketKey(ticket.companyId, ticket.id);
  try {
    // Conditional on still waiting: a redelivered message never records twice. The rating reaches
    // the dashboard's aggregates in the same transaction.
    const set = answer
      ? { rating: Number(answer[1]), ratingAt: new Date(now).toISOString(), awaitingRatingUntil: null }
      : { awaitingRatingUntil: null };
    const updated: TicketItem = { ...ticket, ...set, wv: (ticket.wv ?? 0) + 1 };
    const fields = Object.entries({ ...set, wv: updated.wv });
    await transact(
      [
        tx.update(
          key,
          `SET ${fields.map((_, i) => `#f${i} = :f${i}`).join(', ')}`,
          { ...Object.fromEntries(fields.map(([, v], i) => [`:f${i}`, v])), ':w': ticket.awaitingRatingUntil, ':seq': ticket.lastSeq, ...(ticket.wv === undefined ? {} : { ':wv': ticket.wv }) },
          'attribute_exists(PK) AND awaitingRatingUntil = :w AND lastSeq = :seq' + (ticket.wv === undefined ? ' AND attribute_not_exists(wv)' : ' AND wv = :wv'),
          Object.fromEntries(fields.map(([k], i) => [`#f${i}`, k])),
        ),
        ...(await ticketStatsWrites(ticket, updated)),
      ],
      () => new ChangedFirst(),
    );
    if (!answer) return false;
    await publishTicketChange(updated);
    const conn = await getItem<ConnectionItem>(connectionKey(ticket.companyId, ticket.whatsappId));
    const contact = await getItem<ContactItem>(contactKey(ticket.companyId, ticket.contactId));
    if (conn?.complationMessage?.trim()) {
      await sendAutomated(updated, fillVariables(conn.complationMessage, { name: contact?.name, timeZone: await timeZone(ticket.companyId) }));
    }
    return true;
  } catch (err) {
    if (isTransactionConflict(err) && attempt < 5) {
      // Another transaction held an aggregate item at that moment: the same change again.
      await conflictPause(attempt);
      return handleRatingAnswer(ticket, body, now, attempt + 1);
    }
    if (err instanceof ChangedFirst) {
      // Someone else changed it first: read again and decide on the fresh state.
      const again = await getItem<TicketItem>(key, true);
      if (!again || again.wv === ticket.wv) return false;
      return handleRatingAnswer(again, body, now);
    }
    throw err;
  }
}
