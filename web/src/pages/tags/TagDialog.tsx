import { useForm } from 'react-hook-form';
import { useTranslation } from 'react-i18next';
import { Button, Flex, SelectField, SwitchField, Text, TextField } from '@aws-amplify/ui-react';
import { FORM_SUBMIT_DELAY_MS, TAG_TYPES, tagSchema, type TagType } from '@balcao/shared';
import { api } from '../../api/http';
import { applyFieldErrors, toastError } from '../../api/errors';
import { Modal } from '../../ui/Modal';
import { delay, fieldError, resolver } from '../../ui/form';
import { toast } from '../../ui/toast';
import { PALETTE } from '../queues/QueueDialog';
import { TagChip, type Tag } from './tag';

interface Values {
  name: string;
  color: string;
  type: TagType;
  kanban: boolean;
}

const DEFAULT_COLOR = '#1e88e5';
const isHex = (c: string) => /^#(?:[0-9a-f]{3}|[0-9a-f]{6}|[0-9a-f]{8})$/i.test(c);

/**
 * Tag form (spec 001 §3, §5). `canKanban`: admins and super users (the server refuses others with
 * ERR_NO_PERMISSION); kanban lanes are ticket tags only, so the toggle goes with the type.
 */
export default function TagDialog({ tag, canKanban, onClose, onSaved }: { tag: Tag | null; canKanban: boolean; onClose: () => void; onSaved: (t: Tag) => void }) {
  const { t } = useTranslation();
  const { register, handleSubmit, setValue, watch, setError, formState } = useForm<Values>({
    resolver: resolver<Values>(tagSchema),
    defaultValues: { name: tag?.name ?? '', color: tag?.color ?? DEFAULT_COLOR, type: tag?.type ?? 'ticket', kanban: tag?.kanban === 1 },
  });
  const color = watch('color') ?? '';
  const type = watch('type');
  const kanban = watch('kanban');
  const name = watch('name');
  // A tag in use keeps its type (the server answers 400 otherwise): say so before the user tries.
  const inUse = !!tag && (tag.ticketsCount > 0 || tag.contactsCount > 0);

  const onSubmit = handleSubmit(async () => {
    await delay(FORM_SUBMIT_DELAY_MS);
    // The resolver's output has kanban as 0/1; the raw values are what the form shows.
    const raw = watch();
    const body: Record<string, unknown> = { name: raw.name.trim(), color: raw.color.trim(), type: raw.type };
    if (canKanban) body.kanban = raw.type === 'ticket' && raw.kanban ? 1 : 0;
    try {
      const saved = tag ? await api.put<Tag>(`/tags/${tag.id}`, body) : await api.post<Tag>('/tags', body);
      toast.success(t('tags.saved'));
      onSaved(saved);
      onClose();
    } catch (e) {
      applyFieldErrors(e, setError as never, ['name', 'color', 'type', 'kanban']);
      toastError(e);
    }
  });

  const err = formState.errors;
  return (
    <Modal open title={tag ? t('tags.dialogEdit') : t('tags.dialogAdd')} onClose={onClose}>
      <form onSubmit={onSubmit} noValidate>
        <Flex direction="column" gap="0.9rem">
          <TextField label={t('tags.name')} autoFocus {...register('name')} hasError={!!err.name} errorMessage={fieldError(err.name)} />
          <fieldset className="color-picker">
            <legend>{t('tags.color')}</legend>
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
            <Flex alignItems="flex-end" gap="0.5rem" wrap="wrap">
              <TextField label={t('tags.customColor')} placeholder="#1e88e5" {...register('color')} hasError={!!err.color} errorMessage={fieldError(err.color)} />
              <span className="tg-preview" aria-hidden="true">
                <TagChip tag={{ name: name.trim() || t('tags.preview'), color: isHex(color) ? color : DEFAULT_COLOR }} />
              </span>
            </Flex>
          </fieldset>
          <SelectField
            label={t('tags.type')}
            {...register('type', {
              onChange: (e) => {
                if (e.target.value !== 'ticket') setValue('kanban', false);
              },
            })}
            isDisabled={inUse}
            descriptiveText={inUse ? t('tags.typeLocked') : undefined}
            hasError={!!err.type}
            errorMessage={fieldError(err.type)}
          >
            {TAG_TYPES.map((ty) => (
              <option key={ty} value={ty}>
                {t(`tags.types.${ty}`)}
              </option>
            ))}
          </SelectField>
          {canKanban && type === 'ticket' && (
            <div>
              <SwitchField
                label={t('tags.kanban')}
                isChecked={!!kanban}
                onChange={(e) => setValue('kanban', e.target.checked)}
                hasError={!!err.kanban}
                errorMessage={fieldError(err.kanban)}
              />
              {/* The board itself comes with its own issue: the mark is kept for it, and says so. */}
              <Text as="p" fontSize="small" className="muted" data-testid="kanban-coming-soon">
                {t('tags.kanbanComingSoon')}
              </Text>
            </div>
          )}
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
