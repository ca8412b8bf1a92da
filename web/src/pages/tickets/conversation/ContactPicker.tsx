import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Loader, Text, TextField } from '@aws-amplify/ui-react';
import { SEARCH_DEBOUNCE_MS } from '@balcao/shared';
import { api } from '../../../api/http';
import { toastError } from '../../../api/errors';
import { Modal } from '../../../ui/Modal';
import { Avatar } from '../../../ui/Avatar';
import { useDebounced } from '../../../ui/hooks';
import { formatWhatsappNumber } from '../../../ui/phone';
import { MIN_CONTACT_SEARCH } from './rules';

export interface PickedContact {
  id: number;
  name: string;
  number: string;
  profilePicUrl?: string | null;
  isGroup?: boolean;
}

/** Contact search (GET /contacts?searchParam=) for forwarding a message and sending a contact card. */
export function ContactPicker({ open, title, onPick, onClose }: { open: boolean; title: string; onPick: (c: PickedContact) => void; onClose: () => void }) {
  const { t } = useTranslation();
  const [text, setText] = useState('');
  const q = useDebounced(text.trim(), SEARCH_DEBOUNCE_MS);
  const [found, setFound] = useState<PickedContact[]>([]);
  const [loading, setLoading] = useState(false);

  useEffect(() => {
    if (!open) setText('');
  }, [open]);

  useEffect(() => {
    if (!open || q.length < MIN_CONTACT_SEARCH) {
      setFound([]);
      return;
    }
    let live = true;
    setLoading(true);
    api
      .get<{ contacts: PickedContact[] } | PickedContact[]>('/contacts', { query: { searchParam: q } })
      .then((r) => live && setFound((Array.isArray(r) ? r : r.contacts ?? []).filter((c) => !c.isGroup)))
      .catch((e) => live && toastError(e))
      .finally(() => live && setLoading(false));
    return () => {
      live = false;
    };
  }, [q, open]);

  return (
    <Modal open={open} title={title} onClose={onClose}>
      <TextField label={t('composer.contactSearch')} value={text} onChange={(e) => setText(e.target.value)} autoFocus autoComplete="off" />
      <div className="picker-list">
        {text.trim().length < MIN_CONTACT_SEARCH && <Text color="font.secondary">{t('composer.searchMin', { count: MIN_CONTACT_SEARCH })}</Text>}
        {loading && <Loader />}
        {!loading && q.length >= MIN_CONTACT_SEARCH && found.length === 0 && <Text color="font.secondary">{t('composer.noContacts')}</Text>}
        {found.map((c) => (
          <button key={c.id} type="button" className="picker-item" onClick={() => onPick(c)}>
            <Avatar name={c.name} photoUrl={c.profilePicUrl} />
            <span className="picker-text">
              <strong>{c.name}</strong>
              <span>{formatWhatsappNumber(c.number)}</span>
            </span>
          </button>
        ))}
      </div>
    </Modal>
  );
}
