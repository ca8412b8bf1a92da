import { useCallback, useEffect, useMemo, useState } from 'react';
import { useSearchParams } from 'react-router-dom';
import { useTranslation } from 'react-i18next';
import { Button, Flex, Heading, Loader, TextField } from '@aws-amplify/ui-react';
import { Calendar, dateFnsLocalizer, type DateRangeFormatFunction, type EventProps, type Formats, type View } from 'react-big-calendar';
import { format, getDay, parse, startOfWeek } from 'date-fns';
import { enUS, es, ptBR } from 'date-fns/locale';
import 'react-big-calendar/lib/css/react-big-calendar.css';
import { companyEvent, datePattern, SEARCH_DEBOUNCE_MS, zonedWallClock, type Schedule } from '@balcao/shared';
import { api } from '../../api/http';
import { toastError } from '../../api/errors';
import { realtime } from '../../api/realtime';
import { useAuth } from '../../auth/AuthContext';
import { ConfirmDialog } from '../../ui/ConfirmDialog';
import { useDates } from '../../ui/dates';
import { useDebounced } from '../../ui/hooks';
import { Icon } from '../../ui/icons';
import { formatWhatsappNumber } from '../../ui/phone';
import { toast } from '../../ui/toast';
import ScheduleDialog, { type ScheduleContact } from './ScheduleDialog';
import { StatusChip, useScheduleReason } from './StatusChip';
import './schedules.css';

const localizer = dateFnsLocalizer({ format, parse, startOfWeek, getDay, locales: { 'pt-BR': ptBR, 'en-US': enUS, es } });
const CULTURES: Record<string, string> = { pt: 'pt-BR', en: 'en-US', es: 'es' };
/** Spec 001 §9: month and agenda views, height 500. */
const VIEWS: View[] = ['month', 'agenda'];
const CALENDAR_HEIGHT = 500;
/**
 * The console's date patterns (decision 34) where the calendar writes days and times: agenda dates
 * short enough for a phone's width. The calendar is fed the company's wall clock (zonedWallClock),
 * so its own formatting and its "today" are the company's.
 */
function calendarFormats(lang: string): Formats {
  const day = datePattern(lang, 'day');
  const time = datePattern(lang, 'time');
  const range = (pattern: string): DateRangeFormatFunction => ({ start, end }, culture, local) =>
    `${local!.format(start, pattern, culture)} – ${local!.format(end, pattern, culture)}`;
  return {
    agendaDateFormat: `EEE ${datePattern(lang, 'dayMonth')}`,
    agendaHeaderFormat: range(day),
    agendaTimeFormat: time,
    agendaTimeRangeFormat: range(time),
    eventTimeRangeFormat: range(time),
  };
}
/** Pages read for the calendar: a company's schedules are bounded by its plan. */
const MAX_PAGES = 50;

interface CalendarEvent {
  id: number;
  title: string;
  start: Date;
  end: Date;
  schedule: Schedule;
}

type Editing = { schedule: Schedule | null; contact?: ScheduleContact | null } | undefined;

/**
 * Schedules page (spec 001 §2): a calendar with month and agenda views, search and add. Agenda
 * rows show the contact, its number, the connection, the status and edit/delete; `?contactId=`
 * opens the add dialog for that contact. Statuses change live (`company-<id>-schedule`).
 */
export default function Schedules() {
  const { t, i18n } = useTranslation();
  const reasonOf = useScheduleReason();
  const { user } = useAuth();
  const { timeZone } = useDates();
  const [params, setParams] = useSearchParams();
  const [search, setSearch] = useState('');
  const searchParam = useDebounced(search.trim(), SEARCH_DEBOUNCE_MS);
  const [schedules, setSchedules] = useState<Schedule[]>([]);
  const [loading, setLoading] = useState(true);
  const [reloadKey, setReloadKey] = useState(0);
  const [view, setView] = useState<View>('month');
  const [date, setDate] = useState(() => zonedWallClock(Date.now(), timeZone));
  const [editing, setEditing] = useState<Editing>(undefined);
  const [deleting, setDeleting] = useState<Schedule | null>(null);

  useEffect(() => {
    let live = true;
    setLoading(true);
    (async () => {
      const all: Schedule[] = [];
      for (let page = 1; page <= MAX_PAGES; page++) {
        const r = await api.get<{ schedules: Schedule[]; hasMore: boolean }>('/schedules', { query: { searchParam: searchParam || undefined, pageNumber: page } });
        all.push(...r.schedules);
        if (!r.hasMore) break;
      }
      if (live) setSchedules(all);
    })()
      .catch((e) => live && toastError(e))
      .finally(() => live && setLoading(false));
    return () => {
      live = false;
    };
  }, [searchParam, reloadKey]);

  const upsert = useCallback((s: Schedule) => setSchedules((l) => (l.some((x) => x.id === s.id) ? l.map((x) => (x.id === s.id ? s : x)) : [...l, s])), []);
  const drop = useCallback((id: number) => setSchedules((l) => l.filter((x) => x.id !== id)), []);

  useEffect(() => {
    if (!user) return;
    const off = realtime.on(companyEvent(user.companyId, 'schedule'), (data) => {
      if (data?.action === 'delete') drop(Number(data.scheduleId));
      // A changed schedule may no longer match the search: the next reload decides; keep it meanwhile.
      else if (data?.schedule) upsert(data.schedule as Schedule);
    });
    const offR = realtime.onReconnect(() => setReloadKey((k) => k + 1));
    return () => {
      off();
      offR();
    };
  }, [user?.companyId, upsert, drop]);

  // ?contactId= opens the add dialog for that contact (spec 001 §2).
  const contactParam = params.get('contactId');
  useEffect(() => {
    const id = Number(contactParam);
    if (!contactParam || !Number.isSafeInteger(id) || id <= 0) return;
    let live = true;
    api
      .get<ScheduleContact>(`/contacts/${id}`)
      .then((c) => live && setEditing({ schedule: null, contact: { id: c.id, name: c.name, number: c.number } }))
      .catch((e) => live && toastError(e));
    return () => {
      live = false;
    };
  }, [contactParam]);

  const closeDialog = () => {
    setEditing(undefined);
    if (contactParam) {
      params.delete('contactId');
      setParams(params, { replace: true });
    }
  };

  const remove = async (s: Schedule) => {
    try {
      await api.del(`/schedules/${s.id}`);
      drop(s.id);
      toast.success(t('schedules.deleted'));
    } catch (e) {
      toastError(e);
    }
  };

  const events = useMemo<CalendarEvent[]>(
    () =>
      schedules.map((s) => {
        const at = zonedWallClock(s.sendAt, timeZone);
        return { id: s.id, title: s.contact?.name ?? String(s.contactId), start: at, end: at, schedule: s };
      }),
    [schedules, timeZone],
  );
  const formats = useMemo(() => calendarFormats(i18n.language), [i18n.language]);
  const getNow = useCallback(() => zonedWallClock(Date.now(), timeZone), [timeZone]);

  const messages = useMemo(
    () => ({
      date: t('schedules.cal.date'),
      time: t('schedules.cal.time'),
      event: t('schedules.cal.event'),
      allDay: t('schedules.cal.allDay'),
      week: t('schedules.cal.week'),
      work_week: t('schedules.cal.workWeek'),
      day: t('schedules.cal.day'),
      month: t('schedules.cal.month'),
      previous: t('schedules.cal.previous'),
      next: t('schedules.cal.next'),
      yesterday: t('schedules.cal.yesterday'),
      tomorrow: t('schedules.cal.tomorrow'),
      today: t('schedules.cal.today'),
      agenda: t('schedules.cal.agenda'),
      noEventsInRange: t('schedules.cal.noEvents'),
      showMore: (count: number) => t('schedules.cal.showMore', { count }),
    }),
    [t, i18n.language],
  );

  const AgendaEvent = useCallback(
    ({ event }: EventProps<CalendarEvent>) => {
      const s = event.schedule;
      const name = s.contact?.name ?? '';
      return (
        <div className="sch-agenda-row" data-testid={`schedule-row-${s.id}`}>
          <span className="sch-name">{name}</span>
          <span className="sch-phone">{formatWhatsappNumber(s.contact?.number)}</span>
          <span className="sch-conn">{s.whatsapp?.name ?? t('schedules.defaultConnection')}</span>
          <StatusChip status={s.status} reason={reasonOf(s)} />
          <span className="sch-actions">
            <button type="button" className="icon-btn" aria-label={`${t('common.edit')} ${name}`} onClick={(e) => {
                e.stopPropagation();
                setEditing({ schedule: s });
              }}
            >
              <Icon name="edit" size={20} />
            </button>
            <button type="button" className="icon-btn danger" aria-label={`${t('common.delete')} ${name}`} onClick={(e) => {
                e.stopPropagation();
                setDeleting(s);
              }}
            >
              <Icon name="delete" size={20} />
            </button>
          </span>
          <span className="sch-body">{s.body}</span>
        </div>
      );
    },
    [t, reasonOf],
  );

  return (
    <Flex direction="column" gap="1rem" className="page">
      <Flex className="page-header" alignItems="center" justifyContent="space-between" wrap="wrap" gap="0.75rem">
        <Heading level={3}>{t('schedules.title')}</Heading>
        <div className="sch-toolbar">
          <TextField
            label={t('common.search')}
            labelHidden
            placeholder={t('schedules.searchPlaceholder')}
            type="search"
            value={search}
            onChange={(e) => setSearch(e.target.value)}
          />
          <Button variation="primary" onClick={() => setEditing({ schedule: null })}>
            {t('schedules.add')}
          </Button>
        </div>
      </Flex>
      <div className="sch-calendar" data-testid="schedules-calendar">
        {loading && <Loader variation="linear" />}
        <Calendar<CalendarEvent>
          localizer={localizer}
          culture={CULTURES[i18n.language] ?? 'pt-BR'}
          events={events}
          views={VIEWS}
          view={view}
          onView={setView}
          date={date}
          onNavigate={setDate}
          startAccessor="start"
          endAccessor="end"
          style={{ height: CALENDAR_HEIGHT }}
          messages={messages}
          formats={formats}
          getNow={getNow}
          popup
          onSelectEvent={(ev) => setEditing({ schedule: ev.schedule })}
          eventPropGetter={(ev) => ({ className: `sch-ev-${ev.schedule.status.toLowerCase()}` })}
          components={{ agenda: { event: AgendaEvent } }}
        />
      </div>
      {editing && <ScheduleDialog schedule={editing.schedule} contact={editing.contact} onClose={closeDialog} onSaved={upsert} />}
      <ConfirmDialog
        open={!!deleting}
        title={deleting ? t('schedules.deleteTitle', { name: deleting.contact?.name ?? '' }) : ''}
        onClose={() => setDeleting(null)}
        onConfirm={() => deleting && void remove(deleting)}
      />
    </Flex>
  );
}
