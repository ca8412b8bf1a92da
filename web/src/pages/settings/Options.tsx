import { useEffect } from 'react';
import { useTranslation } from 'react-i18next';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { Loader, SelectField } from '@aws-amplify/ui-react';
import { companyEvent, DEFAULT_SETTINGS, type SettingItem, type SettingKey } from '@balcao/shared';
import { toastError } from '../../api/errors';
import { realtime } from '../../api/realtime';
import { useAuth } from '../../auth/AuthContext';
import { toast } from '../../ui/toast';
import { UNBUILT_SETTINGS } from '../../features';
import { call } from '../../api/call';

const ED = ['enabled', 'disabled'];
/** The Options tab of spec 000 §7: each key with the values it may take. */
const OPTIONS: { key: SettingKey; values: string[] }[] = [
  { key: 'userRating', values: ED },
  { key: 'scheduleType', values: ['disabled', 'queue', 'company'] },
  { key: 'CheckMsgIsGroup', values: ED },
  { key: 'call', values: ED },
  { key: 'chatBotType', values: ['text'] },
  { key: 'sendGreetingAccepted', values: ED },
  { key: 'sendMsgTransfTicket', values: ED },
  { key: 'sendGreetingMessageOneQueues', values: ED },
];

export default function Options() {
  const { t } = useTranslation();
  const { user } = useAuth();
  const qc = useQueryClient();
  const key = ['settings', user?.companyId];
  const { data, isLoading, error, refetch } = useQuery({ queryKey: key, queryFn: () => call('GET /settings') });

  useEffect(() => {
    if (error) toastError(error);
  }, [error]);

  const put = (k: string, value: string) =>
    qc.setQueryData<SettingItem[]>(key, (l = []) => (l.some((s) => s.key === k) ? l.map((s) => (s.key === k ? { ...s, value } : s)) : [...l, { key: k, value }]));

  useEffect(() => {
    if (!user) return;
    const off = realtime.on(companyEvent(user.companyId, 'settings'), (d) => {
      if (d?.setting?.key) put(d.setting.key, String(d.setting.value));
    });
    const offR = realtime.onReconnect(() => void refetch());
    return () => {
      off();
      offR();
    };
  }, [user?.companyId]);

  const change = async (k: SettingKey, value: string) => {
    const before = data?.find((s) => s.key === k)?.value;
    put(k, value);
    try {
      await call('PUT /settings/{key}', { params: { key: k }, body: { value } });
      // Spec 000 §4: the schedule type change has its own toast closing after 2 s.
      toast.success(k === 'scheduleType' ? t('settings.scheduleSaved') : t('settings.saved'), 2000);
    } catch (e) {
      if (before !== undefined) put(k, before);
      toastError(e);
    }
  };

  if (isLoading) return <Loader variation="linear" />;
  const value = (k: SettingKey) => data?.find((s) => s.key === k)?.value ?? DEFAULT_SETTINGS[k];
  return (
    <div className="settings-grid">
      {OPTIONS.map((o) => (
        <SelectField
          key={o.key}
          label={t(`settings.keys.${o.key}`)}
          value={value(o.key)}
          onChange={(e) => void change(o.key, e.target.value)}
          data-testid={`setting-${o.key}`}
          // A setting of a feature still to come changes nothing yet: shown, not offered.
          isDisabled={UNBUILT_SETTINGS.includes(o.key)}
          descriptiveText={UNBUILT_SETTINGS.includes(o.key) ? t('common.comingSoon') : undefined}
        >
          {o.values.map((v) => (
            <option key={v} value={v}>
              {t(`settings.values.${v}`)}
            </option>
          ))}
        </SelectField>
      ))}
    </div>
  );
}
