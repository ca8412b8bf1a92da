import { useState } from 'react';
import { Controller } from 'react-hook-form';
import { useTranslation } from 'react-i18next';
import { Flex, Text, TextAreaField, TextField } from '@aws-amplify/ui-react';
import { connectionSchema, PROVIDERS, type Connection } from '@balcao/shared';
import { connectionsApi } from '../../api/connections';
import { queuesApi } from '../../api/queues';
import { EntityDialog } from '../../ui/EntityDialog';
import { CheckField, choicesOf, ControlledSelect, Select } from '../../ui/fields';
import { QueueChips } from '../../ui/QueueChips';
import { useAutomationOptions } from '../../ui/useAutomationOptions';
import { useEntityForm } from '../../ui/useEntityForm';
import { useOptions, useRecord } from '../../ui/useLoad';
import { EMPTY, toBody, toValues, type Values } from './connection-form';
import { TokenField } from './TokenField';

const MESSAGES = ['greetingMessage', 'complationMessage', 'outOfHoursMessage', 'ratingMessage'] as const;
const MINUTES = ['timeToTransfer', 'expiresTicket', 'timeUseBotQueues'] as const;

export type ConnectionForm = ReturnType<typeof useEntityForm<Values, Connection>>;

export default function ConnectionDialog({ connectionId, onClose, onSaved }: { connectionId: number | null; onClose: () => void; onSaved: (c: Connection) => void }) {
  const { t } = useTranslation();
  const editing = connectionId !== null;
  const [current, setCurrent] = useState<Connection | null>(null);
  const queues = useOptions(queuesApi.all, []);
  // Offered only when the plan has them (null: hidden, and the stored reference is left as it is).
  const { prompts, integrations } = useAutomationOptions();

  const entity: ConnectionForm = useEntityForm<Values, Connection>({
    schema: connectionSchema,
    defaultValues: EMPTY,
    // Lists the plan does not offer are not shown: whatever is stored stays untouched.
    save: (v) => connectionsApi.save(connectionId, toBody(v, { prompts: !!prompts, integrations: !!integrations })),
    savedText: t('connections.saved'),
    onSaved,
    onClose,
  });
  const { form, field, error } = entity;
  const loading = useRecord(connectionId, connectionsApi.get, (c) => {
    setCurrent(c);
    form.reset(toValues(c));
  }, onClose);

  // The id selects are controlled (React owns their value): the connection may load before their
  // option lists, and a select whose option is not there yet would lose the value.
  const optional = (name: 'promptId' | 'integrationId', label: string, hint: string, list: { id: number; name: string }[] | null) =>
    list && (
      <ControlledSelect control={form.control} name={name} label={label} empty={t('common.none')} choices={choicesOf(list)} descriptiveText={hint} hasError={!!entity.errors[name]} errorMessage={error(name)} />
    );
  const number = (name: (typeof MINUTES)[number] | 'maxUseBotQueues', hint?: string) => (
    <TextField key={name} label={t(`connections.${name}`)} type="number" min={0} inputMode="numeric" descriptiveText={hint} {...field(name)} />
  );

  return (
    <EntityDialog title={editing ? t('connections.dialogEdit') : t('connections.dialogAdd')} entity={entity} onClose={onClose} loading={editing && loading}>
      <fieldset className="form-section">
        <legend>{t('connections.sectionGeneral')}</legend>
        <div className="form-grid">
          <TextField label={t('connections.name')} autoFocus {...field('name')} />
          <Select label={t('connections.provider')} {...field('provider')} choices={PROVIDERS.map((p) => ({ value: p, label: t(`connections.providers.${p}`) }))} />
        </div>
        <CheckField control={form.control} name="isDefault" label={t('connections.isDefault')} error={error('isDefault')} marginTop="0.75rem" />
      </fieldset>

      <fieldset className="form-section">
        <legend>{t('connections.sectionMessages')}</legend>
        <Flex direction="column" gap="0.75rem">
          {MESSAGES.map((m) => (
            <TextAreaField key={m} label={t(`connections.${m}`)} rows={3} {...field(m)} />
          ))}
        </Flex>
      </fieldset>

      <fieldset className="form-section">
        <legend>{t('connections.sectionQueues')}</legend>
        <Text as="div" fontSize="small" color="font.secondary" marginBottom="0.35rem">
          {t('connections.queues')}
        </Text>
        <Controller control={form.control} name="queueIds" render={({ field: f }) => <QueueChips queues={queues} value={f.value} onChange={f.onChange} label={t('connections.queues')} />} />
        {entity.errors.queueIds && (
          <Text color="font.error" fontSize="small" marginTop="0.25rem">
            {error('queueIds')}
          </Text>
        )}
        <div className="form-grid align-end" style={{ marginTop: '0.9rem' }}>
          <ControlledSelect control={form.control} name="transferQueueId" label={t('connections.transferQueue')} empty={t('connections.noQueue')} choices={choicesOf(queues)} hasError={!!entity.errors.transferQueueId} errorMessage={error('transferQueueId')} />
          {MINUTES.map((m) => number(m, t('connections.minutesOff')))}
          {number('maxUseBotQueues')}
        </div>
        <TextAreaField label={t('connections.expiresInactiveMessage')} rows={3} marginTop="0.9rem" {...field('expiresInactiveMessage')} />
      </fieldset>

      <fieldset className="form-section">
        <legend>{t('connections.sectionIntegrations')}</legend>
        <TokenField entity={entity} hasToken={!!current?.hasToken} />
        {(prompts || integrations) && (
          <div className="form-grid align-end" style={{ marginTop: '0.9rem' }}>
            {optional('promptId', t('connections.prompt'), t('connections.promptHint'), prompts)}
            {optional('integrationId', t('connections.integration'), t('connections.integrationHint'), integrations)}
          </div>
        )}
      </fieldset>
    </EntityDialog>
  );
}
