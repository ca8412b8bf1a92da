import { memo } from 'react';
import { useTranslation } from 'react-i18next';
import { Menu, MenuItem } from '@aws-amplify/ui-react';
import type { ApiMessage } from '../types';
import { formatWhatsapp } from './format';
import { CIcon } from './icons';
import { parseVcard } from './vcard';
import { useDates } from '../../../ui/dates';
import { formatWhatsappNumber } from '../../../ui/phone';

export const QUICK_REACTIONS = ['👍', '❤️', '😂', '😮', '😢', '🙏'];

export interface BubbleActions {
  reply?: (m: ApiMessage) => void;
  edit?: (m: ApiMessage) => void;
  remove?: (m: ApiMessage) => void;
  react?: (m: ApiMessage, emoji: string) => void;
  forward?: (m: ApiMessage) => void;
  retry: (m: ApiMessage) => void;
  goToQuoted: (id: string) => void;
  openImage: (url: string) => void;
  startConversation?: (card: { name: string; number: string }) => void;
}

/** WhatsApp acks: 0/1 pending (clock), 2 sent (one tick), 3 delivered (two), 4 read and 5 played (two, coloured). */
function Ack({ m }: { m: ApiMessage }) {
  const { t } = useTranslation();
  if (m.ack >= 4)
    return (
      <span className="ack ack-read" data-ack={m.ack} title={t(m.ack >= 5 ? 'messages.ackPlayed' : 'messages.ackRead')}>
        <CIcon name="doneAll" size={16} />
      </span>
    );
  if (m.ack === 3)
    return (
      <span className="ack" data-ack={m.ack} title={t('messages.ackDelivered')}>
        <CIcon name="doneAll" size={16} />
      </span>
    );
  if (m.ack === 2)
    return (
      <span className="ack" data-ack={m.ack} title={t('messages.ackSent')}>
        <CIcon name="check" size={16} />
      </span>
    );
  return (
    <span className="ack" data-ack={m.ack} title={t('messages.ackPending')}>
      <CIcon name="clock" size={14} />
    </span>
  );
}

function Media({ m, actions }: { m: ApiMessage; actions: BubbleActions }) {
  const { t } = useTranslation();
  const url = m.mediaUrl;
  switch (m.mediaType) {
    case 'image':
      return url ? (
        <button type="button" className="msg-image" onClick={() => actions.openImage(url)} aria-label={t('messages.openImage')}>
          <img src={url} alt={m.fileName ?? t('messages.image')} loading="lazy" />
        </button>
      ) : null;
    case 'sticker':
      return url ? <img className="msg-sticker" src={url} alt="" loading="lazy" /> : null;
    case 'video':
      return url ? <video className="msg-video" src={url} controls preload="metadata" /> : null;
    case 'audio':
      return url ? <audio className="msg-audio" src={url} controls preload="metadata" data-ptt={m.ptt ? 'true' : undefined} /> : null;
    case 'document':
      return url ? (
        <a className="msg-doc" href={url} download={m.fileName ?? undefined} target="_blank" rel="noreferrer">
          <CIcon name="doc" size={28} />
          <span className="msg-doc-name">{m.fileName ?? t('messages.contactCard')}</span>
        </a>
      ) : null;
    default:
      return null;
  }
}

/** A file size as people read it (1 MB = 1024² bytes, as the upload limits count). */
function fileSize(bytes: number, locale: string): string {
  const [unit, value] = bytes >= 1024 ** 3 ? (['gigabyte', bytes / 1024 ** 3] as const) : bytes >= 1024 ** 2 ? (['megabyte', bytes / 1024 ** 2] as const) : (['kilobyte', Math.max(1, bytes / 1024)] as const);
  return new Intl.NumberFormat(locale, { style: 'unit', unit, maximumFractionDigits: value < 10 ? 1 : 0 }).format(value);
}

/** A customer's file the platform did not receive: what happened and what the agent can do. */
function MediaNote({ e }: { e: NonNullable<ApiMessage['mediaError']> }) {
  const { t, i18n } = useTranslation();
  const lang = i18n.language;
  const text =
    e.reason === 'unavailable'
      ? t('messages.mediaUnavailable')
      : e.size
        ? t('messages.mediaTooLarge', { size: fileSize(e.size, lang) })
        : e.limit
          ? t('messages.mediaTooLargeOver', { limit: fileSize(e.limit, lang) })
          : t('messages.mediaTooLargeAny');
  return (
    <div className="msg-media-note" role="note" data-testid="media-note" data-reason={e.reason}>
      <CIcon name={e.reason === 'tooLarge' ? 'doc' : 'error'} size={20} />
      <span>
        {e.fileName && <strong className="msg-media-note-name">{e.fileName}</strong>}
        {text}
      </span>
    </div>
  );
}

/** The location's map link, only when it is a web address (the body comes from the contact). */
const safeLink = (s: string) => {
  const found = s.match(/https?:\/\/\S+/)?.[0];
  if (!found) return null;
  try {
    const u = new URL(found);
    return u.protocol === 'https:' || u.protocol === 'http:' ? u.toString() : null;
  } catch {
    return null;
  }
};

function Body({ m, actions }: { m: ApiMessage; actions: BubbleActions }) {
  const { t } = useTranslation();
  if (m.mediaType === 'locationMessage') {
    const link = safeLink(m.body);
    return (
      <div className="msg-location">
        <CIcon name="place" />
        {link ? (
          <a href={link} target="_blank" rel="noreferrer">
            {t('messages.openLocation')}
          </a>
        ) : (
          <span>{m.body}</span>
        )}
      </div>
    );
  }
  if (m.mediaType === 'contactMessage') {
    const card = parseVcard(m.body);
    if (card)
      return (
        <div className="msg-card">
          <CIcon name="contactCard" size={28} />
          <div className="msg-card-text">
            <strong>{card.name || t('messages.contactCard')}</strong>
            <span>{formatWhatsappNumber(card.number)}</span>
          </div>
          {actions.startConversation && card.number && (
            <button type="button" className="link-btn" onClick={() => actions.startConversation!(card)}>
              {t('messages.startConversation')}
            </button>
          )}
        </div>
      );
  }
  if (m.mediaType === 'unsupported') {
    return (
      <div className="msg-text msg-unsupported">
        <CIcon name="error" size={14} /> {t('messages.unsupported', { type: m.body })}
      </div>
    );
  }
  if (m.mediaType === 'call_log') {
    return (
      <div className="msg-location">
        <CIcon name="call" />
        <span>{m.body || t('messages.call')}</span>
      </div>
    );
  }
  return m.body ? <div className="msg-text">{formatWhatsapp(m.body)}</div> : null;
}

function MessageBubbleInner({ m, mine, canEdit, actions, highlighted }: { m: ApiMessage; mine: boolean; canEdit: boolean; actions: BubbleActions; highlighted?: boolean }) {
  const { t } = useTranslation();
  const dates = useDates();
  const hasMenu = !m.isDeleted && (actions.reply || actions.react || actions.forward || (mine && (actions.remove || (canEdit && actions.edit))));
  return (
    <div className={`msg-row ${m.fromMe ? 'out' : 'in'}`} data-testid="message" data-message-id={m.id}>
      <div className={`msg-bubble${highlighted ? ' highlighted' : ''}${m.error ? ' failed' : ''}`}>
        {m.participant?.name && !m.fromMe && <div className="msg-author">{m.participant.name}</div>}
        {/* The queue bot's messages say so where an author is named. */}
        {m.isBot && (
          <div className="msg-author msg-bot" data-testid="message-bot">
            {t('messages.bot')}
          </div>
        )}
        {hasMenu && (
          <Menu
            size="small"
            trigger={
              <button type="button" className="msg-menu-btn" aria-label={t('messages.menu')}>
                <CIcon name="more" size={18} />
              </button>
            }
          >
            {actions.reply && <MenuItem onClick={() => actions.reply!(m)}>{t('messages.reply')}</MenuItem>}
            {mine && canEdit && actions.edit && <MenuItem onClick={() => actions.edit!(m)}>{t('messages.edit')}</MenuItem>}
            {mine && actions.remove && <MenuItem onClick={() => actions.remove!(m)}>{t('messages.delete')}</MenuItem>}
            {actions.forward && <MenuItem onClick={() => actions.forward!(m)}>{t('messages.forward')}</MenuItem>}
            {actions.react && (
              <div className="msg-react-row" role="group">
                {QUICK_REACTIONS.map((e) => (
                  <MenuItem key={e} className="msg-react-btn" aria-label={t('messages.react', { emoji: e })} onClick={() => actions.react!(m, e)}>
                    {e}
                  </MenuItem>
                ))}
              </div>
            )}
          </Menu>
        )}
        {m.quotedMsg && !m.isDeleted && (
          <button type="button" className={`msg-quote ${m.quotedMsg.fromMe ? 'out' : 'in'}`} onClick={() => actions.goToQuoted(m.quotedMsg!.id)} title={t('messages.goToQuoted')}>
            <span className="msg-quote-text">{m.quotedMsg.body ? formatWhatsapp(m.quotedMsg.body) : m.quotedMsg.mediaType ? `📎 ${m.quotedMsg.mediaType}` : ''}</span>
          </button>
        )}
        {m.isDeleted ? (
          <div className="msg-text msg-deleted">
            <CIcon name="close" size={14} /> {t('messages.deleted')}
          </div>
        ) : (
          <>
            <Media m={m} actions={actions} />
            {m.mediaError && !m.mediaUrl && <MediaNote e={m.mediaError} />}
            <Body m={m} actions={actions} />
          </>
        )}
        <div className="msg-meta">
          {m.isEdited && !m.isDeleted && <span className="msg-edited">{t('messages.edited')}</span>}
          <span className="msg-time">{dates.time(m.createdAt)}</span>
          {m.fromMe && !m.error && <Ack m={m} />}
        </div>
        {m.error && m.fromMe && (
          <div className="msg-error" role="alert">
            <CIcon name="error" size={16} />
            <span>{t('messages.failed')}</span>
            <button type="button" className="link-btn" onClick={() => actions.retry(m)}>
              {t('messages.retry')}
            </button>
          </div>
        )}
      </div>
      {m.reactions.length > 0 && !m.isDeleted && (
        <div className="msg-reactions" data-testid="reactions">
          {m.reactions.map((r, i) => (
            <span key={i} className={`msg-reaction${r.fromMe ? ' mine' : ''}`}>
              {r.emoji}
            </span>
          ))}
        </div>
      )}
    </div>
  );
}

export const MessageBubble = memo(MessageBubbleInner);
