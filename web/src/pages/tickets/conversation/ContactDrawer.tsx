import { useEffect, useState, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { Button, Loader, Text, TextAreaField } from '@aws-amplify/ui-react';
import { api } from '../../../api/http';
import { toastError } from '../../../api/errors';
import { Avatar } from '../../../ui/Avatar';
import { ConfirmDialog } from '../../../ui/ConfirmDialog';
import { useDates } from '../../../ui/dates';
import { formatWhatsappNumber } from '../../../ui/phone';
import { toast } from '../../../ui/toast';
import type { ApiTicket } from '../types';
import { Drawer } from './Drawer';
import { CIcon } from './icons';
import { MIN_NOTE } from './rules';
import { call } from '../../../api/call';

interface Note {
  id: number;
  note: string;
  user: { id: number; name: string } | null;
  createdAt: string;
}

interface ContactFull {
  id: number;
  name: string;
  number: string;
  email?: string | null;
  profilePicUrl?: string | null;
  extraInfo?: { name: string; value: string }[];
}

export function ContactDrawer({ ticket, onClose, tags }: { ticket: ApiTicket; onClose: () => void; tags: ReactNode }) {
  const { t } = useTranslation();
  const dates = useDates();
  const base = ticket.contact;
  const [contact, setContact] = useState<ContactFull | null>(base);
  const [notes, setNotes] = useState<Note[] | null>(null);
  const [text, setText] = useState('');
  const [saving, setSaving] = useState(false);
  const [deleting, setDeleting] = useState<Note | null>(null);
  const [touched, setTouched] = useState(false);

  useEffect(() => {
    if (!base) return;
    let live = true;
    // The full contact (extra info) when the contacts route answers; the ticket's copy otherwise.
    api
      .get<ContactFull>(`/contacts/${base.id}`)
      .then((c) => live && setContact(c))
      .catch(() => undefined);
    api
      .get<Note[]>('/ticket-notes/list', { query: { ticketId: ticket.id, contactId: base.id } })
      .then((n) => live && setNotes(n))
      .catch((e) => {
        if (live) setNotes([]);
        toastError(e);
      });
    return () => {
      live = false;
    };
  }, [ticket.id, base]);

  const tooShort = text.trim().length < MIN_NOTE;
  const add = async () => {
    setTouched(true);
    if (tooShort || !base) return;
    setSaving(true);
    try {
      const n = await call('POST /ticket-notes', { body: { note: text.trim(), ticketId: ticket.id, contactId: base.id } });
      setNotes((l) => [...(l ?? []), n]);
      setText('');
      setTouched(false);
      toast.success(t('ticket.noteAdded'));
    } catch (err) {
      toastError(err);
    } finally {
      setSaving(false);
    }
  };
  const remove = async (n: Note) => {
    try {
      await call('DELETE /ticket-notes/{id}', { params: { id: n.id } });
      setNotes((l) => (l ?? []).filter((x) => x.id !== n.id));
      toast.success(t('ticket.noteDeleted'));
    } catch (err) {
      toastError(err);
    }
  };

  return (
    <Drawer title={t('ticket.contactDetails')} onClose={onClose} testId="contact-drawer">
      {contact && (
        <div className="cd-head">
          <Avatar name={contact.name} photoUrl={contact.profilePicUrl} />
          <div>
            <div className="cd-name">{contact.name}</div>
            {/* A contact known only by its LID has no number to call until WhatsApp tells it (issue 17). */}
            {contact.number ? (
              <a className="text-link" href={`tel:+${contact.number}`}>
                {formatWhatsappNumber(contact.number)}
              </a>
            ) : (
              <span data-testid="contact-no-number">{t('contacts.noNumber')}</span>
            )}
          </div>
        </div>
      )}
      <dl className="cd-fields">
        <dt>{t('ticket.email')}</dt>
        <dd>{contact?.email || '—'}</dd>
        {(contact?.extraInfo ?? []).length > 0 && (
          <>
            <dt>{t('ticket.extraInfo')}</dt>
            <dd>
              <ul className="cd-extra">
                {contact!.extraInfo!.map((x, i) => (
                  <li key={i}>
                    <strong>{x.name}:</strong> {x.value}
                  </li>
                ))}
              </ul>
            </dd>
          </>
        )}
      </dl>
      <div className="cd-tags">{tags}</div>
      <h4 className="cd-section">{t('ticket.notes')}</h4>
      <TextAreaField
        label={t('ticket.notePlaceholder')}
        labelHidden
        placeholder={t('ticket.notePlaceholder')}
        rows={2}
        value={text}
        onChange={(e) => setText(e.target.value)}
        hasError={touched && tooShort}
        errorMessage={text.trim() ? t('validation.tooShort') : t('validation.required')}
      />
      <Button size="small" variation="primary" marginTop="0.5rem" isLoading={saving} onClick={() => void add()}>
        {t('ticket.addNote')}
      </Button>
      <div className="cd-notes" data-testid="notes">
        {notes === null && <Loader />}
        {notes?.length === 0 && <Text color="font.secondary">{t('ticket.noNotes')}</Text>}
        {notes?.map((n) => (
          <div key={n.id} className="cd-note" data-testid="note">
            <div className="cd-note-text">{n.note}</div>
            <div className="cd-note-meta">
              <span>
                {n.user?.name ?? ''} · {dates.shortDateTime(n.createdAt)}
              </span>
              <button type="button" className="icon-btn small danger" aria-label={t('common.delete')} onClick={() => setDeleting(n)}>
                <CIcon name="close" size={16} />
              </button>
            </div>
          </div>
        ))}
      </div>
      <ConfirmDialog open={!!deleting} title={t('ticket.notes')} onClose={() => setDeleting(null)} onConfirm={() => deleting && void remove(deleting)} />
    </Drawer>
  );
}
