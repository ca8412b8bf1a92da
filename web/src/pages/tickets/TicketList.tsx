import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Loader } from '@aws-amplify/ui-react';
import { useVirtualizer } from '@tanstack/react-virtual';
import { companyEvent, INFINITE_SCROLL_THRESHOLD_PX } from '@balcao/shared';
import { api, ApiError } from '../../api/http';
import { toastError } from '../../api/errors';
import { realtime } from '../../api/realtime';
import { belongs, listQuery, mergeTicket, rowOrder, type ListSpec, type Viewer } from './lists';
import { TicketRow } from './TicketRow';
import type { ApiTicket } from './types';

interface TicketsPage {
  tickets: ApiTicket[];
  hasMore: boolean;
  count: number;
  nextCursor: string | null;
}

const ROW_HEIGHT = 86;

interface Props {
  spec: ListSpec;
  viewer: Viewer;
  companyId: number;
  selectedKey?: string;
  narrow: boolean;
  accepting: number | null;
  onOpen: (t: ApiTicket) => void;
  onAccept: (t: ApiTicket) => void;
  testId: string;
}

/**
 * One ticket list: pages by cursor, newest first; virtualised rows; follows the company's ticket
 * events (tickets enter, move and leave as they change) and reloads after a reconnect.
 */
export function TicketList({ spec, viewer, companyId, selectedKey, narrow, accepting, onOpen, onAccept, testId }: Props) {
  const { t } = useTranslation();
  const specKey = JSON.stringify(spec);
  const [tickets, setTickets] = useState<ApiTicket[]>([]);
  const rows = useRef<ApiTicket[]>([]);
  const [reloadKey, setReloadKey] = useState(0);
  const listKey = `${specKey}|${reloadKey}`;
  // The page asked for belongs to one list: a cursor of an older filter is never sent with a newer one.
  const [req, setReq] = useState<{ key: string; cursor: string | null }>({ key: listKey, cursor: null });
  const cursor = req.key === listKey ? req.cursor : null;
  const [next, setNext] = useState<string | null>(null);
  const [hasMore, setHasMore] = useState(false);
  const [loading, setLoading] = useState(true);
  const scroller = useRef<HTMLDivElement>(null);
  const specRef = useRef(spec);
  specRef.current = spec;
  const viewerRef = useRef(viewer);
  viewerRef.current = viewer;

  const commit = useCallback((list: ApiTicket[]) => {
    rows.current = list;
    setTickets(list);
  }, []);

  // A new filter (or a reconnect) starts again from the first page.
  useEffect(() => {
    commit([]);
    setNext(null);
    setHasMore(false);
    scroller.current?.scrollTo({ top: 0 });
  }, [listKey, commit]);

  useEffect(() => {
    let live = true;
    setLoading(true);
    api
      .get<TicketsPage>('/tickets', { query: listQuery(spec, cursor) })
      .then((r) => {
        if (!live) return;
        // Live events may have landed while the page was on its way: for each ticket keep the
        // newer version, and keep tickets that arrived meanwhile.
        const known = new Map(rows.current.map((x) => [x.id, x]));
        const fresh = r.tickets.map((x) => {
          const k = known.get(x.id);
          return k && k.updatedAt > x.updatedAt ? k : x;
        });
        const ids = new Set(fresh.map((x) => x.id));
        commit([...rows.current.filter((x) => !ids.has(x.id)), ...fresh].sort(rowOrder(specRef.current)));
        setHasMore(r.hasMore);
        setNext(r.nextCursor);
      })
      .catch((e) => live && toastError(e))
      .finally(() => live && setLoading(false));
    return () => {
      live = false;
    };
    // `spec` is read through listKey: a new object with the same filters is the same list.
  }, [listKey, cursor, commit]);

  // The full ticket when an event carried only the stored fields (no names) or a new row.
  const pending = useRef(new Set<number>());
  const fetchOne = useCallback(
    (id: number) => {
      if (pending.current.has(id)) return;
      pending.current.add(id);
      api
        .get<ApiTicket>(`/tickets/${id}`)
        .then((full) => {
          const known = rows.current.find((x) => x.id === id);
          if (known && known.updatedAt > full.updatedAt) return;
          const rest = rows.current.filter((x) => x.id !== id);
          if (belongs(full, specRef.current, viewerRef.current) && (known || !specRef.current.closedSet)) commit([...rest, full].sort(rowOrder(specRef.current)));
          else if (known) commit(rest);
        })
        .catch((e) => {
          // Gone or no longer visible: the row leaves.
          if (e instanceof ApiError && (e.status === 404 || e.status === 403)) commit(rows.current.filter((x) => x.id !== id));
        })
        .finally(() => pending.current.delete(id));
    },
    [commit],
  );

  useEffect(() => {
    const remove = (id: number) => {
      if (rows.current.some((x) => x.id === id)) commit(rows.current.filter((x) => x.id !== id));
    };
    const upsert = (incoming: Partial<ApiTicket> & { id: number }) => {
      const known = rows.current.find((x) => x.id === incoming.id);
      // Out-of-order delivery: an older state never replaces a newer one.
      if (known && incoming.updatedAt && known.updatedAt > incoming.updatedAt) return;
      const { ticket, needsFetch } = mergeTicket(known, incoming);
      if (!belongs(ticket, specRef.current, viewerRef.current)) return remove(ticket.id);
      if (!known && specRef.current.closedSet) return;
      if (needsFetch) {
        if (known) commit([...rows.current.filter((x) => x.id !== ticket.id), ticket].sort(rowOrder(specRef.current)));
        return fetchOne(ticket.id);
      }
      commit([...rows.current.filter((x) => x.id !== ticket.id), ticket].sort(rowOrder(specRef.current)));
    };
    const off = realtime.on(companyEvent(companyId, 'ticket'), (data) => {
      if (data.action === 'delete') return remove(data.ticketId);
      upsert(data.ticket);
    });
    // Every ticket event the user may see reaches this socket (issue 23): nothing to join.
    const offR = realtime.onReconnect(() => setReloadKey((k) => k + 1));
    return () => {
      off();
      offR();
    };
  }, [companyId, commit, fetchOne]);

  const virtualizer = useVirtualizer({
    count: tickets.length,
    getScrollElement: () => scroller.current,
    estimateSize: () => ROW_HEIGHT,
    overscan: 6,
    getItemKey: (i) => tickets[i]?.id ?? i,
  });

  const more = useCallback(() => {
    if (hasMore && !loading && next) setReq({ key: listKey, cursor: next });
  }, [hasMore, loading, next, listKey]);

  const onScroll = useCallback(() => {
    const el = scroller.current;
    if (el && el.scrollHeight - el.scrollTop - el.clientHeight < INFINITE_SCROLL_THRESHOLD_PX) more();
  }, [more]);

  // A first page shorter than the panel never scrolls: keep loading while there is room.
  useEffect(() => {
    const el = scroller.current;
    if (el && el.scrollHeight <= el.clientHeight + INFINITE_SCROLL_THRESHOLD_PX) more();
  }, [tickets, more]);

  const items = virtualizer.getVirtualItems();
  const selectedId = useMemo(() => tickets.find((x) => String(x.id) === selectedKey || x.uuid === selectedKey)?.id, [tickets, selectedKey]);

  return (
    <div className="ticket-scroll" ref={scroller} onScroll={onScroll} data-testid={testId} data-loaded={tickets.length} data-has-more={hasMore ? 'true' : 'false'} data-loading={loading ? 'true' : 'false'}>
      {tickets.length > 0 && (
        <div className="ticket-virtual" style={{ height: virtualizer.getTotalSize() }}>
          {items.map((v) => {
            const ticket = tickets[v.index]!;
            return (
              <div key={v.key} className="ticket-virtual-row" style={{ transform: `translateY(${v.start}px)`, height: ROW_HEIGHT }}>
                <TicketRow ticket={ticket} selected={ticket.id === selectedId} narrow={narrow} accepting={accepting === ticket.id} onOpen={onOpen} onAccept={onAccept} />
              </div>
            );
          })}
        </div>
      )}
      {!loading && tickets.length === 0 && (
        <div className="ticket-empty" data-testid="tickets-empty">
          <strong>{t('tickets.noTicketsTitle')}</strong>
          <span>{t('tickets.noTicketsMessage')}</span>
        </div>
      )}
      {loading && <Loader variation="linear" />}
    </div>
  );
}
