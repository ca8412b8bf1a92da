import { useMemo, useRef } from 'react';
import { Controller, useFieldArray } from 'react-hook-form';
import { z } from 'zod';
import { useTranslation } from 'react-i18next';
import { Button, Flex, Text, TextField } from '@aws-amplify/ui-react';
import { contactNumberField, contactSchema } from '@balcao/shared';
import { contactsApi } from '../../api/contacts';
import { tagsApi } from '../../api/tags';
import { usersApi } from '../../api/users';
import { EntityDialog } from '../../ui/EntityDialog';
import { choicesOf, ControlledSelect } from '../../ui/fields';
import { Icon } from '../../ui/icons';
import { MultiSelect } from '../../ui/MultiSelect';
import { useEntityForm } from '../../ui/useEntityForm';
import { useOptions, useRecord } from '../../ui/useLoad';
import type { Contact } from './types';

interface Values {
  name: string;
  number: string;
  email: string;
  extraInfo: { name: string; value: string }[];
  tags: number[];
  userId: string;
}

const EMPTY: Values = { name: '', number: '', email: '', extraInfo: [], tags: [], userId: '' };

const toValues = (c: Contact): Values => ({
  name: c.name,
  number: c.number,
  email: c.email ?? '',
  extraInfo: (c.extraInfo ?? []).map((x) => ({ name: x.name, value: x.value })),
  tags: c.tagIds ?? c.tags?.map((x) => x.id) ?? [],
  userId: c.userId ? String(c.userId) : '',
});

/**
 * The contact dialog (spec 001 §3, §5): name 2-50, number 8-50 (stored as digits, unique per
 * company), e-mail, extra info, contact tags and a specific attendant. Used by the contacts page
 * and meant for the ticket screen's contact drawer and the new-ticket dialog: `contactId` edits,
 * `initial` pre-fills a new contact.
 */
export default function ContactDialog({
  open,
  contactId,
  initial,
  onClose,
  onSaved,
}: {
  open: boolean;
  contactId?: number | null;
  initial?: Partial<Pick<Values, 'name' | 'number' | 'email'>>;
  onClose: () => void;
  onSaved?: (c: Contact) => void;
}) {
  const { t } = useTranslation();
  const tags = useOptions(() => tagsApi.list('contact'), [], { enabled: open });
  // If the attendants cannot be listed the field stays disabled (the contact keeps its own).
  const users = useOptions(usersApi.sorted, null, { enabled: open });
  // A contact WhatsApp names only by its LID has no number yet: editing its name must not require one.
  const numberless = useRef(false);
  const schema = useMemo(
    () => contactSchema.extend({ number: z.preprocess((v) => (numberless.current && v === '' ? undefined : v), contactNumberField().optional()) }),
    [],
  );
  const entity = useEntityForm<Values, Contact>({
    schema,
    defaultValues: { ...EMPTY, ...initial },
    save: (v) =>
      contactsApi.save(contactId, {
        name: v.name,
        ...(v.number ? { number: v.number } : {}),
        email: v.email ?? '',
        extraInfo: v.extraInfo ?? [],
        tags: v.tags ?? [],
        userId: v.userId === '' || v.userId == null ? null : Number(v.userId),
      }),
    savedText: t('contacts.saved'),
    onSaved,
    onClose,
    // A taken number answers 409 with the field: shown under it, not only as a toast.
    toastRefusal: 'unmatched',
  });
  const { form, field, error } = entity;
  const extra = useFieldArray({ control: form.control, name: 'extraInfo' });
  // What the agent already typed is kept over a late answer.
  const loading = useRecord(
    contactId,
    contactsApi.get,
    (c) => {
      numberless.current = !c.number;
      form.reset(toValues(c), { keepDirtyValues: true });
    },
    onClose,
    open,
  );
  if (!contactId) numberless.current = false;

  return (
    <EntityDialog open={open} title={contactId ? t('contacts.dialogEdit') : t('contacts.dialogAdd')} entity={entity} onClose={onClose} loading={loading} testId="contact-form" footerMargin="0.5rem">
      <div className="form-grid">
        <TextField label={t('contacts.name')} autoFocus {...field('name')} />
        <TextField
          label={t('contacts.number')}
          placeholder="5513912344321"
          inputMode="tel"
          descriptiveText={numberless.current ? t('contacts.noNumberHint') : undefined}
          {...field('number')}
        />
        <TextField label={t('contacts.email')} type="email" autoComplete="off" {...field('email')} />
        <ControlledSelect control={form.control} name="userId" label={t('contacts.attendant')} empty={t('contacts.noAttendant')} choices={choicesOf(users)} isDisabled={!users} hasError={!!entity.errors.userId} errorMessage={error('userId')} />
      </div>
      <Controller
        control={form.control}
        name="tags"
        render={({ field: f }) => (
          <div className="contact-tags-field">
            <MultiSelect label={t('contacts.tags')} options={tags} value={f.value ?? []} onChange={f.onChange} testId="contact-dialog-tags" />
            <span className="contact-tags">
              {(f.value ?? []).map((id) => {
                const tag = tags.find((x) => x.id === id);
                return tag ? (
                  <span key={id} className="contact-tag" style={{ background: tag.color }}>
                    {tag.name}
                  </span>
                ) : null;
              })}
            </span>
            {entity.errors.tags && <Text variation="error" fontSize="small">{error('tags')}</Text>}
          </div>
        )}
      />
      <fieldset className="form-section">
        <legend>{t('contacts.extraInfo')}</legend>
        <Flex direction="column" gap="0.6rem">
          {extra.fields.map((f, i) => (
            <Flex key={f.id} gap="0.5rem" alignItems="flex-start" className="extra-row">
              <TextField label={t('contacts.extraName')} flex="1" {...field(`extraInfo.${i}.name`)} />
              <TextField label={t('contacts.extraValue')} flex="1" {...field(`extraInfo.${i}.value`)} />
              <button type="button" className="icon-btn danger extra-remove" aria-label={`${t('common.delete')} ${i + 1}`} onClick={() => extra.remove(i)}>
                <Icon name="delete" size={20} />
              </button>
            </Flex>
          ))}
          <Button size="small" alignSelf="flex-start" onClick={() => extra.append({ name: '', value: '' })}>
            {t('contacts.addExtra')}
          </Button>
        </Flex>
      </fieldset>
    </EntityDialog>
  );
}
