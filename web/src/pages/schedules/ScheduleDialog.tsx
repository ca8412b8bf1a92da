import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Flex, Text, TextAreaField } from '@aws-amplify/ui-react';
import {
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
import { connectionsApi } from '../../api/connections';
import { errorText, toastError } from '../../api/errors';
import { schedulesApi } from '../../api/schedules';
import { useAuth } from '../../auth/AuthContext';
import { AttachmentField, saveAttachment, useAttachment } from '../../ui/AttachmentField';
import { ContactSearchField, MIN_CONTACT_SEARCH } from '../../ui/ContactSearchField';
import { useDates } from '../../ui/dates';
import { EntityDialog } from '../../ui/EntityDialog';
import { choicesOf, ControlledSelect, DateTimeField } from '../../ui/fields';
import { useEntityForm } from '../../ui/useEntityForm';
import { useOptions } from '../../ui/useLoad';
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
  const connections = useOptions(connectionsApi.list, [], { onError: toastError });
  const attachment = useAttachment();
  const readOnly = !!current?.sentAt;
  // `<input type="datetime-local">` holds a wall time without a zone: it is the company's wall
  // clock, the one the calendar shows (decision 34), whatever the browser's zone.
  const dates = useDates();

  const entity = useEntityForm<Values, Schedule>({
    schema: scheduleSchema,
    defaultValues: {
      body: schedule?.body ?? '',
      contactId: schedule?.contactId ?? initialContact?.id ?? '',
      sendAt: zonedInputValue(schedule ? schedule.sendAt : Date.now() + SCHEDULE_DEFAULT_AHEAD_MS, dates.timeZone),
      whatsappId: schedule ? (schedule.whatsappId ? String(schedule.whatsappId) : '') : ticket ? String(ticket.whatsappId) : '',
    },
    save: async (_, v) => {
      if (readOnly) return undefined;
      // An untouched field sends the stored instant back as it was (its seconds included).
      const sendAt = fromZonedInput(v.sendAt, dates.timeZone, current?.sendAt);
      if (!sendAt) {
        entity.form.setError('sendAt', { message: SCHEDULE_INVALID_DATE });
        return undefined;
      }
      return schedulesApi.save(current?.id, {
        body: v.body.trim(),
        contactId: v.contactId,
        sendAt,
        whatsappId: v.whatsappId ? Number(v.whatsappId) : null,
        // Made from a conversation (and still for its contact): the schedule lands in it.
        ...(ticket && !current && v.contactId === initialContact?.id ? { ticketId: ticket.id } : {}),
      });
    },
    then: (saved) => {
      setCurrent(saved);
      return saveAttachment(attachment, saved, schedulesApi);
    },
    // The schedule is saved; only the image failed: the dialog stays open on it.
    onThenError: (e) => attachment.setError(errorText(e)),
    savedText: t('schedules.saved'),
    onSaved,
    onClose,
    toastRefusal: 'unmatched',
  });
  const { form, field, error } = entity;

  const choose = (c: ScheduleContact | null) => {
    setContact(c);
    form.setValue('contactId', c ? c.id : '');
    if (c) form.clearErrors('contactId');
  };

  // The default stands for the schedule owner's: named only when that is the reader (a new or own schedule).
  const defaultName = !current || current.userId === user?.id ? pickDefaultConnection(connections, user?.whatsappId)?.name : undefined;
  const title = current ? t('schedules.dialogEdit', { status: t(`schedules.status.${current.status}`) }) : t('schedules.dialogAdd');
  return (
    <EntityDialog title={title} entity={entity} onClose={onClose} readOnly={readOnly} testId="schedule-form">
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
      <input type="hidden" {...form.register('contactId')} />
      <ContactSearchField
        label={t('schedules.contact')}
        placeholder={t('schedules.contactPlaceholder')}
        hint={t('schedules.minChars', { count: MIN_CONTACT_SEARCH })}
        emptyText={t('schedules.noContacts')}
        changeLabel={readOnly ? undefined : t('schedules.changeContact')}
        value={contact}
        onChange={choose}
        error={error('contactId')}
        autoFocus
        classPrefix="sch-contact"
      />
      <TextAreaField label={t('schedules.body')} rows={5} isReadOnly={readOnly} descriptiveText={t('schedules.variablesHint', { vars: VARIABLES })} {...field('body')} />
      <Flex gap="0.9rem" wrap="wrap">
        <DateTimeField label={t('schedules.sendAt')} timeZone={dates.timeZone} isReadOnly={readOnly} flex="1 1 14rem" {...field('sendAt')} />
        {/* React owns the value: the list loads after the dialog opens. */}
        <ControlledSelect
          control={form.control}
          name="whatsappId"
          label={t('schedules.connection')}
          isDisabled={readOnly}
          flex="1 1 14rem"
          empty={defaultName ? t('schedules.defaultConnectionNamed', { name: defaultName }) : t('schedules.defaultConnection')}
          choices={choicesOf(connections)}
          hasError={!!entity.errors.whatsappId}
          errorMessage={error('whatsappId')}
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
    </EntityDialog>
  );
}
