import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { Button, Flex, Heading, Loader, Table, TableBody, TableCell, TableHead, TableRow } from '@aws-amplify/ui-react';
import { companyEvent, type Queue } from '@balcao/shared';
import { api } from '../../api/http';
import { toastError } from '../../api/errors';
import { realtime } from '../../api/realtime';
import { useAuth } from '../../auth/AuthContext';
import { ConfirmDialog } from '../../ui/ConfirmDialog';
import { toast } from '../../ui/toast';
import QueueDialog from './QueueDialog';
import { RowActions, EmptyRow } from '../../ui/TableParts';

const byOrder = (a: Queue, b: Queue) => (a.orderQueue ?? Infinity) - (b.orderQueue ?? Infinity) || a.id - b.id;

export default function Queues() {
  const { t } = useTranslation();
  const { user } = useAuth();
  const qc = useQueryClient();
  const key = ['queues', user?.companyId];
  const { data: queues = [], isLoading, error, refetch } = useQuery({ queryKey: key, queryFn: () => api.get<Queue[]>('/queue') });
  const [editing, setEditing] = useState<Queue | null | undefined>(undefined);
  const [deleting, setDeleting] = useState<Queue | null>(null);

  useEffect(() => {
    if (error) toastError(error);
  }, [error]);

  const upsert = (q: Queue) =>
    qc.setQueryData<Queue[]>(key, (l = []) => (l.some((x) => x.id === q.id) ? l.map((x) => (x.id === q.id ? q : x)) : [...l, q]));
  const drop = (id: number) => qc.setQueryData<Queue[]>(key, (l = []) => l.filter((x) => x.id !== id));

  useEffect(() => {
    if (!user) return;
    const off = realtime.on(companyEvent(user.companyId, 'queue'), (data) => {
      if (data?.action === 'delete') drop(Number(data.queueId));
      else if (data?.queue) upsert(data.queue as Queue);
    });
    const offR = realtime.onReconnect(() => void refetch());
    return () => {
      off();
      offR();
    };
  }, [user?.companyId]);

  const remove = async (q: Queue) => {
    try {
      await api.del(`/queue/${q.id}`);
      drop(q.id);
      toast.success(t('queues.deleted'));
    } catch (e) {
      toastError(e);
    }
  };

  return (
    <Flex direction="column" gap="1rem" className="page">
      <Flex className="page-header" alignItems="center" justifyContent="space-between" wrap="wrap" gap="0.75rem">
        <Heading level={3}>{t('queues.title')}</Heading>
        <Button variation="primary" onClick={() => setEditing(null)}>
          {t('queues.add')}
        </Button>
      </Flex>
      <div className="table-scroll">
        <Table highlightOnHover size="small" className="data-table">
          <TableHead>
            <TableRow>
              <TableCell as="th">{t('queues.id')}</TableCell>
              <TableCell as="th">{t('queues.name')}</TableCell>
              <TableCell as="th">{t('queues.color')}</TableCell>
              <TableCell as="th" className="hide-narrow">{t('queues.order')}</TableCell>
              <TableCell as="th" className="hide-narrow">{t('queues.greeting')}</TableCell>
              <TableCell as="th" className="actions-col">{t('common.actions')}</TableCell>
            </TableRow>
          </TableHead>
          <TableBody>
            {[...queues].sort(byOrder).map((q) => (
              <TableRow key={q.id} data-testid={`queue-row-${q.id}`}>
                <TableCell>{q.id}</TableCell>
                <TableCell>{q.name}</TableCell>
                <TableCell>
                  <span className="swatch small" style={{ background: q.color }} title={q.color} />
                </TableCell>
                <TableCell className="hide-narrow">{q.orderQueue ?? ''}</TableCell>
                <TableCell className="hide-narrow greeting-cell">{q.greetingMessage}</TableCell>
                <RowActions name={q.name} onEdit={() => setEditing(q)} onDelete={() => setDeleting(q)} />
              </TableRow>
            ))}
            <EmptyRow show={!isLoading && queues.length === 0} colSpan={6} />
          </TableBody>
        </Table>
        {isLoading && <Loader variation="linear" />}
      </div>
      {editing !== undefined && <QueueDialog queue={editing} onClose={() => setEditing(undefined)} onSaved={upsert} />}
      <ConfirmDialog
        open={!!deleting}
        title={deleting ? t('queues.deleteTitle', { name: deleting.name }) : ''}
        onClose={() => setDeleting(null)}
        onConfirm={() => deleting && void remove(deleting)}
      />
    </Flex>
  );
}
