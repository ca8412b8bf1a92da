import { useTranslation } from 'react-i18next';
import { Link, useNavigate } from 'react-router-dom';
import { TableCell, TableRow } from '@aws-amplify/ui-react';
import type { ApiContactList } from '@balcao/shared';
import { contactListsApi } from '../../api/contactLists';
import { useCampaignsGate } from '../../auth/usePlanGate';
import { EntityTablePage } from '../../ui/EntityTablePage';
import { Icon } from '../../ui/icons';
import { RowActions } from '../../ui/TableParts';
import { useLiveTable } from '../../ui/useLiveTable';
import ContactListDialog from './ContactListDialog';
import { fold, importPercent } from './lists';
import './contact-lists.css';

/** The server's search: a fragment of the name, accents and case aside. */
const matches = (l: ApiContactList, term: string) => !term || fold(l.name).includes(fold(term));

/** The contact lists page (spec 002 §2 "Contact lists"): admins of companies with campaigns. */
export default function ContactLists() {
  const allowed = useCampaignsGate();
  // Without access the routes answer 403: nothing is asked while the redirect runs.
  return allowed ? <ContactListsTable /> : null;
}

function ContactListsTable() {
  const { t } = useTranslation();
  const navigate = useNavigate();
  // Item changes move a list's count with an `update` of the list: only a list created joins the page.
  const live = useLiveTable<ApiContactList>({
    api: contactListsApi,
    itemsKey: 'records',
    event: 'ContactList',
    eventNames: ['id', 'record'],
    matches,
    addOnlyCreated: true,
    texts: 'contactLists',
  });
  const { items, actions } = live;
  const itemsPath = (l: ApiContactList) => `/contact-lists/${l.id}/contacts`;

  return (
    <EntityTablePage
      texts="contactLists"
      live={live}
      add
      nameOf={(l) => l.name}
      deleteMessage={t('contactLists.deleteMessage')}
      title={t('contactLists.titleCount', { count: live.count ?? items.length })}
      columns={['name', ['contacts', 'cl-count-col']]}
      dialogs={actions.editing && <ContactListDialog record={actions.editing.item} onClose={actions.close} onSaved={(x) => live.upsert(x)} />}
    >
      {items.map((l) => {
        const running = l.import?.status === 'running';
        return (
          <TableRow key={l.id} data-testid={`contact-list-row-${l.id}`}>
            <TableCell>
              <Link to={itemsPath(l)} className="cl-name-link">
                {l.name}
              </Link>
            </TableCell>
            <TableCell className="cl-count-col">
              <span data-testid="contact-list-count">{l.contactsCount}</span>
              {running && <span className="cl-chip">{t('contactLists.importing', { percent: importPercent(l.import!) })}</span>}
            </TableCell>
            <RowActions name={l.name} onEdit={() => actions.edit(l)} onDelete={() => actions.askDelete(l)}>
              <button type="button" className="icon-btn" aria-label={`${t('contactLists.openItems')} ${l.name}`} title={t('contactLists.openItems')} onClick={() => navigate(itemsPath(l))}>
                <Icon name="contactList" size={20} />
              </button>
            </RowActions>
          </TableRow>
        );
      })}
    </EntityTablePage>
  );
}
