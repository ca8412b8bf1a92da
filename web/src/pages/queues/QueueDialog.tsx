import { lazy, Suspense, useEffect, useId, useState } from 'react';
import { Controller } from 'react-hook-form';
import { useTranslation } from 'react-i18next';
import { Alert, Flex, Tabs, Text, TextAreaField, TextField } from '@aws-amplify/ui-react';
import { MSG, QUEUE_TYPES, queueSchema, type Queue, type QueueType } from '@balcao/shared';
import { queuesApi } from '../../api/queues';
import { useCompanySetting } from '../../auth/useCompanySetting';
import { Loading } from '../../shell/Loading';
import { DialogFooter } from '../../ui/DialogFooter';
import { choicesOf, ColourField, ControlledSelect, Select } from '../../ui/fields';
import { Modal } from '../../ui/Modal';
import { schedulePaths, weekOf, type ScheduleRow } from '../../ui/schedule';
import { ScheduleEditor } from '../../ui/ScheduleEditor';
import { useAutomationOptions } from '../../ui/useAutomationOptions';
import { useEntityForm } from '../../ui/useEntityForm';
import { QUEUE_PALETTE } from './palette';

// The options tree editor is its own chunk: only an opened Options tab of a saved queue loads it.
const QueueOptions = lazy(() => import('./QueueOptions'));

interface Values {
  name: string;
  color: string;
  orderQueue: string;
  greetingMessage: string;
  outOfHoursMessage: string;
  type: QueueType;
  nextQueueId: string;
  nextQueueInvalidFormId: string;
  integrationId: string;
  promptId: string;
  schedules: ScheduleRow[];
}

type Tab = 'data' | 'options' | 'schedules';
/** The fields of the Data tab (a refusal of one of them brings that tab forward). */
const DATA_FIELDS = ['name', 'color', 'orderQueue', 'greetingMessage', 'outOfHoursMessage', 'type', 'nextQueueId', 'nextQueueInvalidFormId', 'integrationId', 'promptId'] as const;

/** An INTEGRATION queue is run by its integration: the console asks for it before the server does. */
const formSchema = queueSchema.superRefine((v, ctx) => {
  if (v.type === 'INTEGRATION' && !v.integrationId) ctx.addIssue({ code: 'custom', path: ['integrationId'], message: MSG.integrationRequired });
});

const idValue = (id: number | null | undefined) => (id ? String(id) : '');

/**
 * The queue dialog (spec 003 §2): the queue's data (type, FORM targets, the integration of an
 * INTEGRATION queue, the AI prompt of a TEXT one, messages, colour), its options tree (saved
 * option by option, once the queue exists) and, with the setting `scheduleType` `queue`, its
 * business hours and out-of-hours message (saved with the queue).
 */
export default function QueueDialog({ queue, queues, onClose, onSaved }: { queue: Queue | null; queues: readonly Queue[]; onClose: () => void; onSaved: (q: Queue) => void }) {
  const { t } = useTranslation();
  const byQueue = useCompanySetting('scheduleType') === 'queue';
  const [tab, setTab] = useState<Tab>('data');
  const formId = useId();
  // Offered only when the plan has them; otherwise the stored references are left as they are.
  const { integrations, prompts } = useAutomationOptions();
  const entity = useEntityForm<Values, Queue>({
    schema: formSchema,
    defaultValues: {
      name: queue?.name ?? '',
      color: queue?.color ?? '',
      orderQueue: queue?.orderQueue != null ? String(queue.orderQueue) : '',
      greetingMessage: queue?.greetingMessage ?? '',
      outOfHoursMessage: queue?.outOfHoursMessage ?? '',
      type: queue?.type ?? 'TEXT',
      nextQueueId: idValue(queue?.nextQueueId),
      nextQueueInvalidFormId: idValue(queue?.nextQueueInvalidFormId),
      integrationId: idValue(queue?.integrationId),
      promptId: idValue(queue?.promptId),
      schedules: weekOf(queue?.schedules),
    },
    fields: [...DATA_FIELDS, ...schedulePaths()],
    save: (v) => {
      const form = v.type === 'FORM';
      // The resolver hands over the parsed form: ids are numbers or null, orderQueue a number or undefined.
      const id = (x: unknown) => (form && x ? Number(x) : null);
      const ref = (x: unknown) => (x ? Number(x) : null);
      return queuesApi.save(queue?.id, {
        name: v.name.trim(),
        color: v.color.trim(),
        orderQueue: v.orderQueue === undefined || v.orderQueue === null || String(v.orderQueue) === '' ? null : Number(v.orderQueue),
        greetingMessage: v.greetingMessage ?? '',
        type: v.type,
        nextQueueId: id(v.nextQueueId),
        nextQueueInvalidFormId: id(v.nextQueueInvalidFormId),
        // An INTEGRATION queue is run by its integration; a TEXT queue may be run by an AI prompt
        // (a prompt would take a FORM queue's place before its fields are asked).
        ...(integrations ? { integrationId: v.type === 'INTEGRATION' ? ref(v.integrationId) : null } : {}),
        ...(prompts ? { promptId: v.type === 'TEXT' ? ref(v.promptId) : null } : {}),
        // Hours and their message are the queue's only while the company manages them per queue.
        ...(byQueue ? { outOfHoursMessage: v.outOfHoursMessage ?? '', schedules: v.schedules } : {}),
      });
    },
    savedText: t('queues.saved'),
    onSaved,
    onClose,
  });
  const { form, field, error, errors } = entity;
  const type = form.watch('type');

  // A refusal shows on the tab that holds the field: the Data tab first, else the hours.
  const dataError = DATA_FIELDS.some((f) => errors[f]);
  const scheduleError = !!errors.schedules;
  useEffect(() => {
    if (dataError) setTab('data');
    else if (scheduleError && byQueue) setTab('schedules');
  }, [dataError, scheduleError]);

  const others = choicesOf(queues.filter((q) => q.id !== queue?.id));
  // Without the plan's integrations the type is shown, not offered (a queue that is one already keeps it).
  const noIntegrations = (v: QueueType) => v === 'INTEGRATION' && !integrations && queue?.type !== 'INTEGRATION';
  const types = QUEUE_TYPES.map((v) => ({
    value: v,
    label: noIntegrations(v) ? t('queues.typeNotInPlan', { name: t(`queues.types.${v}`) }) : t(`queues.types.${v}`),
    disabled: noIntegrations(v),
  }));

  return (
    <Modal open title={queue ? t('queues.dialogEdit') : t('queues.dialogAdd')} onClose={onClose} wide>
      <Tabs.Container value={tab} onValueChange={(v) => setTab(v as Tab)} className="queue-tabs">
        <Tabs.List>
          <Tabs.Item value="data">{t('queues.tabData')}</Tabs.Item>
          <Tabs.Item value="options" data-testid="queue-tab-options">
            {type === 'FORM' ? t('queues.tabFields') : t('queues.tabOptions')}
          </Tabs.Item>
          {byQueue && (
            <Tabs.Item value="schedules" data-testid="queue-tab-schedules">
              {t('queues.tabSchedules')}
            </Tabs.Item>
          )}
        </Tabs.List>
        <form id={formId} onSubmit={entity.onSubmit} noValidate data-testid="queue-form">
          <Tabs.Panel value="data">
            <Flex direction="column" gap="0.9rem">
              <TextField label={t('queues.name')} autoFocus {...field('name')} />
              <div className="form-grid align-end">
                <Select label={t('queues.type')} {...field('type')} choices={types} />
                <TextField label={t('queues.order')} type="number" min={0} {...field('orderQueue')} />
              </div>
              {type === 'INTEGRATION' && integrations && (
                <ControlledSelect
                  control={form.control}
                  name="integrationId"
                  label={t('queues.integration')}
                  empty={t('queues.chooseIntegration')}
                  choices={choicesOf(integrations)}
                  descriptiveText={integrations.length ? t('queues.integrationHint') : t('queues.noIntegrations')}
                  hasError={!!errors.integrationId}
                  errorMessage={error('integrationId')}
                />
              )}
              {type === 'TEXT' && prompts && (
                <ControlledSelect
                  control={form.control}
                  name="promptId"
                  label={t('queues.prompt')}
                  empty={t('queues.noPrompt')}
                  choices={choicesOf(prompts)}
                  descriptiveText={t('queues.promptHint')}
                  hasError={!!errors.promptId}
                  errorMessage={error('promptId')}
                />
              )}
              {type === 'FORM' && (
                <div className="form-grid align-end" data-testid="queue-form-targets">
                  <ControlledSelect control={form.control} name="nextQueueId" label={t('queues.nextQueue')} empty={t('queues.noTarget')} choices={others} hasError={!!errors.nextQueueId} errorMessage={error('nextQueueId')} />
                  <ControlledSelect
                    control={form.control}
                    name="nextQueueInvalidFormId"
                    label={t('queues.nextQueueInvalid')}
                    empty={t('queues.noTarget')}
                    choices={others}
                    hasError={!!errors.nextQueueInvalidFormId}
                    errorMessage={error('nextQueueInvalidFormId')}
                  />
                </div>
              )}
              <ColourField
                entity={entity}
                legend={t('queues.color')}
                customLabel={t('queues.customColor')}
                preview={(c) => <span className="swatch big" style={{ background: /^#[0-9a-f]{3,8}$/i.test(c) ? c : 'transparent' }} aria-hidden="true" />}
                previewFirst
                palette={QUEUE_PALETTE}
                columns={7}
              />
              <TextAreaField label={t('queues.greeting')} rows={4} {...field('greetingMessage')} />
              {byQueue && <TextAreaField label={t('queues.outOfHours')} rows={3} {...field('outOfHoursMessage')} />}
            </Flex>
          </Tabs.Panel>
          {byQueue && (
            <Tabs.Panel value="schedules">
              <Alert variation="info" marginBottom="0.9rem" data-testid="queue-schedules-hint">
                {t('queues.schedulesSaveHint')}
              </Alert>
              <Controller
                control={form.control}
                name="schedules"
                render={({ field: f }) => <ScheduleEditor value={f.value} onChange={f.onChange} error={(i, k) => error(`schedules.${i}.${k}`)} testId="queue-schedules" />}
              />
            </Tabs.Panel>
          )}
        </form>
        {/* Outside the queue's form: each option is its own form, saved at once. */}
        <Tabs.Panel value="options">
          {tab === 'options' &&
            (queue ? (
              <Suspense fallback={<Loading />}>
                <QueueOptions queue={queue} type={type} queues={queues} />
              </Suspense>
            ) : (
              <Text color="font.secondary" data-testid="queue-options-after-save">
                {t('queues.optionsAfterSave')}
              </Text>
            ))}
        </Tabs.Panel>
      </Tabs.Container>
      <DialogFooter onCancel={onClose} busy={entity.submitting} form={formId} marginTop="1rem" />
    </Modal>
  );
}
