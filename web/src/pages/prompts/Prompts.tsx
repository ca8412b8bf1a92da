import { useTranslation } from 'react-i18next';
import { TableCell, TableRow } from '@aws-amplify/ui-react';
import type { ApiPrompt } from '@balcao/shared';
import { promptsApi } from '../../api/integrations';
import { useAuth } from '../../auth/AuthContext';
import { usePlanGate } from '../../auth/usePlanGate';
import { translateMessage } from '../../i18n';
import { EntityTablePage } from '../../ui/EntityTablePage';
import { RowActions } from '../../ui/TableParts';
import { recordEvent } from '../../ui/useLiveList';
import { useLiveQuery } from '../../ui/useLiveQuery';
import { useRowActions } from '../../ui/useRowActions';
import PromptDialog from './PromptDialog';
import './prompts.css';

/** The AI prompts page (spec 002 §2), for plans with useOpenAi. */
export default function Prompts() {
  const allowed = usePlanGate('useOpenAi');
  // Without the plan flag the routes answer 403: nothing is asked while the redirect runs.
  return allowed ? <PromptsTable /> : null;
}

function PromptsTable() {
  const { t } = useTranslation();
  const { user } = useAuth();
  const { items: prompts, isLoading, upsert, drop } = useLiveQuery<ApiPrompt>({
    key: ['prompts', user?.companyId],
    load: promptsApi.all,
    event: 'prompt',
    fromEvent: recordEvent('promptId', 'prompt'),
  });
  // Spec 002 §7: the delete's answer is a message, shown as an info toast.
  const actions = useRowActions<ApiPrompt, { message?: string } | undefined>({
    remove: (p) => promptsApi.remove(p.id),
    onRemoved: (p) => drop(p.id),
    deletedText: (answer) => translateMessage(answer?.message) ?? t('prompts.deleted'),
    deletedKind: 'info',
  });

  return (
    <EntityTablePage
      texts="prompts"
      add
      actions={actions}
      nameOf={(p) => p.name}
      columns={['name', 'queue', ['maxTokens', 'hide-narrow']]}
      loading={isLoading}
      empty={prompts.length === 0}
      dialogs={actions.editing && <PromptDialog record={actions.editing.item} onClose={actions.close} onSaved={upsert} />}
    >
      {prompts.map((p) => (
        <TableRow key={p.id} data-testid={`prompt-row-${p.id}`}>
          <TableCell>{p.name}</TableCell>
          <TableCell>
            {p.queue ? (
              <span className="prompt-queue">
                <span className="swatch small" style={{ background: p.queue.color }} aria-hidden="true" />
                {p.queue.name}
              </span>
            ) : (
              <span className="prompt-muted">{t('prompts.queueGone')}</span>
            )}
          </TableCell>
          <TableCell className="hide-narrow">{p.maxTokens}</TableCell>
          <RowActions name={p.name} onEdit={() => actions.edit(p)} onDelete={() => actions.askDelete(p)} />
        </TableRow>
      ))}
    </EntityTablePage>
  );
}
