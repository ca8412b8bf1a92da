import { lazy, Suspense, useEffect, useRef, useState } from 'react';
import { useLocation, useNavigate, useParams, useSearchParams } from 'react-router-dom';
import { useTranslation } from 'react-i18next';
import { DRAWER_TEMPORARY_BELOW_PX, type User } from '@balcao/shared';
import { ApiError } from '../../api/http';
import { errorText } from '../../api/errors';
import { useAuth } from '../../auth/AuthContext';
import { Loading } from '../../shell/Loading';
import { useMediaQuery } from '../../ui/hooks';
import { toast } from '../../ui/toast';
import { TicketIcon } from './icons';
import { numberVariants } from './lists';
import type { OpenTicketConflict } from './NewTicketDialog';
import { TicketsPanel } from './TicketsPanel';
import './tickets.css';
import { call } from '../../api/call';

const TicketView = lazy(() => import('./conversation/TicketView'));

interface ContactLite {
  id: number;
  number: string;
}

/**
 * The query-string flow (spec 001 §2, §5): finds the contact by number (55 added when missing; a
 * 13-digit number also without its ninth digit) or creates it, opens a ticket for it and answers
 * its uuid; `contactFailed` when the contact could not be found or created (the spec's own text).
 */
async function openFromQuery(user: User, q: { number: string; name?: string; email?: string }): Promise<{ uuid?: string; contactFailed?: boolean; error?: unknown }> {
  const variants = numberVariants(q.number);
  if (!variants.length) return { contactFailed: true };
  let contact: ContactLite | undefined;
  try {
    for (const v of variants) {
      const r = await call('GET /contacts', { query: { searchParam: v } });
      contact = (r.contacts ?? []).find((c) => c.number === v);
      if (contact) break;
    }
    if (!contact) {
      const email = q.email?.trim();
      contact = await call('POST /contacts', { body: { name: q.name?.trim() || variants[0]!, number: variants[0]!, ...(email ? { email } : {}) } });
    }
  } catch {
    return { contactFailed: true };
  }
  try {
    const t = await call('POST /tickets', { body: { contactId: contact.id, userId: user.id, status: 'open', queueId: user.queues[0]?.id } });
    return { uuid: t.uuid };
  } catch (e) {
    // The contact already has a ticket: one's own or a waiting one opens; someone else's is reported.
    const c = e instanceof ApiError && e.code === 'ERR_OTHER_OPEN_TICKET' ? (e.body as OpenTicketConflict) : undefined;
    if (c?.ticketUuid && (!c.holder || c.holder.id === user.id)) return { uuid: c.ticketUuid };
    return { error: e };
  }
}

export default function Tickets() {
  const { t } = useTranslation();
  const { user } = useAuth();
  const { ticketId } = useParams();
  const location = useLocation();
  const navigate = useNavigate();
  const [params] = useSearchParams();
  // Two panes need room for the 485 px list: under the shell's drawer breakpoint they become tabs.
  const narrow = useMediaQuery(`(max-width: ${DRAWER_TEMPORARY_BELOW_PX - 1}px)`);
  const [mobileTab, setMobileTab] = useState<'ticket' | 'list'>(ticketId ? 'ticket' : 'list');

  // Opening a ticket (also the same one again) shows it on phones.
  useEffect(() => {
    setMobileTab(ticketId ? 'ticket' : 'list');
  }, [ticketId, location.key]);

  const number = params.get('number');
  const started = useRef<string | null>(null);
  useEffect(() => {
    if (!user || !number || started.current === location.search) return;
    started.current = location.search;
    void openFromQuery(user, { number, name: params.get('name') ?? undefined, email: params.get('email') ?? undefined }).then((r) => {
      if (r.uuid) return navigate(`/tickets/${r.uuid}`, { replace: true });
      if (r.contactFailed) toast.error(t('tickets.queryContactFailed'), 3000);
      else toast.error(errorText(r.error), 3000);
      navigate('/tickets', { replace: true });
    });
  }, [user, number, params, location.search, navigate, t]);

  if (!user) return null;
  if (number) return <Loading />;

  return (
    <div className={`tickets-page${narrow ? ' narrow' : ''}`} data-testid="tickets-page">
      {narrow && (
        <div className="tickets-mobile-tabs" role="tablist">
          <button type="button" role="tab" aria-selected={mobileTab === 'ticket'} className={mobileTab === 'ticket' ? 'active' : ''} onClick={() => setMobileTab('ticket')}>
            {t('tickets.mobile.ticket')}
          </button>
          <button type="button" role="tab" aria-selected={mobileTab === 'list'} className={mobileTab === 'list' ? 'active' : ''} onClick={() => setMobileTab('list')}>
            {t('tickets.mobile.list')}
          </button>
        </div>
      )}
      <div className="tickets-layout">
        <div className="tickets-left" hidden={narrow && mobileTab !== 'list'}>
          <TicketsPanel user={user} selectedKey={ticketId} narrow={narrow} />
        </div>
        <div className="tickets-right" hidden={narrow && mobileTab !== 'ticket'}>
          {ticketId ? (
            <Suspense fallback={<Loading />}>
              <TicketView key={ticketId} ticketKey={ticketId} />
            </Suspense>
          ) : (
            <div className="tickets-welcome" data-testid="tickets-welcome">
              <span className="tickets-welcome-icon">
                <TicketIcon name="chat" size={96} />
              </span>
              <strong>{t('app.name')}</strong>
              <span>{t('tickets.welcome')}</span>
            </div>
          )}
        </div>
      </div>
    </div>
  );
}
