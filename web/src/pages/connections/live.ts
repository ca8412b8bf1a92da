import { useEffect, useState } from 'react';
import { useQuery, useQueryClient, type QueryClient } from '@tanstack/react-query';
import { companyEvent, CONNECTION_BADGE_DELAY_MS, type Connection } from '@balcao/shared';
import { connectionsApi } from '../../api/connections';
import { realtime } from '../../api/realtime';
import { useAuth } from '../../auth/AuthContext';
import { needsAttention } from './badge';
import { keepShownQrCodes } from './qr-codes';

export const connectionsKey = (companyId: number | undefined) => ['connections', companyId];

const upsert = (qc: QueryClient, key: unknown[], c: Connection) =>
  qc.setQueryData<Connection[]>(key, (l = []) => (l.some((x) => x.id === c.id) ? l.map((x) => (x.id === c.id ? { ...x, ...c } : x)) : [...l, c]));

/**
 * Merges an HTTP answer about one connection into the shared list. A live event may already have
 * brought something newer (the session host answers fast), so an older answer is ignored.
 */
export function mergeConnection(qc: QueryClient, companyId: number, c: Connection) {
  const key = connectionsKey(companyId);
  const known = qc.getQueryData<Connection[]>(key)?.find((x) => x.id === c.id);
  if (known && known.updatedAt && c.updatedAt && c.updatedAt < known.updatedAt) return;
  upsert(qc, key, c);
}

/**
 * The company's connections, shared by the page, its dialogs and the menu badge, kept current by the
 * `whatsapp` (records) and `whatsappSession` (status and QR) events. The list comes without QR codes
 * (`session=0`); the session events bring them.
 */
export function useConnections(enabled = true) {
  const { user } = useAuth();
  const qc = useQueryClient();
  const companyId = user?.companyId;
  const key = connectionsKey(companyId);
  const query = useQuery({
    queryKey: key,
    queryFn: async () => keepShownQrCodes(qc.getQueryData<Connection[]>(key), await connectionsApi.list()),
    enabled: enabled && !!companyId,
  });

  useEffect(() => {
    if (!enabled || !companyId) return;
    const offW = realtime.on(companyEvent(companyId, 'whatsapp'), (data) => {
      if (data?.action === 'delete') qc.setQueryData<Connection[]>(key, (l = []) => l.filter((x) => x.id !== Number(data.whatsappId)));
      else if (data?.whatsapp) upsert(qc, key, data.whatsapp as Connection);
    });
    const offS = realtime.on(companyEvent(companyId, 'whatsappSession'), (data) => {
      const s = data?.session as Connection | undefined;
      // Only known connections: a late status of a deleted one must not bring it back.
      if (s) qc.setQueryData<Connection[]>(key, (l = []) => l.map((x) => (x.id === s.id ? { ...x, ...s } : x)));
    });
    const offR = realtime.onReconnect(() => void qc.invalidateQueries({ queryKey: key }));
    return () => {
      offW();
      offS();
      offR();
    };
  }, [enabled, companyId]);

  return query;
}

/** The menu's alert, first evaluated 2 s after load (spec 000 §4), then following live statuses. */
export function useConnectionAlert(enabled: boolean): boolean {
  const { data } = useConnections(enabled);
  const [armed, setArmed] = useState(false);
  useEffect(() => {
    if (!enabled) return;
    const h = setTimeout(() => setArmed(true), CONNECTION_BADGE_DELAY_MS);
    return () => clearTimeout(h);
  }, [enabled]);
  return enabled && armed && needsAttention(data ?? []);
}
