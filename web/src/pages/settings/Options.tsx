import { useTranslation } from 'react-i18next';
import { Loader, SelectField } from '@aws-amplify/ui-react';
import type { SettingKey } from '@balcao/shared';
import { UNBUILT_SETTINGS } from '../../features';
import type { Settings } from './useSettings';

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

export default function Options({ settings }: { settings: Settings }) {
  const { t } = useTranslation();
  if (settings.isLoading) return <Loader variation="linear" />;
  return (
    <div className="settings-grid">
      {OPTIONS.map((o) => (
        <SelectField
          key={o.key}
          label={t(`settings.keys.${o.key}`)}
          value={settings.value(o.key)}
          onChange={(e) => void settings.change(o.key, e.target.value)}
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
