import { useTranslation } from 'react-i18next';
import { DRAWER_TEMPORARY_BELOW_PX } from '@balcao/shared';
import { Avatar } from '../../../ui/Avatar';
import { useMediaQuery } from '../../../ui/hooks';
import { formatWhatsappNumber } from '../../../ui/phone';
import type { ApiTicket } from '../types';

/** Spec 001 §2: under 600 px names are cut to 10 characters. */
const cut = (s: string, narrow: boolean) => (narrow && s.length > 10 ? `${s.slice(0, 10)}…` : s);

export function Header({ ticket, onContact }: { ticket: ApiTicket; onContact: () => void }) {
  const { t } = useTranslation();
  const narrow = useMediaQuery(`(max-width: ${DRAWER_TEMPORARY_BELOW_PX - 1}px)`);
  const name = ticket.contact?.name ?? '';
  return (
    <div className="tv-header-main">
      <button type="button" className="tv-contact" onClick={onContact} data-testid="ticket-contact" title={t('ticket.contactDetails')}>
        <Avatar name={name || '?'} photoUrl={ticket.contact?.profilePicUrl} />
        <span className="tv-contact-text">
          <span className="tv-contact-name">
            {cut(name, narrow)} <span className="tv-ticket-id">#{ticket.id}</span>
          </span>
          <span className="tv-contact-number">
            {/* A contact known only by its LID has no number until WhatsApp tells it (issue 17). */}
            {ticket.contact ? formatWhatsappNumber(ticket.contact.number) || t('contacts.noNumber') : ''}
          </span>
        </span>
      </button>
      <div className="tv-assignee" data-testid="ticket-assignee">
        {ticket.user ? t('ticket.assignedTo', { name: cut(ticket.user.name, narrow) }) : t('ticket.waiting')}
        {ticket.queue && (
          <span className="tv-queue" style={{ borderColor: ticket.queue.color, color: ticket.queue.color }}>
            {ticket.queue.name}
          </span>
        )}
      </div>
    </div>
  );
}
