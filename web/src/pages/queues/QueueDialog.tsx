import { useForm } from 'react-hook-form';
import { useTranslation } from 'react-i18next';
import { Button, Flex, TextAreaField, TextField } from '@aws-amplify/ui-react';
import { FORM_SUBMIT_DELAY_MS, queueSchema, type Queue } from '@balcao/shared';
import { api } from '../../api/http';
import { applyFieldErrors, toastError } from '../../api/errors';
import { Modal } from '../../ui/Modal';
import { delay, fieldError, resolver } from '../../ui/form';
import { toast } from '../../ui/toast';

interface Values {
  name: string;
  color: string;
  orderQueue: string;
  greetingMessage: string;
}

// Distinct, readable on both themes; any other hex can be typed.
export const PALETTE = [
  '#e53935', '#d81b60', '#8e24aa', '#5e35b1', '#3949ab', '#1e88e5', '#039be5', '#00acc1',
  '#00897b', '#43a047', '#7cb342', '#c0ca33', '#fdd835', '#ffb300', '#fb8c00', '#f4511e',
  '#6d4c41', '#757575', '#546e7a', '#000000',
];

export default function QueueDialog({ queue, onClose, onSaved }: { queue: Queue | null; onClose: () => void; onSaved: (q: Queue) => void }) {
  const { t } = useTranslation();
  const { register, handleSubmit, setValue, watch, setError, formState } = useForm<Values>({
    resolver: resolver<Values>(queueSchema),
    defaultValues: {
      name: queue?.name ?? '',
      color: queue?.color ?? '',
      orderQueue: queue?.orderQueue != null ? String(queue.orderQueue) : '',
      greetingMessage: queue?.greetingMessage ?? '',
    },
  });
  const color = watch('color');

  const onSubmit = handleSubmit(async (v) => {
    await delay(FORM_SUBMIT_DELAY_MS);
    const body = {
      name: v.name.trim(),
      color: v.color.trim(),
      // The resolver hands over the parsed form: orderQueue is a number or undefined.
      orderQueue: v.orderQueue === undefined || v.orderQueue === null || String(v.orderQueue) === '' ? null : Number(v.orderQueue),
      greetingMessage: v.greetingMessage ?? '',
    };
    try {
      const saved = queue ? await api.put<Queue>(`/queue/${queue.id}`, body) : await api.post<Queue>('/queue', body);
      toast.success(t('queues.saved'));
      onSaved(saved);
      onClose();
    } catch (e) {
      applyFieldErrors(e, setError as never, ['name', 'color', 'orderQueue', 'greetingMessage']);
      toastError(e);
    }
  });

  const err = formState.errors;
  return (
    <Modal open title={queue ? t('queues.dialogEdit') : t('queues.dialogAdd')} onClose={onClose} wide>
      <form onSubmit={onSubmit} noValidate>
        <Flex direction="column" gap="0.9rem">
          <div className="form-grid">
            <TextField label={t('queues.name')} autoFocus {...register('name')} hasError={!!err.name} errorMessage={fieldError(err.name)} />
            <TextField label={t('queues.order')} type="number" min={0} {...register('orderQueue')} hasError={!!err.orderQueue} errorMessage={fieldError(err.orderQueue)} />
          </div>
          <fieldset className="color-picker">
            <legend>{t('queues.color')}</legend>
            <div className="swatches">
              {PALETTE.map((c) => (
                <button
                  key={c}
                  type="button"
                  className={`swatch${color.toLowerCase() === c ? ' selected' : ''}`}
                  style={{ background: c }}
                  aria-label={t('queues.pickColor', { color: c })}
                  aria-pressed={color.toLowerCase() === c}
                  onClick={() => setValue('color', c, { shouldValidate: true })}
                />
              ))}
            </div>
            <Flex alignItems="flex-end" gap="0.5rem">
              <span className="swatch big" style={{ background: /^#[0-9a-f]{3,8}$/i.test(color) ? color : 'transparent' }} aria-hidden="true" />
              <TextField
                label={t('queues.customColor')}
                placeholder="#1e88e5"
                {...register('color')}
                hasError={!!err.color}
                errorMessage={fieldError(err.color)}
              />
            </Flex>
          </fieldset>
          <TextAreaField label={t('queues.greeting')} rows={4} {...register('greetingMessage')} hasError={!!err.greetingMessage} errorMessage={fieldError(err.greetingMessage)} />
          <Flex justifyContent="flex-end" gap="0.5rem">
            <Button onClick={onClose}>{t('common.cancel')}</Button>
            <Button type="submit" variation="primary" isLoading={formState.isSubmitting}>
              {t('common.save')}
            </Button>
          </Flex>
        </Flex>
      </form>
    </Modal>
  );
}
