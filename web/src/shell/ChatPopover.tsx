import { useEffect, useRef, useState } from 'react';
import { useNavigate } from 'react-router-dom';
import { useTranslation } from 'react-i18next';
import { useAuth } from '../auth/AuthContext';
import { unreadOf } from '../api/chats';
import { Avatar } from '../ui/Avatar';
import { useDates } from '../ui/dates';
import { useDismiss } from '../ui/hooks';
import { Icon } from '../ui/icons';
import { startChats, stopChats, useChats, useUnreadChats } from '../pages/chats/store';
import './Notifications.css';
import './ChatPopover.css';

/** Chats shown in the popover: the latest ones, those with unread messages first. */
const POPOVER_CHATS = 10;

/**
 * The top bar's internal-chat popover (spec 000 §2.3; issue 21 §2): the user's latest chats with
 * their unread counts; a click opens the chat. Titles and messages are text, never markup.
 */
export function ChatPopover() {
  const { t } = useTranslation();
  const { user } = useAuth();
  const dates = useDates();
  const navigate = useNavigate();
  const { chats } = useChats();
  const unread = useUnreadChats(user?.id);
  const [open, setOpen] = useState(false);
  const box = useRef<HTMLDivElement>(null);
  useDismiss(box, open, () => setOpen(false));

  useEffect(() => {
    if (!user) return;
    startChats(user);
    return () => stopChats();
  }, [user?.id, user?.companyId]);

  if (!user) return null;
  const shown = [...chats].sort((a, b) => Number(unreadOf(b, user.id) > 0) - Number(unreadOf(a, user.id) > 0)).slice(0, POPOVER_CHATS);

  return (
    <div className="notif" ref={box}>
      <button type="button" className="icon-btn" aria-label={t('chats.popoverTitle')} aria-expanded={open} data-testid="chat-popover-button" onClick={() => setOpen((o) => !o)}>
        <Icon name="chat" />
        {unread > 0 && (
          <span className="notif-count" data-testid="chat-popover-count">
            {unread > 99 ? '99+' : unread}
          </span>
        )}
      </button>
      {open && (
        <div className="notif-panel" role="dialog" aria-label={t('chats.popoverTitle')} data-testid="chat-popover">
          <div className="notif-head">{t('chats.popoverTitle')}</div>
          {shown.length === 0 && <div className="notif-empty">{t('chats.noChats')}</div>}
          <ul>
            {shown.map((c) => {
              const count = unreadOf(c, user.id);
              return (
                <li key={c.id}>
                  <button
                    type="button"
                    className="notif-item"
                    data-testid={`chat-popover-${c.id}`}
                    onClick={() => {
                      setOpen(false);
                      navigate(`/chats/${c.uuid}`);
                    }}
                  >
                    <Avatar name={c.title} />
                    <span className="notif-text">
                      <span className="notif-line">
                        <strong>{c.title}</strong>
                        <span className="notif-time">{dates.timeOrDay(c.updatedAt)}</span>
                      </span>
                      <span className="notif-line">
                        <span className="notif-last">{c.lastMessage}</span>
                        {count > 0 && <span className="notif-unread">{count}</span>}
                      </span>
                    </span>
                  </button>
                </li>
              );
            })}
          </ul>
          <button
            type="button"
            className="chat-popover-all"
            onClick={() => {
              setOpen(false);
              navigate('/chats');
            }}
          >
            {t('chats.openAll')}
          </button>
        </div>
      )}
    </div>
  );
}
