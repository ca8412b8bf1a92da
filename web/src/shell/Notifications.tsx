import { useCallback, useEffect, useRef, useState } from 'react';
import { useLocation, useNavigate } from 'react-router-dom';
import { useTranslation } from 'react-i18next';
import { companyEvent, type TicketPage, type User } from '@balcao/shared';
import { realtime } from '../api/realtime';
import { useAuth } from '../auth/AuthContext';
import { Avatar } from '../ui/Avatar';
import { useDates } from '../ui/dates';
import { storedNumber } from '../ui/hooks';
import { TopBarPopover } from './TopBarPopover';
import { TicketIcon } from '../pages/tickets/icons';
import { preview } from '../pages/tickets/lists';
import type { ApiTicket } from '../pages/tickets/types';
import { unreadStore } from './unread';
import './Notifications.css';
import { call } from '../api/call';

type Item = Pick<ApiTicket, 'id' | 'uuid' | 'status' | 'userId' | 'queueId' | 'unreadMessages' | 'lastMessage' | 'updatedAt' | 'isGroup'> & {
  contact: { name: string; number: string; profilePicUrl?: string | null } | null;
};

/**
 * Spec 000 §6: notifications only for tickets not from me, that are mine or unassigned, and in my
 * queues (a ticket without a queue needs allTicket).
 */
export function notifies(user: Pick<User, 'id' | 'queues' | 'allTicket'>, t: Pick<Item, 'userId' | 'queueId' | 'status'>): boolean {
  if (t.status === 'closed') return false;
  if (t.userId !== null && t.userId !== user.id) return false;
  if (t.queueId === null) return user.allTicket === 'enabled';
  return user.queues.some((q) => q.id === t.queueId);
}

let audio: AudioContext | null = null;
/** A short two-tone chime at the volume of the top bar's slider (kept as `volume`, 0 to 1). */
function chime() {
  const volume = Math.min(1, Math.max(0, storedNumber('volume', 1)));
  if (volume <= 0) return false;
  try {
    audio ??= new AudioContext();
    void audio.resume();
    const now = audio.currentTime;
    const gain = audio.createGain();
    gain.gain.setValueAtTime(0.0001, now);
    gain.gain.exponentialRampToValueAtTime(0.35 * volume, now + 0.02);
    gain.gain.exponentialRampToValueAtTime(0.0001, now + 0.45);
    gain.connect(audio.destination);
    [880, 1320].forEach((f, i) => {
      const o = audio!.createOscillator();
      o.type = 'sine';
      o.frequency.setValueAtTime(f, now + i * 0.12);
      o.connect(gain);
      o.start(now + i * 0.12);
      o.stop(now + 0.45);
    });
    return true;
  } catch {
    return false;
  }
}

/** Pages of 40 unread tickets read when a session starts: far beyond any agent's real backlog. */
const UNREAD_PAGES = 25;

/** The top bar's bell: tickets with unread messages, a chime and a browser notification per new message, the title count. */
export function NotificationsBell() {
  const { t } = useTranslation();
  const { user } = useAuth();
  const dates = useDates();
  const navigate = useNavigate();
  const location = useLocation();
  const [items, setItems] = useState<Item[]>([]);
  const list = useRef<Item[]>([]);
  const [open, setOpen] = useState(false);
  const [chimes, setChimes] = useState(0);
  const [reloadKey, setReloadKey] = useState(0);
  // The ticket on screen (its id or uuid): its new messages are being read, not notified.
  const viewing = useRef<string | undefined>(undefined);
  viewing.current = location.pathname.match(/^\/tickets\/([^/]+)/)?.[1];
  const userRef = useRef(user);
  userRef.current = user;

  const commit = useCallback((next: Item[]) => {
    list.current = next;
    setItems(next);
    unreadStore.set(next.length);
  }, []);

  useEffect(() => {
    if (!user) return;
    let live = true;
    (async () => {
      // Every page of the unread list (bounded): the bell and the title count all of them.
      const all: ApiTicket[] = [];
      let cursor: string | null = null;
      for (let page = 0; page < UNREAD_PAGES; page++) {
        const r: TicketPage = await call('GET /tickets', { query: { withUnreadMessages: 'true', showAll: 'true', ...(cursor ? { cursor } : {}) } });
        if (!live) return;
        all.push(...r.tickets);
        cursor = r.hasMore ? r.nextCursor : null;
        if (!cursor) break;
      }
      commit(all.filter((x) => x.unreadMessages > 0 && notifies(user, x)));
    })().catch(() => {
      /* the bell stays empty; the lists show their own errors */
    });
    return () => {
      live = false;
    };
    // One load per session and per reconnect; profile edits do not change what was unread.
  }, [user?.id, reloadKey, commit]);

  useEffect(() => {
    if (!user) return;
    const isViewing = (x: { id: number; uuid: string }) => document.visibilityState === 'visible' && (viewing.current === String(x.id) || viewing.current === x.uuid);
    const remove = (id: number) => list.current.some((x) => x.id === id) && commit(list.current.filter((x) => x.id !== id));
    // A new message comes as its ticket's update carrying the message's summary (issue 23).
    const offTicket = realtime.on(companyEvent(user.companyId, 'ticket'), (data) => {
      const u = userRef.current;
      if (!u) return;
      if (data.action === 'delete') return remove(data.ticketId);
      const id = data.ticket.id;
      const tk = data.ticket as Item;
      const known = list.current.find((x) => x.id === id);
      const message = data.message;
      if (message && !message.fromMe && notifies(u, tk) && !isViewing(tk)) {
        const contact = tk.contact ?? known?.contact ?? null;
        commit([{ ...tk, contact, unreadMessages: Math.max(1, tk.unreadMessages ?? 1) }, ...list.current.filter((x) => x.id !== id)]);
        if (chime()) setChimes((n) => n + 1);
        if ('Notification' in window && Notification.permission === 'granted') {
          const n = new Notification(contact?.name ?? t('app.name'), { body: String(message.body ?? ''), tag: tk.uuid });
          n.onclick = () => {
            window.focus();
            navigate(`/tickets/${tk.uuid}`);
            n.close();
          };
        }
        return;
      }
      if (!known) return;
      if (!(tk.unreadMessages > 0) || !notifies(u, tk)) return remove(id);
      commit(list.current.map((x) => (x.id === id ? { ...x, ...tk, contact: tk.contact ?? x.contact } : x)));
    });
    const offR = realtime.onReconnect(() => setReloadKey((k) => k + 1));
    return () => {
      offTicket();
      offR();
    };
  }, [user, commit, navigate, t]);

  // Title count goes back to zero with the session.
  useEffect(() => () => unreadStore.set(0), []);

  if (!user) return null;
  // Asked on a click: browsers refuse permission prompts that no gesture started.
  const askPermission = () => {
    if ('Notification' in window && Notification.permission === 'default') void Notification.requestPermission().catch(() => {});
  };

  return (
    <TopBarPopover
      title={t('notifications.title')}
      icon={<TicketIcon name="bell" />}
      count={items.length}
      emptyText={items.length === 0 ? t('notifications.empty') : null}
      open={open}
      setOpen={setOpen}
      onOpen={askPermission}
      classes="notif"
      testIds={{ button: 'notifications-bell', count: 'notifications-count', panel: 'notifications-popover' }}
      buttonData={{ 'data-chimes': chimes }}
    >
      <ul>
        {items.map((x) => {
          const name = x.contact?.name || x.contact?.number || `#${x.id}`;
          return (
            <li key={x.id}>
              <button
                type="button"
                className="notif-item"
                data-testid={`notification-${x.id}`}
                onClick={() => {
                  setOpen(false);
                  navigate(`/tickets/${x.uuid}`);
                }}
              >
                <Avatar name={name} photoUrl={x.contact?.profilePicUrl} />
                <span className="notif-text">
                  <span className="notif-line">
                    <strong>{name}</strong>
                    {/* Like the ticket list: an unread ticket from another day shows its day. */}
                    <span className="notif-time">{dates.timeOrDay(x.updatedAt)}</span>
                  </span>
                  <span className="notif-line">
                    <span className="notif-last">{preview(x.lastMessage ?? '')}</span>
                    <span className="notif-unread">{x.unreadMessages}</span>
                  </span>
                </span>
              </button>
            </li>
          );
        })}
      </ul>
    </TopBarPopover>
  );
}
