import { AppError, canSeeTicket } from '@balcao/shared';
import { table } from '../core/ports.js';
import { env } from '../core/env.js';
import type { Identity } from '../core/identity.js';
import { senderNames, toApiMessage } from './messages.js';
import { getTicketItem } from './tickets.js';
import { foldText } from './search-index.js';
import { messageSk } from '../table/keys.js';
import { type MessageItem, type TicketItem } from '../table/items.js';

export const MESSAGES_PAGE = 20;

/** A ticket the caller may see, or 404 (never a hint that it exists: §14). */
export async function visibleTicket(identity: Identity, ticketId: number): Promise<TicketItem> {
  const ticket = await getTicketItem(identity.companyId, ticketId);
  const viewer = { userId: identity.userId, profile: identity.profile, queueIds: identity.queueIds, allTicket: identity.allTicket };
  if (!identity.isSuper && !canSeeTicket(viewer, ticket)) throw new AppError(404, 'ERR_NO_TICKET_FOUND');
  return ticket;
}

/**
 * A page of a conversation, newest page first (`pageNumber` 1 = the latest messages), each page in
 * reading order. Messages are numbered densely per ticket, so page N is one key-range Query of
 * exactly its own items, whatever N is.
 */
export async function messagesPage(ticket: TicketItem, pageNumber: number) {
  const high = ticket.lastSeq - (pageNumber - 1) * MESSAGES_PAGE;
  if (high < 1) return { messages: [], count: ticket.lastSeq, hasMore: false };
  const low = Math.max(1, high - MESSAGES_PAGE + 1);
  const out = await table().query({
    TableName: env.tableName,
    KeyConditionExpression: 'PK = :pk AND SK BETWEEN :lo AND :hi',
    ExpressionAttributeValues: { ':pk': ticket.PK, ':lo': messageSk(low), ':hi': messageSk(high) },
  });
  const items = (out.Items ?? []) as MessageItem[];
  const names = await senderNames(ticket.companyId, items);
  return { messages: await Promise.all(items.map((m) => toApiMessage(m, names))), count: ticket.lastSeq, hasMore: low > 1 };
}

/** Messages read per step of a search, and at most per request (a search never reads other tickets). */
const SEARCH_STEP = 200;
const SEARCH_MAX_READ = 2000;

/**
 * Messages of one ticket whose text contains `term` (accents and case folded), newest first, up to
 * one page per request. The ticket's messages are read backwards in key ranges from `before` (the
 * previous answer's `nextCursor`); a request reads at most SEARCH_MAX_READ of them and says where
 * to continue, so a 10 000-message ticket costs several bounded requests, never one huge read.
 */
export async function searchMessages(ticket: TicketItem, term: string, before?: number) {
  const needle = foldText(term.trim());
  let high = Math.min(before ? before - 1 : ticket.lastSeq, ticket.lastSeq);
  const found: MessageItem[] = [];
  let read = 0;
  while (high >= 1 && found.length < MESSAGES_PAGE && read < SEARCH_MAX_READ) {
    const low = Math.max(1, high - SEARCH_STEP + 1);
    const out = await table().query({
      TableName: env.tableName,
      KeyConditionExpression: 'PK = :pk AND SK BETWEEN :lo AND :hi',
      ExpressionAttributeValues: { ':pk': ticket.PK, ':lo': messageSk(low), ':hi': messageSk(high) },
      ScanIndexForward: false,
    });
    read += high - low + 1;
    for (const m of (out.Items ?? []) as MessageItem[]) {
      if (found.length >= MESSAGES_PAGE) break;
      if (!m.isDeleted && m.body && foldText(m.body).includes(needle)) found.push(m);
      high = m.seq - 1;
    }
    if (found.length < MESSAGES_PAGE) high = low - 1;
  }
  const names = await senderNames(ticket.companyId, found);
  return {
    messages: await Promise.all(found.map((m) => toApiMessage(m, names))),
    hasMore: high >= 1,
    nextCursor: high >= 1 ? String(high + 1) : null,
  };
}
