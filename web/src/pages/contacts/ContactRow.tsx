import { useTranslation } from 'react-i18next';
import { TableCell, TableRow } from '@aws-amplify/ui-react';
import { Avatar } from '../../ui/Avatar';
import { useDates } from '../../ui/dates';
import { formatWhatsappNumber } from '../../ui/phone';
import { RowActions } from '../../ui/TableParts';
import type { Contact } from './types';

/** A number to call (a group's is shown as it is; a contact known only by its LID has none yet: issue 17). */
function CallLink({ c, ...props }: { c: Contact; 'data-testid'?: string; 'aria-label'?: string }) {
  const { t } = useTranslation();
  if (c.isGroup) return <>{c.number}</>;
  if (!c.number) return <span data-testid={props['data-testid']}>{t('contacts.noNumber')}</span>;
  return (
    <a href={`tel:+${c.number}`} className="text-link" {...props}>
      {formatWhatsappNumber(c.number)}
    </a>
  );
}

/** One contact of the table; its actions: start a ticket (spec 001 "Contacts page"), edit, and delete when allowed. */
export function ContactRow({ c, onTicket, onEdit, onDelete }: { c: Contact; onTicket: () => void; onEdit: () => void; onDelete?: () => void }) {
  const { t } = useTranslation();
  const dates = useDates();
  return (
    <TableRow data-testid={`contact-row-${c.id}`} className="contact-row">
      <TableCell className="pic-col">
        <Avatar name={c.name} photoUrl={c.profilePicUrl} />
      </TableCell>
      <TableCell className="hide-narrow">{c.id}</TableCell>
      <TableCell className="contact-name-cell">
        <span className="contact-name" data-testid="contact-name">{c.name}</span>
        {/* Narrow screens: the number under the name (its column is hidden). */}
        <span className="show-narrow contact-number-narrow">
          <CallLink c={c} />
        </span>
        {c.tags?.length > 0 && (
          <span className="contact-tags">
            {c.tags.map((tag) => (
              <span key={tag.id} className="contact-tag" style={{ background: tag.color }}>
                {tag.name}
              </span>
            ))}
          </span>
        )}
      </TableCell>
      <TableCell className="nowrap hide-narrow">
        <CallLink c={c} data-testid="contact-number" aria-label={`${t('contacts.call')} ${formatWhatsappNumber(c.number)}`} />
      </TableCell>
      <TableCell className="hide-narrow contact-email">{c.email}</TableCell>
      <TableCell className="hide-narrow nowrap">{dates.day(c.createdAt)}</TableCell>
      <RowActions name={c.name} onEdit={onEdit} onDelete={onDelete}>
        <button type="button" className="icon-btn" aria-label={`${t('contacts.startTicket')} ${c.name}`} title={t('contacts.startTicket')} onClick={onTicket}>
          {/* A chat bubble (WhatsApp-style), kept here since only this page uses it. */}
          <svg width={20} height={20} viewBox="0 0 24 24" aria-hidden="true" focusable="false" fill="currentColor">
            <path d="M20 2H4a2 2 0 0 0-2 2v18l4-4h14a2 2 0 0 0 2-2V4a2 2 0 0 0-2-2zM6 9h12v2H6V9zm8 5H6v-2h8v2zm4-6H6V6h12v2z" />
          </svg>
        </button>
      </RowActions>
    </TableRow>
  );
}
