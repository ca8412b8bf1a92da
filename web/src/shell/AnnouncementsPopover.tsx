import { useCallback, useEffect, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { ANNOUNCEMENT_EVENT, compareAnnouncements, type ApiAnnouncement } from '@balcao/shared';
import { announcementsApi } from '../api/announcements';
import { realtime } from '../api/realtime';
import { useAuth } from '../auth/AuthContext';
import { PriorityBadge } from '../pages/announcements/priority';
import { useDates } from '../ui/dates';
import { Icon } from '../ui/icons';
import { TopBarPopover } from './TopBarPopover';
import './AnnouncementsPopover.css';

/** Pages of 20 read at most: far beyond what the platform keeps active at once. */
const MAX_PAGES = 10;
/** The image links the API answers last 15 minutes: an older list is read again when opened. */
const STALE_MS = 10 * 60 * 1000;

/**
 * The top bar's announcements (spec 000 §2.3, decision 58): every user sees the active ones, high
 * priority first, then the newest, kept live by `company-announcement`. Texts are shown as text
 * (never as HTML), with the image when there is one.
 */
export function AnnouncementsPopover() {
  const { t } = useTranslation();
  const { user } = useAuth();
  const dates = useDates();
  const [items, setItems] = useState<ApiAnnouncement[]>([]);
  const [open, setOpen] = useState(false);
  const [reloadKey, setReloadKey] = useState(0);
  const loadedAt = useRef(0);

  // What left the list, and as of when (a turned-off one: its time; a deleted one: for good).
  const gone = useRef(new Map<number, string>());
  const put = useCallback((a: ApiAnnouncement) => {
    setItems((list) => {
      const known = list.find((x) => x.id === a.id);
      // A late event must not put back what a newer one replaced or removed.
      if (known && known.updatedAt > a.updatedAt) return list;
      const removedAt = gone.current.get(a.id);
      if (removedAt !== undefined && removedAt >= a.updatedAt) return list;
      const others = list.filter((x) => x.id !== a.id);
      return a.status ? [...others, a].sort(compareAnnouncements) : others;
    });
  }, []);

  useEffect(() => {
    if (!user) return;
    let live = true;
    (async () => {
      const all: ApiAnnouncement[] = [];
      for (let page = 1; page <= MAX_PAGES; page++) {
        const r = await announcementsApi.active(page);
        if (!live) return;
        all.push(...r.records);
        if (!r.hasMore) break;
      }
      loadedAt.current = Date.now();
      setItems(all.filter((a) => a.status).sort(compareAnnouncements));
    })().catch(() => {
      /* the popover stays as it was; pages show their own errors */
    });
    return () => {
      live = false;
    };
  }, [user?.id, reloadKey]);

  useEffect(() => {
    if (!user) return;
    const off = realtime.on(ANNOUNCEMENT_EVENT, (data) => {
      if (data.action === 'delete') {
        gone.current.set(data.id, data.updatedAt ?? '\uffff');
        setItems((list) => list.filter((x) => x.id !== data.id));
      } else put(data.record);
    });
    const offR = realtime.onReconnect(() => setReloadKey((k) => k + 1));
    return () => {
      off();
      offR();
    };
  }, [user, put]);

  if (!user) return null;
  const refreshIfStale = () => Date.now() - loadedAt.current > STALE_MS && setReloadKey((k) => k + 1);

  return (
    <TopBarPopover
      title={t('announcements.popoverTitle')}
      icon={<Icon name="announcement" />}
      count={items.length}
      emptyText={items.length === 0 ? t('announcements.popoverEmpty') : null}
      open={open}
      setOpen={setOpen}
      onOpen={refreshIfStale}
      classes="ann-pop"
      testIds={{ button: 'announcements-button', count: 'announcements-count', panel: 'announcements-popover' }}
    >
      <ul>
        {items.map((a) => (
          <li key={a.id} className="ann-pop-item" data-priority={a.priority} data-testid={`announcement-${a.id}`}>
            <div className="ann-pop-line">
              <strong className="ann-pop-title">{a.title}</strong>
              <PriorityBadge priority={a.priority} />
            </div>
            <span className="ann-pop-date">{dates.day(a.createdAt)}</span>
            {a.mediaUrl && <img className="ann-pop-image" src={a.mediaUrl} alt={t('announcements.image', { title: a.title })} loading="lazy" />}
            {/* Plain text: React escapes it, and line breaks are kept by the style. */}
            <p className="ann-pop-text">{a.text}</p>
          </li>
        ))}
      </ul>
    </TopBarPopover>
  );
}
