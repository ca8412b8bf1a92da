import { useCallback, useEffect, useLayoutEffect, useRef, useState, type ClipboardEvent, type KeyboardEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { CHAT_INPUT_MAX_ROWS, CHAT_LOAD_OLDER_WITHIN_PX, CHAT_MESSAGE_MAX, type ApiChat, type ApiChatMessage } from '@balcao/shared';
import { chatsApi } from '../../api/chats';
import { toastError } from '../../api/errors';
import { realtime } from '../../api/realtime';
import { useDates } from '../../ui/dates';
import { Icon, PathIcon } from '../../ui/icons';
import { chatStore } from './store';

const SEND_ICON = 'M2.01 21 23 12 2.01 3 2 10l15 2-15 2z';

/** Reading near the bottom: a new message keeps the view on the newest one. */
const NEAR_BOTTOM_PX = 120;

function Media({ m }: { m: ApiChatMessage }) {
  if (!m.mediaUrl) return null;
  if (m.mediaType === 'image') return <img className="chat-media" src={m.mediaUrl} alt={m.mediaName ?? ''} />;
  if (m.mediaType === 'audio') return <audio className="chat-media" src={m.mediaUrl} controls />;
  if (m.mediaType === 'video') return <video className="chat-media" src={m.mediaUrl} controls />;
  return (
    <a className="chat-file" href={m.mediaUrl} target="_blank" rel="noreferrer noopener" download={m.mediaName ?? undefined}>
      <Icon name="attach" size={18} />
      {m.mediaName}
    </a>
  );
}

/**
 * One chat's messages and its input (spec 002 §2, §9): older pages load when the reader scrolls
 * within 600 px of the top; the input grows up to 5 rows, Enter sends and Shift+Enter breaks the
 * line; files come from the picker or a paste. Everything shown is text, never markup.
 */
export function Conversation({ chat, meId }: { chat: ApiChat; meId: number }) {
  const { t } = useTranslation();
  const dates = useDates();
  const [messages, setMessages] = useState<ApiChatMessage[]>([]);
  const [page, setPage] = useState(1);
  const [hasMore, setHasMore] = useState(false);
  const [loading, setLoading] = useState(false);
  const [text, setText] = useState('');
  const [files, setFiles] = useState<File[]>([]);
  const [sending, setSending] = useState(false);
  const list = useRef<HTMLDivElement>(null);
  const picker = useRef<HTMLInputElement>(null);
  // Where the view goes after the next render: the bottom, or kept in place above older messages.
  const anchor = useRef<{ kind: 'bottom' } | { kind: 'keep'; height: number; top: number } | null>(null);
  const chatId = chat.id;

  const markRead = useCallback(() => {
    // Spec 002 §8: a failed read mark is ignored.
    void chatsApi.read(chatId, meId).catch(() => undefined);
  }, [chatId, meId]);

  const loadFirst = useCallback(async () => {
    setLoading(true);
    try {
      const r = await chatsApi.messages(chatId, 1);
      anchor.current = { kind: 'bottom' };
      setMessages(r.records);
      setPage(1);
      setHasMore(r.hasMore);
    } catch {
      // Spec 002 §8: message load failures are ignored (the list stays as it was).
    } finally {
      setLoading(false);
    }
  }, [chatId]);

  useEffect(() => {
    setMessages([]);
    setText('');
    setFiles([]);
    chatStore.setViewing(chatId);
    void loadFirst();
    markRead();
    const offMessage = chatStore.onMessage((m) => {
      if (m.chatId !== chatId) return;
      const el = list.current;
      if (!el || el.scrollHeight - el.scrollTop - el.clientHeight < NEAR_BOTTOM_PX || m.senderId === meId) anchor.current = { kind: 'bottom' };
      setMessages((ms) => (ms.some((x) => x.id === m.id) ? ms : [...ms, m].sort((a, b) => a.id - b.id)));
      if (m.senderId !== meId && document.visibilityState === 'visible') markRead();
    });
    const offReconnect = realtime.onReconnect(() => void loadFirst());
    return () => {
      chatStore.setViewing(null);
      offMessage();
      offReconnect();
    };
  }, [chatId, meId, loadFirst, markRead]);

  useLayoutEffect(() => {
    const el = list.current;
    const a = anchor.current;
    if (!el || !a) return;
    if (a.kind === 'bottom') el.scrollTop = el.scrollHeight;
    else el.scrollTop = a.top + (el.scrollHeight - a.height);
    anchor.current = null;
  }, [messages]);

  const loadOlder = useCallback(async () => {
    if (loading || !hasMore) return;
    const el = list.current;
    setLoading(true);
    try {
      const r = await chatsApi.messages(chatId, page + 1);
      if (el) anchor.current = { kind: 'keep', height: el.scrollHeight, top: el.scrollTop };
      setMessages((ms) => [...r.records.filter((m) => !ms.some((x) => x.id === m.id)), ...ms]);
      setPage((p) => p + 1);
      setHasMore(r.hasMore);
    } catch {
      /* ignored, as the first page's */
    } finally {
      setLoading(false);
    }
  }, [loading, hasMore, chatId, page]);

  const onScroll = () => {
    const el = list.current;
    if (el && el.scrollTop < CHAT_LOAD_OLDER_WITHIN_PX) void loadOlder();
  };

  // A short first page leaves nothing to scroll: keep loading while the top is within reach.
  useEffect(() => {
    const el = list.current;
    if (el && hasMore && !loading && el.scrollTop < CHAT_LOAD_OLDER_WITHIN_PX && el.scrollHeight <= el.clientHeight + CHAT_LOAD_OLDER_WITHIN_PX) void loadOlder();
  }, [messages, hasMore, loading, loadOlder]);

  const send = async () => {
    const body = text.trim();
    if ((!body && files.length === 0) || sending) return;
    setSending(true);
    try {
      const medias = [];
      for (const f of files) medias.push(await chatsApi.upload(chatId, f, f.name || 'arquivo'));
      const sent = await chatsApi.send(chatId, body, medias);
      anchor.current = { kind: 'bottom' };
      const all = sent.messages ?? [sent];
      setMessages((ms) => [...ms, ...all.filter((m) => !ms.some((x) => x.id === m.id))].sort((a, b) => a.id - b.id));
      setText('');
      setFiles([]);
    } catch (err) {
      toastError(err);
    } finally {
      setSending(false);
    }
  };

  const onKeyDown = (e: KeyboardEvent<HTMLTextAreaElement>) => {
    if (e.key === 'Enter' && !e.shiftKey && !e.nativeEvent.isComposing) {
      e.preventDefault();
      void send();
    }
  };

  const onPaste = (e: ClipboardEvent<HTMLTextAreaElement>) => {
    const pasted = [...e.clipboardData.files];
    if (pasted.length === 0) return;
    e.preventDefault();
    setFiles((fs) => [...fs, ...pasted]);
  };

  const rows = Math.min(CHAT_INPUT_MAX_ROWS, Math.max(1, text.split('\n').length));

  return (
    <div className="chat-conversation" data-testid="chat-conversation">
      <div className="chat-messages" ref={list} onScroll={onScroll} data-testid="chat-messages">
        {loading && hasMore && <div className="chat-older">{t('chats.loadingOlder')}</div>}
        {!loading && messages.length === 0 && <div className="chat-empty">{t('chats.noMessages')}</div>}
        {messages.map((m) => {
          const mine = m.senderId === meId;
          return (
            <div key={m.id} className={`chat-bubble${mine ? ' mine' : ''}`} data-testid={`chat-message-${m.id}`}>
              {!mine && <div className="chat-sender">{m.sender.name}</div>}
              <Media m={m} />
              {m.message && <div className="chat-text">{m.message}</div>}
              <div className="chat-time">{dates.timeOrDay(m.createdAt)}</div>
            </div>
          );
        })}
      </div>
      {files.length > 0 && (
        <div className="chat-files" data-testid="chat-pending-files">
          {files.map((f, i) => (
            <span key={`${f.name}-${i}`} className="chat-file-chip">
              {f.name || 'arquivo'}
              <button type="button" aria-label={t('chats.removeFile', { name: f.name })} onClick={() => setFiles((fs) => fs.filter((_, j) => j !== i))}>
                ×
              </button>
            </span>
          ))}
        </div>
      )}
      <div className="chat-input">
        <button type="button" className="icon-btn" aria-label={t('chats.attach')} onClick={() => picker.current?.click()} disabled={sending}>
          <Icon name="attach" />
        </button>
        <input
          ref={picker}
          type="file"
          multiple
          hidden
          data-testid="chat-file-input"
          onChange={(e) => {
            const picked = [...(e.target.files ?? [])];
            setFiles((fs) => [...fs, ...picked]);
            e.target.value = '';
          }}
        />
        <textarea
          className="chat-textarea"
          rows={rows}
          value={text}
          maxLength={CHAT_MESSAGE_MAX}
          placeholder={t('chats.placeholder')}
          aria-label={t('chats.placeholder')}
          data-testid="chat-input"
          onChange={(e) => setText(e.target.value)}
          onKeyDown={onKeyDown}
          onPaste={onPaste}
        />
        <button type="button" className="icon-btn" aria-label={t('chats.send')} data-testid="chat-send" onClick={() => void send()} disabled={sending || (!text.trim() && files.length === 0)}>
          <PathIcon d={SEND_ICON} />
        </button>
      </div>
    </div>
  );
}
