import {
  AppError,
  MSG,
  QUEUE_OPTION_DEPTH_MAX,
  QUEUE_OPTION_WIDTH_MAX,
  parseOrThrow,
  queueOptionListQuerySchema,
  queueOptionSchema,
  queueOptionUpdateSchema,
  type QueueOption,
} from '@balcao/shared';
import { batchWrite, clean, getItem, isTransactionCanceled, nextId, queryAll, transact, tx, type TransactItem } from '../core/db.js';
import { nowIso } from '../core/ports.js';
import { env } from '../core/env.js';
import { keys } from '../table/keys.js';
import type { QueueItem, QueueOptionItem } from '../table/items.js';

/**
 * A queue's options tree (spec 003 §4, server-behaviour §4): the numbered menu the bot walks, or
 * the fields of a FORM queue. One partition per queue, so the bot reads a queue's tree with one
 * Query. Siblings have distinct numbers (a marker item per number) and at most 50 of them (a
 * count per parent, raised conditionally); a tree is at most 10 levels deep.
 */

const notFound = () => new AppError(404, 'ERR_NO_QUEUE_OPTION_FOUND');
const fieldError = (field: string, message: string, status = 400) => new AppError(status, 'ERR_VALIDATION', { message, fields: [{ field, message }] });

/** Every option of a queue (the bot's and the editor's view). */
export const listQueueOptionItems = (companyId: number, queueId: number) =>
  queryAll<QueueOptionItem>(keys.queueOptionsPartition(companyId, queueId), keys.queueOptionPrefix());

/** Siblings in menu order: by their number. */
export const byOptionNumber = (a: Pick<QueueOptionItem, 'option' | 'id'>, b: Pick<QueueOptionItem, 'option' | 'id'>) => Number(a.option) - Number(b.option) || a.id - b.id;

function toApi(o: QueueOptionItem, all: QueueOptionItem[]): QueueOption {
  const { depth: _depth, companyId: _companyId, ...rest } = clean(o);
  return { ...rest, children: all.filter((x) => x.parentId === o.id).length };
}

async function queueOf(companyId: number, queueId: number, field = 'queueId'): Promise<QueueItem> {
  const q = await getItem<QueueItem>(keys.queue(companyId, queueId));
  // Another company's queue is as absent as one that never existed.
  if (!q) throw field === 'queueId' ? new AppError(404, 'ERR_NO_QUEUE_FOUND') : fieldError(field, 'ERR_NO_QUEUE_FOUND');
  return q;
}

/** `GET /queue-options?queueId=&parentId=` (`-1` for the root level). */
export async function listQueueOptions(companyId: number, query: unknown): Promise<QueueOption[]> {
  const { queueId, parentId } = parseOrThrow(queueOptionListQuerySchema, query);
  await queueOf(companyId, queueId);
  const all = await listQueueOptionItems(companyId, queueId);
  return all
    .filter((o) => o.parentId === parentId)
    .sort(byOptionNumber)
    .map((o) => toApi(o, all));
}

/** Finds an option of the company by id alone (the routes name only the option). */
async function optionById(companyId: number, id: number): Promise<QueueOptionItem> {
  const pointer = await getItem<{ queueId: number }>(keys.queueOptionPointer(companyId, id));
  const item = pointer && (await getItem<QueueOptionItem>(keys.queueOption(companyId, pointer.queueId, id), true));
  if (!item) throw notFound();
  return item;
}

export async function getQueueOption(companyId: number, id: number): Promise<QueueOption> {
  const o = await optionById(companyId, id);
  return toApi(o, await listQueueOptionItems(companyId, o.queueId));
}

const widthRaise = (companyId: number, queueId: number, parentId: number | null): TransactItem =>
  tx.update(keys.queueOptionWidth(companyId, queueId, parentId), 'ADD children :one', { ':one': 1, ':max': QUEUE_OPTION_WIDTH_MAX }, 'attribute_not_exists(children) OR children < :max');
const widthLower = (companyId: number, queueId: number, parentId: number | null): TransactItem =>
  tx.update(keys.queueOptionWidth(companyId, queueId, parentId), 'ADD children :minus', { ':minus': -1 });

/** `POST /queue-options`. */
export async function createQueueOption(companyId: number, input: unknown): Promise<QueueOption> {
  const data = parseOrThrow(queueOptionSchema, input);
  await queueOf(companyId, data.queueId);
  const parentId = data.parentId ?? null;
  let depth = 1;
  if (parentId) {
    const parent = await getItem<QueueOptionItem>(keys.queueOption(companyId, data.queueId, parentId), true);
    if (!parent) throw fieldError('parentId', 'ERR_NO_QUEUE_OPTION_FOUND');
    depth = parent.depth + 1;
    if (depth > QUEUE_OPTION_DEPTH_MAX) throw fieldError('parentId', MSG.optionTooDeep);
  }
  if (data.transferToQueueId) await queueOf(companyId, data.transferToQueueId, 'transferToQueueId');
  const id = await nextId(companyId, 'queueOption');
  const now = nowIso();
  const item: QueueOptionItem = {
    ...keys.queueOption(companyId, data.queueId, id),
    entity: 'queueOption',
    id,
    companyId,
    queueId: data.queueId,
    parentId,
    depth,
    title: data.title,
    message: data.message ?? '',
    option: data.option,
    fieldName: data.fieldName ?? null,
    isValidationField: data.isValidationField ?? false,
    validation: data.validation ?? null,
    transferToQueueId: data.transferToQueueId ?? null,
    createdAt: now,
    updatedAt: now,
  };
  await transact(
    [
      tx.putUnique({ ...keys.queueOptionNumber(companyId, data.queueId, parentId, data.option), entity: 'queueOptionNumber', optionId: id }),
      widthRaise(companyId, data.queueId, parentId),
      tx.put(item, 'attribute_not_exists(PK)'),
      tx.put({ ...keys.queueOptionPointer(companyId, id), entity: 'queueOptionPointer', queueId: data.queueId }),
      // The queue and the parent must still be there (a queue or subtree deleted meanwhile takes no new options).
      tx.conditionCheck(keys.queue(companyId, data.queueId), 'attribute_exists(PK)'),
      ...(parentId ? [tx.conditionCheck(keys.queueOption(companyId, data.queueId, parentId), 'attribute_exists(PK)')] : []),
    ],
    (i) =>
      i === 0
        ? fieldError('option', MSG.optionTaken, 409)
        : i === 1
          ? fieldError('option', MSG.optionTooWide)
          : i === 4
            ? new AppError(404, 'ERR_NO_QUEUE_FOUND')
            : i === 5
              ? fieldError('parentId', 'ERR_NO_QUEUE_OPTION_FOUND')
              : undefined,
  );
  return toApi(item, []);
}

/** `PUT /queue-options/{id}`: title, message, number, FORM field settings, transfer target. */
export async function updateQueueOption(companyId: number, id: number, input: unknown): Promise<QueueOption> {
  const current = await optionById(companyId, id);
  const data = parseOrThrow(queueOptionUpdateSchema, input);
  if (data.transferToQueueId) await queueOf(companyId, data.transferToQueueId, 'transferToQueueId');
  const next: QueueOptionItem = {
    ...current,
    ...Object.fromEntries(Object.entries(data).filter(([, v]) => v !== undefined)),
    updatedAt: nowIso(),
  } as QueueOptionItem;
  const items: TransactItem[] = [tx.put(next, 'attribute_exists(PK) AND updatedAt = :seen', { ':seen': current.updatedAt })];
  const renumbered = next.option !== current.option;
  if (renumbered) {
    items.push(tx.putUnique({ ...keys.queueOptionNumber(companyId, current.queueId, current.parentId, next.option), entity: 'queueOptionNumber', optionId: id }));
    items.push(tx.delete(keys.queueOptionNumber(companyId, current.queueId, current.parentId, current.option)));
  }
  await transact(items, (i) =>
    i === 1 && renumbered ? fieldError('option', MSG.optionTaken, 409) : new AppError(409, 'ERR_VALIDATION', { message: 'A opção foi alterada por outra pessoa; recarregue e tente de novo' }),
  );
  return toApi(next, await listQueueOptionItems(companyId, current.queueId));
}

/**
 * `DELETE /queue-options/{id}`: the option and everything under it, deepest first. Each option goes
 * in one transaction with its number marker (only if still its own: a renumbered option's old
 * number may be a sibling's now), its pointer and its parent's count, and only while it has no
 * children (a child created meanwhile makes the delete list the tree again and take it too). A
 * second delete of the same option finds it gone: 404, counts untouched.
 */
export async function deleteQueueOption(companyId: number, id: number): Promise<void> {
  for (let attempt = 0; attempt < 6; attempt++) {
    const root = await optionById(companyId, id);
    if (await deleteSubtree(companyId, root)) return;
  }
  throw new AppError(409, 'ERR_VALIDATION', { message: 'O menu mudou ao mesmo tempo; tente de novo' });
}

const conditionalDelete = (key: { PK: string; SK: string }, condition: string, values: Record<string, unknown>): TransactItem => ({
  Delete: { TableName: env.tableName, Key: key, ConditionExpression: condition, ExpressionAttributeValues: values },
});

/** Deletes `root`'s subtree as read now; false when a concurrent change calls for a fresh read. */
async function deleteSubtree(companyId: number, root: QueueOptionItem): Promise<boolean> {
  const all = await listQueueOptionItems(companyId, root.queueId);
  const subtree: QueueOptionItem[] = [];
  const walk = (o: QueueOptionItem) => {
    for (const c of all.filter((x) => x.parentId === o.id)) walk(c);
    subtree.push(o);
  };
  walk(all.find((o) => o.id === root.id) ?? root);
  for (const o of subtree) {
    try {
      await transact([
        tx.delete(keys.queueOption(companyId, o.queueId, o.id), 'attribute_exists(PK)'),
        conditionalDelete(keys.queueOptionNumber(companyId, o.queueId, o.parentId, o.option), 'attribute_not_exists(PK) OR optionId = :id', { ':id': o.id }),
        tx.delete(keys.queueOptionPointer(companyId, o.id)),
        conditionalDelete(keys.queueOptionWidth(companyId, o.queueId, o.id), 'attribute_not_exists(children) OR children <= :zero', { ':zero': 0 }),
        widthLower(companyId, o.queueId, o.parentId),
      ]);
    } catch (err) {
      if (isTransactionCanceled(err)) return false;
      throw err;
    }
  }
  return true;
}

/** A queue's whole tree, when the queue goes (idempotent: a retry deletes what is left). */
export async function deleteQueueTree(companyId: number, queueId: number): Promise<void> {
  const items = await queryAll<{ PK: string; SK: string; id?: number; entity?: string }>(keys.queueOptionsPartition(companyId, queueId), undefined, { ProjectionExpression: 'PK, SK, id, entity' });
  await batchWrite([
    ...items.filter((i) => i.entity === 'queueOption' && i.id).map((i) => ({ DeleteRequest: { Key: keys.queueOptionPointer(companyId, i.id!) } })),
    ...items.map((i) => ({ DeleteRequest: { Key: { PK: i.PK, SK: i.SK } } })),
  ]);
}
