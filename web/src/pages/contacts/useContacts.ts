import { useCallback, useEffect, useRef, useState } from 'react';
import { useSearchParams } from 'react-router-dom';
import { companyEvent, type User } from '@balcao/shared';
import { contactsApi, type ContactFilters } from '../../api/contacts';
import { realtime } from '../../api/realtime';
import { useInfiniteScroll } from '../../ui/hooks';
import { useLoading } from '../../ui/useLoad';
import { mergePage, older } from '../../ui/useLiveList';
import { useSearch } from '../../ui/useRowActions';
import type { Contact } from './types';

/** `?tag=3` or `?tag=3,4` (spec 001 "Contacts page": the query parameters preselect the filters). */
const idsOf = (raw: string | null) => (raw ?? '').split(',').map(Number).filter((n) => Number.isInteger(n) && n > 0);
const json = (ids: number[]) => (ids.length ? JSON.stringify(ids) : undefined);

/** The contacts filter (search, tags, attendants), their total and the URL's preselected filters. */
function useFilters() {
  const [params] = useSearchParams();
  const { search, setSearch, searchParam } = useSearch();
  const [tagFilter, setTagFilter] = useState<number[]>(() => idsOf(params.get('tag')));
  const [userFilter, setUserFilter] = useState<number[]>(() => idsOf(params.get('user')));
  // Following a link to /contacts?tag=… while already here changes the filters too.
  const tagParam = params.get('tag');
  const userParam = params.get('user');
  useEffect(() => {
    setTagFilter(idsOf(tagParam));
    setUserFilter(idsOf(userParam));
  }, [tagParam, userParam]);
  const filters: ContactFilters = { searchParam: searchParam || undefined, tagsContact: json(tagFilter), users: json(userFilter) };
  return { search, setSearch, searchParam, tagFilter, setTagFilter, userFilter, setUserFilter, filters };
}

/**
 * The contacts page's list: filtered pages loaded as the table scrolls, the total, and rows kept
 * current by the company's `contact` events (a reload after a reconnect or a bulk change).
 */
export function useContacts(user: User | null) {
  const f = useFilters();
  const { searchParam, tagFilter, userFilter } = f;
  const [contacts, setContacts] = useState<Contact[]>([]);
  const [count, setCount] = useState(0);
  const [page, setPage] = useState(1);
  const [hasMore, setHasMore] = useState(false);
  const [reloadKey, setReloadKey] = useState(0);
  const listed = useRef<Contact[]>([]);
  listed.current = contacts;

  const filterKey = `${searchParam}|${tagFilter.join(',')}|${userFilter.join(',')}`;
  const filtered = !!searchParam || tagFilter.length > 0 || userFilter.length > 0;

  // A new search or filter starts again from page 1 with an empty list.
  useEffect(() => {
    setContacts([]);
    setPage(1);
  }, [filterKey, reloadKey]);

  // filterKey stands for the three filters.
  const loading = useLoading(async (live) => {
    const r = await contactsApi.page(f.filters, page);
    if (!live()) return;
    setContacts((prev) => mergePage(prev, r.contacts, page));
    setCount(r.count);
    setHasMore(r.hasMore);
  }, [filterKey, page, reloadKey]);

  // Whether a contact (from an event) belongs in the list as filtered; text search cannot be
  // checked here, so with a search only rows already listed are updated.
  const fits = useCallback(
    (c: Contact) =>
      tagFilter.every((id) => (c.tagIds ?? c.tags?.map((x) => x.id) ?? []).includes(id)) && (!userFilter.length || (c.userId !== null && userFilter.includes(c.userId))),
    [tagFilter, userFilter],
  );

  /** Takes a row out, counting it down only when it was listed (with a filter, another's delete is not ours). */
  const dropListed = useCallback((id: number) => {
    if (listed.current.some((c) => c.id === id)) setCount((n) => Math.max(0, n - 1));
    setContacts((l) => l.filter((c) => c.id !== id));
  }, []);
  const reload = useCallback(() => setReloadKey((k) => k + 1), []);

  useEffect(() => {
    if (!user) return;
    const off = realtime.on(companyEvent(user.companyId, 'contact'), (data) => {
      if (data?.action === 'delete') dropListed(Number(data.contactId));
      else if (data?.action === 'reload') reload();
      else if (data?.contact) {
        const c = data.contact as Contact;
        // The unfiltered total counts every new contact; a filtered one is recounted on the next load.
        if (data.action === 'create' && !filtered) setCount((n) => n + 1);
        setContacts((l) => {
          const i = l.findIndex((x) => x.id === c.id);
          if (i >= 0) {
            if (older(c, l[i]!)) return l;
            // An edit that takes it out of the filtered list (tag or attendant removed) drops the row.
            return fits(c) ? l.map((x) => (x.id === c.id ? { ...x, ...c } : x)) : l.filter((x) => x.id !== c.id);
          }
          return data.action === 'create' && !searchParam && fits(c) ? [c, ...l] : l;
        });
      }
    });
    const offR = realtime.onReconnect(reload);
    return () => {
      off();
      offR();
    };
  }, [user, fits, searchParam, filtered, dropListed, reload]);

  const { scroller, onScroll } = useInfiniteScroll({ hasMore, loading, more: () => setPage((p) => p + 1), watch: contacts });
  const upsert = (c: Contact) => setContacts((l) => (l.some((x) => x.id === c.id) ? l.map((x) => (x.id === c.id && !older(c, x) ? c : x)) : fits(c) ? [c, ...l] : l));

  return { ...f, contacts, count, loading, scroller, onScroll, upsert, dropListed, reload };
}
