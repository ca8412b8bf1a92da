import { useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { Alert, Flex, SelectField } from '@aws-amplify/ui-react';
import { FORM_SUBMIT_DELAY_MS, isAdminProfile, pickDefaultConnection, type User } from '@balcao/shared';
import { ApiError } from '../../api/http';
import { connectionsApi } from '../../api/connections';
import { contactsApi } from '../../api/contacts';
import { ticketsApi } from '../../api/tickets';
import { errorText, toastError } from '../../api/errors';
import { translateMessage } from '../../i18n';
import { ContactSearchField, MIN_CONTACT_SEARCH } from '../../ui/ContactSearchField';
import { DialogFooter } from '../../ui/DialogFooter';
import { Modal } from '../../ui/Modal';
import { delay } from '../../ui/form';
import { useOptions } from '../../ui/useLoad';
import type { Option } from '../../ui/MultiSelect';
import type { ApiTicket } from './types';

interface ContactLite {
  id: number;
  name: string;
  number: string;
}

/** Which contact a typed value creates: all digits → that number; other text → a name (spec 001 §5). */
/** Digits are the number; a name alone leaves the number out, and the server's message asks for it. */
export const contactFromText = (text: string) => ({ name: text, number: /^\d+$/.test(text) ? text : undefined });

/** A 409 of POST /tickets: the chat already has a non-closed ticket, with who holds it. */
export interface OpenTicketConflict {
  ticketId?: number;
  ticketUuid?: string | null;
  holder?: { id: number; name: string } | null;
}

export default function NewTicketDialog({
  open,
  user,
  queues,
  onClose,
  onCreated,
  initialContact,
}: {
  open: boolean;
  user: User;
  queues: Option[];
  onClose: () => void;
  onCreated: (t: ApiTicket) => void;
  initialContact?: ContactLite;
}) {
  const { t } = useTranslation();
  const admin = isAdminProfile(user.profile) || !!user.super;
  const [contact, setContact] = useState<ContactLite | null>(initialContact ?? null);
  const [queueId, setQueueId] = useState<string>(queues.length === 1 ? String(queues[0]!.id) : '');
  const connections = useOptions(connectionsApi.list, [], { onError: toastError });
  const [whatsappId, setWhatsappId] = useState<string>(user.whatsappId ? String(user.whatsappId) : '');
  const [errors, setErrors] = useState<{ contact?: string; queue?: string }>({});
  const [conflict, setConflict] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  const createContact = async (value: string) => {
    if (!value) return;
    setBusy(true);
    try {
      const c: ContactLite = await contactsApi.create(contactFromText(value));
      setContact(c);
      setErrors((e) => ({ ...e, contact: undefined }));
    } catch (e) {
      // The contact form's own messages (name/number length, duplicate number) under the field.
      const body = e instanceof ApiError ? e.body : undefined;
      const msg = body?.fields?.[0]?.message ?? body?.message;
      if (e instanceof ApiError && e.status === 400 && msg) setErrors((x) => ({ ...x, contact: translateMessage(msg) }));
      else toastError(e);
    } finally {
      setBusy(false);
    }
  };

  const submit = async (ev: FormEvent) => {
    ev.preventDefault();
    const errs: typeof errors = {};
    if (!contact) errs.contact = t('validation.required');
    if (!queueId && !admin) errs.queue = t('tickets.selectQueue');
    setErrors(errs);
    setConflict(null);
    if (errs.contact || errs.queue) return;
    setBusy(true);
    await delay(FORM_SUBMIT_DELAY_MS);
    try {
      const ticket = await ticketsApi.create({
        contactId: contact!.id,
        queueId: queueId ? Number(queueId) : undefined,
        whatsappId: whatsappId ? Number(whatsappId) : undefined,
        userId: user.id,
        status: 'open',
      });
      onCreated(ticket);
    } catch (e) {
      if (e instanceof ApiError && e.code === 'ERR_OTHER_OPEN_TICKET') {
        const c = e.body as OpenTicketConflict;
        // One's own open ticket simply opens; someone else's keeps the dialog with who holds it.
        if (c.holder?.id === user.id && c.ticketUuid) {
          onCreated({ uuid: c.ticketUuid, id: c.ticketId, status: 'open' } as ApiTicket);
          return;
        }
        setConflict(c.holder ? t('tickets.alreadyAssigned', { name: c.holder.name }) : errorText(e));
      } else if (e instanceof ApiError && e.status === 400 && e.body.fields?.some((f) => f.field === 'queueId')) {
        const m = e.body.fields.find((f) => f.field === 'queueId')!.message;
        setErrors({ queue: translateMessage(m) });
      } else toastError(e);
    } finally {
      setBusy(false);
    }
  };

  const defaultName = pickDefaultConnection(connections, user.whatsappId)?.name;
  return (
    <Modal open={open} title={t('tickets.newTitle')} onClose={onClose}>
      <form onSubmit={(e) => void submit(e)} noValidate data-testid="new-ticket-form">
        <Flex direction="column" gap="0.9rem">
          <ContactSearchField
            label={t('tickets.contact')}
            placeholder={t('tickets.contactPlaceholder')}
            hint={t('tickets.minChars', { count: MIN_CONTACT_SEARCH })}
            changeLabel={t('tickets.changeContact')}
            value={contact}
            onChange={setContact}
            error={errors.contact}
            create={{ label: (value) => t('tickets.addContact', { value }), busy, onCreate: (value) => void createContact(value) }}
          />
          <SelectField
            label={t('tickets.queue')}
            value={queueId}
            onChange={(e) => setQueueId(e.target.value)}
            hasError={!!errors.queue}
            errorMessage={errors.queue}
          >
            <option value="">{admin ? t('tickets.noQueue') : t('tickets.chooseQueue')}</option>
            {queues.map((q) => (
              <option key={q.id} value={q.id}>
                {q.name}
              </option>
            ))}
          </SelectField>
          <SelectField label={t('tickets.connection')} value={whatsappId} onChange={(e) => setWhatsappId(e.target.value)}>
            <option value="">{defaultName ? t('tickets.defaultConnectionNamed', { name: defaultName }) : t('tickets.defaultConnection')}</option>
            {connections.map((c) => (
              <option key={c.id} value={c.id}>
                {c.name}
              </option>
            ))}
          </SelectField>
          {conflict && (
            <Alert variation="error" data-testid="new-ticket-conflict">
              {conflict}
            </Alert>
          )}
          <DialogFooter onCancel={onClose} busy={busy} busyText={t('common.save')} />
        </Flex>
      </form>
    </Modal>
  );
}
