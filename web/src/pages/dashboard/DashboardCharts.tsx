import { useEffect, useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { useQuery } from '@tanstack/react-query';
import { Button, Card, Flex, Heading, Loader, Text, TextField } from '@aws-amplify/ui-react';
import { BarController, BarElement, CategoryScale, Chart, LinearScale, Tooltip } from 'chart.js';
import { Bar } from 'react-chartjs-2';
import type { DashboardTicketsDay, DashboardTicketsUsers } from '@balcao/shared';
import { dashboardApi } from '../../api/dashboard';
import { toast } from '../../ui/toast';
import { dayLabel } from './Dashboard';

// Only the parts the two bar charts use (chart.js is tree-shaken to them).
Chart.register(BarController, BarElement, CategoryScale, LinearScale, Tooltip);

/** The two charts of spec 000 §2.5, each with its own dates and Filtrar button. */
export default function DashboardCharts({ today }: { today: string }) {
  return (
    <div className="dash-charts">
      <ChartCard kind="users" today={today} />
      <ChartCard kind="days" today={today} />
    </div>
  );
}

/** The theme's brand colour (Amplify's tokens live on the themed element, not on :root). */
const accent = () => getComputedStyle(document.querySelector('[data-amplify-theme]') ?? document.documentElement).getPropertyValue('--amplify-colors-brand-primary-60').trim() || '#0d7a6b';

function ChartCard({ kind, today }: { kind: 'users' | 'days'; today: string }) {
  const { t, i18n } = useTranslation();
  const [range, setRange] = useState({ from: today, to: today });
  const [applied, setApplied] = useState(range);
  const query = useQuery<DashboardTicketsUsers | DashboardTicketsDay>({
    queryKey: ['dashboard-chart', kind, applied],
    queryFn: () => (kind === 'users' ? dashboardApi.ticketsUsers(applied.from, applied.to) : dashboardApi.ticketsDay(applied.from, applied.to)),
    retry: false,
  });
  useEffect(() => {
    if (query.isError) toast.error(t('dashboard.chartError'), 3000);
  }, [query.isError, query.errorUpdatedAt, t]);
  const submit = (e: FormEvent) => {
    e.preventDefault();
    setApplied(range);
  };
  const rows = query.data?.data ?? [];
  const labels = rows.map((r) => ('nome' in r ? r.nome : 'horario' in r ? t('dashboard.charts.hour', { hour: r.horario }) : dayLabel(r.data, i18n.language)));
  const values = rows.map((r) => ('quantidade' in r ? r.quantidade : r.total));
  const title = t(`dashboard.charts.${kind}`);
  return (
    <Card variation="outlined" className="panel dash-chart" data-testid={`dashboard-chart-${kind}`}>
      <Flex justifyContent="space-between" alignItems="baseline" wrap="wrap" gap="0.5rem">
        <Heading level={5}>{title}</Heading>
        {query.data && <Text fontSize="small" color="font.secondary">{t('dashboard.charts.total', { count: query.data.count })}</Text>}
      </Flex>
      <form className="dash-filter" onSubmit={submit}>
        <TextField type="date" label={t('dashboard.dateFrom')} value={range.from} max={range.to || undefined} onChange={(e) => setRange({ ...range, from: e.target.value })} />
        <TextField type="date" label={t('dashboard.dateTo')} value={range.to} min={range.from || undefined} onChange={(e) => setRange({ ...range, to: e.target.value })} />
        <Button type="submit" className="dash-filter-btn">
          {t('dashboard.filter')}
        </Button>
      </form>
      <div className="dash-chart-box">
        {!query.data && query.isError ? (
          <Flex direction="column" alignItems="center" gap="0.5rem" padding="2rem">
            <Text color="font.secondary">{t('dashboard.chartError')}</Text>
            <Button size="small" onClick={() => void query.refetch()}>
              {t('dashboard.retry')}
            </Button>
          </Flex>
        ) : !query.data ? (
          <Flex justifyContent="center" padding="2rem">
            <Loader />
          </Flex>
        ) : query.data.count === 0 ? (
          <Text color="font.secondary" className="dash-chart-empty">
            {t('dashboard.charts.empty')}
          </Text>
        ) : (
          <Bar
            aria-label={title}
            role="img"
            data={{ labels, datasets: [{ label: title, data: values, backgroundColor: accent(), borderRadius: 4, maxBarThickness: 32 }] }}
            options={{
              responsive: true,
              maintainAspectRatio: false,
              indexAxis: kind === 'users' ? 'y' : 'x',
              plugins: { tooltip: { enabled: true } },
              scales: { x: { beginAtZero: true, ticks: { precision: 0 } }, y: { beginAtZero: true, ticks: { precision: 0 } } },
            }}
          />
        )}
      </div>
    </Card>
  );
}
