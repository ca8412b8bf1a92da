import { AppError, MSG, companyEvent, defaultSchedule, parseOrThrow, queueSchema, queueUpdateSchema, type Queue, type QueueInput } from '@balcao/shared';
import { clean, getItem, nextId, queryAll, transact, tx, type TransactItem } from '../core/db.js';
import { deleteQueueTree } from './queue-options.js';
import { checkAutomationReferences } from './integrations.js';
import { keys } from '../table/keys.js';
import { publish } from '../core/realtime.js';
import { limitError, usageDecrement, usageIncrement } from './usage.js';
import { forgetTicketRef } from './ref-cache.js';
import { type CompanyItem, type PlanItem, type QueueItem, type UserItem } from '../table/items.js';
import { nowIso } from '../core/ports.js';

const colorTaken = () =>
  new AppError(409, 'ERR_QUEUE_COLOR_ALREADY_EXISTS', { fields: [{ field: 'color', message: 'ERR_QUEUE_COLOR_ALREADY_EXISTS' }] });
const greetingRequired = () =>
  new AppError(400, 'ERR_WAPP_GREETING_REQUIRED', { fields: [{ field: 'greetingMessage', message: 'ERR_WAPP_GREETING_REQUIRED' }] });

/** Queues stored before issue 18 answer the defaults: TEXT, no FORM targets, the default schedule. */
export const toApiQueue = (q: QueueItem): Queue =>
  ({
    ...clean(q),
    type: q.type ?? 'TEXT',
    nextQueueId: q.nextQueueId ?? null,
    nextQueueInvalidFormId: q.nextQueueInvalidFormId ?? null,
    schedules: q.schedules ?? defaultSchedule(),
  }) as unknown as Queue;

/**
 * The fields that name other things: the FORM targets must be queues of the company, an
 * integration or a prompt one of the company's that its plan allows, and an INTEGRATION queue
 * needs its integration (`data` is the queue as it will be).
 */
async function checkReferences(companyId: number, data: Partial<QueueInput>) {
  if (data.type === 'INTEGRATION' && !data.integrationId) {
    throw new AppError(400, 'ERR_VALIDATION', { message: MSG.integrationRequired, fields: [{ field: 'integrationId', message: MSG.integrationRequired }] });
  }
  await checkAutomationReferences(companyId, data);
  for (const field of ['nextQueueId', 'nextQueueInvalidFormId'] as const) {
    const id = data[field];
    if (id && !(await getItem<QueueItem>(keys.queue(companyId, id)))) {
      throw new AppError(400, 'ERR_VALIDATION', { message: 'ERR_NO_QUEUE_FOUND', fields: [{ field, message: 'ERR_NO_QUEUE_FOUND' }] });
    }
  }
}

export const listQueueItems = (companyId: number) => queryAll<QueueItem>(keys.companyPartition(companyId), keys.queuePrefix());

/** Queues in menu order: `orderQueue` first (unset last), then name. */
export async function listQueues(companyId: number): Promise<Queue[]> {
  const items = await listQueueItems(companyId);
  return items
    .sort((a, b) => (a.orderQueue ?? Number.MAX_SAFE_INTEGER) - (b.orderQueue ?? Number.MAX_SAFE_INTEGER) || a.name.localeCompare(b.name, 'pt-BR'))
    .map(toApiQueue);
}

export async function getQueueItem(companyId: number, id: number): Promise<QueueItem> {
  const item = await getItem<QueueItem>(keys.queue(companyId, id));
  if (!item) throw new AppError(404, 'ERR_NO_QUEUE_FOUND');
  return item;
}

export async function createQueue(companyId: number, input: unknown): Promise<Queue> {
  const data = parseOrThrow(queueSchema, input);
  await checkReferences(companyId, data);
  const existing = await listQueueItems(companyId);
  // With more than one queue the contact is offered a menu, so each queue needs its greeting.
  if (existing.length >= 1 && !data.greetingMessage?.trim()) throw greetingRequired();
  const company = await getItem<CompanyItem>(keys.company(companyId));
  const plan = company ? await getItem<PlanItem>(keys.plan(company.planId)) : undefined;
  const id = await nextId(companyId, 'queue');
  const now = nowIso();
  const item: QueueItem = {
    ...keys.queue(companyId, id),
    entity: 'queue',
    id,
    companyId,
    name: data.name,
    color: data.color,
    greetingMessage: data.greetingMessage ?? '',
    outOfHoursMessage: data.outOfHoursMessage ?? '',
    orderQueue: data.orderQueue ?? null,
    integrationId: data.integrationId ?? null,
    promptId: data.promptId ?? null,
    type: data.type ?? 'TEXT',
    nextQueueId: data.nextQueueId ?? null,
    nextQueueInvalidFormId: data.nextQueueInvalidFormId ?? null,
    schedules: data.schedules ?? defaultSchedule(),
    createdAt: now,
    updatedAt: now,
  };
  const limit = plan?.queues ?? 0;
  await transact(
    [
      tx.putUnique({ ...keys.uniqueQueueColor(companyId, data.color), entity: 'unique', queueId: id }),
      tx.put(item, 'attribute_not_exists(PK)'),
      usageIncrement(companyId, 'queues', limit),
    ],
    (i) => (i === 0 ? colorTaken() : i === 2 ? limitError('queues', limit) : undefined),
  );
  const queue = toApiQueue(item);
  await publish({ companyId, event: companyEvent(companyId, 'queue'), data: { action: 'create', queue }, audience: [{ kind: 'company' }] });
  return queue;
}

export async function updateQueue(companyId: number, id: number, input: unknown): Promise<Queue> {
  const current = await getQueueItem(companyId, id);
  const data = parseOrThrow(queueUpdateSchema, input);
  await checkReferences(companyId, {
    ...data,
    type: data.type ?? current.type ?? 'TEXT',
    integrationId: data.integrationId !== undefined ? data.integrationId : current.integrationId,
  });
  const greeting = data.greetingMessage ?? current.greetingMessage;
  if (!greeting.trim()) {
    const count = (await listQueueItems(companyId)).length;
    if (count > 1) throw greetingRequired();
  }
  const now = nowIso();
  const next: QueueItem = {
    ...current,
    ...Object.fromEntries(Object.entries(data).filter(([, v]) => v !== undefined)),
    updatedAt: now,
  } as QueueItem;
  // Optimistic check: a concurrent edit in between makes this one fail instead of overwriting it.
  const items: TransactItem[] = [tx.put(next, 'attribute_exists(PK) AND updatedAt = :seen', { ':seen': current.updatedAt })];
  const colorChanged = data.color && data.color.toLowerCase() !== current.color.toLowerCase();
  if (colorChanged) {
    items.unshift(tx.putUnique({ ...keys.uniqueQueueColor(companyId, data.color!), entity: 'unique', queueId: id }));
    items.push(tx.delete(keys.uniqueQueueColor(companyId, current.color)));
  }
  await transact(items, (i) => {
    if (colorChanged && i === 0) return colorTaken();
    return new AppError(409, 'ERR_VALIDATION', { message: 'A fila foi alterada por outra pessoa; recarregue e tente de novo' });
  });
  const queue = toApiQueue(next);
  forgetTicketRef(keys.queue(companyId, id));
  await publish({ companyId, event: companyEvent(companyId, 'queue'), data: { action: 'update', queue }, audience: [{ kind: 'company' }] });
  return queue;
}

/** Deleting a queue also takes it out of every user's queues. */
export async function deleteQueue(companyId: number, id: number): Promise<void> {
  const current = await getQueueItem(companyId, id);
  // Its options tree first, so a delete stopped midway is finished by the next try (the queue is still there).
  await deleteQueueTree(companyId, id);
  await transact(
    [
      tx.delete(keys.queue(companyId, id), 'attribute_exists(PK)'),
      tx.delete(keys.uniqueQueueColor(companyId, current.color)),
      usageDecrement(companyId, 'queues'),
    ],
    (i) => (i === 0 ? new AppError(404, 'ERR_NO_QUEUE_FOUND') : undefined),
  );
  // An option created while the queue went could not be (its create checks the queue), but a tree
  // written in between is swept again.
  await deleteQueueTree(companyId, id);
  const users = await queryAll<UserItem>(keys.companyPartition(companyId), keys.userPrefix());
  const now = nowIso();
  await Promise.all(
    users
      .filter((u) => u.queueIds?.includes(id))
      .map((u) =>
        transact([
          tx.update(keys.user(companyId, u.id), 'SET queueIds = :q, updatedAt = :u', { ':q': u.queueIds.filter((q) => q !== id), ':u': now }, 'attribute_exists(PK)'),
        ]).catch(() => undefined),
      ),
  );
  await publish({ companyId, event: companyEvent(companyId, 'queue'), data: { action: 'delete', queueId: id }, audience: [{ kind: 'company' }] });
}
