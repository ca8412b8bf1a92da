import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Button, Flex, Heading, Loader, Table, TableBody, TableCell, TableHead, TableRow, TextField } from '@aws-amplify/ui-react';
import { isAdminProfile, SEARCH_DEBOUNCE_MS } from '@balcao/shared';
import { api } from '../../api/http';
import { toastError } from '../../api/errors';
import { useAuth } from '../../auth/AuthContext';
import { ConfirmDialog } from '../../ui/ConfirmDialog';
import { useDebounced } from '../../ui/hooks';
import { useLiveList } from '../../ui/useLiveList';
import { EmptyRow, RowActions } from '../../ui/TableParts';
import { toast } from '../../ui/toast';
import QuickMessageDialog from './QuickMessageDialog';
import type { QuickMessage } from './types';
import './quick-messages.css';

/** Spec 001 §9: quick-reply previews are cut at 35 characters. */
const PREVIEW = 35;
const preview = (s: string) => (s.length > PREVIEW ? `${s.slice(0, PREVIEW)}…` : s);
const matches = (q: QuickMessage, term: string) => !term || q.shortcode.toLowerCase().includes(term) || q.message.toLowerCase().includes(term);

/** Quick replies page (spec 001 §3): searchable table of shortcode, attachment and actions. */
export default function QuickMessages() {
  const { t } = useTranslation();
  const { user: me } = useAuth();
  const privileged = isAdminProfile(me?.profile) || !!me?.super;
  const [search, setSearch] = useState('');
  const searchParam = useDebounced(search.trim().toLowerCase(), SEARCH_DEBOUNCE_MS);
  // Company replies come to everyone, personal ones only to their author (server audience).
  const { items: records, loading, scroller, onScroll, upsert, removeById } = useLiveList<QuickMessage>({
    path: '/quick-messages',
    itemsKey: 'records',
    searchParam,
    event: 'quickmessage',
    fromEvent: (data) => (data?.action === 'delete' ? { remove: Number(data.id) } : data?.record ? { item: data.record as QuickMessage, created: data.action === 'create' } : null),
    matches,
  });
  const [dialog, setDialog] = useState<{ record: QuickMessage | null } | null>(null);
  const [deleting, setDeleting] = useState<QuickMessage | null>(null);

  const remove = async (q: QuickMessage) => {
    try {
      await api.del(`/quick-messages/${q.id}`);
      removeById(q.id);
      toast.success(t('quickMessages.deleted'));
    } catch (e) {
      toastError(e);
    }
  };

  // Only the author or an admin may change a reply (the server answers 403 otherwise).
  const mine = (q: QuickMessage) => privileged || q.userId === me?.id;

  return (
    <Flex direction="column" gap="1rem" className="page">
      <Flex className="page-header" alignItems="center" justifyContent="space-between" wrap="wrap" gap="0.75rem">
        <Heading level={3}>{t('quickMessages.title')}</Heading>
        <Flex gap="0.5rem" alignItems="center" wrap="wrap">
          <TextField label={t('common.search')} labelHidden placeholder={t('quickMessages.searchPlaceholder')} type="search" value={search} onChange={(e) => setSearch(e.target.value)} />
          <Button variation="primary" onClick={() => setDialog({ record: null })}>
            {t('quickMessages.add')}
          </Button>
        </Flex>
      </Flex>
      <div className="table-scroll" ref={scroller} onScroll={onScroll} data-testid="quick-messages-scroll">
        <Table highlightOnHover size="small" className="data-table">
          <TableHead>
            <TableRow>
              <TableCell as="th">{t('quickMessages.shortcode')}</TableCell>
              <TableCell as="th" className="hide-narrow">{t('quickMessages.message')}</TableCell>
              <TableCell as="th">{t('quickMessages.attachment')}</TableCell>
              <TableCell as="th" className="actions-col">{t('common.actions')}</TableCell>
            </TableRow>
          </TableHead>
          <TableBody>
            {records.map((q) => (
              <TableRow key={q.id} data-testid={`qm-row-${q.id}`}>
                <TableCell>
                  <strong>{q.shortcode}</strong>
                  <span className="qm-scope">{q.geral ? t('quickMessages.geralShort') : t('quickMessages.personalShort')}</span>
                </TableCell>
                <TableCell className="hide-narrow qm-preview">{preview(q.message)}</TableCell>
                <TableCell>
                  {q.mediaPath ? <span className="qm-media">{q.mediaName ?? q.mediaPath}</span> : <span className="qm-none">{t('quickMessages.noAttachment')}</span>}
                </TableCell>
                <RowActions
                  name={q.shortcode}
                  onEdit={mine(q) ? () => setDialog({ record: q }) : undefined}
                  onDelete={mine(q) ? () => setDeleting(q) : undefined}
                />
              </TableRow>
            ))}
            <EmptyRow show={!loading && records.length === 0} colSpan={4} />
          </TableBody>
        </Table>
        {loading && <Loader variation="linear" />}
      </div>
      {dialog && <QuickMessageDialog record={dialog.record} onClose={() => setDialog(null)} onSaved={(x) => upsert(x)} />}
      <ConfirmDialog
        open={!!deleting}
        title={deleting ? t('quickMessages.deleteTitle', { name: deleting.shortcode }) : ''}
        onClose={() => setDeleting(null)}
        onConfirm={() => deleting && void remove(deleting)}
      />
    </Flex>
  );
}
