import {
  AppError,
  SCHEDULES_PAGE,
  SCHEDULE_MEDIA_MAX_BYTES,
  SCHEDULE_MEDIA_REFUSED,
  SCHEDULE_TICKET_OF_OTHER_CONTACT,
  checkMedia,
  companyEvent,
  displayFileName,
  fillVariables,
  isAdminProfile,
  isScheduleMedia,
  parseOrThrow,
  safeFileName,
  scheduleListQuerySchema,
  scheduleSchema,
  scheduleUpdateSchema,
  scheduleErrorText,
  type Schedule,
  type ScheduleErrorCode,
  type ScheduleReasonParams,
} from '@balcao/shared';
import { z } from 'zod';
import { nowIso, nowMs, ports, table } from '../core/ports.js';
import { env } from '../core/env.js';
import { batchGet, getItem, isConditionFailure, nextId, queryAll, queryIndexAll, transact, tx, updateItem } from '../core/db.js';
import {
  connectionKey,
  contactKey,
  fold,
  keys,
  SCHEDULE_DUE_SHARDS,
  scheduleDueKeys,
  scheduleDuePartition,
  scheduleKey,
  scheduleListSortKey,
  schedulesPartition,
} from '../table/keys.js';
import { log } from '../core/observability.js';
import { publish } from '../core/realtime.js';
import { askSessionHost } from '../core/rpc.js';
import { deleteObject, putObject, readUrl } from '../core/storage.js';
import type { Identity } from '../core/identity.js';
import type { UploadedFile } from '../core/http.js';
import { defaultConnection } from './connections.js';
import { getContactItem } from './contacts.js';
import { sendInTicket } from './outbound.js';
import { timeZone } from './ticket-lifecycle.js';
import { findOrCreateTicket } from './tickets.js';
import { visibleTicket } from './conversation.js';
import { limitError, usageDecrement, usageIncrement } from './usage.js';
import { clearItemTimer, setItemTimer, timerName } from './item-timers.js';
import { type ConnectionItem, type ContactItem, type ScheduleItem, type TicketItem, type UserItem } from '../table/items.js';


/** A job handed off without an outcome is handed again after this long (worker crash, lost message). */
const HANDOFF_RETRY_MS = 10 * 60_000;
const MAX_HANDOFFS = 3;
/** A claimed send with no outcome after this long is reported, never sent again (it may have gone). */
const SENDING_STALE_MS = 5 * 60_000;
const PER_SHARD = 500;
/**
 * The sweep hands over what is due within this (a minute's sweep and margin), each job delayed by
 * SQS to its schedule's second: a message goes within seconds of its time, not up to a minute late.
 */
const LOOKAHEAD_MS = 2.5 * 60_000;

const notFound = () => new AppError(404, 'ERR_NOT_FOUND');
const alreadySent = () =>
  new AppError(400, 'ERR_VALIDATION', { message: 'Agendamento já enviado: não pode ser alterado', fields: [{ field: 'sentAt', message: 'Agendamento já enviado: não pode ser alterado' }] });
const raced = () => new AppError(409, 'ERR_VALIDATION', { message: 'O agendamento mudou ao mesmo tempo; tente de novo' });

/** Admins and Nível 3 (who see every ticket) see every schedule; Nível 1 and 2 their own. */
export const seesAllSchedules = (profile: string, isSuper = false) => isSuper || isAdminProfile(profile) || profile === 'Nível 3';
const visibleTo = (identity: Identity, s: ScheduleItem) => seesAllSchedules(identity.profile, identity.isSuper) || s.userId === identity.userId;

/** Sent schedules keep their file: the message in the ticket names the same stored object. */
const ownsMedia = (s: ScheduleItem) => !!s.mediaKey && !s.sentAt && !s.sendingAt;

export async function toApiSchedules(companyId: number, list: ScheduleItem[]): Promise<Schedule[]> {
  const contactIds = [...new Set(list.map((s) => s.contactId))];
  const contacts = new Map((await batchGet<ContactItem>(contactIds.map((id) => contactKey(companyId, id)))).map((c) => [c.id, c]));
  const connIds = [...new Set(list.map((s) => s.whatsappId).filter((id): id is number => !!id))];
  const conns = new Map((await batchGet<ConnectionItem>(connIds.map((id) => connectionKey(companyId, id)))).map((c) => [c.id, c]));
  return Promise.all(
    list.map(async (s) => {
      const c = contacts.get(s.contactId);
      const w = s.whatsappId ? conns.get(s.whatsappId) : undefined;
      return {
        id: s.id,
        body: s.body,
        contactId: s.contactId,
        contact: c ? { id: c.id, name: c.name, number: c.number } : { id: s.contactId, name: s.contactName, number: s.contactNumber },
        sendAt: s.sendAt,
        sentAt: s.sentAt,
        status: s.status,
        reason: s.reason,
        reasonCode: s.reasonCode ?? null,
        reasonParams: s.reasonParams ?? null,
        whatsappId: s.whatsappId,
        whatsapp: w ? { id: w.id, name: w.name } : null,
        userId: s.userId,
        ticketId: s.ticketId,
        mediaPath: s.mediaPath,
        mediaName: s.mediaName,
        mediaUrl: s.mediaKey ? await readUrl(s.mediaKey, 15 * 60) : null,
        createdAt: s.createdAt,
        updatedAt: s.updatedAt,
      };
    }),
  );
}
export const toApiSchedule = async (s: ScheduleItem) => (await toApiSchedules(s.companyId, [s]))[0];

/** Live `company-<id>-schedule` events reach the schedule's owner and those who see every schedule. */
async function announce(s: ScheduleItem, action: 'create' | 'update' | 'delete') {
  const users = await queryAll<UserItem>(keys.companyPartition(s.companyId), keys.userPrefix());
  const audience = users.filter((u) => u.id === s.userId || seesAllSchedules(u.profile, u.super)).map((u) => ({ kind: 'user' as const, userId: u.id }));
  if (!audience.length) return;
  const data = action === 'delete' ? { action, scheduleId: s.id } : { action, schedule: await toApiSchedule(s) };
  await publish({ companyId: s.companyId, event: companyEvent(s.companyId, 'schedule'), data, audience });
}

async function getVisible(identity: Identity, id: number): Promise<ScheduleItem> {
  const s = await getItem<ScheduleItem>(scheduleKey(identity.companyId, id), true);
  if (!s || s.entity !== 'schedule' || !visibleTo(identity, s)) throw notFound();
  return s;
}

async function assertConnection(companyId: number, whatsappId: number | null | undefined) {
  if (!whatsappId) return;
  if (!(await getItem<ConnectionItem>(connectionKey(companyId, whatsappId)))) {
    throw new AppError(404, 'ERR_NO_WAPP_FOUND', { fields: [{ field: 'whatsappId', message: 'ERR_NO_WAPP_FOUND' }] });
  }
}

/**
 * The conversation a schedule is made from: one the caller sees, of the schedule's contact. Its
 * connection is the schedule's when none is chosen, so the message lands in that conversation.
 */
async function originTicket(identity: Identity, ticketId: number, contactId: number): Promise<TicketItem> {
  let ticket: TicketItem;
  try {
    ticket = await visibleTicket(identity, ticketId);
  } catch (err) {
    if (err instanceof AppError && err.status === 404) throw new AppError(404, 'ERR_NO_TICKET_FOUND', { fields: [{ field: 'ticketId', message: 'ERR_NO_TICKET_FOUND' }] });
    throw err;
  }
  if (ticket.contactId !== contactId) {
    throw new AppError(400, 'ERR_VALIDATION', { message: SCHEDULE_TICKET_OF_OTHER_CONTACT, fields: [{ field: 'ticketId', message: SCHEDULE_TICKET_OF_OTHER_CONTACT }] });
  }
  return ticket;
}

async function contactOf(companyId: number, contactId: number): Promise<ContactItem> {
  try {
    return await getContactItem(companyId, contactId);
  } catch {
    throw new AppError(404, 'ERR_NO_CONTACT_FOUND', { fields: [{ field: 'contactId', message: 'ERR_NO_CONTACT_FOUND' }] });
  }
}

/**
 * A company's schedules are bounded by its plan's limit (usage counter), so lists read the
 * company's partition and cut pages in memory, like quick replies and tags.
 */
const allOf = async (companyId: number) =>
  (await queryIndexAll<ScheduleItem>('GSI1', schedulesPartition(companyId))).filter((s) => s.entity === 'schedule').sort((a, b) => (a.GSI1SK < b.GSI1SK ? -1 : 1));

/** `GET /schedules`: `{schedules, count, hasMore}` by send time; search in contact name, number and text. */
export async function listSchedules(identity: Identity, query: Record<string, string | undefined>) {
  const q = parseOrThrow(scheduleListQuerySchema, query);
  const term = fold(q.searchParam ?? '');
  const digits = term.replace(/\D/g, '');
  const pageNumber = q.pageNumber ?? 1;
  const list = (await allOf(identity.companyId)).filter(
    (s) =>
      visibleTo(identity, s) &&
      (!q.contactId || s.contactId === q.contactId) &&
      (!term || fold(s.contactName).includes(term) || fold(s.body).includes(term) || (digits.length >= 3 && s.contactNumber.includes(digits))),
  );
  const page = list.slice((pageNumber - 1) * SCHEDULES_PAGE, pageNumber * SCHEDULES_PAGE);
  return { schedules: await toApiSchedules(identity.companyId, page), count: list.length, hasMore: pageNumber * SCHEDULES_PAGE < list.length };
}

export const getSchedule = async (identity: Identity, id: number) => toApiSchedule(await getVisible(identity, id));

export async function createSchedule(identity: Identity, input: unknown): Promise<ScheduleItem> {
  const data = parseOrThrow(scheduleSchema, input);
  const companyId = identity.companyId;
  const contact = await contactOf(companyId, data.contactId);
  await assertConnection(companyId, data.whatsappId);
  const origin = data.ticketId ? await originTicket(identity, data.ticketId, contact.id) : undefined;
  const id = await nextId(companyId, 'schedule');
  const now = nowIso();
  const item: ScheduleItem = {
    ...scheduleKey(companyId, id),
    entity: 'schedule',
    GSI1PK: schedulesPartition(companyId),
    GSI1SK: scheduleListSortKey(data.sendAt, id),
    ...scheduleDueKeys(companyId, id, data.sendAt),
    id,
    companyId,
    userId: identity.userId,
    contactId: contact.id,
    contactName: contact.name,
    contactNumber: contact.number,
    body: data.body,
    sendAt: data.sendAt,
    sentAt: null,
    status: 'PENDENTE',
    reason: null,
    // Not given: the ticket's connection. `null` is the dialog's "Conexão padrão", and means it.
    whatsappId: data.whatsappId === undefined ? (origin?.whatsappId ?? null) : data.whatsappId,
    ticketId: origin?.id ?? null,
    messageId: null,
    sendingAt: null,
    handoffs: 0,
    mediaKey: null,
    mediaPath: null,
    mediaName: null,
    mediaType: null,
    mediaSize: null,
    createdAt: now,
    updatedAt: now,
  };
  const limit = identity.plan?.schedules ?? 0;
  await transact([tx.put(item, 'attribute_not_exists(PK)'), usageIncrement(companyId, 'schedules', limit)], (i) => (i === 1 ? limitError('schedules', limit) : undefined));
  await setHandoffTimer(item);
  await announce(item, 'create');
  return item;
}

/** Editable until sent or while a job is sending it (server-behaviour §8). */
function assertEditable(s: ScheduleItem) {
  if (s.sentAt || s.status === 'ENVIADA' || (s.status === 'AGENDADA' && s.sendingAt)) throw alreadySent();
}

/** Saving puts the schedule back to PENDENTE at its (new) time, clearing an earlier error. */
export async function updateSchedule(identity: Identity, id: number, input: unknown): Promise<ScheduleItem> {
  const current = await getVisible(identity, id);
  assertEditable(current);
  const data = parseOrThrow(scheduleUpdateSchema, input);
  const companyId = identity.companyId;
  const contact = data.contactId && data.contactId !== current.contactId ? await contactOf(companyId, data.contactId) : undefined;
  if (data.whatsappId !== undefined) await assertConnection(companyId, data.whatsappId);
  const contactId = contact?.id ?? current.contactId;
  const origin = data.ticketId ? await originTicket(identity, data.ticketId, contactId) : undefined;
  // Another contact leaves the conversation the schedule was made from.
  const ticketId = origin?.id ?? (contact ? null : current.ticketId);
  const sendAt = data.sendAt ?? current.sendAt;
  const next: ScheduleItem = {
    ...current,
    GSI1SK: scheduleListSortKey(sendAt, id),
    ...scheduleDueKeys(companyId, id, sendAt),
    contactId,
    contactName: contact?.name ?? current.contactName,
    contactNumber: contact?.number ?? current.contactNumber,
    body: data.body ?? current.body,
    sendAt,
    whatsappId: data.whatsappId === undefined ? (origin?.whatsappId ?? current.whatsappId) : data.whatsappId,
    ticketId,
    status: 'PENDENTE',
    reason: null,
    reasonCode: null,
    reasonParams: null,
    sendingAt: null,
    handoffs: 0,
    updatedAt: nowIso(),
  };
  // Over the version read: a sweep or a send that started meanwhile wins, and this answers 409.
  await transact([tx.put(next, 'attribute_exists(PK) AND updatedAt = :u', { ':u': current.updatedAt })], () => raced());
  await setHandoffTimer(next);
  await announce(next, 'update');
  return next;
}

export async function deleteSchedule(identity: Identity, id: number): Promise<void> {
  const current = await getVisible(identity, id);
  await transact([tx.delete(scheduleKey(identity.companyId, id), 'attribute_exists(PK)'), usageDecrement(identity.companyId, 'schedules')], (i) => (i === 0 ? notFound() : undefined));
  await clearItemTimer(timerName('schedule', current.companyId, id));
  if (ownsMedia(current)) await deleteObject(current.mediaKey!).catch((err) => log.warn('schedule media not removed', { err }));
  await announce(current, 'delete');
}

/** `POST /schedules/{id}/media-upload` (multipart `file`): png, jpg or jpeg, checked by its bytes. */
export async function uploadScheduleMedia(identity: Identity, id: number, files: UploadedFile[]): Promise<ScheduleItem> {
  const current = await getVisible(identity, id);
  assertEditable(current);
  const file = files.find((f) => f.field === 'file') ?? files[0];
  if (!file) throw new AppError(400, 'ERR_VALIDATION', { message: 'Obrigatório', fields: [{ field: 'file', message: 'Obrigatório' }] });
  if (file.data.length > SCHEDULE_MEDIA_MAX_BYTES) throw new AppError(413, 'ERR_PAYLOAD_TOO_LARGE', { fields: [{ field: 'file', message: 'ERR_PAYLOAD_TOO_LARGE' }] });
  if (!isScheduleMedia(file.fileName, file.mimeType)) {
    throw new AppError(400, 'ERR_VALIDATION', { message: SCHEDULE_MEDIA_REFUSED, fields: [{ field: 'file', message: SCHEDULE_MEDIA_REFUSED }] });
  }
  const check = checkMedia(file.mimeType, file.data.length, file.data.subarray(0, 64));
  if (!check.ok) throw new AppError(400, 'ERR_VALIDATION', { message: check.message, fields: [{ field: 'file', message: check.message }] });
  const mediaPath = safeFileName(file.fileName.replace(/ /g, '_'));
  const key = `c/${identity.companyId}/schedules/${id}/${nowMs()}-${mediaPath}`;
  await putObject(key, file.data, check.mimetype);
  let updated: ScheduleItem;
  try {
    updated = await updateItem<ScheduleItem>(
      scheduleKey(identity.companyId, id),
      { mediaKey: key, mediaPath, mediaName: displayFileName(file.fileName).replace(/ /g, '_'), mediaType: check.mimetype, mediaSize: file.data.length, updatedAt: nowIso() },
      { condition: 'attribute_exists(PK) AND updatedAt = :u', values: { ':u': current.updatedAt } },
    );
  } catch (err) {
    await deleteObject(key).catch(() => undefined);
    if (isConditionFailure(err)) throw raced();
    throw err;
  }
  if (ownsMedia(current)) await deleteObject(current.mediaKey!).catch((err) => log.warn('old schedule media not removed', { err }));
  await announce(updated, 'update');
  return updated;
}

/** `DELETE /schedules/{id}/media-upload`: removes the attachment. */
export async function deleteScheduleMedia(identity: Identity, id: number): Promise<ScheduleItem> {
  const current = await getVisible(identity, id);
  assertEditable(current);
  let updated: ScheduleItem;
  try {
    updated = await updateItem<ScheduleItem>(
      scheduleKey(identity.companyId, id),
      { mediaKey: null, mediaPath: null, mediaName: null, mediaType: null, mediaSize: null, updatedAt: nowIso() },
      { condition: 'attribute_exists(PK) AND updatedAt = :u', values: { ':u': current.updatedAt } },
    );
  } catch (err) {
    if (isConditionFailure(err)) throw raced();
    throw err;
  }
  if (ownsMedia(current)) await deleteObject(current.mediaKey!).catch((err) => log.warn('schedule media not removed', { err }));
  await announce(updated, 'update');
  return updated;
}

// ------------------------------------------------------------------ dispatch

export const scheduleJobSchema = z.object({
  v: z.literal(1),
  companyId: z.number().int().positive(),
  scheduleId: z.number().int().positive(),
  /** How long SQS held the job (a job handed over ahead of its time), and the time it was made for. */
  delayMs: z.number().int().nonnegative().optional(),
  sendAt: z.string().optional(),
  /** A timer's job (no sweep claimed it yet): the worker hands the schedule over itself. */
  handoff: z.literal(true).optional(),
});
export type ScheduleJob = z.infer<typeof scheduleJobSchema>;

/** Its timer hands the schedule over a minute before `sendAt`, as a sweep would (the sweep stays the safety net). */
const setHandoffTimer = (s: ScheduleItem) =>
  setItemTimer(timerName('schedule', s.companyId, s.id), s.sendAt, 'schedules', { v: 1, companyId: s.companyId, scheduleId: s.id, sendAt: s.sendAt, handoff: true } satisfies ScheduleJob);

async function dueIn(shard: number, now: number): Promise<ScheduleItem[]> {
  const out = await table().query({
    TableName: env.tableName,
    IndexName: 'GSI4',
    KeyConditionExpression: 'GSI4PK = :p AND GSI4SK < :c',
    ExpressionAttributeValues: { ':p': scheduleDuePartition(shard), ':c': `${new Date(now + LOOKAHEAD_MS).toISOString()}#~` },
    Limit: PER_SHARD,
  });
  return (out.Items ?? []) as ScheduleItem[];
}

/**
 * The sweeper's part, the safety net of the schedules' timers: every schedule due within the
 * look-ahead is handed over (`handOver`). Answers the jobs enqueued (tests pass a `now`).
 */
export async function sweepSchedules(now = nowMs()): Promise<ScheduleJob[]> {
  const jobs: ScheduleJob[] = [];
  for (let shard = 0; shard < SCHEDULE_DUE_SHARDS; shard++) {
    for (const s of await dueIn(shard, now)) {
      if (s.entity !== 'schedule') continue;
      const job = await handOver(s, now);
      if (job) jobs.push(job);
    }
  }
  // Jobs due now together; each later one delayed to its second.
  const now0 = jobs.filter((j) => !j.delayMs);
  let failed = now0.length ? await ports().jobs.enqueue('schedules', now0) : 0;
  for (const j of jobs.filter((x) => x.delayMs)) failed += await enqueueSend(j);
  // Not enqueued: the index entry brings it back after HANDOFF_RETRY_MS.
  if (failed) log.warn('schedule jobs not enqueued', { failed: failed });
  return jobs;
}

const enqueueSend = (job: ScheduleJob) => ports().jobs.enqueue('schedules', [job], Math.ceil((job.delayMs ?? 0) / 1000));

/**
 * A due schedule becomes AGENDADA (conditional on the version read, so an edit, a sweep or a timer
 * that took it first wins) and answers its send job, delayed to its second; its index entry moves to
 * the instant it is handed again if no outcome arrives. After MAX_HANDOFFS it becomes ERRO.
 */
async function handOver(s: ScheduleItem, now: number): Promise<ScheduleJob | undefined> {
  const at = new Date(now).toISOString();
  const gaveUp = s.handoffs >= MAX_HANDOFFS;
  const set: Record<string, unknown> = gaveUp
    ? { status: 'ERRO', ...failure('HANDOFF_LOST'), updatedAt: at }
    : { status: 'AGENDADA', handoffs: s.handoffs + 1, ...scheduleDueKeys(s.companyId, s.id, new Date(now + HANDOFF_RETRY_MS).toISOString()), updatedAt: at };
  try {
    const saved = await updateItem<ScheduleItem>(scheduleKey(s.companyId, s.id), set, {
      condition: 'attribute_exists(PK) AND updatedAt = :u',
      values: { ':u': s.updatedAt },
      remove: gaveUp ? ['GSI4PK', 'GSI4SK'] : [],
    });
    await announce(saved, 'update');
  } catch (err) {
    // Edited, deleted or taken by another sweep since it was read: theirs wins.
    if (!isConditionFailure(err)) throw err;
    return undefined;
  }
  return gaveUp ? undefined : { v: 1, companyId: s.companyId, scheduleId: s.id, sendAt: s.sendAt, delayMs: Math.max(0, Date.parse(s.sendAt) - now) };
}

/** A timer's job: the schedule, still PENDENTE at the time it was set for, is handed over now. */
async function handOverOnTimer(job: ScheduleJob): Promise<ScheduleOutcome> {
  const s = await getItem<ScheduleItem>(scheduleKey(job.companyId, job.scheduleId), true);
  if (!s || s.entity !== 'schedule' || s.sendAt !== job.sendAt) return 'skipped';
  const now = nowMs();
  let send: ScheduleJob | undefined;
  if (s.status === 'PENDENTE') send = await handOver(s, now);
  // Handed over but not sending yet (this job's earlier delivery could not enqueue the send, or a
  // sweep took it): the send job again. A second send job is harmless: only one claims it.
  else if (s.status === 'AGENDADA' && !s.sendingAt) send = { v: 1, companyId: s.companyId, scheduleId: s.id, sendAt: s.sendAt, delayMs: Math.max(0, Date.parse(s.sendAt) - now) };
  if (!send) return 'skipped';
  // Not enqueued: thrown, so SQS delivers this job again, which enqueues the send (the index entry is the net).
  if (await enqueueSend(send)) throw new Error('schedule job not enqueued');
  return 'handed';
}

export type ScheduleOutcome = 'sent' | 'failed' | 'skipped' | 'handed';

/** Ends a schedule (conditional on the version read); false when something else changed it first. */
async function finish(s: ScheduleItem, set: Partial<ScheduleItem>): Promise<ScheduleItem | undefined> {
  try {
    const saved = await updateItem<ScheduleItem>(scheduleKey(s.companyId, s.id), { ...set, updatedAt: nowIso() }, {
      condition: 'attribute_exists(PK) AND updatedAt = :u',
      values: { ':u': s.updatedAt },
      remove: ['GSI4PK', 'GSI4SK'],
    });
    await announce(saved, 'update');
    return saved;
  } catch (err) {
    if (isConditionFailure(err)) return undefined;
    throw err;
  }
}

/** An ERRO's fields: the code and its parameters, and the Portuguese text (or a more precise one). */
const failure = (code: ScheduleErrorCode, params: ScheduleReasonParams = {}, text?: string) => ({
  reason: text ?? scheduleErrorText(code, params),
  reasonCode: code,
  reasonParams: Object.keys(params).length ? params : null,
});
const fail = async (s: ScheduleItem, code: ScheduleErrorCode, params?: ScheduleReasonParams, text?: string): Promise<ScheduleOutcome> =>
  (await finish(s, { status: 'ERRO', ...failure(code, params, text) })) ? 'failed' : 'skipped';

/**
 * The schedule's connection (chosen, or its conversation's); without one (or once deleted), the
 * default connection of the scheduling user, as the dialog's "Conexão padrão" says.
 */
async function connectionFor(s: ScheduleItem, user: UserItem | undefined): Promise<ConnectionItem | undefined> {
  if (s.whatsappId) {
    const own = await getItem<ConnectionItem>(connectionKey(s.companyId, s.whatsappId));
    if (own) return own;
  }
  return defaultConnection(s.companyId, user?.whatsappId);
}

/**
 * Runs one job: checks the connection and the number, claims the send (only one job can), sends
 * through the outbound path in the contact's ticket and ends the schedule ENVIADA, or ERRO with
 * the reason. A redelivered job finds the schedule claimed or ended and does nothing.
 */
export async function runScheduleJob(job: ScheduleJob): Promise<ScheduleOutcome> {
  if (job.handoff) return handOverOnTimer(job);
  const s = await getItem<ScheduleItem>(scheduleKey(job.companyId, job.scheduleId), true);
  if (!s || s.entity !== 'schedule' || s.status !== 'AGENDADA') return 'skipped';
  // Moved since this job was made (saved again, then handed again by a later sweep): that job sends it.
  if (job.sendAt && job.sendAt !== s.sendAt) return 'skipped';
  if (s.sendingAt) {
    // Another job is sending it, or crashed while sending: the message may have gone, so never resend.
    if (nowMs() - Date.parse(s.sendingAt) < SENDING_STALE_MS) return 'skipped';
    return fail(s, 'INTERRUPTED');
  }
  const contact = await getItem<ContactItem>(contactKey(s.companyId, s.contactId));
  if (!contact) return fail(s, 'CONTACT_NOT_FOUND');
  const user = await getItem<UserItem>(keys.user(s.companyId, s.userId));
  const conn = await connectionFor(s, user);
  if (!conn) return fail(s, 'NO_CONNECTION');
  if (conn.status !== 'CONNECTED') return fail(s, 'CONNECTION_DOWN', { connection: conn.name });
  // A contact known only by its LID (no number yet) is on WhatsApp by definition: nothing to check.
  if (!contact.isGroup && contact.number) {
    let exists = false;
    try {
      const check = await askSessionHost(s.companyId, conn.id, { op: 'checkNumber', number: contact.number });
      exists = check.op === 'checkNumber' && check.exists;
    } catch (err) {
      return fail(s, 'CONNECTION_NO_ANSWER', { connection: conn.name }, err instanceof AppError ? err.message : undefined);
    }
    if (!exists) return fail(s, 'NOT_ON_WHATSAPP');
  }
  // The claim: only the job that writes it sends.
  let claimed: ScheduleItem;
  try {
    claimed = await updateItem<ScheduleItem>(
      scheduleKey(s.companyId, s.id),
      { sendingAt: nowIso(), whatsappId: s.whatsappId ?? conn.id, updatedAt: nowIso() },
      { condition: 'attribute_exists(PK) AND updatedAt = :u AND #st = :a', values: { ':u': s.updatedAt, ':a': 'AGENDADA' }, names: { '#st': 'status' } },
    );
  } catch (err) {
    if (isConditionFailure(err)) return 'skipped';
    throw err;
  }
  try {
    // The contact's conversation on that connection: the one it was made from while it is open,
    // else reopened or new by the inbound rule (server-behaviour §2 step 4).
    const { ticket } = await findOrCreateTicket(s.companyId, conn.id, contact);
    const body = fillVariables(s.body, { name: contact.name, agent: user?.name ?? null, timeZone: await timeZone(s.companyId) });
    const media = s.mediaKey && s.mediaType ? { key: s.mediaKey, mimetype: s.mediaType, fileName: s.mediaName ?? undefined, size: s.mediaSize ?? 0, mediaType: 'image' as const } : undefined;
    const message = await sendInTicket(ticket, { body, userId: s.userId, media });
    return (await finish(claimed, { status: 'ENVIADA', sentAt: nowIso(), ticketId: ticket.id, messageId: message.id, reason: null, reasonCode: null, reasonParams: null })) ? 'sent' : 'skipped';
  } catch (err) {
    log.error('scheduled message not sent', { err, companyId: s.companyId, scheduleId: s.id });
    return fail(claimed, 'SEND_FAILED', { detail: err instanceof AppError ? err.code : 'ERR_SENDING_WAPP_MSG' }, err instanceof AppError ? err.message : undefined);
  }
}
