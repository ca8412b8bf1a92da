import { useTranslation } from 'react-i18next';
import type { ApiCampaign } from '@balcao/shared';
import { Icon } from '../../ui/icons';

/**
 * A campaign's status (spec 002 §4 labels) and, when it stopped on its own, the reason in red under
 * it (issue 20 §5: a clear error state, not a silent stall). While it runs, how far it got.
 */
export function CampaignStatus({ campaign, progress }: { campaign: Pick<ApiCampaign, 'status' | 'error' | 'counts'>; progress?: boolean }) {
  const { t } = useTranslation();
  const { status, error, counts } = campaign;
  const sent = counts.delivered + counts.failed;
  return (
    <span className="cp-status">
      <span className={`cp-chip cp-${status.toLowerCase()}`} data-status={status} data-testid="campaign-status">
        {t(`campaigns.statuses.${status}`)}
      </span>
      {progress && status === 'EM_ANDAMENTO' && counts.recipients > 0 && (
        <span className="cp-sent">{t('campaigns.sentOf', { sent, total: counts.recipients })}</span>
      )}
      {error && <CampaignError code={error.code} />}
    </span>
  );
}

/** Why a campaign stopped on its own, in the reader's language. */
export function CampaignError({ code }: { code: NonNullable<ApiCampaign['error']>['code'] }) {
  const { t, i18n } = useTranslation();
  const text = i18n.exists(`campaigns.errors.${code}`) ? t(`campaigns.errors.${code}`) : code;
  return (
    <span className="cp-error" role="status" data-testid="campaign-error" data-code={code}>
      <Icon name="warning" size={14} />
      {text}
    </span>
  );
}
