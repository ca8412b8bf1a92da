import { lazy, Suspense, useCallback, useEffect, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useNavigate, useSearchParams } from 'react-router-dom';
import { Button, Flex, Heading, Loader, Table, TableBody, TableCell, TableHead, TableRow, TextField } from '@aws-amplify/ui-react';
import { can, companyEvent, contactsCsv, isAdminProfile, SEARCH_DEBOUNCE_MS, type Queue } from '@balcao/shared';
import { api } from '../../api/http';
import { toastError } from '../../api/errors';
import { realtime } from '../../api/realtime';
import { useAuth } from '../../auth/AuthContext';
import { Avatar } from '../../ui/Avatar';
import { ConfirmDialog } from '../../ui/ConfirmDialog';
import { useDates } from '../../ui/dates';
import { Icon } from '../../ui/icons';
import { useDebounced } from '../../ui/hooks';
import { formatWhatsappNumber } from '../../ui/phone';
import { EmptyRow } from '../../ui/TableParts';
import { toast } from '../../ui/toast';
import { useInfiniteScroll } from '../../ui/hooks';
import { MultiSelect, type Option } from '../tickets/MultiSelect';
import type { ApiTicket, TagRef } from '../tickets/types';
import ContactDialog from './ContactDialog';
import { download } from './csv';
import type { Contact, ContactsPage, ImportResult } from './types';
import '../tickets/tickets.css';
import './contacts.css';

const NewTicketDialog = lazy(() => import('../tickets/NewTicketDialog'));
const ImportCsvDialog = lazy(() => import('./ImportCsvDialog'));
const TransferContactsDialog = lazy(() => import('./TransferContactsDialog'));

type ExportRow = { id: number; name: string; number: string; email: string };

/** `?tag=3` or `?tag=3,4` (spec 001 "Contacts page": the query parameters preselect the filters). */
const idsOf = (raw: string | null) => (raw ?? '').split(',').map(Number).filter((n) => Number.isInteger(n) && n > 0);
const json = (ids: number[]) => (ids.length ? JSON.stringify(ids) : undefined);
/** A late event must not put back what a newer one replaced. */
const older = (incoming: Contact, known: Contact) => !!incoming.updatedAt && !!known.updatedAt && incoming.updatedAt < known.updatedAt;

export default function Contacts() {
  const { t } = useTranslation();
  const { user } = useAuth();
  const navigate = useNavigate();
  const [params] = useSearchParams();
  const admin = isAdminProfile(user?.profile) || !!user?.super;
  const mayDelete = !!user && (!!user.super || can(user.profile, 'contacts-page:deleteContact'));

  const [search, setSearch] = useState('');
  const searchParam = useDebounced(search.trim(), SEARCH_DEBOUNCE_MS);
  const [tagFilter, setTagFilter] = useState<number[]>(() => idsOf(params.get('tag')));
  const [userFilter, setUserFilter] = useState<number[]>(() => idsOf(params.get('user')));
  const [tagOptions, setTagOptions] = useState<Option[]>([]);
  const [userOptions, setUserOptions] = useState<Option[]>([]);
  const [contacts, setContacts] = useState<Contact[]>([]);
  const [count, setCount] = useState(0);
  const [page, setPage] = useState(1);
  const [hasMore, setHasMore] = useState(false);
  const [loading, setLoading] = useState(false);
  const [reloadKey, setReloadKey] = useState(0);
  const [dialog, setDialog] = useState<{ contactId: number | null } | null>(null);
  const [deleting, setDeleting] = useState<Contact | null>(null);
  const [importingPhone, setImportingPhone] = useState(false);
  const [phoneBusy, setPhoneBusy] = useState(false);
  const [phoneProgress, setPhoneProgress] = useState<{ done: number; total: number } | null>(null);
  const [csvOpen, setCsvOpen] = useState(false);
  const [transferOpen, setTransferOpen] = useState(false);
  const [exporting, setExporting] = useState(false);
  const [exported, setExported] = useState(0);
  const [ticketFor, setTicketFor] = useState<Contact | null>(null);
  const [queues, setQueues] = useState<Option[]>(() => user?.queues ?? []);
  const listed = useRef<Contact[]>([]);
  listed.current = contacts;

  // Following a link to /contacts?tag=… while already here changes the filters too.
  const tagParam = params.get('tag');
  const userParam = params.get('user');
  useEffect(() => {
    setTagFilter(idsOf(tagParam));
    setUserFilter(idsOf(userParam));
  }, [tagParam, userParam]);

  useEffect(() => {
    let live = true;
    api
      .get<TagRef[]>('/tags/list', { query: { type: 'contact' } })
      .then((list) => live && setTagOptions(list.map((x) => ({ id: x.id, name: x.name, color: x.color }))))
      .catch((e) => live && toastError(e));
    api
      .get<{ id: number; name: string }[]>('/users/list')
      .then((list) => live && setUserOptions([...list].sort((a, b) => a.name.localeCompare(b.name, 'pt-BR')).map((u) => ({ id: u.id, name: u.name }))))
      .catch((e) => live && toastError(e));
    // The new-ticket dialog offers the company's queues to admins, one's own to others (spec 001 §6).
    if (admin)
      api
        .get<Queue[]>('/queue')
        .then((list) => live && setQueues(list.map((q) => ({ id: q.id, name: q.name, color: q.color }))))
        .catch(() => undefined);
    return () => {
      live = false;
    };
  }, [admin]);

  const filterKey = `${searchParam}|${tagFilter.join(',')}|${userFilter.join(',')}`;
  const filtered = !!searchParam || tagFilter.length > 0 || userFilter.length > 0;

  // A new search or filter starts again from page 1 with an empty list.
  useEffect(() => {
    setContacts([]);
    setPage(1);
  }, [filterKey, reloadKey]);

  useEffect(() => {
    let live = true;
    setLoading(true);
    api
      .get<ContactsPage>('/contacts', { query: { searchParam: searchParam || undefined, pageNumber: page, tagsContact: json(tagFilter), users: json(userFilter) } })
      .then((r) => {
        if (!live) return;
        setContacts((prev) => {
          const known = new Map(prev.map((c) => [c.id, c]));
          const fresh = r.contacts.map((c) => {
            const k = known.get(c.id);
            return k && older(c, k) ? k : c;
          });
          const seen = new Set(prev.map((c) => c.id));
          if (page === 1) {
            const freshIds = new Set(fresh.map((c) => c.id));
            return [...prev.filter((c) => !freshIds.has(c.id)), ...fresh];
          }
          return [...prev, ...fresh.filter((c) => !seen.has(c.id))];
        });
        setCount(r.count);
        setHasMore(r.hasMore);
      })
      .catch((e) => live && toastError(e))
      .finally(() => live && setLoading(false));
    return () => {
      live = false;
    };
    // filterKey stands for the three filters.
  }, [filterKey, page, reloadKey]);

  // Whether a contact (from an event) belongs in the list as filtered; text search cannot be
  // checked here, so with a search only rows already listed are updated.
  const fits = useCallback(
    (c: Contact) =>
      tagFilter.every((id) => (c.tagIds ?? c.tags?.map((x) => x.id) ?? []).includes(id)) && (!userFilter.length || (c.userId !== null && userFilter.includes(c.userId))),
    [tagFilter, userFilter],
  );

  useEffect(() => {
    if (!user) return;
    const off = realtime.on(companyEvent(user.companyId, 'contact'), (data) => {
      if (data?.action === 'delete') {
        // Counted down only when it was listed: with a filter, another contact's delete is not ours.
        if (listed.current.some((c) => c.id === Number(data.contactId))) setCount((n) => Math.max(0, n - 1));
        setContacts((l) => l.filter((c) => c.id !== Number(data.contactId)));
      } else if (data?.action === 'reload') setReloadKey((k) => k + 1);
      else if (data?.contact) {
        const c = data.contact as Contact;
        // The unfiltered total counts every new contact; a filtered one is recounted on the next load.
        if (data.action === 'create' && !filtered) setCount((n) => n + 1);
        setContacts((l) => {
          const i = l.findIndex((x) => x.id === c.id);
          if (i >= 0) {
            if (older(c, l[i]!)) return l;
            // An edit that takes it out of the filtered list (tag or attendant removed) drops the row.
            return fits(c) ? l.map((x) => (x.id === c.id ? { ...x, ...c } : x)) : l.filter((x) => x.id !== c.id);
          }
          return data.action === 'create' && !searchParam && fits(c) ? [c, ...l] : l;
        });
      }
    });
    const offR = realtime.onReconnect(() => setReloadKey((k) => k + 1));
    return () => {
      off();
      offR();
    };
  }, [user, fits, searchParam, filtered]);

  const { scroller, onScroll } = useInfiniteScroll({ hasMore, loading, more: () => setPage((p) => p + 1), watch: contacts });

  const upsert = (c: Contact) => setContacts((l) => (l.some((x) => x.id === c.id) ? l.map((x) => (x.id === c.id && !older(c, x) ? c : x)) : fits(c) ? [c, ...l] : l));

  const remove = async (c: Contact) => {
    try {
      await api.del(`/contacts/${c.id}`);
      // Counted here only if the live event has not already removed the row (and counted it).
      if (listed.current.some((x) => x.id === c.id)) setCount((n) => Math.max(0, n - 1));
      setContacts((l) => l.filter((x) => x.id !== c.id));
      toast.success(t('contacts.deleted'));
    } catch (e) {
      toastError(e);
    }
  };

  /**
   * The phone's address book, a page (IMPORT_MAX_ROWS entries) per call until the server answers no
   * `next`. A call that fails stops here; the pages already imported stay, and importing again only
   * finds them unchanged.
   */
  const importFromPhone = async () => {
    setPhoneBusy(true);
    const sum = { created: 0, updated: 0, unchanged: 0, refused: 0 };
    let done = 0;
    try {
      let after: string | undefined;
      do {
        const r = await api.post<ImportResult & { total?: number; next?: string | null }>('/contacts/import', after ? { after } : {});
        sum.created += r.created;
        sum.updated += r.updated;
        sum.unchanged += r.unchanged;
        sum.refused += r.refused.length;
        done += r.created + r.updated + r.unchanged + r.refused.length;
        setPhoneProgress({ done, total: r.total ?? done });
        after = r.next ?? undefined;
      } while (after);
      toast.success(t('contacts.importTotals', sum), 6000);
    } catch (e) {
      if (done) toast.error(t('contacts.importStopped', { sent: done }), 6000);
      toastError(e);
    } finally {
      setPhoneBusy(false);
      setPhoneProgress(null);
      if (done) setReloadKey((k) => k + 1);
    }
  };

  /**
   * contacts.csv (spec 001 §8): every contact of the current filters (all of them without any),
   * read page after page of `GET /contacts/export` with its cursor; a contact renamed meanwhile can
   * come twice from the alphabetical index, so rows are kept once by id.
   */
  const exportCsv = async () => {
    setExporting(true);
    setExported(0);
    try {
      const rows = new Map<number, ExportRow>();
      let cursor: string | undefined;
      do {
        const r = await api.get<{ contacts: ExportRow[]; next: string | null }>('/contacts/export', {
          query: { searchParam: searchParam || undefined, tagsContact: json(tagFilter), users: json(userFilter), cursor },
        });
        for (const c of r.contacts) rows.set(c.id, c);
        setExported(rows.size);
        cursor = r.next ?? undefined;
      } while (cursor);
      download('contacts.csv', contactsCsv([...rows.values()]));
    } catch (e) {
      toastError(e);
    } finally {
      setExporting(false);
    }
  };

  const dates = useDates();

  return (
    <Flex direction="column" gap="1rem" className="page contacts-page">
      <Flex className="page-header" alignItems="center" justifyContent="space-between" wrap="wrap" gap="0.75rem">
        <Heading level={3}>
          {t('contacts.title')} <span className="contacts-count" data-testid="contacts-count">({count})</span>
        </Heading>
        <Flex gap="0.5rem" alignItems="center" wrap="wrap" className="contacts-toolbar">
          <TextField
            label={t('common.search')}
            labelHidden
            placeholder={t('contacts.searchPlaceholder')}
            type="search"
            value={search}
            onChange={(e) => setSearch(e.target.value)}
            className="contacts-search"
          />
          <MultiSelect label={t('contacts.tags')} options={tagOptions} value={tagFilter} onChange={setTagFilter} testId="contacts-tag-filter" />
          <MultiSelect label={t('contacts.attendant')} options={userOptions} value={userFilter} onChange={setUserFilter} testId="contacts-user-filter" />
        </Flex>
      </Flex>
      <Flex gap="0.5rem" wrap="wrap" className="contacts-actions">
        <Button
          size="small"
          onClick={() => setImportingPhone(true)}
          isLoading={phoneBusy}
          loadingText={phoneProgress ? t('contacts.importedOf', { done: phoneProgress.done, total: phoneProgress.total }) : t('contacts.importPhone')}
          data-testid="contacts-import-phone"
        >
          {t('contacts.importPhone')}
        </Button>
        <Button size="small" onClick={() => setCsvOpen(true)}>
          {t('contacts.importCsv')}
        </Button>
        <Button
          size="small"
          onClick={() => void exportCsv()}
          isLoading={exporting}
          loadingText={t('contacts.exportedOf', { done: exported, total: Math.max(count, exported) })}
          data-testid="contacts-export"
        >
          {t('contacts.exportCsv')}
        </Button>
        {admin && (
          <Button size="small" onClick={() => setTransferOpen(true)}>
            {t('contacts.transfer')}
          </Button>
        )}
        <Button size="small" variation="primary" onClick={() => setDialog({ contactId: null })}>
          {t('contacts.add')}
        </Button>
      </Flex>
      <div className="table-scroll" ref={scroller} onScroll={onScroll} data-testid="contacts-scroll">
        <Table highlightOnHover size="small" className="data-table contacts-table">
          <TableHead>
            <TableRow>
              <TableCell as="th" className="pic-col">
                <span className="visually-hidden">{t('contacts.picture')}</span>
              </TableCell>
              <TableCell as="th" className="hide-narrow">{t('contacts.id')}</TableCell>
              <TableCell as="th">{t('contacts.name')}</TableCell>
              <TableCell as="th" className="hide-narrow">{t('contacts.whatsapp')}</TableCell>
              <TableCell as="th" className="hide-narrow">{t('contacts.email')}</TableCell>
              <TableCell as="th" className="hide-narrow">{t('contacts.createdAt')}</TableCell>
              <TableCell as="th" className="actions-col">{t('common.actions')}</TableCell>
            </TableRow>
          </TableHead>
          <TableBody>
            {contacts.map((c) => (
              <TableRow key={c.id} data-testid={`contact-row-${c.id}`} className="contact-row">
                <TableCell className="pic-col">
                  <Avatar name={c.name} photoUrl={c.profilePicUrl} />
                </TableCell>
                <TableCell className="hide-narrow">{c.id}</TableCell>
                <TableCell className="contact-name-cell">
                  <span className="contact-name" data-testid="contact-name">{c.name}</span>
                  {/* Narrow screens: the number under the name (its column is hidden). */}
                  <span className="show-narrow contact-number-narrow">{c.isGroup ? c.number : <a href={`tel:+${c.number}`} className="text-link">{formatWhatsappNumber(c.number)}</a>}</span>
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
                  {c.isGroup ? (
                    c.number
                  ) : (
                    <a href={`tel:+${c.number}`} className="text-link" data-testid="contact-number" aria-label={`${t('contacts.call')} ${formatWhatsappNumber(c.number)}`}>
                      {formatWhatsappNumber(c.number)}
                    </a>
                  )}
                </TableCell>
                <TableCell className="hide-narrow contact-email">{c.email}</TableCell>
                <TableCell className="hide-narrow nowrap">{dates.day(c.createdAt)}</TableCell>
                <ContactActions
                  name={c.name}
                  onTicket={() => setTicketFor(c)}
                  onEdit={() => setDialog({ contactId: c.id })}
                  onDelete={mayDelete ? () => setDeleting(c) : undefined}
                />
              </TableRow>
            ))}
            <EmptyRow show={!loading && contacts.length === 0} colSpan={7} />
          </TableBody>
        </Table>
        {loading && <Loader variation="linear" />}
      </div>

      {dialog && <ContactDialog open contactId={dialog.contactId} onClose={() => setDialog(null)} onSaved={upsert} />}
      <ConfirmDialog
        open={!!deleting}
        title={deleting ? t('contacts.deleteTitle', { name: deleting.name }) : ''}
        message={t('contacts.deleteMessage')}
        onClose={() => setDeleting(null)}
        onConfirm={() => deleting && void remove(deleting)}
      />
      <ConfirmDialog
        open={importingPhone}
        title={t('contacts.importPhoneTitle')}
        message={t('contacts.importPhoneMessage')}
        onClose={() => setImportingPhone(false)}
        onConfirm={() => void importFromPhone()}
      />
      <Suspense fallback={null}>
        {csvOpen && <ImportCsvDialog open onClose={() => setCsvOpen(false)} onDone={() => setReloadKey((k) => k + 1)} />}
        {transferOpen && <TransferContactsDialog open onClose={() => setTransferOpen(false)} onDone={() => setReloadKey((k) => k + 1)} />}
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
    </Flex>
  );
}

/** The row's actions: start a ticket (spec 001 "Contacts page"), edit, and delete when allowed. */
function ContactActions({ name, onTicket, onEdit, onDelete }: { name: string; onTicket: () => void; onEdit: () => void; onDelete?: () => void }) {
  const { t } = useTranslation();
  return (
    <TableCell className="actions-col">
      <button type="button" className="icon-btn" aria-label={`${t('contacts.startTicket')} ${name}`} title={t('contacts.startTicket')} onClick={onTicket}>
        {/* A chat bubble (WhatsApp-style), kept here since only this page uses it. */}
        <svg width={20} height={20} viewBox="0 0 24 24" aria-hidden="true" focusable="false" fill="currentColor">
          <path d="M20 2H4a2 2 0 0 0-2 2v18l4-4h14a2 2 0 0 0 2-2V4a2 2 0 0 0-2-2zM6 9h12v2H6V9zm8 5H6v-2h8v2zm4-6H6V6h12v2z" />
        </svg>
      </button>
      <button type="button" className="icon-btn" aria-label={`${t('common.edit')} ${name}`} onClick={onEdit}>
        <Icon name="edit" size={20} />
      </button>
      {onDelete && (
        <button type="button" className="icon-btn danger" aria-label={`${t('common.delete')} ${name}`} onClick={onDelete}>
          <Icon name="delete" size={20} />
        </button>
      )}
    </TableCell>
  );
}
