import { lazy, Suspense, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useNavigate } from 'react-router-dom';
import { Flex } from '@aws-amplify/ui-react';
import { can, isAdminProfile } from '@balcao/shared';
import { contactsApi } from '../../api/contacts';
import { queuesApi } from '../../api/queues';
import { tagsApi } from '../../api/tags';
import { usersApi } from '../../api/users';
import { toastError } from '../../api/errors';
import { useAuth } from '../../auth/AuthContext';
import { EntityTablePage, SearchBox } from '../../ui/EntityTablePage';
import { MultiSelect, type Option } from '../../ui/MultiSelect';
import { useOptions } from '../../ui/useLoad';
import { useRowActions } from '../../ui/useRowActions';
import type { ApiTicket } from '../tickets/types';
import ContactDialog from './ContactDialog';
import { ContactRow } from './ContactRow';
import { ContactsTools } from './ContactsTools';
import type { Contact } from './types';
import { useContacts } from './useContacts';
import '../tickets/tickets.css';
import './contacts.css';

const NewTicketDialog = lazy(() => import('../tickets/NewTicketDialog'));

const asOptions = (list: Option[]) => list.map((x) => ({ id: x.id, name: x.name, color: x.color }));

export default function Contacts() {
  const { t } = useTranslation();
  const { user } = useAuth();
  const navigate = useNavigate();
  const admin = isAdminProfile(user?.profile) || !!user?.super;
  const mayDelete = !!user && (!!user.super || can(user.profile, 'contacts-page:deleteContact'));
  const list = useContacts(user);
  const tagOptions = useOptions(async () => asOptions(await tagsApi.list('contact')), [], { onError: toastError });
  const userOptions = useOptions(usersApi.sorted, [], { onError: toastError });
  // The new-ticket dialog offers the company's queues to admins, one's own to others (spec 001 §6).
  const queues = useOptions(async () => asOptions(await queuesApi.all()), user?.queues ?? [], { enabled: admin, onError: () => undefined });
  const [ticketFor, setTicketFor] = useState<Contact | null>(null);
  const actions = useRowActions<Contact>({ remove: (c) => contactsApi.remove(c.id), onRemoved: (c) => list.dropListed(c.id), deletedText: t('contacts.deleted') });

  return (
    <EntityTablePage
      pageClassName="contacts-page"
      title={
        <>
          {t('contacts.title')} <span className="contacts-count" data-testid="contacts-count">({list.count})</span>
        </>
      }
      tools={
        <Flex gap="0.5rem" alignItems="center" wrap="wrap" className="contacts-toolbar">
          <SearchBox value={list.search} onChange={list.setSearch} placeholder={t('contacts.searchPlaceholder')} className="contacts-search" />
          <MultiSelect label={t('contacts.tags')} options={tagOptions} value={list.tagFilter} onChange={list.setTagFilter} testId="contacts-tag-filter" />
          <MultiSelect label={t('contacts.attendant')} options={userOptions} value={list.userFilter} onChange={list.setUserFilter} testId="contacts-user-filter" />
        </Flex>
      }
      below={<ContactsTools count={list.count} filters={list.filters} admin={admin} onAdd={actions.add} reload={list.reload} />}
      actions={actions}
      nameOf={(c) => c.name}
      deleteMessage={t('contacts.deleteMessage')}
      texts="contacts"
      columns={[{ label: <span className="visually-hidden">{t('contacts.picture')}</span>, className: 'pic-col' }, ['id', 'hide-narrow'], 'name', ['whatsapp', 'hide-narrow'], ['email', 'hide-narrow'], ['createdAt', 'hide-narrow']]}
      loading={list.loading}
      empty={list.contacts.length === 0}
      className="contacts-table"
      scroll={{ scroller: list.scroller, onScroll: list.onScroll, testId: 'contacts-scroll' }}
      dialogs={
        <>
          {actions.editing && <ContactDialog open contactId={actions.editing.item?.id ?? null} onClose={actions.close} onSaved={list.upsert} />}
          <Suspense fallback={null}>
            {ticketFor && user && (
              <NewTicketDialog
                open
                user={user}
                queues={queues}
                initialContact={{ id: ticketFor.id, name: ticketFor.name, number: ticketFor.number }}
                onClose={() => setTicketFor(null)}
                onCreated={(ticket: ApiTicket) => {
                  setTicketFor(null);
                  navigate(`/tickets/${ticket.uuid}`);
                }}
              />
            )}
          </Suspense>
        </>
      }
    >
      {list.contacts.map((c) => (
        <ContactRow key={c.id} c={c} onTicket={() => setTicketFor(c)} onEdit={() => actions.edit(c)} onDelete={mayDelete ? () => actions.askDelete(c) : undefined} />
      ))}
    </EntityTablePage>
  );
}
