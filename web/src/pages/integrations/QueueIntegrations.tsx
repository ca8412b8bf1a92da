import { useTranslation } from 'react-i18next';
import { TableCell, TableRow } from '@aws-amplify/ui-react';
import type { ApiQueueIntegration } from '@balcao/shared';
import { integrationsApi } from '../../api/integrations';
import { usePlanGate } from '../../auth/usePlanGate';
import { EntityTablePage } from '../../ui/EntityTablePage';
import { RowActions } from '../../ui/TableParts';
import { useLiveTable } from '../../ui/useLiveTable';
import IntegrationDialog from './IntegrationDialog';
import { TypeLogo } from './TypeLogo';
import './integrations.css';

/** The server's search: a fragment of the name or the type, accents and case aside. */
const fold = (s: string) => s.normalize('NFD').replace(/[\u0300-\u036f]/g, '').toLowerCase();
const matches = (i: ApiQueueIntegration, term: string) => !term || fold(i.name).includes(fold(term)) || i.type.includes(fold(term));

/** The queue integrations page (spec 003 §2), for plans with useIntegrations. */
export default function QueueIntegrations() {
  const allowed = usePlanGate('useIntegrations');
  // Without the plan flag the routes answer 403: nothing is asked while the redirect runs.
  return allowed ? <IntegrationsTable /> : null;
}

function IntegrationsTable() {
  const { t } = useTranslation();
  const live = useLiveTable<ApiQueueIntegration>({
    api: integrationsApi,
    itemsKey: 'queueIntegrations',
    event: 'queueIntegration',
    eventNames: ['integrationId', 'queueIntegration'],
    matches,
    texts: 'integrations',
  });
  const { items, actions } = live;
  const typeName = (i: ApiQueueIntegration) => t(`integrations.types.${i.type}`);

  return (
    <EntityTablePage
      texts="integrations" live={live} add nameOf={(i) => i.name}
      title={t('integrations.titleCount', { count: items.length })}
      columns={[['type', 'qi-type-col'], ['id', 'id-col'], 'name']}
      dialogs={actions.editing && <IntegrationDialog record={actions.editing.item} onClose={actions.close} onSaved={(x) => live.upsert(x)} />}
    >
      {items.map((i) => (
        <TableRow key={i.id} data-testid={`integration-row-${i.id}`}>
          <TableCell className="qi-type-col">
            <span className="qi-type">
              <TypeLogo type={i.type} label={typeName(i)} />
              <span className="qi-type-name hide-narrow">{typeName(i)}</span>
            </span>
          </TableCell>
          <TableCell className="id-col">{i.id}</TableCell>
          <TableCell>{i.name}</TableCell>
          <RowActions name={i.name} onEdit={() => actions.edit(i)} onDelete={() => actions.askDelete(i)} />
        </TableRow>
      ))}
    </EntityTablePage>
  );
}
