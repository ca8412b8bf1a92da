import type { MouseEvent } from 'react';
import { useTranslation } from 'react-i18next';
import type { Schedule } from '@balcao/shared';
import { Icon } from '../../ui/icons';
import { formatWhatsappNumber } from '../../ui/phone';
import { StatusChip, useScheduleReason } from './StatusChip';

/** A schedule in the calendar's agenda: contact, number, connection, status, edit/delete and the text. */
export function AgendaRow({ s, onEdit, onDelete }: { s: Schedule; onEdit: () => void; onDelete: () => void }) {
  const { t } = useTranslation();
  const reasonOf = useScheduleReason();
  const name = s.contact?.name ?? '';
  // The row itself opens the schedule: its buttons keep their click.
  const only = (action: () => void) => (e: MouseEvent) => {
    e.stopPropagation();
    action();
  };
  return (
    <div className="sch-agenda-row" data-testid={`schedule-row-${s.id}`}>
      <span className="sch-name">{name}</span>
      <span className="sch-phone">{formatWhatsappNumber(s.contact?.number)}</span>
      <span className="sch-conn">{s.whatsapp?.name ?? t('schedules.defaultConnection')}</span>
      <StatusChip status={s.status} reason={reasonOf(s)} />
      <span className="sch-actions">
        <button type="button" className="icon-btn" aria-label={`${t('common.edit')} ${name}`} onClick={only(onEdit)}>
          <Icon name="edit" size={20} />
        </button>
        <button type="button" className="icon-btn danger" aria-label={`${t('common.delete')} ${name}`} onClick={only(onDelete)}>
          <Icon name="delete" size={20} />
        </button>
      </span>
      <span className="sch-body">{s.body}</span>
    </div>
  );
}
