import { useEffect, useState } from 'react';
import { Controller, useForm } from 'react-hook-form';
import { useTranslation } from 'react-i18next';
import { Button, Flex, SelectField, Text, TextAreaField, TextField } from '@aws-amplify/ui-react';
import {
  FORM_SUBMIT_DELAY_MS,
  SCHEDULE_DEFAULT_AHEAD_MS,
  SCHEDULE_INVALID_DATE,
  SCHEDULE_MEDIA_MAX_BYTES,
  fromZonedInput,
  isScheduleMedia,
  scheduleSchema,
  zonedInputValue,
  type Schedule,
  pickDefaultConnection,
} from '@balcao/shared';
import { api } from '../../api/http';
import { applyFieldErrors, errorText, toastError } from '../../api/errors';
import { AttachmentField, useAttachment } from '../../ui/AttachmentField';
import { ContactSearchField, MIN_CONTACT_SEARCH } from '../../ui/ContactSearchField';
import { useDates } from '../../ui/dates';
import { Modal } from '../../ui/Modal';
import { delay, fieldError, resolver } from '../../ui/form';
import { toast } from '../../ui/toast';
import { useAuth } from '../../auth/AuthContext';
import { StatusChip, useScheduleReason } from './StatusChip';
import './schedules.css';

export interface ScheduleContact {
  id: number;
  name: string;
  number: string;
}

/** The conversation a schedule is made from (the ticket screen's action). */
export interface ScheduleTicket {
  id: number;
  whatsappId: number;
}

interface Values {
  body: string;
  contactId: number | '';
  sendAt: string;
  whatsappId: string;
}

/** The variables filled at send time (server-behaviour §3), shown as typed. */
const VARIABLES = ['name', 'firstName', 'ms', 'hora', 'protocol', 'agent'].map((v) => `{{${v}}}`).join(', ');

/** The browser's own zone: the send time field names its zone when the company's is another. */
const browserZone = () => Intl.DateTimeFormat().resolvedOptions().timeZone;

/**
 * Schedule dialog (spec 001 §3-§5): contact (search), message of at least 5 characters, send time
 * (default one hour ahead), connection (the company's default when none is chosen) and an
 * optional png/jpg/jpeg image, uploaded after the schedule is saved (the upload route needs its
 * id). The title shows the status; once sent, everything is read-only. Exported for the ticket
 * screen's schedule action, which passes the ticket's contact and the ticket: its connection is
 * chosen, so the message goes out in that conversation. "Conexão padrão" names the connection it
 * stands for (the user's own default, else the company's), the one the server picks at send time.
 */
export default function ScheduleDialog({
  schedule,
  contact: initialContact,
  ticket,
  onClose,
  onSaved,
}: {
  schedule: Schedule | null;
  contact?: ScheduleContact | null;
  ticket?: ScheduleTicket;
  onClose: () => void;
  onSaved?: (s: Schedule) => void;
}) {
  const { t } = useTranslation();
  const reasonOf = useScheduleReason();
  // After a create whose upload failed, a retry edits that schedule instead of creating another.
  const [current, setCurrent] = useState<Schedule | null>(schedule);
  const [contact, setContact] = useState<ScheduleContact | null>(schedule?.contact ?? initialContact ?? null);
  const { user } = useAuth();
  const [connections, setConnections] = useState<{ id: number; name: string; isDefault: boolean }[]>([]);
  const attachment = useAttachment();
  const readOnly = !!current?.sentAt;
  // `<input type="datetime-local">` holds a wall time without a zone: it is the company's wall
  // clock, the one the calendar shows (decision 34), whatever the browser's zone.
  const dates = useDates();

  const { register, control, handleSubmit, setValue, getValues, setError, clearErrors, formState } = useForm<Values>({
    resolver: resolver<Values>(scheduleSchema),
    defaultValues: {
      body: schedule?.body ?? '',
      contactId: schedule?.contactId ?? initialContact?.id ?? '',
      sendAt: zonedInputValue(schedule ? schedule.sendAt : Date.now() + SCHEDULE_DEFAULT_AHEAD_MS, dates.timeZone),
      whatsappId: schedule ? (schedule.whatsappId ? String(schedule.whatsappId) : '') : ticket ? String(ticket.whatsappId) : '',
    },
  });

  useEffect(() => {
    let live = true;
    api
      .get<{ id: number; name: string; isDefault: boolean }[]>('/whatsapp', { query: { session: 0 } })
      .then((list) => live && setConnections(list.map((c) => ({ id: c.id, name: c.name, isDefault: c.isDefault }))))
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
    // An untouched field sends the stored instant back as it was (its seconds included).
    const sendAt = fromZonedInput(v.sendAt, dates.timeZone, current?.sendAt);
    if (!sendAt) {
      setError('sendAt', { message: SCHEDULE_INVALID_DATE });
      return;
    }
    const body = {
      body: v.body.trim(),
      contactId: v.contactId,
      sendAt,
      whatsappId: v.whatsappId ? Number(v.whatsappId) : null,
      // Made from a conversation (and still for its contact): the schedule lands in it.
      ...(ticket && !current && v.contactId === initialContact?.id ? { ticketId: ticket.id } : {}),
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

  // The default stands for the schedule owner's: named only when that is the reader (a new or own schedule).
  const defaultName = !current || current.userId === user?.id ? pickDefaultConnection(connections, user?.whatsappId)?.name : undefined;
  const err = formState.errors;
  const title = current ? t('schedules.dialogEdit', { status: t(`schedules.status.${current.status}`) }) : t('schedules.dialogAdd');
  return (
    <Modal open title={title} onClose={onClose} wide>
      <form onSubmit={onSubmit} noValidate data-testid="schedule-form">
        <Flex direction="column" gap="0.9rem">
          {current && (
            <Flex alignItems="center" gap="0.5rem" wrap="wrap">
              <StatusChip status={current.status} />
              {current.sentAt && <Text as="span">{t('schedules.sentAt', { date: dates.dateTime(current.sentAt) })}</Text>}
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
              descriptiveText={browserZone() === dates.timeZone ? undefined : t('dates.zone', { zone: dates.timeZone.replace(/_/g, ' ') })}
              {...register('sendAt')}
              hasError={!!err.sendAt}
              errorMessage={fieldError(err.sendAt)}
            />
            {/* React owns the value: the list loads after the dialog opens, and an uncontrolled select
                whose option is not there yet would fall back to the first one. */}
            <Controller
              control={control}
              name="whatsappId"
              render={({ field }) => (
                <SelectField
                  label={t('schedules.connection')}
                  isDisabled={readOnly}
                  flex="1 1 14rem"
                  name={field.name}
                  value={field.value}
                  onChange={(e) => field.onChange(e.target.value)}
                  onBlur={field.onBlur}
                  hasError={!!err.whatsappId}
                  errorMessage={fieldError(err.whatsappId)}
                >
                  <option value="">{defaultName ? t('schedules.defaultConnectionNamed', { name: defaultName }) : t('schedules.defaultConnection')}</option>
                  {connections.map((c) => (
                    <option key={c.id} value={String(c.id)}>
                      {c.name}
                    </option>
                  ))}
                </SelectField>
              )}
            />
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
