import { lazy, Suspense, useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { useNavigate } from 'react-router-dom';
import { useTranslation } from 'react-i18next';
import { CheckboxField, TextField } from '@aws-amplify/ui-react';
import { companyEvent, isAdminProfile, SEARCH_DEBOUNCE_MS, type ApiAnswers, type User } from '@balcao/shared';
import { ApiError } from '../../api/http';
import { call } from '../../api/call';
import { usersApi } from '../../api/users';
import { queuesApi } from '../../api/queues';
import { toastError } from '../../api/errors';
import { realtime } from '../../api/realtime';
import { useDebounced } from '../../ui/hooks';
import { toast } from '../../ui/toast';
import { readQueueSelection, saveQueueSelection, seesAllQueues, type ListSpec, type MainTab, type OpenSubTab } from './lists';
import { MultiSelect, type Option } from '../../ui/MultiSelect';
import { TicketIcon } from './icons';
import { TicketList } from './TicketList';
import type { ApiTicket, TagRef, TicketStatus } from './types';

const NewTicketDialog = lazy(() => import('./NewTicketDialog'));

type Counts = ApiAnswers['GET /tickets/counts'];

export function TicketsPanel({ user, selectedKey, narrow }: { user: User; selectedKey?: string; narrow: boolean }) {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const admin = isAdminProfile(user.profile) || !!user.super;
  const [tab, setTab] = useState<MainTab>('open');
  const [sub, setSub] = useState<OpenSubTab>('me');
  const [search, setSearch] = useState('');
  const searchParam = useDebounced(search.trim(), SEARCH_DEBOUNCE_MS);
  const [unreadOnly, setUnreadOnly] = useState(false);
  const [showAll, setShowAll] = useState(false);
  const [statusFilter, setStatusFilter] = useState<Record<TicketStatus, boolean>>({ pending: true, open: true, closed: false });
  const [ticketTags, setTicketTags] = useState<number[]>([]);
  const [contactTags, setContactTags] = useState<number[]>([]);
  const [users, setUsers] = useState<number[]>([]);
  const [tagOptions, setTagOptions] = useState<{ ticket: Option[]; contact: Option[] }>({ ticket: [], contact: [] });
  const [userOptions, setUserOptions] = useState<Option[]>([]);
  const [queues, setQueues] = useState<Option[]>(() => (seesAllQueues(user) ? [] : user.queues));
  const [selectedQueues, setSelectedQueues] = useState<number[]>(() => readQueueSelection(user.id, user.queues.map((q) => q.id)));
  const [counts, setCounts] = useState<Counts | null>(null);
  const [accepting, setAccepting] = useState<number | null>(null);
  const [newTicket, setNewTicket] = useState(false);

  // Admins choose among every company queue; others among their own (spec 001 §6).
  useEffect(() => {
    if (!seesAllQueues(user)) {
      setQueues(user.queues);
      setSelectedQueues(readQueueSelection(user.id, user.queues.map((q) => q.id)));
      return;
    }
    let live = true;
    queuesApi
      .all()
      .then((list) => {
        if (!live) return;
        setQueues(list.map((q) => ({ id: q.id, name: q.name, color: q.color })));
        setSelectedQueues(readQueueSelection(user.id, list.map((q) => q.id)));
      })
      .catch(toastError);
    return () => {
      live = false;
    };
  }, [user]);

  // The search tab's filters load when it is first shown.
  const filtersLoaded = useRef(false);
  useEffect(() => {
    if (tab !== 'search' || filtersLoaded.current) return;
    filtersLoaded.current = true;
    const toOption = (x: TagRef) => ({ id: x.id, name: x.name, color: x.color });
    Promise.all([call('GET /tags/list', { query: { type: 'ticket' } }), call('GET /tags/list', { query: { type: 'contact' } })])
      .then(([tk, ct]) => setTagOptions({ ticket: tk.map(toOption), contact: ct.map(toOption) }))
      .catch(toastError);
    if (admin)
      usersApi
        .list()
        .then((list) => setUserOptions(list.map((u) => ({ id: u.id, name: u.name }))))
        .catch(toastError);
  }, [tab, admin]);

  const allQueues = queues.length > 0 && queues.every((q) => selectedQueues.includes(q.id));
  // Every queue selected sends no filter (also covers queues created after the page loaded).
  const queueIds = allQueues || queues.length === 0 ? null : selectedQueues;
  const chooseQueues = (ids: number[]) => {
    setSelectedQueues(ids);
    saveQueueSelection(
      user.id,
      ids,
      queues.map((q) => q.id),
    );
  };

  const spec: ListSpec = useMemo(() => {
    const common = { queueIds, unreadOnly };
    if (tab === 'search') {
      const statuses = (Object.keys(statusFilter) as TicketStatus[]).filter((s) => statusFilter[s]);
      return {
        ...common,
        statuses: statuses.length ? statuses : ['pending', 'open', 'closed'],
        showAll: true,
        searchParam,
        tags: ticketTags,
        tagsContact: contactTags,
        users: admin ? users : undefined,
        closedSet: !!searchParam || ticketTags.length > 0 || contactTags.length > 0,
      };
    }
    if (tab === 'closed') return { ...common, statuses: ['closed'], showAll: admin && showAll };
    if (sub === 'pending') return { ...common, statuses: ['pending'] };
    return { ...common, statuses: ['open'], assigned: sub, showAll: sub === 'others' };
  }, [tab, sub, queueIds, unreadOnly, statusFilter, searchParam, ticketTags, contactTags, users, admin, showAll]);

  // Count badges of the open tab's sub-tabs (GET /tickets/counts), refreshed as tickets change.
  const countsKey = JSON.stringify(queueIds);
  const [countsTick, setCountsTick] = useState(0);
  useEffect(() => {
    let live = true;
    call('GET /tickets/counts', { query: { queueIds: queueIds === null ? undefined : JSON.stringify(queueIds.length ? queueIds : [0]) } })
      .then((c) => live && setCounts(c))
      .catch(() => live && setCounts(null));
    return () => {
      live = false;
    };
    // queueIds is read through countsKey.
  }, [countsKey, countsTick]);
  useEffect(() => {
    // At most one reload per 500 ms however busy the company is (a debounce could starve).
    let timer: ReturnType<typeof setTimeout> | null = null;
    const bump = () => {
      timer ??= setTimeout(() => {
        timer = null;
        setCountsTick((n) => n + 1);
      }, SEARCH_DEBOUNCE_MS);
    };
    const off = realtime.on(companyEvent(user.companyId, 'ticket'), bump);
    const offR = realtime.onReconnect(bump);
    return () => {
      off();
      offR();
      if (timer) clearTimeout(timer);
    };
  }, [user.companyId]);

  const onOpen = useCallback((tk: ApiTicket) => navigate(`/tickets/${tk.uuid}`), [navigate]);

  const onAccept = useCallback(
    async (tk: ApiTicket) => {
      setAccepting(tk.id);
      try {
        await call('PUT /tickets/{id}', { params: { id: tk.id }, body: { status: 'open', userId: user.id } });
        setTab('open');
        setSub('me');
        navigate(`/tickets/${tk.uuid}`);
      } catch (e) {
        // Spec 001 §4: someone else took it first.
        const holder = e instanceof ApiError ? (e.body as { holder?: { name?: string } | null }).holder : undefined;
        if (e instanceof ApiError && e.code === 'ERR_OTHER_OPEN_TICKET' && holder?.name) {
          toast.warning(t('tickets.alreadyAssigned', { name: holder.name }), 3000);
          // The row is stale (its event is late): the lists get the ticket as it is now.
          const event = companyEvent(user.companyId, 'ticket');
          call('GET /tickets/{id}', { params: { id: tk.id } })
            .then((now) => realtime.deliver(event, { action: 'update', ticket: now }))
            .catch((err) => err instanceof ApiError && err.status === 404 && realtime.deliver(event, { action: 'delete', ticketId: tk.id }));
        } else toastError(e);
      } finally {
        setAccepting(null);
      }
    },
    [navigate, t, user.id, user.companyId],
  );

  const badge = (n: number | undefined, testId: string) =>
    n !== undefined && n > 0 ? (
      <span className="tab-badge" data-testid={testId}>
        {n > 99 ? '99+' : n}
      </span>
    ) : null;

  const listTestId = tab === 'open' ? `tickets-list-${sub}` : `tickets-list-${tab}`;

  return (
    <section className="tickets-panel" aria-label={t('tickets.listTitle')} data-testid="tickets-panel">
      <div className="tickets-tabs" role="tablist" aria-label={t('tickets.listTitle')}>
        {(['open', 'closed', 'search'] as const).map((k) => (
          <button key={k} type="button" role="tab" aria-selected={tab === k} className={`tickets-tab${tab === k ? ' active' : ''}`} onClick={() => setTab(k)}>
            <TicketIcon name={k === 'open' ? 'inbox' : k === 'closed' ? 'check' : 'search'} size={20} />
            <span>{t(`tickets.tabs.${k}`)}</span>
          </button>
        ))}
      </div>

      <div className="tickets-toolbar">
        {tab === 'search' ? (
          <TextField
            label={t('common.search')}
            labelHidden
            size="small"
            type="search"
            placeholder={t('tickets.searchPlaceholder')}
            value={search}
            onChange={(e) => setSearch(e.target.value)}
            className="tickets-search"
            autoFocus
          />
        ) : (
          <button type="button" className="tickets-new" onClick={() => setNewTicket(true)}>
            <TicketIcon name="add" size={20} />
            <span>{t('tickets.new')}</span>
          </button>
        )}
        <MultiSelect label={t('tickets.queues')} options={queues} value={selectedQueues} onChange={chooseQueues} allNone testId="queue-select" />
      </div>

      <div className="tickets-filters">
        <CheckboxField label={t('tickets.unreadOnly')} name="unreadOnly" size="small" checked={unreadOnly} onChange={(e) => setUnreadOnly(e.target.checked)} />
        {tab === 'closed' && admin && (
          <CheckboxField label={t('tickets.showAll')} name="showAll" size="small" checked={showAll} onChange={(e) => setShowAll(e.target.checked)} />
        )}
        {tab === 'search' &&
          (['pending', 'open', 'closed'] as const).map((s) => (
            <CheckboxField
              key={s}
              label={t(`tickets.status.${s}`)}
              name={`status-${s}`}
              size="small"
              checked={statusFilter[s]}
              onChange={(e) => setStatusFilter((f) => ({ ...f, [s]: e.target.checked }))}
            />
          ))}
      </div>
      {tab === 'search' && (
        <div className="tickets-filters">
          <MultiSelect label={t('tickets.ticketTags')} options={tagOptions.ticket} value={ticketTags} onChange={setTicketTags} testId="ticket-tags-select" />
          <MultiSelect label={t('tickets.contactTags')} options={tagOptions.contact} value={contactTags} onChange={setContactTags} testId="contact-tags-select" />
          {admin && <MultiSelect label={t('tickets.users')} options={userOptions} value={users} onChange={setUsers} testId="users-select" />}
        </div>
      )}

      {tab === 'open' && (
        <div className="tickets-subtabs" role="tablist" aria-label={t('tickets.tabs.open')}>
          {(['me', 'others', 'pending'] as const).map((k) => (
            <button key={k} type="button" role="tab" aria-selected={sub === k} className={`tickets-subtab${sub === k ? ' active' : ''}`} onClick={() => setSub(k)} data-testid={`subtab-${k}`}>
              <span>{t(`tickets.sub.${k}`)}</span>
              {badge(counts?.[k], `count-${k}`)}
            </button>
          ))}
        </div>
      )}

      <TicketList
        key={tab === 'open' ? `open-${sub}` : tab}
        spec={spec}
        viewer={user}
        companyId={user.companyId}
        selectedKey={selectedKey}
        narrow={narrow}
        accepting={accepting}
        onOpen={onOpen}
        onAccept={(tk) => void onAccept(tk)}
        testId={listTestId}
      />

      {newTicket && (
        <Suspense fallback={null}>
          <NewTicketDialog
            open
            user={user}
            queues={seesAllQueues(user) ? queues : user.queues}
            onClose={() => setNewTicket(false)}
            onCreated={(tk) => {
              setNewTicket(false);
              setTab('open');
              setSub(tk.status === 'pending' ? 'pending' : 'me');
              navigate(`/tickets/${tk.uuid}`);
            }}
          />
        </Suspense>
      )}
    </section>
  );
}
