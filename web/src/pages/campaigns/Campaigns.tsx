import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router-dom';
import { TableCell, TableRow } from '@aws-amplify/ui-react';
import type { ApiCampaign } from '@balcao/shared';
import { campaignsApi } from '../../api/campaigns';
import { toastError } from '../../api/errors';
import { useCampaignsGate } from '../../auth/usePlanGate';
import { useDates } from '../../ui/dates';
import { EntityTablePage } from '../../ui/EntityTablePage';
import { Icon } from '../../ui/icons';
import { toast } from '../../ui/toast';
import { useLiveTable } from '../../ui/useLiveTable';
import CampaignDialog from './CampaignDialog';
import { CampaignStatus } from './CampaignStatus';
import './campaigns.css';

/** The server's search: a fragment of the name, accents and case aside. */
const fold = (s: string) => s.normalize('NFD').replace(/[\u0300-\u036f]/g, '').toLowerCase().trim();
const matches = (c: ApiCampaign, term: string) => !term || fold(c.name).includes(fold(term));

export const reportPath = (id: number) => `/campaign/${id}/report`;

/** The campaigns page (spec 002 §2 "Campaigns"): admins of companies with campaigns. */
export default function Campaigns() {
  const allowed = useCampaignsGate();
  // Without access the routes answer 403: nothing is asked while the redirect runs.
  return allowed ? <CampaignsTable /> : null;
}

function CampaignsTable() {
  const { t } = useTranslation();
  const dates = useDates();
  // Every shipment moves a campaign's counts with an `update`: only a campaign created joins the page.
  const live = useLiveTable<ApiCampaign>({
    api: campaignsApi,
    itemsKey: 'records',
    event: 'Campaign',
    eventNames: ['id', 'record'],
    matches,
    addOnlyCreated: true,
    texts: 'campaigns',
  });
  const { items, actions } = live;
  // The rows whose stop or restart is on its way (one click each).
  const [busy, setBusy] = useState<ReadonlySet<number>>(new Set());

  // Spec 002 §8: a refused stop or restart shows the error's message.
  const act = async (c: ApiCampaign, run: (id: number) => Promise<ApiCampaign>, done: string) => {
    setBusy((s) => new Set(s).add(c.id));
    try {
      live.upsert(await run(c.id), false);
      toast.success(done);
    } catch (e) {
      toastError(e);
    } finally {
      setBusy((s) => {
        const next = new Set(s);
        next.delete(c.id);
        return next;
      });
    }
  };

  return (
    <EntityTablePage
      texts="campaigns"
      live={live}
      add
      pageClassName="cp-page"
      className="cp-table"
      nameOf={(c) => c.name}
      columns={[
        'name',
        ['status', 'cp-status-col'],
        ['contactList', 'hide-narrow'],
        ['connection', 'hide-narrow'],
        ['scheduledAt', 'hide-narrow cp-date-col'],
        ['completedAt', 'hide-narrow cp-date-col'],
        ['confirmation', 'hide-narrow'],
      ]}
      dialogs={actions.editing && <CampaignDialog record={actions.editing.item} onClose={actions.close} onSaved={(x) => live.upsert(x)} />}
    >
      {items.map((c) => {
        const running = c.status === 'EM_ANDAMENTO';
        const pending = busy.has(c.id);
        return (
          <TableRow key={c.id} data-testid={`campaign-row-${c.id}`}>
            <TableCell className="cp-name">{c.name}</TableCell>
            <TableCell className="cp-status-col">
              <CampaignStatus campaign={c} progress />
            </TableCell>
            <TableCell className="hide-narrow">{c.contactList?.name ?? <span className="cp-unset">{t('campaigns.noContactList')}</span>}</TableCell>
            <TableCell className="hide-narrow">{c.whatsapp?.name ?? <span className="cp-unset">{t('campaigns.noConnection')}</span>}</TableCell>
            <TableCell className="hide-narrow cp-date-col">{c.scheduledAt ? dates.dateTime(c.scheduledAt) : <span className="cp-unset">{t('campaigns.notScheduled')}</span>}</TableCell>
            <TableCell className="hide-narrow cp-date-col">{c.completedAt ? dates.dateTime(c.completedAt) : <span className="cp-unset">{t('campaigns.notCompleted')}</span>}</TableCell>
            <TableCell className="hide-narrow">{c.confirmation ? t('campaigns.confirmationOn') : t('campaigns.confirmationOff')}</TableCell>
            <TableCell className="actions-col">
              {running && (
                <button type="button" className="icon-btn" aria-label={`${t('campaigns.stop')} ${c.name}`} title={t('campaigns.stop')} disabled={pending} onClick={() => void act(c, campaignsApi.cancel, t('campaigns.stopped'))}>
                  <Icon name="stop" size={20} />
                </button>
              )}
              {c.status === 'CANCELADA' && (
                <button type="button" className="icon-btn" aria-label={`${t('campaigns.restart')} ${c.name}`} title={t('campaigns.restart')} disabled={pending} onClick={() => void act(c, campaignsApi.restart, t('campaigns.restarted'))}>
                  <Icon name="restart" size={20} />
                </button>
              )}
              <Link to={reportPath(c.id)} className="icon-btn" aria-label={`${t('campaigns.report')} ${c.name}`} title={t('campaigns.report')}>
                <Icon name="report" size={20} />
              </Link>
              <button type="button" className="icon-btn" aria-label={`${t('common.edit')} ${c.name}`} title={t('common.edit')} onClick={() => actions.edit(c)}>
                <Icon name="edit" size={20} />
              </button>
              {/* A running campaign cannot be deleted (the API answers 409): stop it first. */}
              <button
                type="button"
                className="icon-btn danger"
                aria-label={`${t('common.delete')} ${c.name}`}
                title={running ? t('campaigns.deleteRunning') : t('common.delete')}
                disabled={running}
                onClick={() => actions.askDelete(c)}
              >
                <Icon name="delete" size={20} />
              </button>
            </TableCell>
          </TableRow>
        );
      })}
    </EntityTablePage>
  );
}
