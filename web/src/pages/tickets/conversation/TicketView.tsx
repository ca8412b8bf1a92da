import { lazy, Suspense, useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { useNavigate } from 'react-router-dom';
import { useTranslation } from 'react-i18next';
import { api, ApiError } from '../../../api/http';
import { toastError } from '../../../api/errors';
import { useAuth } from '../../../auth/AuthContext';
import { Loading } from '../../../shell/Loading';
import { ConfirmDialog } from '../../../ui/ConfirmDialog';
import { Modal } from '../../../ui/Modal';
import { toast } from '../../../ui/toast';
import type { ApiMessage, ApiTicket } from '../types';
import { ActionBar, type TicketActions } from './ActionBar';
import { Composer, type ComposerHandle, type ComposerMode, type QuickReply } from './Composer';
import { ContactDrawer } from './ContactDrawer';
import { ContactPicker } from './ContactPicker';
import { fetchTicket, useMessages, useTicket } from './data';
import { Header } from './Header';
import type { BubbleActions } from './MessageBubble';
import { MessageList, type MessageListHandle } from './MessageList';
import { QuickRepliesDrawer } from './QuickRepliesDrawer';
import { SearchDrawer } from './SearchDrawer';
import { TagsBar } from './TagsBar';
import { TransferDialog } from './TransferDialog';

const ScheduleDialog = lazy(() => import('../../schedules/ScheduleDialog'));
import { canClose, canStillSee } from './rules';
import './conversation.css';
import { call } from '../../../api/call';

// Contract between the tickets page (list panel) and the conversation pane: the props stay as they are.
export interface TicketViewProps {
  /** The route parameter: a ticket id or a ticket uuid. */
  ticketKey: string;
}

type DrawerKind = 'contact' | 'quick' | 'search' | null;

/** The company's quick replies; none when the route does not answer yet. */
function useQuickReplies() {
  const [list, setList] = useState<QuickReply[]>([]);
  useEffect(() => {
    let live = true;
    api
      .get<QuickReply[]>('/quick-messages/list')
      .then((r) => live && setList(Array.isArray(r) ? r : []))
      .catch((err) => {
        if (!(err instanceof ApiError && err.status === 404)) toastError(err);
      });
    return () => {
      live = false;
    };
  }, []);
  return list;
}

/** The holder's name of a 409 "already assigned" answer (the error's details sit in the body). */
function holderOf(err: unknown): string | undefined {
  if (!(err instanceof ApiError) || err.status !== 409) return undefined;
  const body = err.body as { holder?: { name?: string } | null; message?: string };
  return body.holder?.name ?? body.message?.match(/usuário (.+)$/)?.[1];
}

export default function TicketView({ ticketKey }: TicketViewProps) {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const { user: me } = useAuth();
  const companyId = me?.companyId ?? 0;
  const { ticket, setTicket, missing, reload } = useTicket(ticketKey, companyId);
  const conv = useMessages(ticket?.id, companyId);
  const quickReplies = useQuickReplies();
  const [drawer, setDrawer] = useState<DrawerKind>(null);
  const [mode, setMode] = useState<ComposerMode>(null);
  const [busy, setBusy] = useState(false);
  const [transferOpen, setTransferOpen] = useState(false);
  const [scheduleOpen, setScheduleOpen] = useState(false);
  const [confirmDelete, setConfirmDelete] = useState(false);
  const [deletingMsg, setDeletingMsg] = useState<ApiMessage | null>(null);
  const [forwarding, setForwarding] = useState<ApiMessage | null>(null);
  const [image, setImage] = useState<string | null>(null);
  const listHandle = useRef<MessageListHandle | null>(null);
  // A search result older than the loaded pages: load older pages until it is there, then show it.
  const [seek, setSeek] = useState<string | null>(null);
  useEffect(() => {
    if (!seek) return;
    if (listHandle.current?.goTo(seek)) setSeek(null);
    else if (!conv.hasMore) setSeek(null);
    else if (!conv.loading) conv.loadOlder();
  }, [seek, conv.messages, conv.hasMore, conv.loading, conv.loadOlder]);
  const composer = useRef<ComposerHandle | null>(null);
  const marking = useRef(false);

  // Another ticket: nothing of the previous one's modes or dialogs survives.
  useEffect(() => {
    setMode(null);
    setDrawer(null);
    setTransferOpen(false);
  }, [ticketKey]);

  // Opening the ticket (and new messages while it is open) marks it read, with read receipts.
  const unread = ticket?.unreadMessages ?? 0;
  useEffect(() => {
    if (!ticket || unread <= 0 || marking.current) return;
    marking.current = true;
    api
      .put<ApiTicket>(`/tickets/${ticket.id}`, { unreadMessages: 0 })
      .then((saved) => setTicket((prev) => (prev && prev.id === saved.id ? { ...prev, unreadMessages: 0 } : prev)))
      .catch(() => undefined)
      .finally(() => (marking.current = false));
  }, [ticket?.id, unread]); // the whole ticket is not a dependency: only a new unread count is

  // F4 opens the quick replies (spec 001 §2).
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (e.key === 'F4') {
        e.preventDefault();
        setDrawer((d) => (d === 'quick' ? null : 'quick'));
      }
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, []);

  const update = useCallback(
    async (body: Record<string, unknown>) => {
      if (!ticket) return undefined;
      setBusy(true);
      try {
        const saved = await call('PUT /tickets/{id}', { params: { id: ticket.id }, body });
        setTicket(saved);
        return saved;
      } catch (err) {
        const holder = holderOf(err);
        if (holder) {
          // Spec 001 §8: a warning; the screen was stale, so show the ticket as it now is.
          toast.warning(t('ticket.alreadyAssigned', { name: holder }));
          void reload();
        } else toastError(err);
        return undefined;
      } finally {
        setBusy(false);
      }
    },
    [ticket, setTicket, t, reload],
  );

  const ticketActions = useMemo<TicketActions | null>(() => {
    if (!ticket || !me) return null;
    return {
      accept: async () => {
        // Spec 001 §4: read it again first; someone else may have taken it meanwhile.
        setBusy(true);
        const fresh = await fetchTicket(String(ticket.id)).catch(() => undefined);
        setBusy(false);
        if (fresh && fresh.userId && fresh.userId !== me.id && fresh.status === 'open') {
          setTicket(fresh);
          toast.warning(t('ticket.alreadyAssigned', { name: fresh.user?.name ?? '' }));
          return;
        }
        await update({ status: 'open', userId: me.id });
      },
      giveBack: () => void update({ status: 'pending', userId: null }),
      close: async (justFinish) => {
        if (!canClose(ticket, me.id, me.profile)) {
          toast.error(t('ticket.closeNotYours'));
          return;
        }
        const saved = await update({ status: 'closed', ...(justFinish ? { isJustFinish: true } : {}) });
        if (saved) navigate('/tickets');
      },
      transfer: () => setTransferOpen(true),
      remove: () => setConfirmDelete(true),
      reopen: () => void update({ status: 'open', userId: me.id }),
      openSearch: () => setDrawer((d) => (d === 'search' ? null : 'search')),
      openQuickReplies: () => setDrawer((d) => (d === 'quick' ? null : 'quick')),
      schedule: me?.company?.plan?.useSchedules ? () => setScheduleOpen(true) : undefined,
    };
  }, [ticket, me, update, setTicket, t, navigate]);

  const isOpen = ticket?.status === 'open';
  const { upsert } = conv;
  const bubbleActions = useMemo<BubbleActions>(
    () => ({
      reply: isOpen ? (m) => setMode({ kind: 'reply', message: m }) : undefined,
      edit: isOpen ? (m) => setMode({ kind: 'edit', message: m }) : undefined,
      remove: isOpen ? (m) => setDeletingMsg(m) : undefined,
      react: isOpen
        ? (m, emoji) =>
            void api
              .post<ApiMessage | undefined>(`/messages/${m.id}/reactions`, { emoji })
              .then((r) => r?.id && upsert(r))
              .catch(toastError)
        : undefined,
      forward: (m) => setForwarding(m),
      retry: (m) =>
        void api
          .post<ApiMessage>(`/messages/retry/${m.id}`)
          .then(upsert)
          .catch(toastError),
      goToQuoted: (id) => void listHandle.current?.goTo(id),
      openImage: setImage,
    }),
    [isOpen, upsert],
  );

  if (!me) return null;
  // Deleted, or taken out of this user's sight (another agent accepted it): nothing to act on.
  if (missing || (ticket && !canStillSee(ticket, me)))
    return (
      <div className="tv tv-missing" data-testid="ticket-view" data-ticket={ticketKey}>
        {t('ticket.notFound')}
      </div>
    );
  if (!ticket || !ticketActions) return <Loading />;

  const tagsBar = <TagsBar ticket={ticket} onChange={(patch) => setTicket((p) => (p ? { ...p, ...patch } : p))} />;

  return (
    <div className="tv" data-testid="ticket-view" data-ticket={ticketKey} data-ticket-id={ticket.id} data-status={ticket.status}>
      <section className="tv-main">
        <header className="tv-header">
          <Header ticket={ticket} onContact={() => setDrawer((d) => (d === 'contact' ? null : 'contact'))} />
          <ActionBar ticket={ticket} me={me} busy={busy} actions={ticketActions} />
        </header>
        {tagsBar}
        <MessageList
          messages={conv.messages}
          hasMore={conv.hasMore}
          loading={conv.loading}
          loaded={conv.loaded}
          loadOlder={conv.loadOlder}
          userId={me.id}
          actions={bubbleActions}
          handle={listHandle}
        />
        <Composer
          ticket={ticket}
          me={me}
          mode={mode}
          setMode={setMode}
          quickReplies={quickReplies}
          onSent={(m) => m?.id && upsert(m)}
          handle={composer}
          contactName={ticket.contact?.name ?? ''}
        />
      </section>
      {drawer === 'contact' && <ContactDrawer ticket={ticket} onClose={() => setDrawer(null)} tags={tagsBar} />}
      {drawer === 'quick' && (
        <QuickRepliesDrawer list={quickReplies} disabled={!isOpen} onClose={() => setDrawer(null)} onPick={(q) => composer.current?.applyQuickReply(q)} />
      )}
      {drawer === 'search' && (
        <SearchDrawer ticketId={ticket.id} onClose={() => setDrawer(null)} onPick={setSeek} />
      )}
      {scheduleOpen && ticket.contact && (
        <Suspense fallback={null}>
          <ScheduleDialog
            schedule={null}
            contact={{ id: ticket.contact.id, name: ticket.contact.name, number: ticket.contact.number }}
            ticket={{ id: ticket.id, whatsappId: ticket.whatsappId }}
            onClose={() => setScheduleOpen(false)}
            onSaved={() => setScheduleOpen(false)}
          />
        </Suspense>
      )}
      <TransferDialog
        ticket={ticket}
        open={transferOpen}
        onClose={() => setTransferOpen(false)}
        onDone={() => {
          setTransferOpen(false);
          toast.success(t('transfer.done'));
          navigate('/tickets');
        }}
      />
      <ConfirmDialog
        open={confirmDelete}
        title={t('ticket.deleteTitle', { name: ticket.contact?.name ?? '' })}
        message={t('ticket.deleteMessage')}
        onClose={() => setConfirmDelete(false)}
        onConfirm={() =>
          void api
            .del(`/tickets/${ticket.id}`)
            .then(() => {
              toast.success(t('ticket.deleted'));
              navigate('/tickets');
            })
            .catch(toastError)
        }
      />
      <ConfirmDialog
        open={!!deletingMsg}
        title={t('messages.deleteTitle')}
        message={t('messages.deleteConfirm')}
        onClose={() => setDeletingMsg(null)}
        onConfirm={() =>
          deletingMsg &&
          void api
            .del<ApiMessage | undefined>(`/messages/${deletingMsg.id}`)
            .then((r) => r?.id && upsert(r))
            .catch(toastError)
        }
      />
      <ContactPicker
        open={!!forwarding}
        title={t('messages.forwardTitle')}
        onClose={() => setForwarding(null)}
        onPick={(c) => {
          const m = forwarding;
          setForwarding(null);
          if (m)
            api
              .post<{ ticketUuid: string }>('/forward', { contactId: c.id, messageId: m.id })
              .then((r) => toast.success(t('messages.forwarded'), 8_000, { label: t('messages.openForwarded'), run: () => navigate(`/tickets/${r.ticketUuid}`) }))
              .catch(toastError);
        }}
      />
      <Modal open={!!image} title={t('messages.image')} onClose={() => setImage(null)} wide>
        {image && <img src={image} alt="" className="tv-lightbox" />}
      </Modal>
    </div>
  );
}
