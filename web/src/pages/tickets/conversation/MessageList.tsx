import { useCallback, useEffect, useLayoutEffect, useMemo, useRef, useState, type RefObject } from 'react';
import { useTranslation } from 'react-i18next';
import { useVirtualizer } from '@tanstack/react-virtual';
import { useDates } from '../../../ui/dates';
import type { ApiMessage } from '../types';
import { MessageBubble, type BubbleActions } from './MessageBubble';
import { canEditMessage, FOLLOW_BOTTOM_PX, isOwn, LOAD_OLDER_PX } from './rules';

type Row = { kind: 'day'; key: string; label: string } | { kind: 'msg'; key: string; m: ApiMessage };

export interface MessageListHandle {
  /** Scrolls to a loaded message and flashes it; false when it is not loaded. */
  goTo: (id: string) => boolean;
  toBottom: () => void;
}

export function MessageList({
  messages,
  hasMore,
  loading,
  loaded,
  loadOlder,
  userId,
  actions,
  handle,
}: {
  messages: ApiMessage[];
  hasMore: boolean;
  loading: boolean;
  loaded: boolean;
  loadOlder: () => void;
  userId: number;
  actions: BubbleActions;
  handle: RefObject<MessageListHandle | null>;
}) {
  const { t } = useTranslation();
  const dates = useDates();
  const scroller = useRef<HTMLDivElement>(null);
  const [highlight, setHighlight] = useState<string | null>(null);
  // Follow the newest message while the reader is near the bottom (spec 001 §9: 500 px).
  const nearBottom = useRef(true);
  // Stay pinned to the very bottom while rows below are measured (images loading, first render).
  const pinned = useRef(true);
  const anchor = useRef<{ key: string; index: number; offset: number } | null>(null);
  const lastId = useRef<string | null>(null);
  const lastTop = useRef(0);
  // No input yet: -Infinity, since performance.now() starts near 0 on a fresh page load.
  const userInput = useRef(Number.NEGATIVE_INFINITY);
  const markInput = () => (userInput.current = performance.now());

  const rows = useMemo<Row[]>(() => {
    const out: Row[] = [];
    let day = '';
    for (const m of messages) {
      // Separators fall on the company's calendar days, like every date the console shows.
      const k = dates.dayKey(m.createdAt);
      if (k !== day) {
        day = k;
        out.push({ kind: 'day', key: `day-${k}`, label: dates.dayLabel(m.createdAt) });
      }
      out.push({ kind: 'msg', key: m.id, m });
    }
    return out;
  }, [messages, dates]);

  const virtualizer = useVirtualizer({
    count: rows.length,
    getScrollElement: () => scroller.current,
    estimateSize: (i) => (rows[i]?.kind === 'day' ? 40 : 72),
    getItemKey: (i) => rows[i]?.key ?? i,
    overscan: 8,
    paddingStart: 8,
    paddingEnd: 8,
  });

  // Pinned to the bottom, this list keeps the bottom itself: the virtualizer's own correction for
  // rows above measured smaller would land after ours and leave the view a few pixels short.
  virtualizer.shouldAdjustScrollPositionOnItemSizeChange = (item, _delta, instance) =>
    !pinned.current && item.start < (instance.scrollOffset ?? 0) + instance.scrollAdjustments;

  const toBottom = useCallback(() => {
    const el = scroller.current;
    if (!el) return;
    pinned.current = true;
    el.scrollTop = el.scrollHeight;
  }, []);

  const onScroll = () => {
    const el = scroller.current;
    if (!el) return;
    const distance = el.scrollHeight - el.scrollTop - el.clientHeight;
    nearBottom.current = distance < FOLLOW_BOTTOM_PX;
    // Only the reader moving up (wheel, touch, scrollbar, keys) unpins. The virtualizer itself moves
    // scrollTop up when rows above are measured smaller, and a shrinking list clamps it.
    const drop = lastTop.current - el.scrollTop;
    if (drop > 2 && performance.now() - userInput.current < 600) pinned.current = false;
    if (distance < 4) pinned.current = true;
    else if (pinned.current && performance.now() - userInput.current > 600) {
      // Pinned and the reader did not move: something else (a late measurement correction) left
      // the view short of the bottom. Take it back down.
      el.scrollTop = el.scrollHeight;
      lastTop.current = el.scrollTop;
      return;
    }
    lastTop.current = el.scrollTop;
    if (el.scrollTop < LOAD_OLDER_PX && hasMore && !loading && rows.length) loadOlderKeepingView(el);
  };

  function loadOlderKeepingView(el: HTMLDivElement) {
    // Remember the first visible row so the view stays put when older pages land above it.
    // A message row: a day separator stays first while its day's older messages land below it.
    const first = virtualizer.getVirtualItems().find((v) => v.end > el.scrollTop && rows[v.index]?.kind === 'msg');
    if (first) anchor.current = { key: String(first.key), index: first.index, offset: first.start - el.scrollTop };
    loadOlder();
  }

  // After rows change: restore the anchor (older page prepended) or follow the newest message.
  useLayoutEffect(() => {
    const el = scroller.current;
    if (!el) return;
    const newest = messages[messages.length - 1]?.id ?? null;
    const appended = newest !== lastId.current;
    const wasEmpty = lastId.current === null;
    lastId.current = newest;
    if (anchor.current) {
      const idx = rows.findIndex((r) => r.key === anchor.current!.key);
      // Only once rows landed above the anchor (a render for the loading flag moves nothing).
      if (idx > anchor.current.index) {
        const start = virtualizer.getOffsetForIndex(idx, 'start')?.[0] ?? 0;
        el.scrollTop = start - anchor.current.offset;
        anchor.current = null;
        return;
      }
      if (!loading) anchor.current = null;
    }
    if (appended && newest) {
      const last = messages[messages.length - 1]!;
      if (wasEmpty || nearBottom.current || isOwn(last, userId)) {
        // Pinned: the total-size effect keeps the bottom in view while the new rows are measured.
        pinned.current = true;
        el.scrollTop = el.scrollHeight;
      }
    }
  }, [rows, messages, loading, userId, virtualizer]);

  // A row growing past its estimate (the last one especially) can deepen the list without the
  // virtualizer re-rendering: watch the rendered rows themselves while pinned.
  const rowObserver = useMemo(
    () =>
      typeof ResizeObserver === 'undefined'
        ? null
        : new ResizeObserver(() => {
            const el = scroller.current;
            if (el && pinned.current) el.scrollTop = el.scrollHeight;
          }),
    [],
  );
  useEffect(() => () => rowObserver?.disconnect(), [rowObserver]);
  const measureRow = useCallback(
    (node: HTMLDivElement | null) => {
      virtualizer.measureElement(node);
      if (!node || !rowObserver) return;
      rowObserver.observe(node);
      return () => rowObserver.unobserve(node);
    },
    [virtualizer, rowObserver],
  );

  // Measured heights change the total size: keep the bottom in view while pinned.
  const total = virtualizer.getTotalSize();
  useLayoutEffect(() => {
    const el = scroller.current;
    if (!el || !pinned.current) return;
    el.scrollTop = el.scrollHeight;
    // Rows measured during this frame's layout can deepen the list once more: check after it.
    const frame = requestAnimationFrame(() => {
      if (pinned.current) el.scrollTop = el.scrollHeight;
    });
    return () => cancelAnimationFrame(frame);
  }, [total]);

  // Once no page is loading: a short list never scrolls, so ask for older pages while the first ones
  // do not fill the view; and a reader who reached the top while another page was loading (the
  // newest page read again after the socket opened) gets the older page without scrolling again.
  useEffect(() => {
    const el = scroller.current;
    if (!el || !loaded || !hasMore || loading) return;
    if (el.scrollHeight <= el.clientHeight + LOAD_OLDER_PX) loadOlder();
    else if (el.scrollTop < LOAD_OLDER_PX && rows.length) loadOlderKeepingView(el);
  }, [loaded, hasMore, loading, total, loadOlder]);

  useEffect(() => {
    handle.current = {
      goTo: (id) => {
        const idx = rows.findIndex((r) => r.key === id);
        if (idx < 0) return false;
        pinned.current = false;
        virtualizer.scrollToIndex(idx, { align: 'center' });
        setHighlight(id);
        return true;
      },
      toBottom,
    };
  }, [handle, rows, virtualizer, toBottom]);

  useEffect(() => {
    if (!highlight) return;
    const h = setTimeout(() => setHighlight(null), 2000);
    return () => clearTimeout(h);
  }, [highlight]);

  const empty = !messages.length;
  const now = Date.now();
  return (
    <div className="msg-wrap">
      {/* Outside the scroller: an indicator in its flow would move the bottom the list is pinned to. */}
      {!empty && loading && hasMore && <div className="msg-loading-older">{t('messages.loadingOlder')}</div>}
    <div
        className="msg-scroller"
        ref={scroller}
        onScroll={onScroll}
        onWheel={markInput}
        onTouchMove={markInput}
        onPointerDown={markInput}
        onKeyDown={markInput}
        data-testid="message-list"
      >
      {empty && !loaded && (
        <div className="msg-empty" role="status">
          {t('messages.searching')}
        </div>
      )}
      {empty && loaded && (
        <div className="msg-empty">
          <strong>{t('messages.empty')}</strong>
          <span>{t('messages.sayHello')}</span>
        </div>
      )}
      <div style={{ height: total, position: 'relative', width: '100%' }}>
        {virtualizer.getVirtualItems().map((v) => {
          const row = rows[v.index]!;
          return (
            <div key={v.key} data-index={v.index} ref={measureRow} className="msg-vrow" style={{ transform: `translateY(${v.start}px)` }}>
              {row.kind === 'day' ? (
                <div className="msg-day">
                  <span>{row.label}</span>
                </div>
              ) : (
                <MessageBubble m={row.m} mine={isOwn(row.m, userId)} canEdit={canEditMessage(row.m, userId, now)} actions={actions} highlighted={highlight === row.m.id} />
              )}
            </div>
          );
        })}
      </div>
    </div>
    </div>
  );
}
