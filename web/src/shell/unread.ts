import { useEffect, useSyncExternalStore } from 'react';

/** Unread notifications count; ticket pages of later issues feed it. The page title shows it. */
let count = 0;
const subs = new Set<() => void>();
export const unreadStore = {
  set(n: number) {
    count = Math.max(0, n);
    subs.forEach((f) => f());
  },
  get: () => count,
  subscribe(f: () => void) {
    subs.add(f);
    return () => subs.delete(f);
  },
};

export function useUnreadTitle(base: string) {
  const n = useSyncExternalStore(unreadStore.subscribe, unreadStore.get);
  useEffect(() => {
    document.title = n > 0 ? `${base} (${n})` : base;
  }, [n, base]);
}
