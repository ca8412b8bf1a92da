import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Button, Loader, Text, TextField } from '@aws-amplify/ui-react';
import { SEARCH_DEBOUNCE_MS } from '@balcao/shared';
import { toastError } from '../../../api/errors';
import { useDates } from '../../../ui/dates';
import { useDebounced } from '../../../ui/hooks';
import type { ApiMessage } from '../types';
import { Drawer } from './Drawer';
import { MIN_MESSAGE_SEARCH } from './rules';
import { call } from '../../../api/call';


/**
 * Message search over the whole conversation (GET /messages/{ticketId}?searchParam=), newest
 * first; the server reads the ticket in bounded steps, so "more" continues from its cursor.
 */
export function SearchDrawer({ ticketId, onPick, onClose }: { ticketId: number; onPick: (id: string) => void; onClose: () => void }) {
  const { t } = useTranslation();
  const dates = useDates();
  const [q, setQ] = useState('');
  const term = useDebounced(q.trim(), SEARCH_DEBOUNCE_MS);
  const [found, setFound] = useState<ApiMessage[]>([]);
  const [cursor, setCursor] = useState<string | null>(null);
  const [loading, setLoading] = useState(false);

  const load = async (from: string | null, live: () => boolean) => {
    setLoading(true);
    try {
      const page = await call('GET /messages/{ticketId}', { params: { ticketId }, query: { searchParam: term, ...(from ? { cursor: from } : {}) } });
      if (!live()) return;
      setFound((prev) => (from ? [...prev, ...page.messages] : page.messages));
      setCursor(page.hasMore ? (page.nextCursor ?? null) : null);
    } catch (e) {
      if (live()) toastError(e);
    } finally {
      if (live()) setLoading(false);
    }
  };

  useEffect(() => {
    setFound([]);
    setCursor(null);
    if (term.length < MIN_MESSAGE_SEARCH) return;
    let alive = true;
    void load(null, () => alive);
    return () => {
      alive = false;
    };
    // A new term or ticket starts a new search; `load` is recreated each render on purpose.
  }, [term, ticketId]);

  const searching = term.length >= MIN_MESSAGE_SEARCH;
  return (
    <Drawer title={t('ticket.searchMessages')} onClose={onClose} testId="search-drawer">
      <TextField label={t('ticket.searchMessages')} labelHidden placeholder={t('common.search')} size="small" value={q} onChange={(e) => setQ(e.target.value)} autoFocus />
      {!searching && (
        <Text fontSize="0.8rem" color="font.secondary" marginTop="0.25rem">
          {t('ticket.searchHint')}
        </Text>
      )}
      <div className="qr-list">
        {searching && !loading && found.length === 0 && <Text color="font.secondary">{t('ticket.searchNone')}</Text>}
        {found.map((m) => (
          <button key={m.id} type="button" className="qr-item" onClick={() => onPick(m.id)}>
            <span className="qr-date">{dates.dateTime(m.createdAt)}</span>
            <span className="qr-msg">{m.body}</span>
          </button>
        ))}
      </div>
      {loading && <Loader variation="linear" />}
      {searching && cursor && !loading && (
        <Button size="small" marginTop="0.5rem" onClick={() => void load(cursor, () => true)}>
          {t('ticket.searchLoadMore')}
        </Button>
      )}
    </Drawer>
  );
}
