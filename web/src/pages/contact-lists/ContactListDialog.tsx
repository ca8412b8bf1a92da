import { useTranslation } from 'react-i18next';
import { TextField } from '@aws-amplify/ui-react';
import { contactListSchema, type ApiContactList } from '@balcao/shared';
import { contactListsApi } from '../../api/contactLists';
import { EntityDialog } from '../../ui/EntityDialog';
import { useEntityForm } from '../../ui/useEntityForm';

interface Values {
  name: string;
}

/** A contact list's dialog (spec 002 §5): its name, 2 to 50 characters (Too Short!, Too Long!, Required). */
export default function ContactListDialog({ record, onClose, onSaved }: { record: ApiContactList | null; onClose: () => void; onSaved: (l: ApiContactList) => void }) {
  const { t } = useTranslation();
  const entity = useEntityForm<Values, ApiContactList>({
    schema: contactListSchema,
    defaultValues: { name: record?.name ?? '' },
    save: (v) => contactListsApi.save(record?.id, { name: v.name }),
    savedText: t('contactLists.saved'),
    onSaved,
    onClose,
    toastRefusal: 'unmatched',
  });
  return (
    <EntityDialog title={record ? t('contactLists.dialogEdit') : t('contactLists.dialogAdd')} entity={entity} onClose={onClose} wide={false} testId="contact-list-form">
      <TextField label={t('contactLists.name')} autoFocus {...entity.field('name')} />
    </EntityDialog>
  );
}
