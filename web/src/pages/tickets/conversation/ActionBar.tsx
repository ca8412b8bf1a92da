import { useTranslation } from 'react-i18next';
import { Button } from '@aws-amplify/ui-react';
import { can, type User } from '@balcao/shared';
import type { ApiTicket } from '../types';
import { CIcon } from './icons';

export interface TicketActions {
  accept: () => void;
  giveBack: () => void;
  close: (justFinish: boolean) => void;
  transfer: () => void;
  remove: () => void;
  reopen: () => void;
  openSearch: () => void;
  openQuickReplies: () => void;
  /** Absent when the company's plan has no scheduled messages. */
  schedule?: () => void;
}

/** Spec 001 §4: the buttons of each status. */
export function ActionBar({ ticket, me, busy, actions }: { ticket: ApiTicket; me: User; busy: boolean; actions: TicketActions }) {
  const { t } = useTranslation();
  return (
    <div className="tv-actions" role="toolbar" aria-label={t('ticket.actions')}>
      <button type="button" className="icon-btn" onClick={actions.openSearch} aria-label={t('ticket.searchMessages')} title={t('ticket.searchMessages')}>
        <CIcon name="search" />
      </button>
      <button type="button" className="icon-btn" onClick={actions.openQuickReplies} aria-label={t('ticket.quickReplies')} title={`${t('ticket.quickReplies')} (F4)`}>
        <CIcon name="bolt" />
      </button>
      {actions.schedule && (
        <button type="button" className="icon-btn" onClick={actions.schedule} aria-label={t('ticket.schedule')} title={t('ticket.schedule')}>
          <CIcon name="calendar" />
        </button>
      )}
      {ticket.status === 'pending' && (
        <>
          <Button size="small" variation="primary" isDisabled={busy} onClick={actions.accept}>
            {t('ticket.accept')}
          </Button>
          <Button size="small" isDisabled={busy} onClick={() => actions.close(false)}>
            {t('ticket.resolve')}
          </Button>
        </>
      )}
      {ticket.status === 'open' && (
        <>
          <Button size="small" isDisabled={busy} onClick={actions.giveBack}>
            {t('ticket.return')}
          </Button>
          <Button size="small" variation="primary" isDisabled={busy} onClick={() => actions.close(false)}>
            {t('ticket.resolve')}
          </Button>
          <Button size="small" isDisabled={busy} onClick={() => actions.close(true)}>
            {t('ticket.finish')}
          </Button>
          <Button size="small" isDisabled={busy} onClick={actions.transfer}>
            {t('ticket.transfer')}
          </Button>
        </>
      )}
      {ticket.status === 'closed' && (
        <Button size="small" variation="primary" isDisabled={busy} onClick={actions.reopen}>
          {t('ticket.reopen')}
        </Button>
      )}
      {can(me.profile, 'ticket-options:deleteTicket') && (
        <Button size="small" variation="link" colorTheme="error" isDisabled={busy} onClick={actions.remove}>
          {t('ticket.delete')}
        </Button>
      )}
    </div>
  );
}
