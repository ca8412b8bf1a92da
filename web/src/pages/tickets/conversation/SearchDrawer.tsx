import { useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Button, Text, TextField } from '@aws-amplify/ui-react';
import type { ApiMessage } from '../types';
import { Drawer } from './Drawer';
import { MIN_MESSAGE_SEARCH } from './rules';

/**
 * Message search. GET /messages/{ticketId} has no searchParam yet (functions/src/services/
 * conversation.ts pages by number only), so this searches the pages loaded in the pane and says so;
 * older pages can be loaded from here.
 */
export function SearchDrawer({
  messages,
  hasMore,
  loadOlder,
  onPick,
  onClose,
}: {
  messages: ApiMessage[];
  hasMore: boolean;
  loadOlder: () => void;
  onPick: (id: string) => void;
  onClose: () => void;
}) {
  const { t } = useTranslation();
  const [q, setQ] = useState('');
  const term = q.trim().toLowerCase();
  const found = useMemo(
    () => (term.length >= MIN_MESSAGE_SEARCH ? messages.filter((m) => !m.isDeleted && m.body.toLowerCase().includes(term)).reverse() : []),
    [messages, term],
  );
  return (
    <Drawer title={t('ticket.searchMessages')} onClose={onClose} testId="search-drawer">
      <TextField label={t('ticket.searchMessages')} labelHidden placeholder={t('common.search')} size="small" value={q} onChange={(e) => setQ(e.target.value)} autoFocus />
      <Text fontSize="0.8rem" color="font.secondary" marginTop="0.25rem">
        {term.length < MIN_MESSAGE_SEARCH ? t('ticket.searchHint') : t('ticket.searchScope')}
      </Text>
      <div className="qr-list">
        {term.length >= MIN_MESSAGE_SEARCH && found.length === 0 && <Text color="font.secondary">{t('ticket.searchNone')}</Text>}
        {found.slice(0, 100).map((m) => (
          <button key={m.id} type="button" className="qr-item" onClick={() => onPick(m.id)}>
            <span className="qr-date">{new Date(m.createdAt).toLocaleString()}</span>
            <span className="qr-msg">{m.body}</span>
          </button>
        ))}
      </div>
      {hasMore && term.length >= MIN_MESSAGE_SEARCH && (
        <Button size="small" marginTop="0.5rem" onClick={loadOlder}>
          {t('ticket.searchLoadMore')}
        </Button>
      )}
    </Drawer>
  );
}
