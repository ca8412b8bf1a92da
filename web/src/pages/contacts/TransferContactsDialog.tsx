import { useEffect, useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { Alert, Button, Flex, Loader, TextField } from '@aws-amplify/ui-react';
import { FORM_SUBMIT_DELAY_MS, MIN_USER_SEARCH_CHARS, SAME_ATTENDANT, SEARCH_DEBOUNCE_MS } from '@balcao/shared';
import { ApiError } from '../../api/http';
import { contactsApi } from '../../api/contacts';
import { usersApi } from '../../api/users';
import { errorText, toastError } from '../../api/errors';
import { translateMessage } from '../../i18n';
import { DialogFooter } from '../../ui/DialogFooter';
import { Modal } from '../../ui/Modal';
import { delay } from '../../ui/form';
import { useDebounced } from '../../ui/hooks';
import { toast } from '../../ui/toast';

interface UserLite {
  id: number;
  name: string;
  email?: string;
}

/** The user search of a transfer starts at 3 characters (spec 000 §2.7, 001 §5). */

/** One attendant, picked by searching by name once at least 3 characters are typed. */
function UserPicker({ label, value, onChange, error, testId }: { label: string; value: UserLite | null; onChange: (u: UserLite | null) => void; error?: string; testId: string }) {
  const { t } = useTranslation();
  const [text, setText] = useState('');
  const term = useDebounced(text.trim(), SEARCH_DEBOUNCE_MS);
  const [options, setOptions] = useState<UserLite[]>([]);
  const [searching, setSearching] = useState(false);

  useEffect(() => {
    if (value || term.length < MIN_USER_SEARCH_CHARS) {
      setOptions([]);
      return;
    }
    let live = true;
    setSearching(true);
    usersApi
      .search(term)
      .then((r) => live && setOptions(r.users ?? []))
      .catch((e) => live && toastError(e))
      .finally(() => live && setSearching(false));
    return () => {
      live = false;
    };
  }, [term, value]);

  if (value)
    return (
      <Flex alignItems="flex-end" gap="0.5rem" data-testid={testId}>
        <TextField label={label} value={value.name} isReadOnly flex="1" hasError={!!error} errorMessage={error} />
        <Button size="small" onClick={() => onChange(null)}>
          {t('contacts.change')}
        </Button>
      </Flex>
    );
  const typed = text.trim();
  return (
    <div className="contact-search" data-testid={testId}>
      <TextField
        label={label}
        placeholder={t('contacts.userSearchPlaceholder')}
        value={text}
        onChange={(e) => setText(e.target.value)}
        autoComplete="off"
        hasError={!!error}
        errorMessage={error}
        descriptiveText={typed.length < MIN_USER_SEARCH_CHARS ? t('tickets.minChars', { count: MIN_USER_SEARCH_CHARS }) : undefined}
      />
      {typed.length >= MIN_USER_SEARCH_CHARS && (
        <ul className="contact-options" role="listbox" aria-label={label}>
          {searching && (
            <li className="contact-option muted">
              <Loader size="small" /> {t('common.loading')}
            </li>
          )}
          {!searching && term === typed && options.length === 0 && <li className="contact-option muted">{t('common.noRecords')}</li>}
          {options.map((u) => (
            <li key={u.id} role="option" aria-selected="false">
              <button type="button" className="contact-option" onClick={() => onChange(u)}>
                <strong>{u.name}</strong>
                {u.email && <span>{u.email}</span>}
              </button>
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}

/** Spec 000 §2.7: every contact of one attendant becomes another's. */
export default function TransferContactsDialog({ open, onClose, onDone }: { open: boolean; onClose: () => void; onDone: () => void }) {
  const { t } = useTranslation();
  const [source, setSource] = useState<UserLite | null>(null);
  const [destination, setDestination] = useState<UserLite | null>(null);
  const [errors, setErrors] = useState<{ source?: string; destination?: string }>({});
  const [busy, setBusy] = useState(false);

  const submit = async (ev: FormEvent) => {
    ev.preventDefault();
    const errs: typeof errors = {};
    if (!source) errs.source = t('validation.required');
    if (!destination) errs.destination = t('validation.required');
    // The same refusal as the server's, before asking it.
    else if (source && source.id === destination.id) errs.destination = translateMessage(SAME_ATTENDANT);
    setErrors(errs);
    if (errs.source || errs.destination) return;
    setBusy(true);
    await delay(FORM_SUBMIT_DELAY_MS);
    try {
      const r = await contactsApi.transferUser(source!.id, destination!.id);
      toast.success(t('contacts.transferred', { count: r.transferred }));
      onDone();
      onClose();
    } catch (e) {
      const field = e instanceof ApiError ? e.body.fields?.[0] : undefined;
      if (field?.field === 'userIdSource') setErrors({ source: translateMessage(field.message) });
      else if (field?.field === 'userIdDestination') setErrors({ destination: translateMessage(field.message) });
      else setErrors({ destination: errorText(e) });
    } finally {
      setBusy(false);
    }
  };

  return (
    <Modal open={open} title={t('contacts.transferTitle')} onClose={onClose}>
      <form onSubmit={(e) => void submit(e)} noValidate data-testid="transfer-contacts-form">
        <Flex direction="column" gap="0.9rem">
          {/* A new choice clears that field's refusal (it was about the previous one). */}
          <UserPicker
            label={t('contacts.transferFrom')}
            value={source}
            onChange={(u) => {
              setSource(u);
              setErrors((e) => ({ ...e, source: undefined, destination: e.destination === translateMessage(SAME_ATTENDANT) ? undefined : e.destination }));
            }}
            error={errors.source}
            testId="transfer-source"
          />
          <UserPicker
            label={t('contacts.transferTo')}
            value={destination}
            onChange={(u) => {
              setDestination(u);
              setErrors((e) => ({ ...e, destination: undefined }));
            }}
            error={errors.destination}
            testId="transfer-destination"
          />
          {source && destination && source.id !== destination.id && <Alert variation="info">{t('contacts.transferHint', { from: source.name, to: destination.name })}</Alert>}
          <DialogFooter onCancel={onClose} busy={busy} submitText={t('contacts.transfer')} busyText={t('contacts.transfer')} />
        </Flex>
      </form>
    </Modal>
  );
}
