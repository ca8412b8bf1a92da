import { AppError, HELPS_PAGE, helpListQuerySchema, helpSchema, helpUpdateSchema, parseOrThrow, type ApiHelp } from '@balcao/shared';
import { clean, getItem, isConditionFailure, nextId, putItem, queryAll, transact, tx, updateItem } from '../core/db.js';
import { nowIso } from '../core/ports.js';
import { fold, keys } from '../table/keys.js';
import type { HelpItem } from '../table/items.js';

/*
 * Help videos (spec 003 §2, §3, §7; decision 59): the platform's, not a company's. They are few (a
 * gallery of tens), so every list reads the one `HELP` partition with one Query and pages in memory.
 */

const notFound = () => new AppError(404, 'ERR_NOT_FOUND');

const toApiHelp = (item: HelpItem): ApiHelp => {
  const { id, title, video, description, createdAt, updatedAt } = clean(item);
  return { id, title, video, description, createdAt, updatedAt };
};

/** Every help, by title (accents and case aside), then by id. */
async function allHelps(): Promise<HelpItem[]> {
  const items = await queryAll<HelpItem>(keys.helpsPartition());
  return items
    .map((item) => ({ item, key: fold(item.title) }))
    .sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : a.item.id - b.item.id))
    .map((x) => x.item);
}

/** `GET /helps/list`: the gallery, for every signed-in user. */
export const listAllHelps = async (): Promise<ApiHelp[]> => (await allHelps()).map(toApiHelp);

/** `GET /helps`: the settings tab's pages, `searchParam` over title and description. */
export async function listHelps(query: Record<string, string | undefined>) {
  const q = parseOrThrow(helpListQuerySchema, query);
  const term = fold(q.searchParam ?? '');
  const pageNumber = q.pageNumber ?? 1;
  const matching = (await allHelps()).filter((h) => !term || fold(h.title).includes(term) || fold(h.description).includes(term));
  const page = matching.slice((pageNumber - 1) * HELPS_PAGE, pageNumber * HELPS_PAGE);
  return { records: page.map(toApiHelp), count: matching.length, hasMore: pageNumber * HELPS_PAGE < matching.length };
}

async function getHelpItem(id: number): Promise<HelpItem> {
  const item = await getItem<HelpItem>(keys.help(id));
  if (!item) throw notFound();
  return item;
}

export const getHelp = async (id: number): Promise<ApiHelp> => toApiHelp(await getHelpItem(id));

export async function createHelp(input: unknown): Promise<ApiHelp> {
  const data = parseOrThrow(helpSchema, input);
  const id = await nextId(0, 'help');
  const now = nowIso();
  const item: HelpItem = { ...keys.help(id), entity: 'help', id, ...data, createdAt: now, updatedAt: now };
  await putItem(item, 'attribute_not_exists(PK)');
  return toApiHelp(item);
}

export async function updateHelp(id: number, input: unknown): Promise<ApiHelp> {
  // Parsed first: a bad body changes nothing, even for an id that does not exist.
  const data = parseOrThrow(helpUpdateSchema, input);
  try {
    return toApiHelp(await updateItem<HelpItem>(keys.help(id), { ...data, updatedAt: nowIso() }));
  } catch (err) {
    if (isConditionFailure(err)) throw notFound();
    throw err;
  }
}

export async function deleteHelp(id: number): Promise<void> {
  await transact([tx.delete(keys.help(id), 'attribute_exists(PK)')], () => notFound());
}
