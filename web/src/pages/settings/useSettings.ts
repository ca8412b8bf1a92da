import { useEffect } from 'react';
import { useTranslation } from 'react-i18next';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { companyEvent, DEFAULT_SETTINGS, type SettingItem, type SettingKey } from '@balcao/shared';
import { call } from '../../api/call';
import { toastError } from '../../api/errors';
import { realtime } from '../../api/realtime';
import { useAuth } from '../../auth/AuthContext';
import { toast } from '../../ui/toast';

/**
 * The company's settings as the settings page shows them (`GET /settings`), kept live by the
 * `settings` event; `change` saves one at once and puts it back when refused. The page's tabs
 * read it too: the Schedules tab follows `scheduleType` as soon as it is chosen.
 */
export function useSettings() {
  const { t } = useTranslation();
  const { user, setSetting } = useAuth();
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

  const value = (k: SettingKey) => data?.find((s) => s.key === k)?.value ?? DEFAULT_SETTINGS[k];

  const change = async (k: SettingKey, v: string) => {
    const before = data?.find((s) => s.key === k)?.value;
    put(k, v);
    try {
      await call('PUT /settings/{key}', { params: { key: k }, body: { value: v } });
      // The rest of the console (the queue dialog's schedule) reads the settings with the user.
      setSetting({ key: k, value: v });
      // Spec 000 §4: the schedule type change has its own toast closing after 2 s.
      toast.success(k === 'scheduleType' ? t('settings.scheduleSaved') : t('settings.saved'), 2000);
    } catch (e) {
      if (before !== undefined) put(k, before);
      toastError(e);
    }
  };

  return { isLoading, value, change };
}

export type Settings = ReturnType<typeof useSettings>;
