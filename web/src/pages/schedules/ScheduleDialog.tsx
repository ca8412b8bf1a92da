import { useEffect, useState } from 'react';
import { useForm } from 'react-hook-form';
import { useTranslation } from 'react-i18next';
import { Button, Flex, SelectField, Text, TextAreaField, TextField } from '@aws-amplify/ui-react';
import {
  FORM_SUBMIT_DELAY_MS,
  SCHEDULE_DEFAULT_AHEAD_MS,
  SCHEDULE_MEDIA_MAX_BYTES,
  isScheduleMedia,
  scheduleSchema,
  type Schedule,
} from '@balcao/shared';
import { api } from '../../api/http';
import { applyFieldErrors, errorText, toastError } from '../../api/errors';
import { AttachmentField, useAttachment } from '../../ui/AttachmentField';
import { ContactSearchField, MIN_CONTACT_SEARCH } from '../../ui/ContactSearchField';
import { Modal } from '../../ui/Modal';
import { delay, fieldError, resolver } from '../../ui/form';
import { toast } from '../../ui/toast';
import { StatusChip, useScheduleReason } from './StatusChip';
import './schedules.css';

export interface ScheduleContact {
  id: number;
  name: string;
  number: string;
}

interface Values {
  body: string;
  contactId: number | '';
  sendAt: string;
  whatsappId: string;
}

/** The variables filled at send time (server-behaviour §3), shown as typed. */
const VARIABLES = ['name', 'firstName', 'ms', 'hora', 'protocol', 'agent'].map((v) => `{{${v}}}`).join(', ');

/** `<input type="datetime-local">` speaks local wall time without a zone. */
export function toLocalInput(date: Date): string {
  const p = (n: number) => String(n).padStart(2, '0');
  return `${date.getFullYear()}-${p(date.getMonth() + 1)}-${p(date.getDate())}T${p(date.getHours())}:${p(date.getMinutes())}`;
}

/**
 * Schedule dialog (spec 001 §3-§5): contact (search), message of at least 5 characters, send time
 * (default one hour ahead), connection (the company's default when none is chosen) and an
 * optional png/jpg/jpeg image, uploaded after the schedule is saved (the upload route needs its
 * id). The title shows the status; once sent, everything is read-only. Exported for the ticket
 * screen's schedule action, which passes the ticket's contact.
 */
export default function ScheduleDialog({
  schedule,
  contact: initialContact,
  onClose,
  onSaved,
}: {
  schedule: Schedule | null;
  contact?: ScheduleContact | null;
  onClose: () => void;
  onSaved?: (s: Schedule) => void;
}) {
  const { t } = useTranslation();
  const reasonOf = useScheduleReason();
  // After a create whose upload failed, a retry edits that schedule instead of creating another.
  const [current, setCurrent] = useState<Schedule | null>(schedule);
  const [contact, setContact] = useState<ScheduleContact | null>(schedule?.contact ?? initialContact ?? null);
  const [connections, setConnections] = useState<{ id: number; name: string }[]>([]);
  const attachment = useAttachment();
  const readOnly = !!current?.sentAt;

  const { register, handleSubmit, setValue, getValues, setError, clearErrors, formState } = useForm<Values>({
    resolver: resolver<Values>(scheduleSchema),
    defaultValues: {
      body: schedule?.body ?? '',
      contactId: schedule?.contactId ?? initialContact?.id ?? '',
      sendAt: toLocalInput(schedule ? new Date(schedule.sendAt) : new Date(Date.now() + SCHEDULE_DEFAULT_AHEAD_MS)),
      whatsappId: schedule?.whatsappId ? String(schedule.whatsappId) : '',
    },
  });

  useEffect(() => {
    let live = true;
    api
      .get<{ id: number; name: string }[]>('/whatsapp', { query: { session: 0 } })
      .then((list) => live && setConnections(list.map((c) => ({ id: c.id, name: c.name }))))
      .catch(toastError);
    return () => {
      live = false;
    };
  }, []);

  const choose = (c: ScheduleContact | null) => {
    setContact(c);
    setValue('contactId', c ? c.id : '');
    if (c) clearErrors('contactId');
  };

  const onSubmit = handleSubmit(async () => {
    if (readOnly) return;
    await delay(FORM_SUBMIT_DELAY_MS);
    const v = getValues();
    const body = {
      body: v.body.trim(),
      contactId: v.contactId,
      sendAt: new Date(v.sendAt).toISOString(),
      whatsappId: v.whatsappId ? Number(v.whatsappId) : null,
    };
    let saved: Schedule;
    try {
      saved = current ? await api.put<Schedule>(`/schedules/${current.id}`, body) : await api.post<Schedule>('/schedules', body);
    } catch (e) {
      if (!applyFieldErrors(e, setError as never, ['body', 'contactId', 'sendAt', 'whatsappId'])) toastError(e);
      return;
    }
    setCurrent(saved);
    const { file } = attachment;
    try {
      if (file) {
        const form = new FormData();
        form.append('file', file, file.name);
        saved = await api.post<Schedule>(`/schedules/${saved.id}/media-upload`, form);
      } else if (attachment.dropSaved && saved.mediaPath) {
        saved = await api.del<Schedule>(`/schedules/${saved.id}/media-upload`);
      }
    } catch (e) {
      // The schedule is saved; only the image failed: keep the dialog open on it.
      onSaved?.(saved);
      attachment.setError(errorText(e));
      toastError(e);
      return;
    }
    toast.success(t('schedules.saved'));
    onSaved?.(saved);
    onClose();
  });

  const err = formState.errors;
  const title = current ? t('schedules.dialogEdit', { status: t(`schedules.status.${current.status}`) }) : t('schedules.dialogAdd');
  return (
    <Modal open title={title} onClose={onClose} wide>
      <form onSubmit={onSubmit} noValidate data-testid="schedule-form">
        <Flex direction="column" gap="0.9rem">
          {current && (
            <Flex alignItems="center" gap="0.5rem" wrap="wrap">
              <StatusChip status={current.status} />
              {current.sentAt && <Text as="span">{t('schedules.sentAt', { date: new Date(current.sentAt).toLocaleString() })}</Text>}
              {reasonOf(current) && (
                <Text as="span" className="sch-reason" role="status" data-testid="schedule-reason">
                  {reasonOf(current)}
                </Text>
              )}
            </Flex>
          )}
          <input type="hidden" {...register('contactId')} />
          <ContactSearchField
            label={t('schedules.contact')}
            placeholder={t('schedules.contactPlaceholder')}
            hint={t('schedules.minChars', { count: MIN_CONTACT_SEARCH })}
            emptyText={t('schedules.noContacts')}
            changeLabel={readOnly ? undefined : t('schedules.changeContact')}
            value={contact}
            onChange={choose}
            error={fieldError(err.contactId)}
            autoFocus
            classPrefix="sch-contact"
          />
          <TextAreaField
            label={t('schedules.body')}
            rows={5}
            isReadOnly={readOnly}
            descriptiveText={t('schedules.variablesHint', { vars: VARIABLES })}
            {...register('body')}
            hasError={!!err.body}
            errorMessage={fieldError(err.body)}
          />
          <Flex gap="0.9rem" wrap="wrap">
            <TextField
              label={t('schedules.sendAt')}
              type="datetime-local"
              isReadOnly={readOnly}
              flex="1 1 14rem"
              {...register('sendAt')}
              hasError={!!err.sendAt}
              errorMessage={fieldError(err.sendAt)}
            />
            <SelectField label={t('schedules.connection')} isDisabled={readOnly} flex="1 1 14rem" {...register('whatsappId')} hasError={!!err.whatsappId} errorMessage={fieldError(err.whatsappId)}>
              <option value="">{t('schedules.defaultConnection')}</option>
              {connections.map((c) => (
                <option key={c.id} value={String(c.id)}>
                  {c.name}
                </option>
              ))}
            </SelectField>
          </Flex>
          <AttachmentField
            attachment={attachment}
            savedName={current?.mediaName ?? current?.mediaPath ?? null}
            maxBytes={SCHEDULE_MEDIA_MAX_BYTES}
            types={{ accept: '.png,.jpg,.jpeg,image/png,image/jpeg', allows: isScheduleMedia, refused: t('schedules.mediaRefused') }}
            readOnly={readOnly}
            texts="schedules"
            classPrefix="sch"
            testId="schedule-file"
          />
          <Flex justifyContent="flex-end" gap="0.5rem">
            <Button onClick={onClose}>{readOnly ? t('common.close') : t('common.cancel')}</Button>
            {!readOnly && (
              <Button type="submit" variation="primary" isLoading={formState.isSubmitting}>
                {t('common.save')}
              </Button>
            )}
          </Flex>
        </Flex>
      </form>
    </Modal>
  );
}
