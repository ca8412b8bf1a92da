import { lazy, Suspense, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Text, TextField } from '@aws-amplify/ui-react';
import { contactListItemSchema, type ApiContactListItem } from '@balcao/shared';
import { contactListItemsApi } from '../../api/contactLists';
import { ContactSearchField, MIN_CONTACT_SEARCH, type ContactOption } from '../../ui/ContactSearchField';
import { EntityDialog } from '../../ui/EntityDialog';
import { formatWhatsappNumber } from '../../ui/phone';
import { useEntityForm } from '../../ui/useEntityForm';

const ContactDialog = lazy(() => import('./NewContactDialog'));

interface Values {
  name: string;
  number: string;
  email: string;
}

/** A contact as the search answers it (`GET /contacts?searchParam=`), with what prefills an item. */
type FoundContact = ContactOption & { email?: string | null };

/** The number field's example, in the country-code style the table shows (not a translated text). */
const NUMBER_PLACEHOLDER = '+55 (11) 99999-9999';

/** The item's fields are the list's: the list itself is not the form's to change. */
const formSchema = contactListItemSchema.omit({ contactListId: true });

/** What a text typed in the search starts a new contact with: digits (and phone punctuation) are its number. */
const contactFromTyped = (typed: string) => (/^[\d\s()+.-]+$/.test(typed) ? { number: typed.replace(/\D/g, '') } : { name: typed });

const valuesOf = (c: { name?: string | null; number?: string | null; email?: string | null }): Values => ({
  name: c.name ?? '',
  number: formatWhatsappNumber(c.number),
  email: c.email ?? '',
});

/**
 * A contact list item's dialog (spec 002 §2, §5): name 2-50, number 8-50 (kept as digits, as the
 * contacts page keeps them; once per list), email. When adding, a search of the company's contacts
 * (from 3 characters) fills the form in, or offers to create the contact in the contacts page's
 * dialog first.
 */
export default function ContactListItemDialog({
  contactListId,
  record,
  onClose,
  onSaved,
}: {
  contactListId: number;
  record: ApiContactListItem | null;
  onClose: () => void;
  onSaved: (item: ApiContactListItem) => void;
}) {
  const { t } = useTranslation();
  // A new contact to create, started from what was typed in the search.
  const [creating, setCreating] = useState<{ name?: string; number?: string } | null>(null);
  // The search starts over (empty) once a contact filled the form in.
  const [searchKey, setSearchKey] = useState(0);
  const [filledFrom, setFilledFrom] = useState<string | null>(null);
  const entity = useEntityForm<Values, ApiContactListItem>({
    schema: formSchema,
    defaultValues: record ? valuesOf(record) : { name: '', number: '', email: '' },
    // The resolver's output: the number as digits, the e-mail trimmed and in lower case.
    save: (v) => (record ? contactListItemsApi.update(record.id, { name: v.name, number: v.number, email: v.email }) : contactListItemsApi.create({ ...v, contactListId })),
    savedText: t('contactListItems.saved'),
    onSaved,
    onClose,
    // A number already in the list answers 409 naming the field: shown under it.
    toastRefusal: 'unmatched',
  });
  const { form, field } = entity;

  const fill = (c: FoundContact) => {
    const v = valuesOf(c);
    (Object.keys(v) as (keyof Values)[]).forEach((k) => form.setValue(k, v[k], { shouldDirty: true }));
    form.clearErrors();
    setFilledFrom(c.name);
    setSearchKey((k) => k + 1);
    // The search starts over; the keyboard goes on with the filled-in form.
    setTimeout(() => form.setFocus('name'), 0);
  };

  return (
    <>
      <EntityDialog title={record ? t('contactListItems.dialogEdit') : t('contactListItems.dialogAdd')} entity={entity} onClose={onClose} testId="contact-list-item-form">
        {!record && (
          <div className="cl-contact-search">
            <ContactSearchField<FoundContact>
              key={searchKey}
              label={t('contactListItems.searchContact')}
              placeholder={t('contactListItems.searchContactPlaceholder')}
              hint={t('contactListItems.searchHint', { count: MIN_CONTACT_SEARCH })}
              emptyText={t('contactListItems.searchEmpty')}
              onChange={(c) => c && fill(c)}
              create={{ label: (value) => t('contactListItems.createContact', { value }), onCreate: (typed) => setCreating(contactFromTyped(typed)) }}
              classPrefix="cli"
              autoFocus={searchKey === 0}
            />
            {filledFrom && (
              <Text fontSize="small" color="font.secondary" data-testid="contact-list-item-filled">
                {t('contactListItems.filledFrom', { name: filledFrom })}
              </Text>
            )}
          </div>
        )}
        <div className="form-grid align-end">
          <TextField label={t('contactListItems.name')} autoFocus={!!record} {...field('name')} />
          <TextField label={t('contactListItems.number')} placeholder={NUMBER_PLACEHOLDER} inputMode="tel" autoComplete="off" descriptiveText={t('contactListItems.numberHint')} {...field('number')} />
        </div>
        <TextField label={t('contactListItems.email')} type="email" autoComplete="off" {...field('email')} />
      </EntityDialog>
      <Suspense fallback={null}>
        {creating && (
          <ContactDialog
            open
            initial={creating}
            onClose={() => setCreating(null)}
            onSaved={(c) => {
              fill({ id: c.id, name: c.name, number: c.number, email: c.email });
              setCreating(null);
            }}
          />
        )}
      </Suspense>
    </>
  );
}
