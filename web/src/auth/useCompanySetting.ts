import { DEFAULT_SETTINGS, type SettingKey } from '@balcao/shared';
import { useAuth } from './AuthContext';

/**
 * A setting of the signed-in user's company (kept live by the `settings` event), or its default.
 * Its own module: the defaults sit beside the settings' schemas, which the first load leaves out.
 */
export function useCompanySetting(key: SettingKey): string {
  const { user } = useAuth();
  return user?.company?.settings?.find((s) => s.key === key)?.value ?? DEFAULT_SETTINGS[key];
}
