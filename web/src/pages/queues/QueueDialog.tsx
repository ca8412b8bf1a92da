import { useTranslation } from 'react-i18next';
import { TextAreaField, TextField } from '@aws-amplify/ui-react';
import { queueSchema, type Queue } from '@balcao/shared';
import { queuesApi } from '../../api/queues';
import { EntityDialog } from '../../ui/EntityDialog';
import { ColourField } from '../../ui/fields';
import { useEntityForm } from '../../ui/useEntityForm';

interface Values {
  name: string;
  color: string;
  orderQueue: string;
  greetingMessage: string;
}

export default function QueueDialog({ queue, onClose, onSaved }: { queue: Queue | null; onClose: () => void; onSaved: (q: Queue) => void }) {
  const { t } = useTranslation();
  const entity = useEntityForm<Values, Queue>({
    schema: queueSchema,
    defaultValues: {
      name: queue?.name ?? '',
      color: queue?.color ?? '',
      orderQueue: queue?.orderQueue != null ? String(queue.orderQueue) : '',
      greetingMessage: queue?.greetingMessage ?? '',
    },
    save: (v) =>
      queuesApi.save(queue?.id, {
        name: v.name.trim(),
        color: v.color.trim(),
        // The resolver hands over the parsed form: orderQueue is a number or undefined.
        orderQueue: v.orderQueue === undefined || v.orderQueue === null || String(v.orderQueue) === '' ? null : Number(v.orderQueue),
        greetingMessage: v.greetingMessage ?? '',
      }),
    savedText: t('queues.saved'),
    onSaved,
    onClose,
  });
  const { field } = entity;
  return (
    <EntityDialog title={queue ? t('queues.dialogEdit') : t('queues.dialogAdd')} entity={entity} onClose={onClose}>
      <div className="form-grid">
        <TextField label={t('queues.name')} autoFocus {...field('name')} />
        <TextField label={t('queues.order')} type="number" min={0} {...field('orderQueue')} />
      </div>
      <ColourField
        entity={entity}
        legend={t('queues.color')}
        customLabel={t('queues.customColor')}
        preview={(c) => <span className="swatch big" style={{ background: /^#[0-9a-f]{3,8}$/i.test(c) ? c : 'transparent' }} aria-hidden="true" />}
        previewFirst
      />
      <TextAreaField label={t('queues.greeting')} rows={4} {...field('greetingMessage')} />
    </EntityDialog>
  );
}
