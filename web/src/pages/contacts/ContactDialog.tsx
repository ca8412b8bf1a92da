import { useEffect, useState } from 'react';
import { Controller, useFieldArray, useForm } from 'react-hook-form';
import { useTranslation } from 'react-i18next';
import { Button, Flex, Loader, SelectField, Text, TextField } from '@aws-amplify/ui-react';
import { contactSchema, FORM_SUBMIT_DELAY_MS } from '@balcao/shared';
import { api } from '../../api/http';
import { applyFieldErrors, toastError } from '../../api/errors';
import { Modal } from '../../ui/Modal';
import { Icon } from '../../ui/icons';
import { delay, fieldError, resolver } from '../../ui/form';
import { toast } from '../../ui/toast';
import { MultiSelect, type Option } from '../tickets/MultiSelect';
import type { TagRef } from '../tickets/types';
import type { Contact } from './types';

interface Values {
  name: string;
  number: string;
  email: string;
  extraInfo: { name: string; value: string }[];
  tags: number[];
  userId: string;
}

const FIELDS = ['name', 'number', 'email', 'extraInfo', 'tags', 'userId'] as const;
const EMPTY: Values = { name: '', number: '', email: '', extraInfo: [], tags: [], userId: '' };

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
  const editing = !!contactId;
  const [loading, setLoading] = useState(editing);
  const [tags, setTags] = useState<Option[]>([]);
  const [users, setUsers] = useState<{ id: number; name: string }[] | null>(null);

  const { register, control, handleSubmit, reset, setError, formState } = useForm<Values>({
    resolver: resolver<Values>(contactSchema),
    defaultValues: { ...EMPTY, ...initial },
  });
  const extra = useFieldArray({ control, name: 'extraInfo' });

  useEffect(() => {
    if (!open) return;
    let live = true;
    api
      .get<TagRef[]>('/tags/list', { query: { type: 'contact' } })
      .then((list) => live && setTags(list.map((x) => ({ id: x.id, name: x.name, color: x.color }))))
      .catch(() => live && setTags([]));
    // If the attendants cannot be listed the field stays disabled (the contact keeps its own).
    api
      .get<{ id: number; name: string }[]>('/users/list')
      .then((list) => live && setUsers([...list].sort((a, b) => a.name.localeCompare(b.name, 'pt-BR'))))
      .catch(() => live && setUsers(null));
    return () => {
      live = false;
    };
  }, [open]);

  // Loaded once per opening; what the agent already typed is kept over a late answer.
  useEffect(() => {
    if (!open || !contactId) return;
    let live = true;
    setLoading(true);
    api
      .get<Contact>(`/contacts/${contactId}`)
      .then((c) => {
        if (!live) return;
        reset(
          {
            name: c.name,
            number: c.number,
            email: c.email ?? '',
            extraInfo: (c.extraInfo ?? []).map((x) => ({ name: x.name, value: x.value })),
            tags: c.tagIds ?? c.tags?.map((x) => x.id) ?? [],
            userId: c.userId ? String(c.userId) : '',
          },
          { keepDirtyValues: true },
        );
      })
      .catch((e) => {
        if (!live) return;
        toastError(e);
        onClose();
      })
      .finally(() => live && setLoading(false));
    return () => {
      live = false;
    };
    // Not keyed on onClose: a fresh closure on every parent render must not repeat the load.
  }, [open, contactId, reset]);

  const onSubmit = handleSubmit(async (v) => {
    await delay(FORM_SUBMIT_DELAY_MS);
    const body = {
      name: v.name,
      number: v.number,
      email: v.email ?? '',
      extraInfo: v.extraInfo ?? [],
      tags: v.tags ?? [],
      userId: v.userId === '' || v.userId == null ? null : Number(v.userId),
    };
    try {
      const saved = editing ? await api.put<Contact>(`/contacts/${contactId}`, body) : await api.post<Contact>('/contacts', body);
      toast.success(t('contacts.saved'));
      onSaved?.(saved);
      onClose();
    } catch (e) {
      // A taken number answers 409 with the field: shown under it, not only as a toast.
      if (!applyFieldErrors(e, setError as never, FIELDS)) toastError(e);
    }
  });

  const err = formState.errors;
  return (
    <Modal open={open} title={editing ? t('contacts.dialogEdit') : t('contacts.dialogAdd')} onClose={onClose} wide>
      {loading ? (
        <Loader variation="linear" />
      ) : (
        <form onSubmit={onSubmit} noValidate data-testid="contact-form">
          <Flex direction="column" gap="0.9rem">
            <div className="form-grid">
              <TextField label={t('contacts.name')} autoFocus {...register('name')} hasError={!!err.name} errorMessage={fieldError(err.name)} />
              <TextField
                label={t('contacts.number')}
                placeholder="5513912344321"
                inputMode="tel"
                {...register('number')}
                hasError={!!err.number}
                errorMessage={fieldError(err.number)}
              />
              <TextField label={t('contacts.email')} type="email" autoComplete="off" {...register('email')} hasError={!!err.email} errorMessage={fieldError(err.email)} />
              <Controller
                control={control}
                name="userId"
                render={({ field }) => (
                  <SelectField
                    label={t('contacts.attendant')}
                    name={field.name}
                    value={field.value == null ? '' : String(field.value)}
                    onChange={(e) => field.onChange(e.target.value)}
                    onBlur={field.onBlur}
                    isDisabled={!users}
                    hasError={!!err.userId}
                    errorMessage={fieldError(err.userId)}
                  >
                    <option value="">{t('contacts.noAttendant')}</option>
                    {(users ?? []).map((u) => (
                      <option key={u.id} value={u.id}>
                        {u.name}
                      </option>
                    ))}
                  </SelectField>
                )}
              />
            </div>
            <Controller
              control={control}
              name="tags"
              render={({ field }) => (
                <div className="contact-tags-field">
                  <MultiSelect label={t('contacts.tags')} options={tags} value={field.value ?? []} onChange={field.onChange} testId="contact-dialog-tags" />
                  <span className="contact-tags">
                    {(field.value ?? []).map((id) => {
                      const tag = tags.find((x) => x.id === id);
                      return tag ? (
                        <span key={id} className="contact-tag" style={{ background: tag.color }}>
                          {tag.name}
                        </span>
                      ) : null;
                    })}
                  </span>
                  {err.tags && <Text variation="error" fontSize="small">{fieldError(err.tags as { message?: string })}</Text>}
                </div>
              )}
            />
            <fieldset className="form-section">
              <legend>{t('contacts.extraInfo')}</legend>
              <Flex direction="column" gap="0.6rem">
                {extra.fields.map((f, i) => (
                  <Flex key={f.id} gap="0.5rem" alignItems="flex-start" className="extra-row">
                    <TextField
                      label={t('contacts.extraName')}
                      flex="1"
                      {...register(`extraInfo.${i}.name` as const)}
                      hasError={!!err.extraInfo?.[i]?.name}
                      errorMessage={fieldError(err.extraInfo?.[i]?.name)}
                    />
                    <TextField
                      label={t('contacts.extraValue')}
                      flex="1"
                      {...register(`extraInfo.${i}.value` as const)}
                      hasError={!!err.extraInfo?.[i]?.value}
                      errorMessage={fieldError(err.extraInfo?.[i]?.value)}
                    />
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
            <Flex justifyContent="flex-end" gap="0.5rem" marginTop="0.5rem">
              <Button onClick={onClose}>{t('common.cancel')}</Button>
              <Button type="submit" variation="primary" isLoading={formState.isSubmitting}>
                {t('common.save')}
              </Button>
            </Flex>
          </Flex>
        </form>
      )}
    </Modal>
  );
}
