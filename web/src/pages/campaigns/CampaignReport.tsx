import { useCallback, useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useParams } from 'react-router-dom';
import { Flex, Heading, Loader, Text } from '@aws-amplify/ui-react';
import { companyEvent, type ApiCampaign, type CampaignCounts } from '@balcao/shared';
import { campaignsApi } from '../../api/campaigns';
import { toastError } from '../../api/errors';
import { ApiError } from '../../api/http';
import { realtime } from '../../api/realtime';
import { useAuth } from '../../auth/AuthContext';
import { useCampaignsGate } from '../../auth/usePlanGate';
import { useDates } from '../../ui/dates';
import { Icon } from '../../ui/icons';
import { older } from '../../ui/useLiveList';
import { CampaignStatus } from './CampaignStatus';
import './campaigns.css';

/** Spec 002 §4, §9: the report reads the campaign again this long after an update says FINALIZADA. */
export const REPORT_REFRESH_MS = 5000;

/** The report's cards, in the order the shipments move (spec 002 §2; issue 20 §3). */
const CARDS: { key: keyof CampaignCounts; tone?: 'ok' | 'bad' }[] = [
  { key: 'recipients' },
  { key: 'delivered', tone: 'ok' },
  { key: 'confirmationRequested' },
  { key: 'confirmed', tone: 'ok' },
  { key: 'failed', tone: 'bad' },
];

/** How far a campaign got: its delivered and failed shipments over its recipients (0-100). */
export function reportProgress(c: Pick<ApiCampaign, 'status' | 'counts'>): { done: number; total: number; percent: number } {
  const { recipients, delivered, failed } = c.counts;
  const done = delivered + failed;
  const percent = recipients > 0 ? Math.min(100, Math.floor((done / recipients) * 100)) : c.status === 'FINALIZADA' ? 100 : 0;
  return { done, total: recipients, percent };
}

/** Shipments counted so far: they only grow while the campaign's other fields stay as they were. */
const moved = (c: ApiCampaign) => c.counts.delivered + c.counts.failed + c.counts.confirmationRequested + c.counts.confirmed;

/**
 * Whether an event's campaign is behind the one shown: older, or of the same version with fewer
 * shipments counted (a count's change does not move `updatedAt`, and events may arrive out of order).
 */
const stale = (incoming: ApiCampaign, known: ApiCampaign) => older(incoming, known) || (incoming.updatedAt === known.updatedAt && moved(incoming) < moved(known));

/** The report of one campaign (spec 002 §2 "Campaign report"): admins of companies with campaigns. */
export default function CampaignReport() {
  const allowed = useCampaignsGate();
  return allowed ? <Report /> : null;
}

function Report() {
  const { t } = useTranslation();
  const dates = useDates();
  const { user } = useAuth();
  const id = Number(useParams().campaignId);
  const [campaign, setCampaign] = useState<ApiCampaign | null>(null);
  const [missing, setMissing] = useState(false);
  const [loading, setLoading] = useState(true);
  const [reloadKey, setReloadKey] = useState(0);
  const reload = useCallback(() => setReloadKey((k) => k + 1), []);

  useEffect(() => {
    if (!Number.isSafeInteger(id) || id <= 0) {
      setMissing(true);
      setLoading(false);
      return;
    }
    let live = true;
    setLoading(true);
    campaignsApi
      .get(id)
      .then((c) => {
        if (!live) return;
        setCampaign(c);
        setMissing(false);
      })
      .catch((e) => {
        if (!live) return;
        if (e instanceof ApiError && e.status === 404) setMissing(true);
        else toastError(e);
      })
      .finally(() => live && setLoading(false));
    return () => {
      live = false;
    };
  }, [id, reloadKey]);

  // Every shipment's count change comes as an update of the whole campaign (shared/src/realtime.ts).
  useEffect(() => {
    if (!user) return;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const off = realtime.on(companyEvent(user.companyId, 'Campaign'), (data) => {
      if (data.action === 'delete') {
        if (Number(data.id) === id) setMissing(true);
        return;
      }
      const r = data.record;
      if (r?.id !== id) return;
      setCampaign((prev) => (prev && stale(r, prev) ? prev : r));
      if (r.status === 'FINALIZADA') {
        clearTimeout(timer);
        timer = setTimeout(reload, REPORT_REFRESH_MS);
      }
    });
    const offR = realtime.onReconnect(reload);
    return () => {
      off();
      offR();
      clearTimeout(timer);
    };
  }, [user?.companyId, id, reload]);

  const back = (
    <Link to="/campaigns" className="cp-back">
      <Icon name="chevronLeft" size={18} />
      {t('campaignReport.back')}
    </Link>
  );

  if (missing || !campaign) {
    return (
      <Flex direction="column" gap="1rem" className="page cp-report">
        {back}
        <Heading level={3}>{t('campaignReport.title')}</Heading>
        {loading ? <Loader variation="linear" /> : missing && <Text color="var(--muted)">{t('campaignReport.notFound')}</Text>}
      </Flex>
    );
  }

  const { done, total, percent } = reportProgress(campaign);
  const c = campaign;
  return (
    <Flex direction="column" gap="1rem" className="page cp-report" data-testid="campaign-report">
      {back}
      <Flex className="page-header" alignItems="flex-end" wrap="wrap" gap="0.4rem 1rem">
        <Heading level={3}>
          <span className="cp-kicker">{t('campaignReport.title')}</span>
          {c.name}
        </Heading>
        <CampaignStatus campaign={c} />
      </Flex>

      <section className="cp-panel" aria-labelledby="cp-progress-label">
        <Flex justifyContent="space-between" alignItems="baseline" wrap="wrap" gap="0.5rem">
          <Text as="span" id="cp-progress-label" fontWeight={600}>
            {t('campaignReport.progress')}
          </Text>
          <Text as="span" color="var(--muted)" data-testid="campaign-progress-text">
            {total === 0 && (c.status === 'INATIVA' || c.status === 'PROGRAMADA') ? t('campaignReport.notStarted') : t('campaignReport.progressText', { done, total, percent })}
          </Text>
        </Flex>
        <div className="cp-progress" role="progressbar" aria-labelledby="cp-progress-label" aria-valuemin={0} aria-valuemax={100} aria-valuenow={percent} data-testid="campaign-progress">
          <div className={`cp-progress-bar cp-${c.status.toLowerCase()}`} style={{ width: `${percent}%` }} />
        </div>
      </section>

      <dl className="cp-cards">
        {CARDS.map(({ key, tone }) => (
          <div key={key} className={tone && c.counts[key] > 0 ? `cp-card ${tone}` : 'cp-card'} data-testid={`campaign-count-${key}`}>
            <dt>{t(`campaignReport.counts.${key}`)}</dt>
            <dd>{c.counts[key]}</dd>
          </div>
        ))}
      </dl>

      <dl className="cp-facts cp-panel">
        <div>
          <dt>{t('campaigns.contactList')}</dt>
          <dd>{c.contactList?.name ?? t('campaigns.noContactList')}</dd>
        </div>
        <div>
          <dt>{t('campaigns.connection')}</dt>
          <dd>{c.whatsapp?.name ?? t('campaigns.noConnection')}</dd>
        </div>
        <div>
          <dt>{t('campaigns.scheduledAt')}</dt>
          <dd data-testid="campaign-scheduled">{c.scheduledAt ? dates.dateTime(c.scheduledAt) : t('campaigns.notScheduled')}</dd>
        </div>
        <div>
          <dt>{t('campaigns.completedAt')}</dt>
          <dd data-testid="campaign-completed">{c.completedAt ? dates.dateTime(c.completedAt) : t('campaigns.notCompleted')}</dd>
        </div>
        <div>
          <dt>{t('campaigns.confirmation')}</dt>
          <dd>{c.confirmation ? t('campaigns.confirmationOn') : t('campaigns.confirmationOff')}</dd>
        </div>
      </dl>
    </Flex>
  );
}
