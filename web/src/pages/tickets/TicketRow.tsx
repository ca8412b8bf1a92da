import { memo } from 'react';
import { useTranslation } from 'react-i18next';
import { Avatar } from '../../ui/Avatar';
import { useDates } from '../../ui/dates';
import { cutName, preview } from './lists';
import type { ApiTicket } from './types';

interface Props {
  ticket: ApiTicket;
  selected: boolean;
  narrow: boolean;
  accepting: boolean;
  onOpen: (t: ApiTicket) => void;
  onAccept: (t: ApiTicket) => void;
}

function TicketRowImpl({ ticket: t, selected, narrow, accepting, onOpen, onAccept }: Props) {
  const { t: tr } = useTranslation();
  const dates = useDates();
  // A contact known only by its LID may have neither name nor number yet (issue 17).
  const name = t.contact?.name || t.contact?.number || (t.contact ? tr('contacts.noNumber') : `#${t.id}`);
  const color = t.queue?.color ?? 'var(--muted)';
  return (
    <div
      className={`ticket-row${selected ? ' selected' : ''}${t.unreadMessages > 0 ? ' unread' : ''}`}
      data-testid={`ticket-row-${t.id}`}
      data-status={t.status}
      role="button"
      tabIndex={0}
      aria-current={selected ? 'true' : undefined}
      onClick={() => onOpen(t)}
      onKeyDown={(e) => {
        if (e.key === 'Enter' || e.key === ' ') {
          e.preventDefault();
          onOpen(t);
        }
      }}
    >
      <span className="ticket-queue-bar" style={{ background: color }} title={t.queue?.name ?? tr('tickets.noQueue')} />
      <Avatar name={name} photoUrl={t.contact?.profilePicUrl} />
      <div className="ticket-main">
        <div className="ticket-line">
          <span className="ticket-name" title={name} data-testid="ticket-name">
            {cutName(name, narrow)}
          </span>
          {/* When the ticket last moved: the time today (the company's day), the day before that. */}
          <span className="ticket-time">{dates.timeOrDay(t.updatedAt)}</span>
        </div>
        <div className="ticket-line">
          <span className="ticket-last" data-testid="ticket-last">
            {t.lastMessage ? preview(t.lastMessage) : '\u00a0'}
          </span>
          {t.unreadMessages > 0 && (
            <span className="ticket-unread" data-testid="ticket-unread" aria-label={tr('tickets.unreadCount', { count: t.unreadMessages })}>
              {t.unreadMessages}
            </span>
          )}
        </div>
        <div className="ticket-line ticket-meta">
          <span className="ticket-chips">
            <span className="ticket-chip" style={{ borderColor: color }} data-testid="ticket-queue">
              {t.queue?.name ?? tr('tickets.noQueue')}
            </span>
            {t.user && <span className="ticket-chip" data-testid="ticket-agent">{cutName(t.user.name, narrow)}</span>}
            {t.whatsapp && <span className="ticket-chip muted" data-testid="ticket-connection">{cutName(t.whatsapp.name, narrow)}</span>}
          </span>
          {t.status === 'pending' && (
            <button
              type="button"
              className="ticket-accept"
              disabled={accepting}
              onClick={(e) => {
                e.stopPropagation();
                onAccept(t);
              }}
            >
              {tr('tickets.accept')}
            </button>
          )}
        </div>
      </div>
    </div>
  );
}

export const TicketRow = memo(TicketRowImpl);
