import { useCallback, useEffect, useRef, useState } from 'react';
import { ANNOUNCEMENT_EVENT, companyEvent, type CompanyEventKind } from '@balcao/shared';
import { api } from '../api/http';
import { realtime } from '../api/realtime';
import { useAuth } from '../auth/AuthContext';
import { useInfiniteScroll } from './hooks';
import { useLoading } from './useLoad';

export interface ListItem {
  id: number;
  updatedAt?: string;
}

/** What a realtime event means for the list: a row gone, or a row's newest version. */
export type ListEvent<T> = { remove: number } | { item: T; created: boolean } | null;

/** A late answer or event must not put back what a newer one replaced (a slow socket). */
export const older = (incoming: ListItem, known: ListItem) => !!incoming.updatedAt && !!known.updatedAt && incoming.updatedAt < known.updatedAt;

/**
 * A page's rows merged into the list: page 1 brings each of its rows up to date (a newer version
 * already listed wins) and keeps rows added meanwhile; a later page appends rows not listed yet.
 */
export function mergePage<T extends ListItem>(prev: T[], rows: T[], page: number): T[] {
  const known = new Map(prev.map((x) => [x.id, x]));
  const fresh = rows.map((x) => {
    const k = known.get(x.id);
    return k && older(x, k) ? k : x;
  });
  if (page > 1) return [...prev, ...fresh.filter((x) => !known.has(x.id))];
  const freshIds = new Set(fresh.map((x) => x.id));
  return [...prev.filter((x) => !freshIds.has(x.id)), ...fresh];
}

/**
 * A paged admin list (users, tags, quick replies, companies): pages loaded as the table scrolls near its end
 * (spec: 100 px), a new search from page 1, rows kept current by the company's realtime events,
 * and a reload after a reconnect. Answers and events may land in any order; for each row the newer
 * version wins, and rows added meanwhile stay.
 */
export function useLiveList<T extends ListItem>(opts: {
  path: string;
  /** The answer's array: `users`, `tags`, `records`, … */
  itemsKey: string;
  searchParam: string;
  /** More of the query than the search and the page (a list's items: `contactListId`). */
  query?: Record<string, string | number | undefined>;
  /**
   * The company event that keeps the rows current (and a reload after a reconnect), or the
   * platform's announcements event (one name for every company); none for lists without one.
   */
  event?: CompanyEventKind | typeof ANNOUNCEMENT_EVENT;
  fromEvent?: (data: any) => ListEvent<T>;
  /** Whether a row not on the page belongs to the current search (events add only those). */
  matches?: (item: T, searchParam: string) => boolean;
  /** Events add rows only on `create` (an update of a row not loaded is not this page's business). */
  addOnlyCreated?: boolean;
}) {
  const { path, itemsKey, searchParam, event } = opts;
  const { user: me } = useAuth();
  const [items, setItems] = useState<T[]>([]);
  const [page, setPage] = useState(1);
  const [hasMore, setHasMore] = useState(false);
  const [reloadKey, setReloadKey] = useState(0);
  // The answer's `count` (every row of the search, not only the pages read), moved by the rows this
  // page sees come and go. The ids listed right now, kept in step at once: an event and the page's
  // own answer announcing the same row count it once.
  const [count, setCount] = useState<number | undefined>(undefined);
  const listed = useRef(new Set<number>());
  listed.current = new Set(items.map((x) => x.id));
  // The event handler lives as long as the socket subscription: it reads the current options.
  const current = useRef(opts);
  current.current = opts;
  const queryKey = JSON.stringify(opts.query ?? {});

  useEffect(() => {
    setItems([]);
    setPage(1);
  }, [searchParam, reloadKey, queryKey]);

  const loading = useLoading(async (live) => {
    const r = await api.get<Record<string, unknown> & { hasMore: boolean; count?: number }>(path, { query: { ...current.current.query, searchParam, pageNumber: page } });
    if (!live()) return;
    setItems((prev) => mergePage(prev, (r[itemsKey] as T[] | undefined) ?? [], page));
    setHasMore(r.hasMore);
    if (page === 1) setCount(typeof r.count === 'number' ? r.count : undefined);
  }, [path, itemsKey, searchParam, page, reloadKey, queryKey]);

  const upsert = useCallback((item: T, addIfMissing = true) => {
    if (addIfMissing && !listed.current.has(item.id)) {
      listed.current.add(item.id);
      setCount((n) => (n === undefined ? n : n + 1));
    }
    setItems((l) =>
      l.some((x) => x.id === item.id) ? l.map((x) => (x.id === item.id && !older(item, x) ? { ...x, ...item } : x)) : addIfMissing ? [item, ...l] : l,
    );
  }, []);
  const removeById = useCallback((id: number) => {
    if (listed.current.delete(id)) setCount((n) => (n === undefined ? n : Math.max(0, n - 1)));
    setItems((l) => l.filter((x) => x.id !== id));
  }, []);
  const reload = useCallback(() => setReloadKey((k) => k + 1), []);

  useEffect(() => {
    if (!me || !event) return;
    const off = realtime.on(event === ANNOUNCEMENT_EVENT ? event : companyEvent(me.companyId, event), (data) => {
      const o = current.current;
      const change = o.fromEvent?.(data);
      if (!change) return;
      if ('remove' in change) return removeById(change.remove);
      const belongs = (!o.addOnlyCreated || change.created) && (!o.matches || o.matches(change.item, o.searchParam));
      upsert(change.item, belongs);
    });
    const offR = realtime.onReconnect(reload);
    return () => {
      off();
      offR();
    };
  }, [me, event, upsert, removeById, reload]);

  const { scroller, onScroll } = useInfiniteScroll({ hasMore, loading, more: () => setPage((p) => p + 1), watch: items });

  return { items, loading, hasMore, count, scroller, onScroll, upsert, removeById, reload };
}

/**
 * The usual shape of a list's event: `{action: 'delete', <idKey>}` removes a row, anything carrying
 * `<itemKey>` is that row's newest version (`created` on `create`).
 */
export const recordEvent =
  <T>(idKey: string, itemKey: string) =>
  (data: any): ListEvent<T> =>
    data?.action === 'delete' ? { remove: Number(data[idKey]) } : data?.[itemKey] ? { item: data[itemKey] as T, created: data.action === 'create' } : null;
