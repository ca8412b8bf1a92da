import { useTranslation } from 'react-i18next';
import { TableCell, TableRow } from '@aws-amplify/ui-react';
import { ANNOUNCEMENT_EVENT, type ApiAnnouncement } from '@balcao/shared';
import { announcementsApi } from '../../api/announcements';
import { useAuth } from '../../auth/AuthContext';
import { useAccessGate } from '../../auth/usePlanGate';
import { EntityTablePage } from '../../ui/EntityTablePage';
import { Icon } from '../../ui/icons';
import { RowActions } from '../../ui/TableParts';
import { useLiveTable } from '../../ui/useLiveTable';
import AnnouncementDialog from './AnnouncementDialog';
import { PriorityBadge } from './priority';
import './announcements.css';

/** The server's search: title or text, accents and case aside. */
const fold = (s: string) => s.normalize('NFD').replace(/[\u0300-\u036f]/g, '').toLowerCase().trim();
const matches = (a: ApiAnnouncement, term: string) => !term || fold(a.title).includes(fold(term)) || fold(a.text).includes(fold(term));

/** The announcements page (spec 002 §2): the super user's; anyone else gets the toast and the way home. */
export default function Announcements() {
  const { user } = useAuth();
  const allowed = useAccessGate(!!user?.super);
  // Without access the writes answer 403: nothing is asked while the redirect runs.
  return allowed ? <AnnouncementsTable /> : null;
}

function AnnouncementsTable() {
  const { t } = useTranslation();
  const live = useLiveTable<ApiAnnouncement>({
    api: announcementsApi,
    itemsKey: 'records',
    event: ANNOUNCEMENT_EVENT,
    eventNames: ['id', 'record'],
    matches,
    texts: 'announcements',
  });
  const { items, actions } = live;

  return (
    <EntityTablePage
      texts="announcements"
      live={live}
      add
      nameOf={(a) => a.title}
      columns={['subject', 'priority', ['attachment', 'hide-narrow'], 'status']}
      dialogs={actions.editing && <AnnouncementDialog record={actions.editing.item} onClose={actions.close} onSaved={(x) => live.upsert(x)} />}
    >
      {items.map((a) => (
        <TableRow key={a.id} data-testid={`announcement-row-${a.id}`}>
          <TableCell className="ann-title">{a.title}</TableCell>
          <TableCell>
            <PriorityBadge priority={a.priority} />
          </TableCell>
          <TableCell className="hide-narrow">
            {a.mediaName || a.mediaPath ? (
              <span className="ann-file">
                <Icon name="attach" size={18} />
                {a.mediaName ?? a.mediaPath}
              </span>
            ) : (
              <span className="ann-none">{t('announcements.noAttachment')}</span>
            )}
          </TableCell>
          <TableCell>
            <span className={`ann-status ${a.status ? 'on' : 'off'}`}>{a.status ? t('announcements.active') : t('announcements.inactive')}</span>
          </TableCell>
          <RowActions name={a.title} onEdit={() => actions.edit(a)} onDelete={() => actions.askDelete(a)} />
        </TableRow>
      ))}
    </EntityTablePage>
  );
}
