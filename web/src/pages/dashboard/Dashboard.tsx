import { lazy, Suspense, useEffect, useMemo, useRef, useState, type FormEvent, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { keepPreviousData, useQuery, useQueryClient } from '@tanstack/react-query';
import { Button, Card, Flex, Heading, Loader, SelectField, Table, TableBody, TableCell, TableHead, TableRow, Text, TextField } from '@aws-amplify/ui-react';
import { companyEvent, DASHBOARD_PERIODS, formatInZone, formatMinutes, type DashboardResult, type DashboardShare } from '@balcao/shared';
import { dashboardApi } from '../../api/dashboard';
import { realtime } from '../../api/realtime';
import { useAuth } from '../../auth/AuthContext';
import { useDates } from '../../ui/dates';
import { toast } from '../../ui/toast';
import './dashboard.css';

/** The charts (chart.js) load after the cards, in their own chunk. */
const DashboardCharts = lazy(() => import('./DashboardCharts'));

type FilterType = 'date' | 'period';
interface Filter {
  type: FilterType;
  from: string;
  to: string;
  days: string;
}
type Query = { days: number } | { date_from: string; date_to: string };

/** The query a filter names; null when it names nothing ('Parametrize o filtro'). */
function queryOf(f: Filter): Query | null {
  if (f.type === 'period') return f.days ? { days: Number(f.days) } : null;
  if (!f.from && !f.to) return null;
  return { date_from: f.from || f.to, date_to: f.to || f.from };
}

/** A calendar day (YYYY-MM-DD) in the reader's pattern: the day itself, whatever the zone. */
export const dayLabel = (day: string, lang: string) => formatInZone(`${day}T12:00:00Z`, 'day', lang, 'UTC');

/** Ticket and user events refresh the numbers, at most once in this long. */
const LIVE_REFRESH_MS = 3000;

/** Spec 000 §2.5: the admin's dashboard (cards, the filter, attendants, closes per queue and connection, charts). */
export default function Dashboard() {
  const { t, i18n } = useTranslation();
  const { user } = useAuth();
  const dates = useDates();
  const today = dates.dayKey(Date.now());
  const [filter, setFilter] = useState<Filter>(() => ({ type: 'date', from: `${today.slice(0, 8)}01`, to: today, days: '' }));
  const [applied, setApplied] = useState<Query | null>(() => queryOf(filter));
  const qc = useQueryClient();
  const summary = useQuery({
    queryKey: ['dashboard', applied],
    queryFn: () => dashboardApi.summary(applied!),
    enabled: !!applied,
    placeholderData: keepPreviousData,
    retry: false,
  });

  useEffect(() => {
    if (summary.isError) toast.error(t('dashboard.loadError'), 3000);
  }, [summary.isError, summary.errorUpdatedAt, t]);

  // Live: tickets moving and agents going on- or offline change the numbers.
  const pending = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  useEffect(() => {
    if (!user) return;
    const refresh = () => {
      if (pending.current) return;
      pending.current = setTimeout(() => {
        pending.current = undefined;
        void qc.invalidateQueries({ queryKey: ['dashboard'] });
      }, LIVE_REFRESH_MS);
    };
    const offs = [realtime.on(companyEvent(user.companyId, 'ticket'), refresh), realtime.on(companyEvent(user.companyId, 'user'), refresh)];
    return () => {
      offs.forEach((off) => off());
      clearTimeout(pending.current);
      pending.current = undefined;
    };
  }, [user, qc]);

  const submit = (e: FormEvent) => {
    e.preventDefault();
    setApplied(queryOf(filter));
  };
  const data = applied ? summary.data : undefined;

  return (
    <Flex direction="column" gap="1rem" className="dashboard" data-testid="dashboard">
      <Heading level={3}>{t('dashboard.title')}</Heading>
      <Card variation="outlined" className="panel">
        <form className="dash-filter" onSubmit={submit} role="search">
          <SelectField label={t('dashboard.filterType')} value={filter.type} onChange={(e) => setFilter({ ...filter, type: e.target.value as FilterType })}>
            <option value="date">{t('dashboard.byDate')}</option>
            <option value="period">{t('dashboard.byPeriod')}</option>
          </SelectField>
          {filter.type === 'date' ? (
            <>
              <TextField type="date" label={t('dashboard.dateFrom')} value={filter.from} max={filter.to || undefined} onChange={(e) => setFilter({ ...filter, from: e.target.value })} />
              <TextField type="date" label={t('dashboard.dateTo')} value={filter.to} min={filter.from || undefined} onChange={(e) => setFilter({ ...filter, to: e.target.value })} />
            </>
          ) : (
            <SelectField label={t('dashboard.period')} value={filter.days} onChange={(e) => setFilter({ ...filter, days: e.target.value })}>
              <option value="">{t('dashboard.noPeriod')}</option>
              {DASHBOARD_PERIODS.map((n) => (
                <option key={n} value={n}>
                  {t('dashboard.lastDays', { count: n })}
                </option>
              ))}
            </SelectField>
          )}
          <Button type="submit" variation="primary" className="dash-filter-btn">
            {t('dashboard.filter')}
          </Button>
        </form>
        {data && (
          <Text fontSize="small" color="font.secondary" marginTop="0.5rem" data-testid="dashboard-period">
            {t('dashboard.periodShown', { from: dayLabel(data.period.from, i18n.language), to: dayLabel(data.period.to, i18n.language) })}
          </Text>
        )}
      </Card>

      {!applied ? (
        <Card variation="outlined" className="panel dash-empty" data-testid="dashboard-no-filter">
          <Text>{t('dashboard.noFilter')}</Text>
        </Card>
      ) : !data && summary.isError ? (
        <Card variation="outlined" className="panel dash-empty" data-testid="dashboard-error">
          <Text>{t('dashboard.loadError')}</Text>
          <Button marginTop="0.75rem" onClick={() => void summary.refetch()}>
            {t('dashboard.retry')}
          </Button>
        </Card>
      ) : !data ? (
        <Flex justifyContent="center" padding="2rem">
          <Loader size="large" />
        </Flex>
      ) : (
        <DashboardBody data={data} />
      )}

      {/* Placed once the cards are: before that it would sit in view and load at once. */}
      {(data || !applied) && (
        <WhenVisible testId="dashboard-charts-slot">
          <Suspense
            fallback={
              <Flex justifyContent="center" padding="2rem">
                <Loader size="large" />
              </Flex>
            }
          >
            <DashboardCharts today={today} />
          </Suspense>
        </WhenVisible>
      )}
    </Flex>
  );
}

/**
 * Renders `children` once its place comes into view: the charts (and chart.js) below the cards load
 * when the admin scrolls to them, not with the page (the console's first-load budget).
 */
function WhenVisible({ children, testId }: { children: ReactNode; testId: string }) {
  const slot = useRef<HTMLDivElement>(null);
  const [shown, setShown] = useState(false);
  useEffect(() => {
    const el = slot.current;
    if (shown || !el) return;
    const io = new IntersectionObserver((entries) => entries.some((e) => e.isIntersecting) && setShown(true), { rootMargin: '0px 0px -80px 0px' });
    io.observe(el);
    return () => io.disconnect();
  }, [shown]);
  return (
    <div ref={slot} data-testid={testId} className={shown ? undefined : 'dash-charts-slot'}>
      {shown && children}
    </div>
  );
}

function DashboardBody({ data }: { data: DashboardResult }) {
  const { t, i18n } = useTranslation();
  const c = data.counters;
  const number = useMemo(() => new Intl.NumberFormat(i18n.language, { maximumFractionDigits: 1 }), [i18n.language]);
  const cards: { key: string; value: string; hint?: string }[] = [
    { key: 'supportHappening', value: number.format(c.supportHappening) },
    { key: 'supportPending', value: number.format(c.supportPending) },
    { key: 'supportFinished', value: number.format(c.supportFinished) },
    { key: 'newContacts', value: number.format(c.newContacts) },
    { key: 'avgSupportTime', value: formatMinutes(c.avgSupportTime) },
    { key: 'avgWaitTime', value: formatMinutes(c.avgWaitTime) },
    { key: 'avgFirstResponseTime', value: formatMinutes(c.avgFirstResponseTime) },
    { key: 'opened', value: number.format(c.opened) },
    {
      key: 'rating',
      value: c.ratingAverage === null ? '—' : number.format(c.ratingAverage),
      hint: c.ratingCount ? t('dashboard.cards.ratingCount', { count: c.ratingCount }) : t('dashboard.cards.noRating'),
    },
  ];
  return (
    <>
      <div className="dash-cards" data-testid="dashboard-cards">
        {cards.map((card) => (
          <Card key={card.key} variation="outlined" className="panel dash-card" data-testid={`dash-card-${card.key}`}>
            <Text className="dash-card-label">{t(`dashboard.cards.${card.key}`)}</Text>
            <Text className="dash-card-value">{card.value}</Text>
            {card.hint && <Text className="dash-card-hint">{card.hint}</Text>}
          </Card>
        ))}
      </div>

      <div className="dash-grid">
        <Card variation="outlined" className="panel dash-attendants">
          <Heading level={5} marginBottom="0.5rem">
            {t('dashboard.attendants.title')}
          </Heading>
          <div className="table-scroll">
            <Table size="small" className="data-table" data-testid="dashboard-attendants">
              <TableHead>
                <TableRow>
                  <TableCell as="th">{t('dashboard.attendants.name')}</TableCell>
                  <TableCell as="th">{t('dashboard.attendants.rating')}</TableCell>
                  <TableCell as="th">{t('dashboard.attendants.tickets')}</TableCell>
                  <TableCell as="th">{t('dashboard.attendants.avgSupportTime')}</TableCell>
                  <TableCell as="th">{t('dashboard.attendants.avgFirstResponseTime')}</TableCell>
                  <TableCell as="th">{t('dashboard.attendants.status')}</TableCell>
                </TableRow>
              </TableHead>
              <TableBody>
                {data.attendants.length === 0 && (
                  <TableRow>
                    <TableCell colSpan={6} className="empty">
                      {t('dashboard.attendants.empty')}
                    </TableCell>
                  </TableRow>
                )}
                {data.attendants.map((a) => (
                  <TableRow key={a.id} data-testid={`dash-attendant-${a.id}`}>
                    <TableCell>{a.name}</TableCell>
                    <TableCell>
                      <Stars value={a.rating} />
                    </TableCell>
                    <TableCell>{number.format(a.tickets)}</TableCell>
                    <TableCell>{formatMinutes(a.avgSupportTime)}</TableCell>
                    <TableCell>{formatMinutes(a.avgFirstResponseTime)}</TableCell>
                    <TableCell>
                      <span className={`dash-online ${a.online ? 'on' : 'off'}`}>{a.online ? t('dashboard.attendants.online') : t('dashboard.attendants.offline')}</span>
                    </TableCell>
                  </TableRow>
                ))}
              </TableBody>
            </Table>
          </div>
        </Card>
        <Flex direction="column" gap="1rem">
          <Shares title={t('dashboard.byQueue')} shares={data.byQueue} testId="dashboard-by-queue" noName={t('dashboard.noQueue')} />
          <Shares title={t('dashboard.byConnection')} shares={data.byConnection} testId="dashboard-by-connection" />
        </Flex>
      </div>
    </>
  );
}

/** 1 to 3 stars (the spec's rating), rounded; a dash without ratings. */
function Stars({ value }: { value: number | null }) {
  const { t } = useTranslation();
  if (value === null) return <span className="dash-stars none">—</span>;
  const full = Math.max(0, Math.min(3, Math.round(value)));
  const label = t('dashboard.attendants.stars', { value: value.toLocaleString(undefined, { maximumFractionDigits: 1 }) });
  return (
    <span className="dash-stars" role="img" aria-label={label} title={label}>
      {'★'.repeat(full)}
      <span className="dash-stars-empty">{'★'.repeat(3 - full)}</span>
    </span>
  );
}

/** Closes per queue or connection as bars of the largest. */
function Shares({ title, shares, testId, noName }: { title: string; shares: DashboardShare[]; testId: string; noName?: string }) {
  const { t } = useTranslation();
  const max = Math.max(1, ...shares.map((s) => s.finished));
  return (
    <Card variation="outlined" className="panel" data-testid={testId}>
      <Heading level={5} marginBottom="0.5rem">
        {title}
      </Heading>
      {shares.length === 0 ? (
        <Text color="font.secondary">{t('dashboard.nothing')}</Text>
      ) : (
        <ul className="dash-shares">
          {shares.map((s) => (
            <li key={s.id ?? 0}>
              <span className="dash-share-name">{s.name || noName}</span>
              <span className="dash-share-bar">
                <span style={{ width: `${(s.finished / max) * 100}%`, background: s.color || undefined }} />
              </span>
              <span className="dash-share-n">{s.finished}</span>
            </li>
          ))}
        </ul>
      )}
    </Card>
  );
}
