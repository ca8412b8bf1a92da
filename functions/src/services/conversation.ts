import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { AppError, canSeeTicket } from '@balcao/shared';
import { dynamo } from '../core/aws.js';
import { env } from '../core/env.js';
import type { Identity } from '../core/identity.js';
import { messageSk, senderNames, toApiMessage, type MessageItem } from './messages.js';
import { getTicketItem, type TicketItem } from './tickets.js';

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
  const out = await dynamo().send(
    new QueryCommand({
      TableName: env.tableName,
      KeyConditionExpression: 'PK = :pk AND SK BETWEEN :lo AND :hi',
      ExpressionAttributeValues: { ':pk': ticket.PK, ':lo': messageSk(low), ':hi': messageSk(high) },
    }),
  );
  const items = (out.Items ?? []) as MessageItem[];
  const names = await senderNames(ticket.companyId, items);
  return { messages: await Promise.all(items.map((m) => toApiMessage(m, names))), count: ticket.lastSeq, hasMore: low > 1 };
}
