import { fold } from '../table/keys.js';

/**
 * A page of records read whole from their one partition (a company's tens to hundreds of lists or
 * campaigns), narrowed by a fragment of their name (accents and case aside), with the total.
 */
export function pageByName<T extends { name: string }>(all: T[], q: { searchParam?: string; pageNumber?: number }, size: number) {
  const term = fold(q.searchParam ?? '');
  const pageNumber = q.pageNumber ?? 1;
  const list = term ? all.filter((r) => fold(r.name).includes(term)) : all;
  return { page: list.slice((pageNumber - 1) * size, pageNumber * size), count: list.length, hasMore: pageNumber * size < list.length };
}
