import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Button, Flex, Loader, Text, TextField } from '@aws-amplify/ui-react';
import { SEARCH_DEBOUNCE_MS } from '@balcao/shared';
import { api } from '../api/http';
import { toastError } from '../api/errors';
import { Avatar } from './Avatar';
import { useDebounced } from './hooks';
import { formatWhatsappNumber } from './phone';

/** The contact search starts at 3 characters (spec 001 §5). */
export const MIN_CONTACT_SEARCH = 3;

export interface ContactOption {
  id: number;
  name: string;
  number: string;
  profilePicUrl?: string | null;
  isGroup?: boolean;
}

/**
 * A contact chosen by searching (GET /contacts?searchParam=, spec 001 §5/§9): from 3 characters,
 * 500 ms after the last key. With a `value` the chosen contact shows read-only with a change
 * button (omit `changeLabel` to lock it). Two looks: a listbox under the field, styled by the
 * page's `<classPrefix>-search/-options/-option` rules (dialog forms), or `list`, the avatar list
 * of the conversation's picker. `create` offers to create a contact from the typed text once the
 * search has answered (the new-ticket dialog).
 */
export function ContactSearchField<C extends ContactOption>({
  label,
  value,
  onChange,
  hint,
  placeholder,
  emptyText,
  changeLabel,
  error,
  autoFocus,
  excludeGroups,
  create,
  list,
  classPrefix = 'contact',
}: {
  label: string;
  value?: C | null;
  onChange: (c: C | null) => void;
  /** Shown under a search shorter than MIN_CONTACT_SEARCH. */
  hint: string;
  placeholder?: string;
  /** Shown when the search answered nothing. */
  emptyText?: string;
  changeLabel?: string;
  error?: string;
  autoFocus?: boolean;
  excludeGroups?: boolean;
  create?: { label: (typed: string) => string; busy?: boolean; onCreate: (typed: string) => void };
  list?: boolean;
  classPrefix?: string;
}) {
  const { t } = useTranslation();
  const [text, setText] = useState('');
  const typed = text.trim();
  const term = useDebounced(typed, SEARCH_DEBOUNCE_MS);
  const [options, setOptions] = useState<C[]>([]);
  const [searching, setSearching] = useState(false);
  const chosen = !!value;

  useEffect(() => {
    if (chosen || term.length < MIN_CONTACT_SEARCH) {
      setOptions([]);
      // A request dropped by a shorter term must not leave the loader on.
      setSearching(false);
      return;
    }
    let live = true;
    setSearching(true);
    api
      .get<{ contacts: C[] }>('/contacts', { query: { searchParam: term } })
      .then((r) => live && setOptions((r.contacts ?? []).filter((c) => !(excludeGroups && c.isGroup))))
      .catch((e) => live && toastError(e))
      .finally(() => live && setSearching(false));
    return () => {
      live = false;
    };
  }, [term, chosen, excludeGroups]);

  // The options belong to what is typed now (not to a term still waiting for the debounce).
  const settled = !searching && term === typed;

  if (value) {
    return (
      <Flex alignItems="flex-end" gap="0.5rem">
        <TextField label={label} value={`${value.name}${value.number ? ` — ${formatWhatsappNumber(value.number)}` : ''}`} isReadOnly flex="1" />
        {changeLabel && (
          <Button size="small" onClick={() => onChange(null)}>
            {changeLabel}
          </Button>
        )}
      </Flex>
    );
  }

  const short = typed.length < MIN_CONTACT_SEARCH;
  const field = (
    <TextField
      label={label}
      placeholder={placeholder}
      value={text}
      onChange={(e) => setText(e.target.value)}
      autoComplete="off"
      autoFocus={autoFocus}
      hasError={!!error}
      errorMessage={error}
      descriptiveText={!list && typed.length > 0 && short ? hint : undefined}
    />
  );

  if (list) {
    return (
      <>
        {field}
        <div className="picker-list">
          {short && <Text color="font.secondary">{hint}</Text>}
          {searching && <Loader />}
          {settled && !short && options.length === 0 && emptyText && <Text color="font.secondary">{emptyText}</Text>}
          {options.map((c) => (
            <button key={c.id} type="button" className="picker-item" onClick={() => onChange(c)}>
              <Avatar name={c.name} photoUrl={c.profilePicUrl} />
              <span className="picker-text">
                <strong>{c.name}</strong>
                <span>{formatWhatsappNumber(c.number)}</span>
              </span>
            </button>
          ))}
        </div>
      </>
    );
  }

  const option = `${classPrefix}-option`;
  return (
    <div className={`${classPrefix}-search`}>
      {field}
      {!short && (
        <ul className={`${classPrefix}-options`} role="listbox" aria-label={label}>
          {searching && (
            <li className={`${option} muted`}>
              <Loader size="small" /> {t('common.loading')}
            </li>
          )}
          {settled && options.length === 0 && emptyText && <li className={`${option} muted`}>{emptyText}</li>}
          {options.map((c) => (
            <li key={c.id} role="option" aria-selected="false">
              <button type="button" className={option} onClick={() => onChange(c)}>
                <strong>{c.name}</strong>
                <span>{formatWhatsappNumber(c.number)}</span>
              </button>
            </li>
          ))}
          {settled && create && (
            <li role="option" aria-selected="false">
              <button type="button" className={`${option} add`} disabled={create.busy} onClick={() => create.onCreate(typed)}>
                {create.label(typed)}
              </button>
            </li>
          )}
        </ul>
      )}
    </div>
  );
}
