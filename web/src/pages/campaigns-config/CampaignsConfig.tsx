import { useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { Button, Flex, Heading, Loader, SelectField, Table, TableBody, TableCell, TableHead, TableRow, Text, TextField } from '@aws-amplify/ui-react';
import {
  CAMPAIGN_GREATER_INTERVALS,
  CAMPAIGN_LONGER_INTERVAL_AFTER,
  CAMPAIGN_MESSAGE_INTERVALS,
  CAMPAIGN_VARIABLES_MAX,
  FORM_SUBMIT_DELAY_MS,
  MSG,
  campaignVariableSchema,
  hasVariable,
  type CampaignSettings,
} from '@balcao/shared';
import { campaignSettingsApi } from '../../api/campaignSettings';
import { toastError } from '../../api/errors';
import { useCampaignsGate } from '../../auth/usePlanGate';
import { translateMessage } from '../../i18n';
import { delay } from '../../ui/form';
import { Icon } from '../../ui/icons';
import { toast } from '../../ui/toast';
import { useLoading } from '../../ui/useLoad';
import './campaigns-config.css';

type IntervalKey = 'messageInterval' | 'longerIntervalAfter' | 'greaterInterval';

/**
 * The three pacing selects (spec 002 §9): seconds between messages (0: none), the messages after
 * which the longer pause comes (0: not defined), and that pause in seconds (0: none).
 */
const SELECTS: { key: IntervalKey; values: readonly number[]; zero: string; unit: 'seconds' | 'messages' }[] = [
  { key: 'messageInterval', values: CAMPAIGN_MESSAGE_INTERVALS, zero: 'campaignsConfig.noInterval', unit: 'seconds' },
  { key: 'longerIntervalAfter', values: CAMPAIGN_LONGER_INTERVAL_AFTER, zero: 'campaignsConfig.notDefined', unit: 'messages' },
  { key: 'greaterInterval', values: CAMPAIGN_GREATER_INTERVALS, zero: 'campaignsConfig.noInterval', unit: 'seconds' },
];

/** The campaign settings page (spec 002 §2 "Campaign settings"): admins of companies with campaigns. */
export default function CampaignsConfig() {
  const allowed = useCampaignsGate();
  // Without access the routes answer 403: nothing is asked while the redirect runs.
  return allowed ? <SettingsForm /> : null;
}

function SettingsForm() {
  const { t } = useTranslation();
  const [settings, setSettings] = useState<CampaignSettings | null>(null);
  const [key, setKey] = useState('');
  const [value, setValue] = useState('');
  const [errors, setErrors] = useState<{ key?: string; value?: string }>({});
  const [saving, setSaving] = useState(false);
  // Changes wait for the Save button: the page says so until they are saved.
  const [dirty, setDirty] = useState(false);
  const loading = useLoading(async (live) => {
    const s = await campaignSettingsApi.get();
    if (live()) setSettings(s);
  }, []);

  if (!settings) {
    return (
      <Flex direction="column" gap="1rem" className="page">
        <Heading level={3}>{t('campaignsConfig.title')}</Heading>
        {loading && <Loader variation="linear" />}
      </Flex>
    );
  }

  const edit = (next: CampaignSettings) => {
    setSettings(next);
    setDirty(true);
  };
  const change = (k: IntervalKey, v: string) => edit({ ...settings, [k]: Number(v) });

  // Spec 002 §5: a shortcut already in the list is not added.
  const addVariable = () => {
    const parsed = campaignVariableSchema.safeParse({ key, value });
    const next: typeof errors = {};
    if (!parsed.success) for (const issue of parsed.error.issues) next[issue.path[0] as 'key' | 'value'] ??= translateMessage(issue.message);
    if (!next.key && hasVariable(settings.variables, key)) next.key = translateMessage(MSG.variableTaken);
    if (!next.key && !next.value && settings.variables.length >= CAMPAIGN_VARIABLES_MAX) next.key = translateMessage(MSG.tooManyVariables);
    setErrors(next);
    if (next.key || next.value || !parsed.success) return;
    edit({ ...settings, variables: [...settings.variables, parsed.data] });
    setKey('');
    setValue('');
  };

  const removeVariable = (k: string) => edit({ ...settings, variables: settings.variables.filter((v) => v.key !== k) });

  const save = async (e: FormEvent) => {
    e.preventDefault();
    setSaving(true);
    try {
      await delay(FORM_SUBMIT_DELAY_MS);
      setSettings(await campaignSettingsApi.save(settings));
      setDirty(false);
      toast.success(t('campaignsConfig.saved'));
    } catch (err) {
      toastError(err);
    } finally {
      setSaving(false);
    }
  };

  const label = (s: (typeof SELECTS)[number], n: number) => (n === 0 ? t(s.zero) : t(`campaignsConfig.${s.unit}`, { count: n }));

  return (
    <form onSubmit={save} noValidate className="page campaigns-config" data-testid="campaigns-config">
      <Flex direction="column" gap="1.25rem">
        <Flex className="page-header" alignItems="center" justifyContent="space-between" wrap="wrap" gap="0.75rem">
          <Heading level={3}>{t('campaignsConfig.title')}</Heading>
          <Flex alignItems="center" gap="0.75rem">
            {dirty && (
              <Text as="span" className="cc-unsaved" data-testid="campaign-settings-unsaved">
                {t('campaignsConfig.unsaved')}
              </Text>
            )}
            <Button type="submit" variation="primary" isLoading={saving} loadingText={t('campaignsConfig.save')}>
              {t('campaignsConfig.save')}
            </Button>
          </Flex>
        </Flex>

        <section className="cc-section">
          <Heading level={5}>{t('campaignsConfig.intervals')}</Heading>
          <Text fontSize="small" color="var(--muted)">
            {t('campaignsConfig.intervalsHint')}
          </Text>
          <div className="settings-grid">
            {SELECTS.map((s) => (
              <SelectField key={s.key} label={t(`campaignsConfig.${s.key}`)} value={String(settings[s.key])} onChange={(e) => change(s.key, e.target.value)} data-testid={`campaign-setting-${s.key}`}>
                {s.values.map((n) => (
                  <option key={n} value={n}>
                    {label(s, n)}
                  </option>
                ))}
              </SelectField>
            ))}
          </div>
        </section>

        <section className="cc-section">
          <Heading level={5}>{t('campaignsConfig.variables')}</Heading>
          <Text fontSize="small" color="var(--muted)">
            {t('campaignsConfig.variablesHint')}
          </Text>
          <div className="cc-add">
            <TextField
              label={t('campaignsConfig.shortcut')}
              placeholder={t('campaignsConfig.shortcutPlaceholder')}
              value={key}
              onChange={(e) => setKey(e.target.value)}
              hasError={!!errors.key}
              errorMessage={errors.key}
              autoComplete="off"
            />
            <TextField
              label={t('campaignsConfig.content')}
              value={value}
              onChange={(e) => setValue(e.target.value)}
              onKeyDown={(e) => {
                if (e.key === 'Enter') {
                  e.preventDefault();
                  addVariable();
                }
              }}
              hasError={!!errors.value}
              errorMessage={errors.value}
              autoComplete="off"
            />
            <Button onClick={addVariable} className="cc-add-btn">
              {t('campaignsConfig.addVariable')}
            </Button>
          </div>
          <div className="table-scroll">
            <Table size="small" className="data-table" data-testid="campaign-variables">
              <TableHead>
                <TableRow>
                  <TableCell as="th">{t('campaignsConfig.shortcut')}</TableCell>
                  <TableCell as="th">{t('campaignsConfig.content')}</TableCell>
                  <TableCell as="th" className="actions-col">
                    {t('common.actions')}
                  </TableCell>
                </TableRow>
              </TableHead>
              <TableBody>
                {settings.variables.length === 0 && (
                  <TableRow>
                    <TableCell colSpan={3} className="empty">
                      {t('campaignsConfig.noVariables')}
                    </TableCell>
                  </TableRow>
                )}
                {settings.variables.map((v) => (
                  <TableRow key={v.key}>
                    <TableCell>
                      <code className="cc-key">{`{${v.key}}`}</code>
                    </TableCell>
                    <TableCell className="cc-value">{v.value}</TableCell>
                    <TableCell className="actions-col">
                      <button type="button" className="icon-btn danger" aria-label={t('campaignsConfig.removeVariable', { key: v.key })} onClick={() => removeVariable(v.key)}>
                        <Icon name="delete" size={20} />
                      </button>
                    </TableCell>
                  </TableRow>
                ))}
              </TableBody>
            </Table>
          </div>
        </section>
      </Flex>
    </form>
  );
}
