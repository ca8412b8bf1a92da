import { useEffect, useState } from 'react';
import { useNavigate } from 'react-router-dom';
import { useTranslation } from 'react-i18next';
import { useAuth } from '../auth/AuthContext';
import { unreadOf } from '../api/chats';
import { Avatar } from '../ui/Avatar';
import { useDates } from '../ui/dates';
import { Icon } from '../ui/icons';
import { startChats, stopChats, useChats, useUnreadChats } from '../pages/chats/store';
import { TopBarPopover } from './TopBarPopover';
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

  useEffect(() => {
    if (!user) return;
    startChats(user);
    return () => stopChats();
  }, [user?.id, user?.companyId]);

  if (!user) return null;
  const shown = [...chats].sort((a, b) => Number(unreadOf(b, user.id) > 0) - Number(unreadOf(a, user.id) > 0)).slice(0, POPOVER_CHATS);

  return (
    <TopBarPopover
      title={t('chats.popoverTitle')}
      icon={<Icon name="chat" />}
      count={unread}
      emptyText={shown.length === 0 ? t('chats.noChats') : null}
      open={open}
      setOpen={setOpen}
      classes="notif"
      testIds={{ button: 'chat-popover-button', count: 'chat-popover-count', panel: 'chat-popover' }}
    >
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
    </TopBarPopover>
  );
}
