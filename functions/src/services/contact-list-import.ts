import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { z } from 'zod';
import {
  AppError,
  IMPORT_REPORT_ERRORS,
  checkListRows,
  type ApiContactList,
  type ContactListImport,
  type ListImportRow,
} from '@balcao/shared';
import { batchGet, batchWrite, getItem, isConditionFailure, isTransactionCanceled, reserveIds, transact, tx, updateItem, type TransactItem } from '../core/db.js';
import type { Identity } from '../core/identity.js';
import type { UploadedFile } from '../core/http.js';
import { log } from '../core/observability.js';
import { env } from '../core/env.js';
import { nowIso, nowMs, ports, table, uuid } from '../core/ports.js';
import { numbersOnWhatsApp } from '../core/rpc.js';
import { contactListImportChunkKey, contactListItemPointer, contactListItemsPartition, contactListItemSk, contactListKey, contactListNumberMarker } from '../table/keys.js';
import type { ContactListEntryItem, ContactListImportChunk, ContactListImportRun, ContactListRecord } from '../table/items.js';
import { announceList, itemSearchText, toApiContactList } from './campaign-contact-lists.js';
import { defaultConnection } from './connections.js';
import { readContactListSpreadsheet } from './spreadsheets.js';

/**
 * Spreadsheet imports into a contact list (issue 20 §2, server-behaviour §10). The request reads
 * and checks the whole file (nothing is imported from a refused one), keeps its good rows in chunks
 * in the list's partition, reserves their ids and answers at once; a worker then writes the items
 * chunk by chunk, asking WhatsApp about each chunk's numbers through the company's default
 * connection. The list carries the progress and the report, announced with each chunk.
 *
 * Nothing is added twice, whatever repeats: each row has its id from the start (the reserved
 * range), a number's marker names the item holding it, so a rerun of a chunk finds its own rows
 * already there; the counts move once per chunk, conditioned on the chunk being the next one.
 */
export const IMPORT_CHUNK_ROWS = 500;
/** Rows written per transaction: marker, item and pointer each (DynamoDB's limit is 100 items). */
const ROWS_PER_TRANSACTION = 33;
/** Transactions in flight for one chunk. */
const WIDTH = 4;
/** A running import that has not moved for this long is taken as dead: a new upload may replace it. */
const STALE_MS = 15 * 60_000;
/** Chunks wait this long for the worker (days); an import never takes more. */
const CHUNK_TTL_S = 2 * 24 * 3600;

export const contactListImportJobSchema = z.object({ companyId: z.number().int(), contactListId: z.number().int(), importId: z.string() });
export type ContactListImportJob = z.infer<typeof contactListImportJobSchema>;

const notFound = () => new AppError(404, 'ERR_NOT_FOUND');
const running = () => new AppError(409, 'ERR_IMPORT_RUNNING');

const jobGroup = (job: ContactListImportJob) => `list-${job.companyId}-${job.contactListId}`;
const enqueueStep = (job: ContactListImportJob, chunk: number) => ports().jobs.enqueueOrdered('contact-list-imports', job, jobGroup(job), `${job.importId}-${chunk}`);

/** `POST /contact-lists/{id}/upload`: checks the file, keeps its rows and starts the import (202). */
export async function uploadContactList(identity: Identity, id: number, files: UploadedFile[]): Promise<ApiContactList> {
  const companyId = identity.companyId;
  const list = await getItem<ContactListRecord & { deleting?: boolean }>(contactListKey(companyId, id), true);
  if (!list || list.deleting) throw notFound();
  const file = files.find((f) => f.field === 'file') ?? files[0];
  if (!file) throw new AppError(400, 'ERR_VALIDATION', { message: 'Obrigatório', fields: [{ field: 'file', message: 'Obrigatório' }] });
  if (list.import?.status === 'running' && !isStale(list)) throw running();

  const { rows } = readContactListSpreadsheet(file.data);
  const { valid, errors } = checkListRows(rows);
  const importId = uuid();
  const chunks = Math.ceil(valid.length / IMPORT_CHUNK_ROWS);
  const firstId = valid.length ? await reserveIds(companyId, 'contactListItem', valid.length) : 0;
  const ttl = Math.floor(nowMs() / 1000) + CHUNK_TTL_S;
  const chunkItems: ContactListImportChunk[] = [];
  for (let c = 0; c < chunks; c++) {
    chunkItems.push({ ...contactListImportChunkKey(companyId, id, importId, c), entity: 'contactListImportChunk', rows: valid.slice(c * IMPORT_CHUNK_ROWS, (c + 1) * IMPORT_CHUNK_ROWS), ttl });
  }
  await batchWrite(chunkItems.map((Item) => ({ PutRequest: { Item: Item as unknown as Record<string, unknown> } })));

  const connection = await defaultConnection(companyId, identity.user.whatsappId);
  const now = nowIso();
  const duplicatedInFile = errors.filter((e) => e.reason === 'duplicatedInFile').length;
  const state: ContactListImport = {
    id: importId,
    status: chunks ? 'running' : 'done',
    fileName: file.fileName.slice(0, 200),
    total: rows.length,
    processed: errors.length,
    imported: 0,
    duplicated: duplicatedInFile,
    invalid: errors.length - duplicatedInFile,
    whatsappValid: 0,
    whatsappInvalid: 0,
    errors: errors.slice(0, IMPORT_REPORT_ERRORS),
    startedAt: now,
    ...(chunks ? {} : { finishedAt: now }),
  };
  const run: ContactListImportRun = { id: importId, chunks, nextChunk: 0, firstId, connectionId: connection?.status === 'CONNECTED' ? connection.id : null };
  let updated: ContactListRecord;
  try {
    updated = await updateItem<ContactListRecord>(
      contactListKey(companyId, id),
      { import: state, importRun: run, updatedAt: now },
      {
        condition: 'attribute_exists(PK) AND attribute_not_exists(deleting) AND (attribute_not_exists(#import) OR #import.#status <> :running OR updatedAt < :stale)',
        names: { '#import': 'import', '#status': 'status' },
        values: { ':running': 'running', ':stale': new Date(nowMs() - STALE_MS).toISOString() },
      },
    );
  } catch (err) {
    await batchWrite(chunkItems.map((c) => ({ DeleteRequest: { Key: { PK: c.PK, SK: c.SK } } })));
    if (isConditionFailure(err)) throw running();
    throw err;
  }
  if (chunks) {
    try {
      await enqueueStep({ companyId, contactListId: id, importId }, 0);
    } catch (err) {
      log.error('contact-list import not started', { err, companyId, contactListId: id });
      await finishImport(companyId, id, importId, 'failed');
      throw err;
    }
  }
  const record = toApiContactList(updated);
  await announceList(companyId, { action: 'update', record });
  return record;
}

const isStale = (list: ContactListRecord) => Date.parse(list.updatedAt) < nowMs() - STALE_MS;

async function finishImport(companyId: number, listId: number, importId: string, status: 'failed' | 'done') {
  const now = nowIso();
  const updated = await updateList(companyId, listId, 'SET #import.#status = :status, #import.finishedAt = :now, updatedAt = :now', 'importRun.id = :id', {
    ':status': status,
    ':now': now,
    ':id': importId,
  });
  if (updated) await announceList(companyId, { action: 'update', record: toApiContactList(updated) });
}

/** One conditional update of a list, answering it as it is after; undefined when the condition failed. */
async function updateList(companyId: number, listId: number, expression: string, condition: string, values: Record<string, unknown>) {
  try {
    const out = await table().send(
      new UpdateCommand({
        TableName: env.tableName,
        Key: contactListKey(companyId, listId),
        UpdateExpression: expression,
        ConditionExpression: condition,
        // DynamoDB refuses names an expression does not use.
        ExpressionAttributeNames: { '#import': 'import', ...(expression.includes('#status') ? { '#status': 'status' } : {}) },
        ExpressionAttributeValues: values,
        ReturnValues: 'ALL_NEW',
      }),
    );
    return out.Attributes as ContactListRecord;
  } catch (err) {
    if (isConditionFailure(err)) return undefined;
    throw err;
  }
}

/**
 * The import worker's job: the next chunks while `hasTime()`, then the rest handed to a next job.
 * Answers what it did (for the log).
 */
export async function runContactListImport(job: ContactListImportJob, hasTime: () => boolean = () => true): Promise<string> {
  const { companyId, contactListId, importId } = job;
  for (;;) {
    const list = await getItem<ContactListRecord & { deleting?: boolean }>(contactListKey(companyId, contactListId), true);
    const run = list?.importRun;
    if (!list || list.deleting || !run || run.id !== importId) return 'gone';
    if (list.import?.status !== 'running' || run.nextChunk >= run.chunks) return 'done';
    if (!hasTime()) {
      await enqueueStep(job, run.nextChunk);
      return 'continued';
    }
    const chunkKey = contactListImportChunkKey(companyId, contactListId, importId, run.nextChunk);
    const chunk = await getItem<ContactListImportChunk>(chunkKey, true);
    if (!chunk) {
      log.error('contact-list import chunk missing', { companyId, contactListId, chunk: run.nextChunk });
      await finishImport(companyId, contactListId, importId, 'failed');
      return 'failed';
    }
    const outcome = await importChunk(list, run, chunk);
    if (await recordChunk(list, run, outcome)) await batchWrite([{ DeleteRequest: { Key: chunkKey } }]);
  }
}

interface ChunkOutcome {
  imported: number;
  valid: number;
  invalid: number;
  duplicates: { row: number }[];
}

/** Writes one chunk's rows (those already written by an earlier try count as imported). */
async function importChunk(list: ContactListRecord, run: ContactListImportRun, chunk: ContactListImportChunk): Promise<ChunkOutcome> {
  const companyId = list.companyId;
  const base = run.firstId + run.nextChunk * IMPORT_CHUNK_ROWS;
  const rows = chunk.rows.map((row, i) => ({ row, id: base + i }));
  const validity = chunk.valid ?? (await checkOnWhatsApp(companyId, run.connectionId, chunk));
  const markers = new Map(
    (await batchGet<{ SK: string; itemId: number }>(rows.map((r) => contactListNumberMarker(companyId, list.id, r.row.number)))).map((m) => [m.SK, m.itemId]),
  );
  const held = (r: { row: ListImportRow }) => markers.get(contactListNumberMarker(companyId, list.id, r.row.number).SK);
  const mine = rows.filter((r) => held(r) === r.id);
  const fresh = rows.filter((r) => held(r) === undefined);
  const duplicates = rows.filter((r) => held(r) !== undefined && held(r) !== r.id).map((r) => ({ row: r.row.row }));
  const now = nowIso();
  const itemOf = (r: (typeof rows)[number]): ContactListEntryItem => ({
    PK: contactListItemsPartition(companyId, list.id),
    SK: contactListItemSk(r.row.name, r.id),
    entity: 'contactListItem',
    id: r.id,
    companyId,
    contactListId: list.id,
    name: r.row.name,
    number: r.row.number,
    email: r.row.email,
    isWhatsappValid: validity[r.id - base] ?? null,
    search: itemSearchText(r.row.name, r.row.number, r.row.email),
    createdAt: now,
    updatedAt: now,
  });
  const writes = (r: (typeof rows)[number]): TransactItem[] => {
    const item = itemOf(r);
    return [
      tx.putUnique({ ...contactListNumberMarker(companyId, list.id, r.row.number), entity: 'unique', itemId: r.id }),
      tx.put(item, 'attribute_not_exists(PK)'),
      tx.put({ ...contactListItemPointer(companyId, r.id), entity: 'contactListItemPointer', contactListId: list.id, sk: item.SK }),
    ];
  };
  const written: typeof rows = [...mine];
  const groups: (typeof rows)[] = [];
  for (let i = 0; i < fresh.length; i += ROWS_PER_TRANSACTION) groups.push(fresh.slice(i, i + ROWS_PER_TRANSACTION));
  const writeGroup = async (group: typeof rows) => {
    try {
      await transact(group.flatMap(writes));
      written.push(...group);
    } catch (err) {
      if (!isTransactionCanceled(err)) throw err;
      // A number added meanwhile (the item dialog, another list import): one row at a time.
      for (const r of group) {
        try {
          await transact(writes(r));
          written.push(r);
        } catch (rowErr) {
          if (!isTransactionCanceled(rowErr)) throw rowErr;
          const marker = await getItem<{ itemId: number }>(contactListNumberMarker(companyId, list.id, r.row.number), true);
          if (marker?.itemId === r.id) written.push(r);
          else duplicates.push({ row: r.row.row });
        }
      }
    }
  };
  for (let i = 0; i < groups.length; i += WIDTH) await Promise.all(groups.slice(i, i + WIDTH).map(writeGroup));
  return {
    imported: written.length,
    valid: written.filter((r) => validity[r.id - base] === true).length,
    invalid: written.filter((r) => validity[r.id - base] === false).length,
    duplicates: duplicates.sort((a, b) => a.row - b.row),
  };
}

/**
 * Asks WhatsApp about a chunk's numbers, 100 per question, and keeps the answers on the chunk
 * before any item is written (a rerun asks nothing again). Unknown (null) without a connected
 * default connection or when the phone does not answer.
 */
async function checkOnWhatsApp(companyId: number, connectionId: number | null, chunk: ContactListImportChunk): Promise<(boolean | null)[]> {
  const answers = connectionId === null ? chunk.rows.map(() => null) : await numbersOnWhatsApp(companyId, connectionId, chunk.rows.map((r) => r.number));
  await updateItem({ PK: chunk.PK, SK: chunk.SK }, { valid: answers });
  return answers;
}

/** Moves the counts and the report once per chunk; false when another run already did. */
async function recordChunk(list: ContactListRecord, run: ContactListImportRun, outcome: ChunkOutcome): Promise<boolean> {
  const state = list.import!;
  const last = run.nextChunk + 1 >= run.chunks;
  const now = nowIso();
  const processed = state.processed + outcome.imported + outcome.duplicates.length;
  const errors = [...state.errors, ...outcome.duplicates.map((d) => ({ row: d.row, reason: 'duplicated' as const }))]
    .sort((a, b) => a.row - b.row)
    .slice(0, IMPORT_REPORT_ERRORS);
  const next: ContactListImport = {
    ...state,
    status: last ? 'done' : 'running',
    processed,
    imported: state.imported + outcome.imported,
    duplicated: state.duplicated + outcome.duplicates.length,
    whatsappValid: state.whatsappValid + outcome.valid,
    whatsappInvalid: state.whatsappInvalid + outcome.invalid,
    errors,
    ...(last ? { finishedAt: now } : {}),
  };
  const updated = await updateList(
    list.companyId,
    list.id,
    'SET #import = :next, importRun.nextChunk = :after, updatedAt = :now ADD contactsCount :imported',
    'importRun.id = :id AND importRun.nextChunk = :chunk AND attribute_not_exists(deleting)',
    { ':next': next, ':after': run.nextChunk + 1, ':now': now, ':imported': outcome.imported, ':id': run.id, ':chunk': run.nextChunk },
  );
  if (!updated) return false;
  await announceList(list.companyId, { action: 'update', record: toApiContactList(updated) });
  return true;
}
