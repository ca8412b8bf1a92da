import { useTranslation } from 'react-i18next';
import { TableCell, TableRow, TextAreaField, TextField } from '@aws-amplify/ui-react';
import { helpSchema, type ApiHelp } from '@balcao/shared';
import { HELPS_KEY, helpsApi } from '../../api/helps';
import { EntityDialog } from '../../ui/EntityDialog';
import { EntityTablePage } from '../../ui/EntityTablePage';
import { RowActions } from '../../ui/TableParts';
import { useEntityForm } from '../../ui/useEntityForm';
import { useLiveQuery } from '../../ui/useLiveQuery';
import { useRowActions } from '../../ui/useRowActions';

type Values = { title: string; video: string; description: string };

/** The settings Help tab (spec 003 §2): the super user's list and form of the help videos. */
export default function Helps() {
  const { t } = useTranslation();
  const { items: helps, isLoading, upsert, drop } = useLiveQuery<ApiHelp>({ key: HELPS_KEY, load: helpsApi.all });
  const actions = useRowActions<ApiHelp>({ remove: (h) => helpsApi.remove(h.id), onRemoved: (h) => drop(h.id), deletedText: t('common.deleted') });

  return (
    <EntityTablePage
      tab
      add={t('helps.add')}
      actions={actions}
      deleteTitle={(h) => h.title}
      texts="helps"
      columns={['titleField', 'video', ['description', 'hide-narrow']]}
      loading={isLoading}
      empty={helps.length === 0}
      dialogs={actions.editing && <HelpDialog help={actions.editing.item} onClose={actions.close} onSaved={upsert} />}
    >
      {helps.map((h) => (
        <TableRow key={h.id}>
          <TableCell>{h.title}</TableCell>
          <TableCell>
            <code>{h.video}</code>
          </TableCell>
          <TableCell className="hide-narrow help-description-cell">{h.description}</TableCell>
          <RowActions name={h.title} onEdit={() => actions.edit(h)} onDelete={() => actions.askDelete(h)} />
        </TableRow>
      ))}
    </EntityTablePage>
  );
}

function HelpDialog({ help, onClose, onSaved }: { help: ApiHelp | null; onClose: () => void; onSaved: (h: ApiHelp) => void }) {
  const { t } = useTranslation();
  const entity = useEntityForm<Values, ApiHelp>({
    schema: helpSchema,
    defaultValues: { title: help?.title ?? '', video: help?.video ?? '', description: help?.description ?? '' },
    // The parsed values: a pasted YouTube address is sent as its video code.
    save: (v) => helpsApi.save(help?.id, { title: v.title, video: v.video, description: v.description }),
    savedText: t('common.saved'),
    onSaved,
    onClose,
    pause: false,
  });
  const { field } = entity;
  return (
    <EntityDialog title={help ? t('helps.dialogEdit') : t('helps.dialogAdd')} entity={entity} onClose={onClose}>
      <TextField label={t('helps.titleField')} autoFocus isRequired {...field('title')} />
      <TextField label={t('helps.video')} isRequired descriptiveText={t('helps.videoHint')} {...field('video')} />
      <TextAreaField label={t('helps.description')} rows={4} {...field('description')} />
    </EntityDialog>
  );
}
