import { useEffect } from 'react';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { companyEvent, type CompanyEventKind } from '@balcao/shared';
import { toastError } from '../api/errors';
import { realtime } from '../api/realtime';
import { useAuth } from '../auth/AuthContext';
import type { ListEvent } from './useLiveList';

/** A load error as the spec's toast. */
export function useErrorToast(error: unknown) {
  useEffect(() => {
    if (error) toastError(error);
  }, [error]);
}

/** Puts a saved row into a cached list (replacing it, or last) and takes a deleted one out. */
export function useCachedList<T extends { id: number }>(key: readonly unknown[]) {
  const qc = useQueryClient();
  return {
    upsert: (item: T) => qc.setQueryData<T[]>(key, (l = []) => (l.some((x) => x.id === item.id) ? l.map((x) => (x.id === item.id ? item : x)) : [...l, item])),
    drop: (id: number) => qc.setQueryData<T[]>(key, (l = []) => l.filter((x) => x.id !== id)),
  };
}

/**
 * An unpaged list (queues, plans) through react-query: its load error toasted, and with `event`
 * kept current by the company's realtime events and read again after a reconnect.
 */
export function useLiveQuery<T extends { id: number }>(o: { key: readonly unknown[]; load: () => Promise<T[]>; event?: CompanyEventKind; fromEvent?: (data: any) => ListEvent<T> }) {
  const { user } = useAuth();
  const query = useQuery({ queryKey: o.key, queryFn: o.load });
  const cache = useCachedList<T>(o.key);
  useErrorToast(query.error);
  const { event, fromEvent } = o;
  useEffect(() => {
    if (!user || !event || !fromEvent) return;
    const off = realtime.on(companyEvent(user.companyId, event), (data) => {
      const change = fromEvent(data);
      if (change && 'remove' in change) cache.drop(change.remove);
      else if (change) cache.upsert(change.item);
    });
    const offR = realtime.onReconnect(() => void query.refetch());
    return () => {
      off();
      offR();
    };
  }, [user?.companyId]);
  return { items: query.data ?? [], isLoading: query.isLoading, ...cache };
}
