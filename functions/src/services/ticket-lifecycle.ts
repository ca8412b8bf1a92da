import {
  AppError,
  ACCEPT_GREETING,
  CLOSE_NOT_YOURS,
  RATING_REQUEST,
  SELECT_QUEUE,
  TRANSFER_NOTICE,
  createTicketSchema,
  fillVariables,
  parseOrThrow,
  updateTicketSchema,
  type UpdateTicketInput,
} from '@balcao/shared';
import { checkAutomationReferences } from './integrations.js';
import { conflictPause, getItem, nextId, queryAll, transact, tx, updateItem, isTransactionConflict, type TransactItem, isTransactionCanceled } from '../core/db.js';
import { counterDeltas, countTicketChange } from './ticket-counters.js';
import {
  connectionKey,
  contactKey,
  currentMarker,
  keys,
  messageSk,
  ticketIndexKeys,
  ticketKey,
  uuidPointer,
} from '../table/keys.js';
import { publish } from '../core/realtime.js';
import { sendCommand } from '../core/commands.js';
import type { Identity } from '../core/identity.js';
import { defaultConnection } from './connections.js';
import { peerOf, sendInTicket } from './outbound.js';
import { settingValue } from './settings.js';
import { visibleTicket } from './conversation.js';
import { getTicketItem, newTicketItem } from './tickets.js';
import { contactTicketWrites } from './search-index.js';
import { settleContactView } from './contact-view.js';
import { loadRefs, ticketEvent, toApiTicket } from './ticket-view.js';
import { log } from '../core/observability.js';
import { type ConnectionItem, type ContactItem, type CurrentTicketMarker, type MessageItem, type QueueItem, ticketGuard, type TicketItem, type UserItem } from '../table/items.js';
import { nowIso, nowMs } from '../core/ports.js';
import { ticketStatsWrites } from './dashboard-stats.js';

export const RATING_WINDOW_MS = 24 * 60 * 60 * 1000;

export class Raced extends Error {}

const isAdmin = (identity: Identity) => identity.isAdmin || identity.isSuper;

/** Strictly later than `prev`, so a ticket's list position always moves when it changes. */
export function laterThan(prev: string): string {
  const now = nowMs();
  const p = Date.parse(prev);
  return new Date(Number.isFinite(p) && p >= now ? p + 1 : now).toISOString();
}

/** The facts the fan-out checks (server-behaviour §14), plus the API shape of the ticket. */
export async function publishTicketChange(ticket: TicketItem, action: 'update' | 'delete' = 'update', before?: TicketItem) {
  const refs = await loadRefs(ticket.companyId, [ticket]);
  const view = toApiTicket(ticket, refs);
  const moved = before && (before.userId !== ticket.userId || before.queueId !== ticket.queueId || before.status !== ticket.status);
  // Those who saw the ticket before the change get the new state too, so their consoles drop a
  // ticket they may no longer see (the client applies canSeeTicket to it); order does not matter.
  await publish(moved ? [ticketEvent(ticket, view, action), ticketEvent(ticket, view, action, before)] : ticketEvent(ticket, view, action));
}

/** Who holds the chat's non-closed ticket: the answer of ERR_OTHER_OPEN_TICKET. */
async function otherOpenTicket(companyId: number, ticketId: number): Promise<AppError> {
  const other = await getItem<TicketItem>(ticketKey(companyId, ticketId), true);
  const holder = other?.userId ? await getItem<UserItem>(keys.user(companyId, other.userId)) : undefined;
  return new AppError(409, 'ERR_OTHER_OPEN_TICKET', {
    message: holder ? `Atendimento já atribuido ao usuário ${holder.name}` : 'ERR_OTHER_OPEN_TICKET',
    details: { ticketId, ticketUuid: other?.uuid ?? null, holder: holder ? { id: holder.id, name: holder.name } : null },
  });
}

/** The whole-item write of `next` over `current`, conditional on the version read, with `extra` items. */
export async function commit(current: TicketItem, next: TicketItem, extra: TransactItem[] = [], onExtraFailed?: (i: number) => Error | undefined) {
  const guard = ticketGuard(current);
  next.wv = guard.wv;
  Object.assign(next, ticketIndexKeys(next));
  try {
    // The counter and dashboard deltas go last: they carry no condition, so the indexes above stay the callers'.
    const stats = await ticketStatsWrites(current, next);
    await transact([tx.put(next, guard.condition, guard.values), ...extra, ...counterDeltas(current, next), ...stats], (i) => (i === 0 ? new Raced() : onExtraFailed?.(i - 1)));
  } catch (err) {
    if (isTransactionCanceled(err)) throw new Raced(); // transaction conflict: read again
    throw err;
  }
  countTicketChange(current, next);
  return next;
}

async function queueOf(companyId: number, id: number | null | undefined): Promise<QueueItem | undefined> {
  if (!id) return undefined;
  const q = await getItem<QueueItem>(keys.queue(companyId, id));
  if (!q) throw new AppError(400, 'ERR_VALIDATION', { message: 'ERR_NO_QUEUE_FOUND', fields: [{ field: 'queueId', message: 'ERR_NO_QUEUE_FOUND' }] });
  return q;
}
async function userOf(companyId: number, id: number | null | undefined): Promise<UserItem | undefined> {
  if (!id) return undefined;
  const u = await getItem<UserItem>(keys.user(companyId, id));
  if (!u) throw new AppError(400, 'ERR_VALIDATION', { message: 'ERR_NO_USER_FOUND', fields: [{ field: 'userId', message: 'ERR_NO_USER_FOUND' }] });
  return u;
}
async function connectionOf(companyId: number, id: number): Promise<ConnectionItem> {
  const c = await getItem<ConnectionItem>(connectionKey(companyId, id));
  if (!c) throw new AppError(400, 'ERR_VALIDATION', { message: 'ERR_NO_WAPP_FOUND', fields: [{ field: 'whatsappId', message: 'ERR_NO_WAPP_FOUND' }] });
  return c;
}

/**
 * Moves the chat's marker to `ticketId` (opening or reopening it): allowed only while the chat has
 * no other non-closed ticket on that connection.
 */
function claimMarker(companyId: number, connectionId: number, contactId: number, ticketId: number, status: string): TransactItem {
  return {
    Put: {
      TableName: process.env.TABLE_NAME!,
      Item: { ...currentMarker(companyId, connectionId, contactId), entity: 'currentTicket', ticketId, status },
      ConditionExpression: 'attribute_not_exists(PK) OR #s = :closed OR ticketId = :t',
      ExpressionAttributeNames: { '#s': 'status' },
      ExpressionAttributeValues: { ':closed': 'closed', ':t': ticketId },
    },
  };
}

async function markerHolder(companyId: number, connectionId: number, contactId: number, self: number): Promise<AppError | undefined> {
  const m = await getItem<CurrentTicketMarker>(currentMarker(companyId, connectionId, contactId), true);
  if (m && m.status !== 'closed' && m.ticketId !== self) return otherOpenTicket(companyId, m.ticketId);
  return undefined;
}

export async function timeZone(companyId: number) {
  return settingValue(companyId, 'timezone');
}

/** Sends an automated text; a failure is logged (the ticket change already committed). */
export async function sendAutomated(ticket: TicketItem, body: string) {
  try {
    return await sendInTicket(ticket, { body });
  } catch (err) {
    log.warn('automated message not sent', { err, ticketId: ticket.id });
    return undefined;
  }
}

/** The ticket after the automated messages (each one moves its list position). */
async function fresh(t: TicketItem) {
  return (await getItem<TicketItem>(ticketKey(t.companyId, t.id), true)) ?? t;
}

// ---------------------------------------------------------------- create

export async function createTicket(identity: Identity, input: unknown): Promise<TicketItem> {
  const data = parseOrThrow(createTicketSchema, input);
  const { companyId } = identity;
  const contact = await getItem<ContactItem>(contactKey(companyId, data.contactId));
  if (!contact) throw new AppError(404, 'ERR_NO_CONTACT_FOUND');
  if (!data.queueId && !isAdmin(identity)) throw new AppError(400, 'ERR_VALIDATION', { message: SELECT_QUEUE, fields: [{ field: 'queueId', message: SELECT_QUEUE }] });
  await queueOf(companyId, data.queueId);
  const userId = data.userId ?? identity.userId;
  await userOf(companyId, userId);
  let whatsappId = data.whatsappId ?? null;
  if (whatsappId) await connectionOf(companyId, whatsappId);
  else {
    // The default connection (the one new conversations start from): the caller's own, else the company's.
    const def = await defaultConnection(companyId, identity.user.whatsappId);
    if (!def) throw new AppError(404, 'ERR_NO_DEF_WAPP_FOUND');
    whatsappId = def.id;
  }
  const status = data.status ?? 'open';
  const id = await nextId(companyId, 'ticket');
  const iso = nowIso();
  const ticket = newTicketItem({ companyId, id, status, userId: status === 'pending' ? null : userId, queueId: data.queueId ?? null, contact, whatsappId, at: iso });
  // The agent starts this conversation: no first response to measure (decision 60).
  ticket.agentStarted = true;
  const items: TransactItem[] = [
    tx.put(ticket, 'attribute_not_exists(PK)'),
    tx.put({ ...uuidPointer(companyId, ticket.uuid), entity: 'ticketUuid', ticketId: id }),
  ];
  if (status !== 'closed') items.push(claimMarker(companyId, whatsappId, contact.id, id, status));
  items.push(...contactTicketWrites(companyId, contact.id, id), ...counterDeltas(null, ticket), ...(await ticketStatsWrites(null, ticket)));
  for (let attempt = 0; ; attempt++) {
    try {
      await transact(items, (i) => (i === 2 ? new Raced() : undefined));
      break;
    } catch (err) {
      if (err instanceof Raced) {
        const holder = await markerHolder(companyId, whatsappId, contact.id, id);
        throw holder ?? new AppError(409, 'ERR_CREATING_TICKET');
      }
      // Another transaction held a counter at that moment: the same items again.
      if (!isTransactionConflict(err) || attempt >= 5) throw err;
      await conflictPause(attempt);
    }
  }
  countTicketChange(null, ticket);
  await settleContactView(companyId, ticket);
  await publishTicketChange(ticket);
  return ticket;
}

// ---------------------------------------------------------------- update

interface Plan {
  next: TicketItem;
  extra: TransactItem[];
  /** Texts to send after the commit. */
  accepted: boolean;
  transferred: boolean;
  closed: boolean;
  reopenedFrom?: 'closed';
}

/**
 * `PUT /tickets/{id}` (server-behaviour §6): accept, return to pending, close (Resolver, or
 * Finalizar with `isJustFinish`), reopen, transfer, connection change, integration flags, and
 * `unreadMessages: 0` (the agent opened the ticket). Each attempt reads the ticket and writes it
 * back conditionally on the version read; a lost race re-reads and applies the rules again, so
 * the second of two agents accepting at once gets the holder's name.
 */
export async function updateTicket(identity: Identity, ticketId: number, input: unknown): Promise<TicketItem> {
  const data = parseOrThrow(updateTicketSchema, input);
  const onlyRead = data.unreadMessages === 0 && Object.entries(data).every(([k, v]) => k === 'unreadMessages' || v === undefined);
  for (let attempt = 0; attempt < 8; attempt++) {
    const current = await visibleTicket(identity, ticketId).catch(async (err) => {
      throw (await acceptedByOther(identity, ticketId, data)) ?? err;
    });
    if (onlyRead) return markRead(current);
    let plan: Plan;
    try {
      plan = await planUpdate(identity, current, data);
    } catch (err) {
      if (err instanceof Raced) continue;
      throw err;
    }
    let saved: TicketItem;
    try {
      const markerIndex = plan.extra.length ? 0 : -1;
      saved = await commit(current, plan.next, plan.extra, (i) => (i === markerIndex ? new MarkerTaken() : undefined));
    } catch (err) {
      if (err instanceof Raced) continue;
      if (err instanceof MarkerTaken) {
        // Closing: the marker moved meanwhile; the next attempt reads it again.
        const holder = plan.closed ? undefined : await markerHolder(identity.companyId, plan.next.whatsappId, current.contactId, current.id);
        if (holder) throw holder;
        continue;
      }
      throw err;
    }
    await publishTicketChange(saved, 'update', current);
    const after = await afterUpdate(identity, current, saved, plan, data);
    if (data.unreadMessages === 0) return markRead(after);
    return after;
  }
  throw new AppError(409, 'ERR_CREATING_TICKET', { message: 'O atendimento mudou várias vezes ao mesmo tempo; tente de novo' });
}

class MarkerTaken extends Error {}

/**
 * Accepting a ticket of one's queue that another agent took meanwhile (a stale list, or the
 * loser of two simultaneous accepts): once open it is no longer visible to a Nível 1, yet the
 * answer must name the holder ('Atendimento já atribuido ao usuário {name}'), not "not found".
 */
async function acceptedByOther(identity: Identity, ticketId: number, data: UpdateTicketInput): Promise<AppError | undefined> {
  if (data.status !== 'open' || data.queueId !== undefined || (data.userId != null && data.userId !== identity.userId)) return undefined;
  const t = await getItem<TicketItem>(ticketKey(identity.companyId, ticketId), true);
  if (!t || t.status !== 'open' || !t.userId || t.userId === identity.userId) return undefined;
  const couldAccept = t.queueId === null ? identity.allTicket : identity.queueIds.includes(t.queueId);
  return couldAccept ? otherOpenTicketOfUser(identity.companyId, t) : undefined;
}

async function planUpdate(identity: Identity, t: TicketItem, data: UpdateTicketInput): Promise<Plan> {
  const { companyId } = identity;
  const now = laterThan(t.updatedAt);
  const next: TicketItem = { ...t, updatedAt: now };
  const extra: TransactItem[] = [];
  const plan: Plan = { next, extra, accepted: false, transferred: false, closed: false };
  const me = identity.userId;
  const wantsQueue = data.queueId !== undefined;
  const wantsUser = data.userId !== undefined;
  const isAgentChange = data.status !== undefined || wantsQueue || wantsUser;
  // Any update by an agent stops a running integration or prompt (§6) unless it sets them.
  if (isAgentChange) {
    next.useIntegration = false;
    next.integrationId = null;
    next.promptId = null;
    next.chatbot = false;
  }
  // Only the company's own integration or prompt, and only when its plan has the feature.
  await checkAutomationReferences(companyId, { integrationId: data.integrationId, promptId: data.promptId });
  if (data.useIntegration !== undefined) next.useIntegration = data.useIntegration;
  if (data.integrationId !== undefined) next.integrationId = data.integrationId;
  if (data.promptId !== undefined) next.promptId = data.promptId;

  if (data.whatsappId !== undefined && data.whatsappId !== null && data.whatsappId !== t.whatsappId) {
    await connectionOf(companyId, data.whatsappId);
    next.whatsappId = data.whatsappId;
  }

  // Without a status: naming an agent opens, clearing the agent or changing only the queue
  // returns the ticket to the queue (a transfer without agent is pending: §6).
  const status = data.status ?? (wantsUser ? (data.userId ? 'open' : 'pending') : wantsQueue ? 'pending' : t.status);

  if (status === 'closed') {
    if (t.status === 'closed') return plan; // already closed: nothing but the flags
    if (!(t.status === 'pending' || t.userId === me || isAdmin(identity))) throw new AppError(403, 'ERR_NO_PERMISSION', { message: CLOSE_NOT_YOURS });
    next.status = 'closed';
    next.finishedAt = now;
    next.unreadMessages = 0;
    plan.closed = true;
    // The chat's marker remembers the close (the 2-hour reopen rule) in the same transaction.
    const marker = await getItem<CurrentTicketMarker>(currentMarker(companyId, t.whatsappId, t.contactId), true);
    if (marker && marker.ticketId === t.id) {
      extra.push(
        tx.update(currentMarker(companyId, t.whatsappId, t.contactId), 'SET #s = :c, closedAt = :at', { ':c': 'closed', ':at': now, ':t': t.id }, 'ticketId = :t', { '#s': 'status' }),
      );
    }
    return plan;
  }

  const isTransfer = wantsQueue && (data.queueId ?? null) !== t.queueId || (wantsUser && data.userId !== null && data.userId !== me && data.userId !== t.userId);
  const isAcceptLike = status === 'open' && !wantsQueue && (!wantsUser || data.userId === me);

  if (t.status === 'closed') {
    // Reopen: the chat must not have another non-closed ticket on this connection.
    plan.reopenedFrom = 'closed';
    next.finishedAt = null;
    next.awaitingRatingUntil = null;
    // A new cycle (§12): its wait starts now, also when the agent reopens it straight to open.
    next.queuedAt = now;
    next.firstReplyAt = null;
    next.agentStarted = false;
  }
  if (t.status === 'closed' || next.whatsappId !== t.whatsappId) {
    extra.push(claimMarker(companyId, next.whatsappId, t.contactId, t.id, status));
    if (next.whatsappId !== t.whatsappId && t.status !== 'closed') {
      // The old chat marker no longer names a non-closed ticket.
      extra.push({ Delete: { TableName: process.env.TABLE_NAME!, Key: currentMarker(companyId, t.whatsappId, t.contactId), ConditionExpression: 'ticketId = :t', ExpressionAttributeValues: { ':t': t.id } } });
    }
  }

  if (status === 'pending') {
    next.status = 'pending';
    next.userId = null;
    next.startedAt = null;
    if (t.status !== 'pending') next.queuedAt = now;
    if (wantsQueue) {
      await queueOf(companyId, data.queueId);
      next.queueId = data.queueId ?? null;
    }
    plan.transferred = isTransfer;
    return plan;
  }

  // status open
  if (isAcceptLike && !isTransfer) {
    if (t.status === 'open' && t.userId && t.userId !== me) {
      throw await otherOpenTicketOfUser(companyId, t);
    }
    next.status = 'open';
    next.userId = me;
    if (t.status !== 'open') {
      next.startedAt = now;
      plan.accepted = true;
    }
    if (!next.queueId) next.queueId = identity.queueIds[0] ?? null;
    return plan;
  }
  // Transfer: to a queue and optionally an agent (no agent → pending, handled above).
  const queue = wantsQueue ? await queueOf(companyId, data.queueId) : undefined;
  const user = wantsUser ? await userOf(companyId, data.userId) : undefined;
  if (wantsQueue) next.queueId = queue?.id ?? null;
  if (user) next.userId = user.id;
  if (!next.userId) next.userId = me;
  next.status = 'open';
  if (t.status !== 'open') next.startedAt = now;
  plan.transferred = isTransfer || next.queueId !== t.queueId || next.userId !== t.userId;
  return plan;
}

async function otherOpenTicketOfUser(companyId: number, t: TicketItem) {
  const holder = t.userId ? await getItem<UserItem>(keys.user(companyId, t.userId)) : undefined;
  return new AppError(409, 'ERR_OTHER_OPEN_TICKET', {
    message: holder ? `Atendimento já atribuido ao usuário ${holder.name}` : 'ERR_OTHER_OPEN_TICKET',
    details: { ticketId: t.id, ticketUuid: t.uuid, holder: holder ? { id: holder.id, name: holder.name } : null },
  });
}

/** Greeting, transfer notice, completion and rating request (server-behaviour §6). */
async function afterUpdate(identity: Identity, before: TicketItem, saved: TicketItem, plan: Plan, data: UpdateTicketInput): Promise<TicketItem> {
  const { companyId } = identity;
  const contact = await getItem<ContactItem>(contactKey(companyId, saved.contactId));
  if (!contact) return saved;
  let t = saved;
  if (plan.accepted && !saved.isGroup && identity.user.sendGreetingAccepted && (await settingValue(companyId, 'sendGreetingAccepted')) === 'enabled') {
    const body = fillVariables(ACCEPT_GREETING, { name: contact.name, agent: identity.user.name, timeZone: await timeZone(companyId) });
    if (await sendAutomated(t, body)) t = await fresh(t);
  } else if (plan.transferred && (await settingValue(companyId, 'sendMsgTransfTicket')) === 'enabled') {
    const [queue, agent] = await Promise.all([
      saved.queueId ? getItem<QueueItem>(keys.queue(companyId, saved.queueId)) : undefined,
      saved.userId ? getItem<UserItem>(keys.user(companyId, saved.userId)) : undefined,
    ]);
    const body = fillVariables(TRANSFER_NOTICE, { name: contact.name, queue: queue?.name, agent: agent?.name, timeZone: await timeZone(companyId) });
    if (await sendAutomated(t, body)) t = await fresh(t);
  }
  if (plan.closed && !data.isJustFinish) t = await closingMessages(before, t, contact);
  return t;
}

async function closingMessages(before: TicketItem, t: TicketItem, contact: ContactItem): Promise<TicketItem> {
  const { companyId } = t;
  const conn = await getItem<ConnectionItem>(connectionKey(companyId, t.whatsappId));
  if (!conn) return t;
  const rate = before.userId !== null && !t.isGroup && !contact.isGroup && (await settingValue(companyId, 'userRating')) === 'enabled';
  if (rate) {
    // Remember the wait for the answer before asking, so a fast reply finds it.
    t = await setFields(t, { awaitingRatingUntil: new Date(nowMs() + RATING_WINDOW_MS).toISOString(), ratingUserId: before.userId });
    if (conn.ratingMessage?.trim()) await sendAutomated(t, conn.ratingMessage);
    await sendAutomated(await fresh(t), RATING_REQUEST);
    return fresh(t);
  }
  if (conn.complationMessage?.trim()) {
    const body = fillVariables(conn.complationMessage, { name: contact.name, timeZone: await timeZone(companyId) });
    if (await sendAutomated(t, body)) return fresh(t);
  }
  return t;
}

/** Sets a few fields without moving the ticket in the lists, still guarded by the version. */
async function setFields(t: TicketItem, set: Partial<TicketItem>): Promise<TicketItem> {
  let current = t;
  for (let attempt = 0; attempt < 8; attempt++) {
    try {
      return await commit(current, { ...current, ...set });
    } catch (err) {
      if (!(err instanceof Raced)) throw err;
      current = await getTicketItem(t.companyId, t.id);
    }
  }
  throw new AppError(409, 'ERR_CREATING_TICKET');
}

// ---------------------------------------------------------------- read receipts

/**
 * The agent opened the ticket: its unread count goes to 0 everywhere (ticket event) and WhatsApp
 * gets read receipts for the inbound messages not yet read (the `read` command). Only the last
 * `unreadMessages` messages can be unread, so one key-range Query finds them.
 */
export async function markRead(t: TicketItem): Promise<TicketItem> {
  if (!t.unreadMessages) return t;
  const low = Math.max(1, t.lastSeq - Math.min(t.unreadMessages, 200) + 1 - 20);
  const msgs = await queryAll<MessageItem>(t.PK, undefined, {
    KeyConditionExpression: 'PK = :pk AND SK BETWEEN :lo AND :hi',
    ExpressionAttributeValues: { ':pk': t.PK, ':lo': messageSk(low), ':hi': messageSk(t.lastSeq) },
  });
  const unread = msgs.filter((m) => !m.fromMe && !m.read);
  const saved = await setFields(t, { unreadMessages: 0 });
  await Promise.all(unread.map((m) => updateItem({ PK: m.PK, SK: m.SK }, { read: true }).catch((err) => log.warn('message read flag not set', { err }))));
  await publishTicketChange(saved);
  const contact = await getItem<ContactItem>(contactKey(t.companyId, t.contactId));
  if (unread.length && contact) {
    await sendCommand({
      type: 'read',
      companyId: t.companyId,
      connectionId: t.whatsappId,
      to: peerOf(contact),
      waMessageIds: unread.map((m) => m.id),
    }).catch((err) => log.warn('read receipts not sent', { err }));
  }
  return saved;
}

export { visibleTicket };
