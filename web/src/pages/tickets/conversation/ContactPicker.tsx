import { useTranslation } from 'react-i18next';
import { Modal } from '../../../ui/Modal';
import { ContactSearchField, MIN_CONTACT_SEARCH, type ContactOption } from '../../../ui/ContactSearchField';

/** Contact search for forwarding a message and sending a contact card (groups are left out). */
export function ContactPicker({ open, title, onPick, onClose }: { open: boolean; title: string; onPick: (c: ContactOption) => void; onClose: () => void }) {
  const { t } = useTranslation();
  // The modal mounts its content only while open, so each opening starts with an empty search.
  return (
    <Modal open={open} title={title} onClose={onClose}>
      <ContactSearchField
        list
        label={t('composer.contactSearch')}
        hint={t('composer.searchMin', { count: MIN_CONTACT_SEARCH })}
        emptyText={t('composer.noContacts')}
        onChange={(c) => c && onPick(c)}
        autoFocus
        excludeGroups
      />
    </Modal>
  );
}
