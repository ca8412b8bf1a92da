import { useTranslation } from 'react-i18next';
import { TextField } from '@aws-amplify/ui-react';
import { TAG_TYPES, tagSchema, type TagType } from '@balcao/shared';
import { tagsApi } from '../../api/tags';
import { EntityDialog } from '../../ui/EntityDialog';
import { CheckField, ColourField, isHexColour, Select } from '../../ui/fields';
import { useEntityForm } from '../../ui/useEntityForm';
import { TagChip, type Tag } from './tag';

interface Values {
  name: string;
  color: string;
  type: TagType;
  kanban: boolean;
}

const DEFAULT_COLOR = '#1e88e5';

/**
 * Tag form (spec 001 §3, §5). `canKanban`: admins and super users (the server refuses others with
 * ERR_NO_PERMISSION); kanban lanes are ticket tags only, so the toggle goes with the type.
 */
export default function TagDialog({ tag, canKanban, onClose, onSaved }: { tag: Tag | null; canKanban: boolean; onClose: () => void; onSaved: (t: Tag) => void }) {
  const { t } = useTranslation();
  const entity = useEntityForm<Values, Tag>({
    schema: tagSchema,
    defaultValues: { name: tag?.name ?? '', color: tag?.color ?? DEFAULT_COLOR, type: tag?.type ?? 'ticket', kanban: tag?.kanban === 1 },
    // The resolver's output has kanban as 0/1; the raw values are what the form shows.
    save: (_, raw) => {
      const body: Record<string, unknown> = { name: raw.name.trim(), color: raw.color.trim(), type: raw.type };
      if (canKanban) body.kanban = raw.type === 'ticket' && raw.kanban ? 1 : 0;
      return tagsApi.save(tag?.id, body);
    },
    savedText: t('tags.saved'),
    onSaved,
    onClose,
  });
  const { form, field } = entity;
  const name = form.watch('name');
  // A tag in use keeps its type (the server answers 400 otherwise): say so before the user tries.
  const inUse = !!tag && (tag.ticketsCount > 0 || tag.contactsCount > 0);
  const typeField = form.register('type', {
    onChange: (e) => {
      if (e.target.value !== 'ticket') form.setValue('kanban', false);
    },
  });

  return (
    <EntityDialog title={tag ? t('tags.dialogEdit') : t('tags.dialogAdd')} entity={entity} onClose={onClose} wide={false}>
      <TextField label={t('tags.name')} autoFocus {...field('name')} />
      <ColourField
        entity={entity}
        legend={t('tags.color')}
        customLabel={t('tags.customColor')}
        preview={(c) => (
          <span className="tg-preview" aria-hidden="true">
            <TagChip tag={{ name: name.trim() || t('tags.preview'), color: isHexColour(c) ? c : DEFAULT_COLOR }} />
          </span>
        )}
      />
      <Select
        label={t('tags.type')}
        {...typeField}
        isDisabled={inUse}
        descriptiveText={inUse ? t('tags.typeLocked') : undefined}
        hasError={!!entity.errors.type}
        errorMessage={entity.error('type')}
        choices={TAG_TYPES.map((ty) => ({ value: ty, label: t(`tags.types.${ty}`) }))}
      />
      {/* A lane of the kanban board: ticket tags for the board by Atendimento, contact tags for Contato. */}
      {canKanban && <CheckField control={form.control} name="kanban" label={t('tags.kanban')} error={entity.error('kanban')} asSwitch />}
    </EntityDialog>
  );
}
