import { useEffect, useState } from 'react';
import { useNavigate, useParams } from 'react-router-dom';
import { useTranslation } from 'react-i18next';
import { Button } from '@aws-amplify/ui-react';
import type { ApiChat } from '@balcao/shared';
import { useAuth } from '../../auth/AuthContext';
import { usePlanGate } from '../../auth/usePlanGate';
import { chatsApi, unreadOf } from '../../api/chats';
import { toastError } from '../../api/errors';
import { Avatar } from '../../ui/Avatar';
import { ConfirmDialog } from '../../ui/ConfirmDialog';
import { useDates } from '../../ui/dates';
import { useMediaQuery } from '../../ui/hooks';
import { Icon } from '../../ui/icons';
import { toast } from '../../ui/toast';
import { ChatDialog } from './ChatDialog';
import { Conversation } from './Conversation';
import { chatStore, useChats } from './store';
import './chats.css';

/** Below this width the list and the conversation are two tabs (spec 002 §2). */
const NARROW = '(max-width: 767px)';

/**
 * The internal chat (spec 002 §2; issue 21 §2): the user's chats beside the open one, `/chats/{uuid}`.
 * Edit and delete are the owner's. The list is the shared store the top bar's popover reads.
 */
export default function Chats() {
  const { t } = useTranslation();
  const { user } = useAuth();
  const allowed = usePlanGate('useInternalChat');
  const dates = useDates();
  const navigate = useNavigate();
  const { chatUuid } = useParams();
  const { chats, loaded } = useChats();
  const narrow = useMediaQuery(NARROW);
  const [tab, setTab] = useState<'chats' | 'messages'>(chatUuid ? 'messages' : 'chats');
  const [editing, setEditing] = useState<ApiChat | 'new' | null>(null);
  const [deleting, setDeleting] = useState<ApiChat | null>(null);

  useEffect(() => setTab(chatUuid ? 'messages' : 'chats'), [chatUuid]);

  if (!allowed || !user) return null;
  const current = chats.find((c) => c.uuid === chatUuid) ?? null;
  const showList = !narrow || tab === 'chats';
  const showConversation = !narrow || tab === 'messages';

  const remove = async (chat: ApiChat) => {
    try {
      await chatsApi.remove(chat.id);
      chatStore.remove(chat.id);
      toast.success(t('chats.deleted'));
      if (chat.uuid === chatUuid) navigate('/chats');
    } catch (err) {
      toastError(err);
    }
  };

  return (
    <div className="chats-page" data-testid="chats-page">
      {narrow && (
        <div className="chats-tabs" role="tablist">
          <button type="button" role="tab" aria-selected={tab === 'chats'} className={tab === 'chats' ? 'active' : ''} onClick={() => setTab('chats')}>
            {t('chats.tabChats')}
          </button>
          <button type="button" role="tab" aria-selected={tab === 'messages'} className={tab === 'messages' ? 'active' : ''} onClick={() => setTab('messages')}>
            {t('chats.tabMessages')}
          </button>
        </div>
      )}
      <div className="chats-body">
        {showList && (
          <aside className="chats-list" aria-label={t('chats.tabChats')}>
            <div className="chats-list-head">
              <h2>{t('chats.title')}</h2>
              <Button size="small" variation="primary" onClick={() => setEditing('new')} data-testid="chat-new">
                {t('chats.new')}
              </Button>
            </div>
            {loaded && chats.length === 0 && <div className="chat-empty">{t('chats.noChats')}</div>}
            <ul>
              {chats.map((c) => {
                const count = unreadOf(c, user.id);
                const owner = c.ownerId === user.id;
                return (
                  <li key={c.id} className={c.uuid === chatUuid ? 'active' : ''}>
                    <button type="button" className="chats-item" data-testid={`chat-item-${c.id}`} onClick={() => navigate(`/chats/${c.uuid}`)}>
                      <Avatar name={c.title} />
                      <span className="chats-item-text">
                        <span className="chats-line">
                          <strong>{c.title}</strong>
                          <span className="chats-time">{dates.timeOrDay(c.updatedAt)}</span>
                        </span>
                        <span className="chats-line">
                          <span className="chats-last">{c.lastMessage || (c.isGroup ? t('chats.members', { count: c.users.length }) : '')}</span>
                          {count > 0 && (
                            <span className="chats-unread" data-testid={`chat-unread-${c.id}`}>
                              {count}
                            </span>
                          )}
                        </span>
                      </span>
                    </button>
                    {owner && (
                      <span className="chats-actions">
                        <button type="button" className="icon-btn" aria-label={t('chats.edit')} data-testid={`chat-edit-${c.id}`} onClick={() => setEditing(c)}>
                          <Icon name="edit" size={18} />
                        </button>
                        <button type="button" className="icon-btn" aria-label={t('chats.delete')} data-testid={`chat-delete-${c.id}`} onClick={() => setDeleting(c)}>
                          <Icon name="delete" size={18} />
                        </button>
                      </span>
                    )}
                  </li>
                );
              })}
            </ul>
          </aside>
        )}
        {showConversation && (
          <section className="chats-main" aria-label={t('chats.tabMessages')}>
            {current ? (
              <>
                <header className="chats-main-head">
                  {narrow && (
                    <button type="button" className="icon-btn" aria-label={t('chats.back')} onClick={() => setTab('chats')}>
                      <Icon name="chevronLeft" />
                    </button>
                  )}
                  <strong data-testid="chat-title">{current.title}</strong>
                  <span className="chats-members">{current.users.map((u) => u.user.name).join(', ')}</span>
                </header>
                <Conversation key={current.id} chat={current} meId={user.id} />
              </>
            ) : (
              <div className="chat-empty chat-pick">{t('chats.pick')}</div>
            )}
          </section>
        )}
      </div>
      {editing && (
        <ChatDialog
          chat={editing === 'new' ? null : editing}
          meId={user.id}
          onClose={() => setEditing(null)}
          onSaved={(c) => {
            chatStore.put(c);
            setEditing(null);
            navigate(`/chats/${c.uuid}`);
          }}
        />
      )}
      <ConfirmDialog open={!!deleting} title={t('chats.delete')} message={t('chats.deleteConfirm')} onConfirm={() => deleting && void remove(deleting)} onClose={() => setDeleting(null)} />
    </div>
  );
}
