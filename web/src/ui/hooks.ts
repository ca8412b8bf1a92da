import { useCallback, useEffect, useRef, useState, type RefObject } from 'react';
import { INFINITE_SCROLL_THRESHOLD_PX } from '@balcao/shared';

export function useDebounced<T>(value: T, ms: number): T {
  const [v, setV] = useState(value);
  useEffect(() => {
    const h = setTimeout(() => setV(value), ms);
    return () => clearTimeout(h);
  }, [value, ms]);
  return v;
}

export function useMediaQuery(query: string): boolean {
  const [matches, setMatches] = useState(() => window.matchMedia(query).matches);
  useEffect(() => {
    const m = window.matchMedia(query);
    const on = () => setMatches(m.matches);
    m.addEventListener('change', on);
    on();
    return () => m.removeEventListener('change', on);
  }, [query]);
  return matches;
}

/** Read a number kept in localStorage, falling back when absent or invalid. */
export function storedNumber(key: string, fallback: number): number {
  const raw = localStorage.getItem(key);
  const n = raw === null ? NaN : Number(raw);
  return Number.isFinite(n) ? n : fallback;
}

/**
 * Infinite scroll of a table: the next page when the scroller comes within 100 px of its end
 * (spec), and again while a short first page leaves the scroller without a scrollbar. `watch`
 * is what changes when rows land (the list itself).
 */
export function useInfiniteScroll({ hasMore, loading, more, watch }: { hasMore: boolean; loading: boolean; more: () => void; watch: unknown }) {
  const scroller = useRef<HTMLDivElement>(null);
  const moreRef = useRef(more);
  moreRef.current = more;
  const onScroll = useCallback(() => {
    const el = scroller.current;
    if (!el || !hasMore || loading) return;
    if (el.scrollHeight - el.scrollTop - el.clientHeight < INFINITE_SCROLL_THRESHOLD_PX) moreRef.current();
  }, [hasMore, loading]);
  useEffect(() => {
    const el = scroller.current;
    if (el && !loading && hasMore && el.scrollHeight <= el.clientHeight + INFINITE_SCROLL_THRESHOLD_PX) moreRef.current();
  }, [watch, loading, hasMore]);
  return { scroller, onScroll };
}

/** A popup (`box`) closes on a click outside it or on Escape while `open`. */
export function useDismiss(box: RefObject<HTMLElement | null>, open: boolean, close: () => void) {
  const closeRef = useRef(close);
  closeRef.current = close;
  useEffect(() => {
    if (!open) return;
    const outside = (e: MouseEvent) => box.current && !box.current.contains(e.target as Node) && closeRef.current();
    const esc = (e: KeyboardEvent) => e.key === 'Escape' && closeRef.current();
    document.addEventListener('mousedown', outside);
    document.addEventListener('keydown', esc);
    return () => {
      document.removeEventListener('mousedown', outside);
      document.removeEventListener('keydown', esc);
    };
  }, [open, box]);
}
