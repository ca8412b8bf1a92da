import { lazy, Suspense, useEffect, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useNavigate, useParams } from 'react-router-dom';
import { Button, Flex, TableCell, TableRow } from '@aws-amplify/ui-react';
import { can, companyEvent, type ApiContactList, type ApiContactListItem } from '@balcao/shared';
import { contactListItemsApi, contactListsApi } from '../../api/contactLists';
import { errorText, toastError } from '../../api/errors';
import { realtime } from '../../api/realtime';
import { useAuth } from '../../auth/AuthContext';
import { useCampaignsGate } from '../../auth/usePlanGate';
import { EntityTablePage, SearchBox } from '../../ui/EntityTablePage';
import { Icon } from '../../ui/icons';
import { formatWhatsappNumber } from '../../ui/phone';
import { RowActions } from '../../ui/TableParts';
import { toast } from '../../ui/toast';
import { recordEvent, useLiveList, type ListEvent } from '../../ui/useLiveList';
import { lowerCase, useRowActions, useSearch } from '../../ui/useRowActions';
import ContactListItemDialog from './ContactListItemDialog';
import { ImportPanel, type ImportView } from './ImportPanel';
import { EXAMPLE_FILES, fold, mergeList } from './lists';
import { WhatsappValidIcon } from './WhatsappValidIcon';
import './contact-lists.css';

const ImportDialog = lazy(() => import('./ImportDialog'));

/** The server's search: a fragment of the name, the number or the e-mail. */
const matches = (i: ApiContactListItem, term: string) => !term || fold(i.name).includes(fold(term)) || i.number.includes(term.replace(/\D/g, '') || term) || i.email.toLowerCase().includes(term);

/** The items of one contact list (spec 002 §2 "Contact list items"): admins of companies with campaigns. */
export default function ContactListItems() {
  const allowed = useCampaignsGate();
  const { contactListId } = useParams();
  const id = Number(contactListId);
  if (!allowed) return null;
  // A list named by something else than an id is no list: back to the lists.
  return Number.isInteger(id) && id > 0 ? <ItemsPage key={id} listId={id} /> : <NotAList />;
}

function NotAList() {
  const navigate = useNavigate();
  useEffect(() => {
    void navigate('/contact-lists', { replace: true });
  }, [navigate]);
  return null;
}

/**
 * The list (its name, count and import) as loaded and then as its live updates show it; a list
 * deleted meanwhile (or never there) sends the user back to the lists.
 */
function useContactList(listId: number) {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const { user } = useAuth();
  const [list, setList] = useState<ApiContactList | null>(null);
  const merge = (incoming: ApiContactList) => setList((known) => mergeList(known, incoming));

  useEffect(() => {
    let live = true;
    contactListsApi
      .get(listId)
      .then((l) => live && merge(l))
      .catch((e) => {
        if (!live) return;
        toastError(e);
        navigate('/contact-lists', { replace: true });
      });
    return () => {
      live = false;
    };
  }, [listId]);

  useEffect(() => {
    if (!user) return;
    return realtime.on(companyEvent(user.companyId, 'ContactList'), (data) => {
      if (data.action === 'delete') {
        if (data.id !== listId) return;
        toast.info(t('contactListItems.listDeleted'));
        navigate('/contact-lists', { replace: true });
      } else if (data.record?.id === listId) merge(data.record);
    });
  }, [user, listId]);

  return { list, merge };
}

function ItemsPage({ listId }: { listId: number }) {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const { user } = useAuth();
  // Spec 002 §2: delete only for the profiles the contacts page lets delete.
  const mayDelete = !!user && (!!user.super || can(user.profile, 'contacts-page:deleteContact'));
  const { list, merge } = useContactList(listId);
  const { search, setSearch, searchParam } = useSearch(lowerCase);
  const items = useLiveList<ApiContactListItem>({
    path: contactListItemsApi.path,
    itemsKey: 'contacts',
    searchParam,
    query: { contactListId: listId },
    event: 'ContactListItem',
    // The company's item events of every list: this page keeps its own.
    fromEvent: (data): ListEvent<ApiContactListItem> => ((data?.record?.contactListId ?? data?.contactListId) === listId ? recordEvent<ApiContactListItem>('id', 'record')(data) : null),
    matches,
    // An item checked again on WhatsApp is an update: it changes a row shown, it adds none.
    addOnlyCreated: true,
  });
  const actions = useRowActions<ApiContactListItem>({
    remove: (i) => contactListItemsApi.remove(i.id),
    onRemoved: (i) => items.removeById(i.id),
    deletedText: t('contactListItems.deleted'),
  });

  // The import: the confirmation, the upload, then the list's `import` (shown while it runs, and
  // its report until closed).
  const [confirming, setConfirming] = useState(false);
  const [upload, setUpload] = useState<ImportView | null>(null);
  const [shownImport, setShownImport] = useState<string | null>(null);
  const imp = list?.import;
  const running = imp?.status === 'running';
  // The import followed here (started here, or seen running): its end reads the rows it added
  // again (an import announces the list, not each row) and is told once. A small file can be over
  // before the upload's answer lands, so the answer starts following it too.
  const [watching, setWatching] = useState<string | null>(null);
  const finished = useRef(new Set<string>());
  useEffect(() => {
    if (!imp) return;
    if (imp.status === 'running') {
      setShownImport(imp.id);
      setWatching(imp.id);
      return;
    }
    if (watching !== imp.id || finished.current.has(imp.id)) return;
    finished.current.add(imp.id);
    setWatching(null);
    items.reload();
    if (imp.status === 'done') toast.success(t('contactListItems.importDone', { file: imp.fileName }));
    else toast.error(t('contactListItems.importStopped', { file: imp.fileName }));
  }, [imp?.id, imp?.status, watching]);

  const startUpload = async (file: File) => {
    setConfirming(false);
    setUpload({ phase: 'uploading', fileName: file.name });
    try {
      const answer = await contactListsApi.upload(listId, file);
      setUpload(null);
      merge(answer);
      if (answer.import) {
        setShownImport(answer.import.id);
        setWatching(answer.import.id);
      }
    } catch (e) {
      // A file refused as a whole (empty, too large, not a spreadsheet, no number column, an import running).
      setUpload({ phase: 'refused', fileName: file.name, reason: errorText(e) });
    }
  };

  const view: ImportView | null = upload ?? (imp && (running || shownImport === imp.id) ? { phase: 'import', import: imp } : null);
  const closeView = upload ? () => setUpload(null) : () => setShownImport(null);
  const title = (
    <>
      <span className="cl-kicker">{t('contactLists.title')}</span>
      <span data-testid="contact-list-name">{list?.name ?? '…'}</span>{' '}
      {list && (
        <span className="cl-title-count" data-testid="contact-list-items-count">
          ({t('contactListItems.count', { count: list.contactsCount })})
        </span>
      )}
    </>
  );

  return (
    <EntityTablePage
      pageClassName="cl-items-page"
      texts="contactListItems"
      title={title}
      tools={
        <Flex gap="0.5rem" alignItems="center" wrap="wrap" className="cl-toolbar">
          <SearchBox value={search} onChange={setSearch} placeholder={t('contactListItems.searchPlaceholder')} className="cl-search" />
          <Button size="small" onClick={() => navigate('/contact-lists')}>
            <Icon name="chevronLeft" size={18} />
            {t('contactListItems.back')}
          </Button>
          <Button size="small" onClick={() => setConfirming(true)} isDisabled={!list || running || upload?.phase === 'uploading'} title={running ? t('errors.ERR_IMPORT_RUNNING') : undefined}>
            {t('contactListItems.import')}
          </Button>
          <Button size="small" variation="primary" onClick={actions.add} isDisabled={!list}>
            {t('contactListItems.add')}
          </Button>
        </Flex>
      }
      below={
        <>
          <Flex className="cl-below" alignItems="center" justifyContent="space-between" gap="0.5rem" wrap="wrap">
            <span className="cl-examples" data-testid="contact-list-examples">
              {t('contactListItems.examples')}{' '}
              {EXAMPLE_FILES.map((f) => (
                <a key={f.ext} href={f.href} download className="text-link cl-example">
                  {t('contactListItems.exampleFile', { ext: f.ext })}
                </a>
              ))}
            </span>
            {imp && !view && (
              <button type="button" className="cl-link-btn" onClick={() => setShownImport(imp.id)}>
                {t('contactListItems.lastReport')}
              </button>
            )}
          </Flex>
          {view && <ImportPanel view={view} onClose={view.phase === 'uploading' ? undefined : closeView} />}
        </>
      }
      actions={actions}
      nameOf={(i) => i.name}
      columns={[
        { label: <span className="visually-hidden">{t('contactListItems.whatsapp')}</span>, className: 'cl-wa-col' },
        'name',
        ['number', 'nowrap'],
        ['email', 'hide-narrow'],
      ]}
      loading={items.loading}
      empty={items.items.length === 0}
      scroll={{ scroller: items.scroller, onScroll: items.onScroll, testId: 'contact-list-items-scroll' }}
      dialogs={
        <>
          {actions.editing && <ContactListItemDialog contactListId={listId} record={actions.editing.item} onClose={actions.close} onSaved={(x) => items.upsert(x)} />}
          <Suspense fallback={null}>{confirming && <ImportDialog onClose={() => setConfirming(false)} onFile={(f) => void startUpload(f)} />}</Suspense>
        </>
      }
    >
      {items.items.map((i) => (
        <TableRow key={i.id} data-testid={`contact-list-item-row-${i.id}`}>
          <TableCell className="cl-wa-col">
            <WhatsappValidIcon valid={i.isWhatsappValid} />
          </TableCell>
          <TableCell>{i.name}</TableCell>
          <TableCell className="nowrap" data-testid="contact-list-item-number">
            {formatWhatsappNumber(i.number)}
          </TableCell>
          <TableCell className="hide-narrow cl-email">{i.email}</TableCell>
          <RowActions name={i.name} onEdit={() => actions.edit(i)} onDelete={mayDelete ? () => actions.askDelete(i) : undefined} />
        </TableRow>
      ))}
    </EntityTablePage>
  );
}
