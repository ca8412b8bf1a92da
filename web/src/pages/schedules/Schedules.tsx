import { useCallback, useEffect, useMemo, useState } from 'react';
import { useSearchParams } from 'react-router-dom';
import { useTranslation } from 'react-i18next';
import { Button, Flex, Heading, Loader } from '@aws-amplify/ui-react';
import { Calendar, type EventProps, type View } from 'react-big-calendar';
import 'react-big-calendar/lib/css/react-big-calendar.css';
import { companyEvent, zonedWallClock, type Schedule } from '@balcao/shared';
import { contactsApi } from '../../api/contacts';
import { schedulesApi } from '../../api/schedules';
import { toastError } from '../../api/errors';
import { realtime } from '../../api/realtime';
import { useAuth } from '../../auth/AuthContext';
import { ConfirmDialog } from '../../ui/ConfirmDialog';
import { useDates } from '../../ui/dates';
import { SearchBox } from '../../ui/EntityTablePage';
import { useLoading } from '../../ui/useLoad';
import { useRowActions, useSearch } from '../../ui/useRowActions';
import ScheduleDialog, { type ScheduleContact } from './ScheduleDialog';
import { AgendaRow } from './AgendaRow';
import { CALENDAR, calendarFormats, CULTURES, useCalendarTexts, type CalendarEvent } from './calendar';
import './schedules.css';

/** Pages read for the calendar: a company's schedules are bounded by its plan. */
const MAX_PAGES = 50;

type Editing = { schedule: Schedule | null; contact?: ScheduleContact | null } | undefined;

/**
 * Schedules page (spec 001 §2): a calendar with month and agenda views, search and add. Agenda
 * rows show the contact, its number, the connection, the status and edit/delete; `?contactId=`
 * opens the add dialog for that contact. Statuses change live (`company-<id>-schedule`).
 */
export default function Schedules() {
  const { t, i18n } = useTranslation();
  const { user } = useAuth();
  const { timeZone } = useDates();
  const [params, setParams] = useSearchParams();
  const { search, setSearch, searchParam } = useSearch();
  const [schedules, setSchedules] = useState<Schedule[]>([]);
  const [reloadKey, setReloadKey] = useState(0);
  const [view, setView] = useState<View>('month');
  const [date, setDate] = useState(() => zonedWallClock(Date.now(), timeZone));
  const [editing, setEditing] = useState<Editing>(undefined);

  const loading = useLoading(async (live) => {
    const all: Schedule[] = [];
    for (let page = 1; page <= MAX_PAGES; page++) {
      const r = await schedulesApi.page(searchParam || undefined, page);
      all.push(...r.schedules);
      if (!r.hasMore) break;
    }
    if (live()) setSchedules(all);
  }, [searchParam, reloadKey], true);

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
    contactsApi
      .get(id)
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

  const actions = useRowActions<Schedule>({ remove: (s) => schedulesApi.remove(s.id), onRemoved: (s) => drop(s.id), deletedText: t('schedules.deleted') });
  const { askDelete } = actions;

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
  const messages = useCalendarTexts();

  const AgendaEvent = useCallback(
    ({ event }: EventProps<CalendarEvent>) => <AgendaRow s={event.schedule} onEdit={() => setEditing({ schedule: event.schedule })} onDelete={() => askDelete(event.schedule)} />,
    [askDelete],
  );

  return (
    <Flex direction="column" gap="1rem" className="page">
      <Flex className="page-header" alignItems="center" justifyContent="space-between" wrap="wrap" gap="0.75rem">
        <Heading level={3}>{t('schedules.title')}</Heading>
        <div className="sch-toolbar">
          <SearchBox value={search} onChange={setSearch} placeholder={t('schedules.searchPlaceholder')} />
          <Button variation="primary" onClick={() => setEditing({ schedule: null })}>
            {t('schedules.add')}
          </Button>
        </div>
      </Flex>
      <div className="sch-calendar" data-testid="schedules-calendar">
        {loading && <Loader variation="linear" />}
        <Calendar<CalendarEvent>
          {...CALENDAR}
          culture={CULTURES[i18n.language] ?? 'pt-BR'}
          events={events}
          view={view}
          onView={setView}
          date={date}
          onNavigate={setDate}
          messages={messages}
          formats={formats}
          getNow={getNow}
          onSelectEvent={(ev) => setEditing({ schedule: ev.schedule })}
          eventPropGetter={(ev) => ({ className: `sch-ev-${ev.schedule.status.toLowerCase()}` })}
          components={{ agenda: { event: AgendaEvent } }}
        />
      </div>
      {editing && <ScheduleDialog schedule={editing.schedule} contact={editing.contact} onClose={closeDialog} onSaved={upsert} />}
      <ConfirmDialog
        open={!!actions.deleting}
        title={actions.deleting ? t('schedules.deleteTitle', { name: actions.deleting.contact?.name ?? '' }) : ''}
        onClose={actions.cancelDelete}
        onConfirm={actions.confirmDelete}
      />
    </Flex>
  );
}
