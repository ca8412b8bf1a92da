import { useTranslation } from 'react-i18next';
import { TableCell, TableRow } from '@aws-amplify/ui-react';
import type { Queue } from '@balcao/shared';
import { queuesApi } from '../../api/queues';
import { useAuth } from '../../auth/AuthContext';
import { EntityTablePage } from '../../ui/EntityTablePage';
import { RowActions } from '../../ui/TableParts';
import { recordEvent } from '../../ui/useLiveList';
import { useLiveQuery } from '../../ui/useLiveQuery';
import { useRowActions } from '../../ui/useRowActions';
import QueueDialog from './QueueDialog';

const byOrder = (a: Queue, b: Queue) => (a.orderQueue ?? Infinity) - (b.orderQueue ?? Infinity) || a.id - b.id;

export default function Queues() {
  const { t } = useTranslation();
  const { user } = useAuth();
  const { items: queues, isLoading, upsert, drop } = useLiveQuery<Queue>({
    key: ['queues', user?.companyId],
    load: queuesApi.all,
    event: 'queue',
    fromEvent: recordEvent('queueId', 'queue'),
  });
  const actions = useRowActions<Queue>({ remove: (q) => queuesApi.remove(q.id), onRemoved: (q) => drop(q.id), deletedText: t('queues.deleted') });

  return (
    <EntityTablePage
      texts="queues"
      add
      actions={actions}
      nameOf={(q) => q.name}
      columns={['id', 'name', 'color', ['type', 'hide-narrow'], ['order', 'hide-narrow'], ['greeting', 'hide-narrow']]}
      loading={isLoading}
      empty={queues.length === 0}
      dialogs={actions.editing && <QueueDialog queue={actions.editing.item} queues={queues} onClose={actions.close} onSaved={upsert} />}
    >
      {[...queues].sort(byOrder).map((q) => (
        <TableRow key={q.id} data-testid={`queue-row-${q.id}`}>
          <TableCell>{q.id}</TableCell>
          <TableCell>{q.name}</TableCell>
          <TableCell>
            <span className="swatch small" style={{ background: q.color }} title={q.color} />
          </TableCell>
          <TableCell className="hide-narrow" data-testid="queue-type">
            {t(`queues.types.${q.type ?? 'TEXT'}`)}
          </TableCell>
          <TableCell className="hide-narrow">{q.orderQueue ?? ''}</TableCell>
          <TableCell className="hide-narrow greeting-cell">{q.greetingMessage}</TableCell>
          <RowActions name={q.name} onEdit={() => actions.edit(q)} onDelete={() => actions.askDelete(q)} />
        </TableRow>
      ))}
    </EntityTablePage>
  );
}
