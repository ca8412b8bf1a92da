import { useTranslation } from 'react-i18next';
import { TableCell, TableRow } from '@aws-amplify/ui-react';
import { isAdminProfile } from '@balcao/shared';
import { quickMessagesApi } from '../../api/quickMessages';
import { useAuth } from '../../auth/AuthContext';
import { EntityTablePage } from '../../ui/EntityTablePage';
import { RowActions } from '../../ui/TableParts';
import { useLiveTable } from '../../ui/useLiveTable';
import QuickMessageDialog from './QuickMessageDialog';
import type { QuickMessage } from './types';
import './quick-messages.css';

/** Spec 001 §9: quick-reply previews are cut at 35 characters. */
const PREVIEW = 35;
const preview = (s: string) => (s.length > PREVIEW ? `${s.slice(0, PREVIEW)}…` : s);
const matches = (q: QuickMessage, term: string) => !term || q.shortcode.toLowerCase().includes(term) || q.message.toLowerCase().includes(term);

/** Quick replies page (spec 001 §3): searchable table of shortcode, attachment and actions. */
export default function QuickMessages() {
  const { t } = useTranslation();
  const { user: me } = useAuth();
  const privileged = isAdminProfile(me?.profile) || !!me?.super;
  // Company replies come to everyone, personal ones only to their author (server audience).
  const live = useLiveTable<QuickMessage>({ api: quickMessagesApi, itemsKey: 'records', event: 'quickmessage', eventNames: ['id', 'record'], matches, texts: 'quickMessages' });
  const { items: records, actions } = live;

  // Only the author or an admin may change a reply (the server answers 403 otherwise).
  const mine = (q: QuickMessage) => privileged || q.userId === me?.id;

  return (
    <EntityTablePage
      texts="quickMessages" live={live} add nameOf={(q) => q.shortcode}
      columns={['shortcode', ['message', 'hide-narrow'], 'attachment']}
      dialogs={actions.editing && <QuickMessageDialog record={actions.editing.item} onClose={actions.close} onSaved={(x) => live.upsert(x)} />}
    >
      {records.map((q) => (
        <TableRow key={q.id} data-testid={`qm-row-${q.id}`}>
          <TableCell>
            <strong>{q.shortcode}</strong>
            <span className="qm-scope">{q.geral ? t('quickMessages.geralShort') : t('quickMessages.personalShort')}</span>
          </TableCell>
          <TableCell className="hide-narrow qm-preview">{preview(q.message)}</TableCell>
          <TableCell>
            {q.mediaPath ? <span className="qm-media">{q.mediaName ?? q.mediaPath}</span> : <span className="qm-none">{t('quickMessages.noAttachment')}</span>}
          </TableCell>
          <RowActions name={q.shortcode} onEdit={mine(q) ? () => actions.edit(q) : undefined} onDelete={mine(q) ? () => actions.askDelete(q) : undefined} />
        </TableRow>
      ))}
    </EntityTablePage>
  );
}
