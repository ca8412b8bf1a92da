import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Button, Flex, TextAreaField, TextField } from '@aws-amplify/ui-react';
import { z } from 'zod';
import { DIALOGFLOW_LANGUAGES, INTEGRATION_TYPES, queueIntegrationSchema, type ApiQueueIntegration, type IntegrationType } from '@balcao/shared';
import { applyFieldErrors, errorText } from '../../api/errors';
import { ApiError } from '../../api/http';
import { integrationsApi, type TestSessionBody } from '../../api/integrations';
import { translateMessage } from '../../i18n';
import { EntityDialog } from '../../ui/EntityDialog';
import { Select } from '../../ui/fields';
import { toast } from '../../ui/toast';
import { useEntityForm } from '../../ui/useEntityForm';
import { TypeLogo } from './TypeLogo';

interface Values {
  type: IntegrationType;
  name: string;
  projectName: string;
  jsonContent: string;
  language: string;
  urlN8N: string;
  typebotSlug: string;
  typebotExpires: string;
  typebotDelayMessage: string;
  typebotKeywordFinish: string;
  typebotKeywordRestart: string;
  typebotUnknownMessage: string;
  typebotRestartMessage: string;
}
type Field = Exclude<keyof Values, 'type'>;

/** Spec 003 §4-§5: the fields each type uses (the others are not shown, checked nor kept). */
const FIELDS: Record<IntegrationType, readonly Field[]> = {
  dialogflow: ['name', 'language', 'projectName', 'jsonContent'],
  n8n: ['name', 'urlN8N'],
  webhook: ['name', 'urlN8N'],
  typebot: ['name', 'urlN8N', 'typebotSlug', 'typebotExpires', 'typebotDelayMessage', 'typebotKeywordFinish', 'typebotKeywordRestart', 'typebotUnknownMessage', 'typebotRestartMessage'],
};
const TEXTS: readonly Field[] = ['projectName', 'jsonContent', 'language', 'urlN8N', 'typebotSlug', 'typebotKeywordFinish', 'typebotKeywordRestart', 'typebotUnknownMessage', 'typebotRestartMessage'];
const NUMBERS = ['typebotExpires', 'typebotDelayMessage'] as const;
/** Spec 003 §9: the form's defaults. */
const DEFAULTS = { type: 'typebot' as IntegrationType, typebotExpires: 1, typebotDelayMessage: 1000 };

/**
 * What the shared schema checks: the fields of the chosen type only. The stored service account
 * comes back masked (its private key "…"), which is no valid key: left untouched, it stands for the
 * stored one (the server swaps it back), so the form checks a stand-in instead.
 */
const STAND_IN = JSON.stringify({ type: 'service_account', project_id: 'stored', client_email: 'stored', private_key: '-----BEGIN PRIVATE KEY-----' });
const formSchema = (mask: string | null) =>
  z.preprocess((raw) => {
    const v = raw as Values;
    const out: Record<string, unknown> = { type: v.type };
    for (const f of FIELDS[v.type] ?? []) out[f] = v[f];
    if (mask && v.type === 'dialogflow' && v.jsonContent === mask) out.jsonContent = STAND_IN;
    return out;
  }, queueIntegrationSchema);

/** The request body: the chosen type's fields, the others emptied; `projectName` is the name but for Dialogflow. */
function toBody(v: Values): Record<string, unknown> {
  const mine = new Set<Field>(FIELDS[v.type]);
  const body: Record<string, unknown> = { type: v.type, name: v.name.trim() };
  for (const f of TEXTS) body[f] = mine.has(f) ? v[f].trim() || null : null;
  // The service account goes as typed (its mask, unchanged, keeps the stored key).
  if (mine.has('jsonContent')) body.jsonContent = v.jsonContent || null;
  if (v.type !== 'dialogflow') body.projectName = body.name;
  for (const f of NUMBERS) if (mine.has(f) && String(v[f]).trim() !== '') body[f] = Number(v[f]);
  return body;
}

const text = (s: string | null | undefined) => s ?? '';

/** Why a Test failed, as the server names it (`reason`), in the user's language. */
const TEST_REASONS = ['timeout', 'credentials', 'access', 'notFound', 'refused', 'unexpected'];
function failureText(e: ApiError, t: (key: string) => string): string {
  const reason = (e.body as { reason?: string }).reason;
  const message = e.body.message ?? '';
  if (!reason || !TEST_REASONS.includes(reason)) return translateMessage(message) || t('common.genericError');
  // Google's or Dialogflow's own words (`invalid_grant`) close the server's message, in brackets.
  const detail = reason === 'credentials' || reason === 'refused' ? /\(([^()]+)\)\s*$/.exec(message)?.[1] : undefined;
  return detail ? `${t(`integrations.testReasons.${reason}`)} (${detail})` : t(`integrations.testReasons.${reason}`);
}

/** The queue integration dialog (spec 003 §2, §4-§5): a type, its fields, Dialogflow's Test. */
export default function IntegrationDialog({ record, onClose, onSaved }: { record: ApiQueueIntegration | null; onClose: () => void; onSaved: (i: ApiQueueIntegration) => void }) {
  const { t } = useTranslation();
  const mask = record?.type === 'dialogflow' ? record.jsonContent : null;
  const [schema] = useState(() => formSchema(mask));
  const entity = useEntityForm<Values, ApiQueueIntegration>({
    schema,
    defaultValues: {
      type: record?.type ?? DEFAULTS.type,
      name: text(record?.name),
      projectName: text(record?.projectName),
      jsonContent: text(record?.jsonContent),
      language: text(record?.language),
      urlN8N: text(record?.urlN8N),
      typebotSlug: text(record?.typebotSlug),
      typebotExpires: String(record?.typebotExpires ?? DEFAULTS.typebotExpires),
      typebotDelayMessage: String(record?.typebotDelayMessage ?? DEFAULTS.typebotDelayMessage),
      typebotKeywordFinish: text(record?.typebotKeywordFinish),
      typebotKeywordRestart: text(record?.typebotKeywordRestart),
      typebotUnknownMessage: text(record?.typebotUnknownMessage),
      typebotRestartMessage: text(record?.typebotRestartMessage),
    },
    save: (_, raw) => integrationsApi.save(record?.id, toBody(raw)),
    savedText: record ? t('integrations.edited') : t('integrations.added'),
    onSaved,
    onClose,
    toastRefusal: 'unmatched',
  });
  const { form, field } = entity;
  const type = form.watch('type');
  const shows = (f: Field) => FIELDS[type].includes(f);
  const typeName = (ty: IntegrationType) => t(`integrations.types.${ty}`);

  // Dialogflow's Test (spec 003 §7): one detectIntent with what the form holds.
  const [testing, setTesting] = useState(false);
  const [outcome, setOutcome] = useState<{ ok: boolean; text: string } | null>(null);
  const test = async () => {
    setOutcome(null);
    if (!(await form.trigger(['language', 'jsonContent']))) return;
    const v = form.getValues();
    setTesting(true);
    try {
      const r = await integrationsApi.testSession({ id: record?.id, projectName: v.projectName.trim() || null, jsonContent: v.jsonContent, language: v.language as TestSessionBody['language'] });
      const lines = [r.intent ? t('integrations.testIntent', { intent: r.intent }) : null, r.reply ? t('integrations.testReply', { reply: r.reply }) : null].filter(Boolean);
      setOutcome({ ok: true, text: lines.join('\n') || t('integrations.testNoReply') });
      toast.success(t('integrations.testSuccess'));
    } catch (e) {
      if (e instanceof ApiError && e.code === 'ERR_INTEGRATION_TEST_FAILED') {
        setOutcome({ ok: false, text: t('integrations.testFailed', { reason: failureText(e, t) }) });
        toast.error(t('errors.ERR_INTEGRATION_TEST_FAILED'), 3000);
      } else {
        const shown = applyFieldErrors(e, form.setError as never, ['language', 'jsonContent', 'projectName']);
        if (!shown) setOutcome({ ok: false, text: errorText(e) });
      }
    } finally {
      setTesting(false);
    }
  };

  return (
    <EntityDialog title={record ? t('integrations.dialogEdit') : t('integrations.dialogAdd')} entity={entity} onClose={onClose} submitText={t('common.ok')} testId="integration-form">
      <Flex alignItems="flex-end" gap="0.75rem">
        <Select
          label={t('integrations.type')}
          flex="1"
          {...form.register('type', { onChange: () => setOutcome(null) })}
          choices={INTEGRATION_TYPES.map((ty) => ({ value: ty, label: typeName(ty) }))}
        />
        <TypeLogo type={type} label={typeName(type)} size={38} />
      </Flex>
      <TextField label={t('integrations.name')} autoFocus {...field('name')} />
      {type === 'dialogflow' && (
        <>
          <div className="form-grid align-end">
            <Select label={t('integrations.language')} {...field('language')} empty={t('integrations.chooseLanguage')} choices={DIALOGFLOW_LANGUAGES.map((l) => ({ value: l, label: t(`integrations.languages.${l}`) }))} />
            <TextField label={t('integrations.projectName')} descriptiveText={t('integrations.projectNameHint')} {...field('projectName')} />
          </div>
          <TextAreaField
            label={t('integrations.jsonContent')}
            className="qi-json"
            rows={8}
            spellCheck={false}
            placeholder='{ "type": "service_account", "project_id": "…", "private_key": "…", "client_email": "…" }'
            descriptiveText={mask ? t('integrations.jsonKept') : t('integrations.jsonContentHint')}
            {...field('jsonContent')}
          />
          <div className="qi-test">
            <Button type="button" size="small" onClick={() => void test()} isLoading={testing} loadingText={t('integrations.testing')}>
              {t('integrations.test')}
            </Button>
            {outcome && (
              <span className={`qi-test-result ${outcome.ok ? 'ok' : 'failed'}`} data-testid="integration-test-result" role="status">
                {outcome.text}
              </span>
            )}
          </div>
        </>
      )}
      {shows('urlN8N') && <TextField label={t('integrations.urlN8N')} type="url" inputMode="url" placeholder="https://" descriptiveText={t(`integrations.urlHint.${type}`)} {...field('urlN8N')} />}
      {type === 'typebot' && (
        <>
          <TextField label={t('integrations.typebotSlug')} descriptiveText={t('integrations.typebotSlugHint')} {...field('typebotSlug')} />
          <div className="form-grid align-end">
            <TextField label={t('integrations.typebotExpires')} type="number" min={0} inputMode="numeric" descriptiveText={t('integrations.typebotExpiresHint')} {...field('typebotExpires')} />
            <TextField label={t('integrations.typebotDelayMessage')} type="number" min={0} step={100} inputMode="numeric" {...field('typebotDelayMessage')} />
            <TextField label={t('integrations.typebotKeywordFinish')} {...field('typebotKeywordFinish')} />
            <TextField label={t('integrations.typebotKeywordRestart')} {...field('typebotKeywordRestart')} />
          </div>
          <TextAreaField label={t('integrations.typebotUnknownMessage')} rows={2} {...field('typebotUnknownMessage')} />
          <TextAreaField label={t('integrations.typebotRestartMessage')} rows={2} {...field('typebotRestartMessage')} />
        </>
      )}
    </EntityDialog>
  );
}
