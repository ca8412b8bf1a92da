import { lazy, Suspense, useCallback, useEffect, useRef, useState, type KeyboardEvent, type RefObject } from 'react';
import { useTranslation } from 'react-i18next';
import { Button, Loader } from '@aws-amplify/ui-react';
import { companyTimeZone, fillVariables, type User } from '@balcao/shared';
import { toastError } from '../../../api/errors';
import { toast } from '../../../ui/toast';
import type { ApiMessage, ApiTicket } from '../types';
import { ContactPicker } from './ContactPicker';
import { CIcon } from './icons';
import { extensionOf, recorderMime, uploadMedia, type OutgoingMedia } from './media';
import { MIN_AUDIO_BYTES, QUICK_REPLY_PREVIEW, SIGN_KEY, signed, signOptionOn } from './rules';
import { call } from '../../../api/call';

const EmojiPicker = lazy(() => import('../../../ui/EmojiPicker'));

export interface QuickReply {
  id: number;
  shortcode: string;
  message: string;
  mediaUrl?: string | null;
  mediaName?: string | null;
}

export interface ComposerHandle {
  insert: (text: string) => void;
  applyQuickReply: (q: QuickReply) => void;
}

export type ComposerMode = { kind: 'reply'; message: ApiMessage } | { kind: 'edit'; message: ApiMessage } | null;

interface Pending {
  id: number;
  file: File;
  caption: string;
}

const MAX_ROWS = 5;
const mmss = (s: number) => `${String(Math.floor(s / 60)).padStart(2, '0')}:${String(s % 60).padStart(2, '0')}`;

export function Composer({
  ticket,
  me,
  mode,
  setMode,
  quickReplies,
  onSent,
  handle,
  contactName,
}: {
  ticket: ApiTicket;
  me: User;
  mode: ComposerMode;
  setMode: (m: ComposerMode) => void;
  quickReplies: QuickReply[];
  onSent: (m: ApiMessage | undefined) => void;
  handle: RefObject<ComposerHandle | null>;
  contactName: string;
}) {
  const { t } = useTranslation();
  const disabled = ticket.status !== 'open';
  const [text, setText] = useState('');
  const [sending, setSending] = useState(false);
  const [sign, setSign] = useState(signOptionOn);
  const [emojiOpen, setEmojiOpen] = useState(false);
  const [pending, setPending] = useState<Pending[]>([]);
  const [contactOpen, setContactOpen] = useState(false);
  const [active, setActive] = useState(0);
  const [recording, setRecording] = useState<{ seconds: number } | null>(null);
  const input = useRef<HTMLTextAreaElement>(null);
  const fileInput = useRef<HTMLInputElement>(null);
  const recorder = useRef<{ rec: MediaRecorder; stream: MediaStream; chunks: Blob[]; timer: ReturnType<typeof setInterval>; discard: boolean } | null>(null);
  const seq = useRef(0);

  // Entering edit mode puts the message's text in the box; reply mode keeps what is typed.
  useEffect(() => {
    if (mode?.kind === 'edit') setText(mode.message.body);
    if (mode) input.current?.focus();
  }, [mode]);

  // Stop a recording left running when the ticket changes or the pane closes.
  useEffect(
    () => () => {
      const r = recorder.current;
      if (r) {
        r.discard = true;
        clearInterval(r.timer);
        if (r.rec.state !== 'inactive') r.rec.stop();
        r.stream.getTracks().forEach((tr) => tr.stop());
      }
    },
    [],
  );

  const insertAtCursor = useCallback((piece: string) => {
    const el = input.current;
    setText((cur) => {
      const start = el?.selectionStart ?? cur.length;
      const end = el?.selectionEnd ?? cur.length;
      const next = cur.slice(0, start) + piece + cur.slice(end);
      requestAnimationFrame(() => {
        if (!el) return;
        el.focus();
        el.selectionStart = el.selectionEnd = start + piece.length;
      });
      return next;
    });
  }, []);

  const post = async (body: Record<string, unknown>) => {
    // Several files answer with every message they made under `messages`.
    const r = await call('POST /messages/{ticketId}', { params: { ticketId: ticket.id }, body });
    (r.messages ?? [r]).forEach(onSent);
  };

  const sendMedias = async (items: { file: Blob; name: string; caption?: string; ptt?: boolean }[]) => {
    const medias: OutgoingMedia[] = [];
    for (const it of items) {
      try {
        const key = await uploadMedia(ticket.id, it.file, it.name);
        medias.push({ key, name: it.name, ...(it.caption ? { caption: it.caption } : {}), ...(it.ptt ? { ptt: true } : {}) });
      } catch (err) {
        // The API's refusal (type, size) speaks for itself; a failed PUT names the file.
        if (err instanceof Error && err.message.startsWith('upload')) toast.error(t('composer.uploadFailed', { name: it.name }));
        else toastError(err);
        throw err;
      }
    }
    await post({ medias, ...(mode?.kind === 'reply' ? { quotedMsg: { id: mode.message.id } } : {}) });
  };

  const sendText = async () => {
    if (sending || disabled) return;
    if (pending.length) return sendPending();
    const raw = text;
    // Spec 001 §5: blank text is ignored.
    if (!raw.trim()) return;
    setSending(true);
    try {
      if (mode?.kind === 'edit') {
        await post({ body: raw, editMsg: { id: mode.message.id } });
      } else {
        await post({ body: signed(raw, me.name, sign), ...(mode?.kind === 'reply' ? { quotedMsg: { id: mode.message.id } } : {}) });
      }
      setText('');
      setMode(null);
      setEmojiOpen(false);
    } catch (err) {
      toastError(err);
    } finally {
      setSending(false);
      input.current?.focus();
    }
  };

  const sendPending = async () => {
    setSending(true);
    try {
      await sendMedias(pending.map((p) => ({ file: p.file, name: p.file.name, caption: p.caption.trim() || undefined })));
      setPending([]);
      setMode(null);
    } catch {
      /* reported by sendMedias */
    } finally {
      setSending(false);
    }
  };

  const applyQuickReply = useCallback(
    async (q: QuickReply) => {
      if (q.mediaUrl) {
        // A quick reply with an attachment sends the file with the message as its caption.
        setSending(true);
        try {
          const blob = await (await fetch(q.mediaUrl)).blob();
          await sendMedias([{ file: blob, name: q.mediaName || 'arquivo', caption: q.message || undefined }]);
          setText('');
        } catch (err) {
          if (!(err instanceof Error && err.message.startsWith('upload'))) toastError(err);
        } finally {
          setSending(false);
        }
        return;
      }
      // The agent sees what the customer will get (the server fills again at send time, so a
      // variable left in the text is never sent as typed).
      setText(fillVariables(q.message, { name: contactName, queue: ticket.queue?.name, agent: me.name, timeZone: companyTimeZone(me) }));
      requestAnimationFrame(() => input.current?.focus());
    },
    [ticket.id, ticket.queue?.name, mode, contactName, me],
  );

  useEffect(() => {
    handle.current = { insert: insertAtCursor, applyQuickReply: (q) => void applyQuickReply(q) };
  }, [handle, insertAtCursor, applyQuickReply]);

  // Spec 001 §5: "/" and at least 2 characters open the shortcut suggestions.
  const query = text.startsWith('/') && !text.includes('\n') ? text.slice(1).toLowerCase() : '';
  const suggestions = query.length >= 2 ? quickReplies.filter((q) => q.shortcode.toLowerCase().includes(query)).slice(0, 8) : [];
  useEffect(() => setActive(0), [query]);

  const onKeyDown = (e: KeyboardEvent<HTMLTextAreaElement>) => {
    if (suggestions.length) {
      if (e.key === 'ArrowDown' || e.key === 'ArrowUp') {
        e.preventDefault();
        setActive((a) => (a + (e.key === 'ArrowDown' ? 1 : suggestions.length - 1)) % suggestions.length);
        return;
      }
      if (e.key === 'Enter' && !e.shiftKey) {
        e.preventDefault();
        void applyQuickReply(suggestions[active] ?? suggestions[0]!);
        return;
      }
    }
    if (e.key === 'Escape' && mode) {
      setMode(null);
      if (mode.kind === 'edit') setText('');
      return;
    }
    if (e.key === 'Enter' && !e.shiftKey && !e.nativeEvent.isComposing) {
      e.preventDefault();
      void sendText();
    }
  };

  const rows = Math.min(MAX_ROWS, Math.max(1, text.split('\n').length));

  const startRecording = async () => {
    const mime = recorderMime();
    if (!mime || !navigator.mediaDevices?.getUserMedia) {
      toast.error(t('composer.micDenied'));
      return;
    }
    let stream: MediaStream;
    try {
      stream = await navigator.mediaDevices.getUserMedia({ audio: true });
    } catch {
      toast.error(t('composer.micDenied'));
      return;
    }
    // Spec 001 §9: 128 kbit/s.
    const rec = new MediaRecorder(stream, { mimeType: mime, audioBitsPerSecond: 128_000 });
    const state = { rec, stream, chunks: [] as Blob[], timer: setInterval(() => setRecording((r) => (r ? { seconds: r.seconds + 1 } : r)), 1000), discard: false };
    rec.ondataavailable = (e) => e.data.size && state.chunks.push(e.data);
    recorder.current = state;
    rec.start(250);
    setRecording({ seconds: 0 });
  };

  const stopRecording = async (send: boolean) => {
    const r = recorder.current;
    if (!r) return;
    recorder.current = null;
    clearInterval(r.timer);
    const done = new Promise<void>((res) => (r.rec.onstop = () => res()));
    if (r.rec.state !== 'inactive') r.rec.stop();
    await done;
    r.stream.getTracks().forEach((tr) => tr.stop());
    setRecording(null);
    if (!send) return;
    const type = r.rec.mimeType || r.chunks[0]?.type || 'audio/webm';
    const blob = new Blob(r.chunks, { type: type.split(';')[0] });
    // Spec 001 §5: recordings under 10 000 bytes are discarded.
    if (blob.size < MIN_AUDIO_BYTES) {
      toast.info(t('composer.audioTooShort'));
      return;
    }
    setSending(true);
    try {
      await sendMedias([{ file: blob, name: `audio-${Date.now()}.${extensionOf(type)}`, ptt: true }]);
      setMode(null);
    } catch {
      /* reported by sendMedias */
    } finally {
      setSending(false);
    }
  };

  const placeholder = disabled ? t('composer.placeholderClosed') : t('composer.placeholder');
  const modeName = mode?.message.fromMe ? t('messages.you') : contactName;

  return (
    <div className={`composer${disabled ? ' disabled' : ''}`} data-testid="composer">
      {mode && (
        <div className="composer-mode" data-testid={`composer-${mode.kind}`}>
          <div className="composer-mode-text">
            <strong>{mode.kind === 'edit' ? t('composer.editing') : t('composer.replyingTo', { name: modeName })}</strong>
            <span>{mode.message.body}</span>
          </div>
          <button
            type="button"
            className="icon-btn small"
            aria-label={t('composer.cancel')}
            onClick={() => {
              if (mode.kind === 'edit') setText('');
              setMode(null);
            }}
          >
            <CIcon name="close" size={18} />
          </button>
        </div>
      )}
      {pending.length > 0 && (
        <div className="composer-files" data-testid="composer-files">
          <strong>{t('composer.attachments', { count: pending.length })}</strong>
          {pending.map((p) => (
            <div key={p.id} className="composer-file">
              {p.file.type.startsWith('image/') ? <FileThumb file={p.file} /> : <CIcon name="doc" size={32} />}
              <div className="composer-file-main">
                <span className="composer-file-name">{p.file.name}</span>
                <input
                  className="composer-caption"
                  placeholder={t('composer.caption')}
                  aria-label={`${t('composer.caption')}: ${p.file.name}`}
                  value={p.caption}
                  onChange={(e) => setPending((l) => l.map((x) => (x.id === p.id ? { ...x, caption: e.target.value } : x)))}
                />
              </div>
              <button type="button" className="icon-btn small" aria-label={`${t('composer.remove')}: ${p.file.name}`} onClick={() => setPending((l) => l.filter((x) => x.id !== p.id))}>
                <CIcon name="close" size={18} />
              </button>
            </div>
          ))}
          <div className="composer-files-actions">
            <Button size="small" onClick={() => setPending([])} isDisabled={sending}>
              {t('composer.cancel')}
            </Button>
            <Button size="small" variation="primary" onClick={() => void sendPending()} isLoading={sending}>
              {t('composer.send')}
            </Button>
          </div>
        </div>
      )}
      {suggestions.length > 0 && (
        <ul className="composer-suggestions" role="listbox" aria-label={t('ticket.quickReplies')}>
          {suggestions.map((q, i) => (
            <li key={q.id} role="option" aria-selected={i === active}>
              <button type="button" onMouseDown={(e) => e.preventDefault()} onClick={() => void applyQuickReply(q)}>
                <strong>/{q.shortcode}</strong>
                <span>{q.message.length > QUICK_REPLY_PREVIEW ? `${q.message.slice(0, QUICK_REPLY_PREVIEW)}…` : q.message}</span>
              </button>
            </li>
          ))}
        </ul>
      )}
      {emojiOpen && !disabled && (
        <div className="composer-emoji">
          <Suspense fallback={<Loader />}>
            <EmojiPicker onPick={insertAtCursor} />
          </Suspense>
        </div>
      )}
      <div className="composer-row">
        {recording ? (
          <div className="composer-recording" data-testid="recorder">
            <button type="button" className="icon-btn danger" aria-label={t('composer.cancelRecording')} onClick={() => void stopRecording(false)}>
              <CIcon name="close" />
            </button>
            <span className="rec-dot" aria-hidden="true" />
            <span className="rec-time" role="timer" aria-label={t('composer.recording')}>
              {mmss(recording.seconds)}
            </span>
            <button type="button" className="icon-btn send" aria-label={t('composer.sendRecording')} onClick={() => void stopRecording(true)}>
              <CIcon name="send" />
            </button>
          </div>
        ) : (
          <>
            <button type="button" className={`icon-btn${emojiOpen ? ' on' : ''}`} disabled={disabled} aria-label={t('composer.emoji')} aria-expanded={emojiOpen} onClick={() => setEmojiOpen((o) => !o)}>
              <CIcon name="mood" />
            </button>
            <button type="button" className="icon-btn" disabled={disabled || mode?.kind === 'edit'} aria-label={t('composer.attach')} onClick={() => fileInput.current?.click()}>
              <CIcon name="attach" />
            </button>
            <input
              ref={fileInput}
              type="file"
              multiple
              hidden
              data-testid="composer-file-input"
              onChange={(e) => {
                const files = Array.from(e.target.files ?? []);
                e.target.value = '';
                if (files.length) setPending((l) => [...l, ...files.map((file) => ({ id: ++seq.current, file, caption: '' }))]);
              }}
            />
            <button type="button" className="icon-btn" disabled={disabled || mode?.kind === 'edit'} aria-label={t('composer.sendContact')} onClick={() => setContactOpen(true)}>
              <CIcon name="contactCard" />
            </button>
            <button
              type="button"
              className={`icon-btn${sign ? ' on' : ''}`}
              disabled={disabled}
              aria-label={t('composer.sign')}
              aria-pressed={sign}
              title={t('composer.sign')}
              onClick={() => {
                setSign((s) => {
                  localStorage.setItem(SIGN_KEY, String(!s));
                  return !s;
                });
              }}
            >
              <CIcon name="signature" />
            </button>
            <textarea
              ref={input}
              className="composer-input"
              rows={rows}
              value={text}
              disabled={disabled}
              placeholder={placeholder}
              aria-label={t('composer.placeholder')}
              onChange={(e) => setText(e.target.value)}
              onKeyDown={onKeyDown}
            />
            {text.trim() || pending.length || mode?.kind === 'edit' ? (
              <button type="button" className="icon-btn send" disabled={disabled || sending} aria-label={t('composer.send')} onClick={() => void sendText()}>
                {sending ? <Loader size="small" /> : <CIcon name="send" />}
              </button>
            ) : (
              <button type="button" className="icon-btn" disabled={disabled || sending} aria-label={t('composer.record')} onClick={() => void startRecording()}>
                {sending ? <Loader size="small" /> : <CIcon name="mic" />}
              </button>
            )}
          </>
        )}
      </div>
      <ContactPicker
        open={contactOpen}
        title={t('composer.sendContact')}
        onClose={() => setContactOpen(false)}
        onPick={(c) => {
          setContactOpen(false);
          post({ contacts: [{ name: c.name, number: c.number }] }).catch(toastError);
        }}
      />
    </div>
  );
}

function FileThumb({ file }: { file: File }) {
  const [url, setUrl] = useState<string>();
  useEffect(() => {
    const u = URL.createObjectURL(file);
    setUrl(u);
    return () => URL.revokeObjectURL(u);
  }, [file]);
  return url ? <img className="composer-thumb" src={url} alt="" /> : null;
}
