import { useTranslation } from 'react-i18next';
import { TextAreaField, TextField } from '@aws-amplify/ui-react';
import { z } from 'zod';
import { DEFAULT_AI_BASE_URL, promptSchema, type ApiPrompt, type PromptInput, type PromptVoice } from '@balcao/shared';
import { promptsApi } from '../../api/integrations';
import { queuesApi } from '../../api/queues';
import { EntityDialog } from '../../ui/EntityDialog';
import { choicesOf, ControlledSelect, Select } from '../../ui/fields';
import { useEntityForm } from '../../ui/useEntityForm';
import { useOptions } from '../../ui/useLoad';
import { voiceChoices } from './voices';

interface Values {
  name: string;
  prompt: string;
  queueId: string;
  maxTokens: string;
  temperature: string;
  maxMessages: string;
  apiKey: string;
  voice: PromptVoice;
  voiceKey: string;
  voiceRegion: string;
  baseUrl: string;
}

/** Spec 002 §9: the prompt's defaults (and the base of an OpenAI-compatible API, issue 19). */
const DEFAULTS = { maxTokens: 100, temperature: 1, maxMessages: 10, voice: 'texto' as PromptVoice, baseUrl: DEFAULT_AI_BASE_URL };

/** The voice's key and region count only with a voice: with text answers they are not checked nor kept. */
const formSchema = z.preprocess((raw) => {
  const v = raw as Values;
  return v.voice === 'texto' ? { ...v, voiceKey: undefined, voiceRegion: undefined } : v;
}, promptSchema);

/** The AI prompt dialog (spec 002 §3, §5): a queue is mandatory ('Informe o setor'). */
export default function PromptDialog({ record, onClose, onSaved }: { record: ApiPrompt | null; onClose: () => void; onSaved: (p: ApiPrompt) => void }) {
  const { t } = useTranslation();
  const queues = useOptions(queuesApi.all, []);
  const entity = useEntityForm<Values, ApiPrompt>({
    schema: formSchema,
    defaultValues: {
      name: record?.name ?? '',
      prompt: record?.prompt ?? '',
      queueId: record?.queueId ? String(record.queueId) : '',
      maxTokens: String(record?.maxTokens ?? DEFAULTS.maxTokens),
      temperature: String(record?.temperature ?? DEFAULTS.temperature),
      maxMessages: String(record?.maxMessages ?? DEFAULTS.maxMessages),
      // Keys come back masked (`sk-…a1b2`): sent back untouched, they keep the stored ones.
      apiKey: record?.apiKey ?? '',
      voice: (record?.voice as PromptVoice | undefined) ?? DEFAULTS.voice,
      voiceKey: record?.voiceKey ?? '',
      voiceRegion: record?.voiceRegion ?? '',
      baseUrl: record?.baseUrl ?? DEFAULTS.baseUrl,
    },
    // The resolver hands over the schema's output: numbers, trimmed texts, the base without its last slash.
    save: (parsed) => {
      const p = parsed as unknown as PromptInput;
      const voiced = p.voice !== 'texto';
      return promptsApi.save(record?.id, {
        name: p.name,
        prompt: p.prompt,
        queueId: p.queueId,
        maxTokens: p.maxTokens,
        temperature: p.temperature,
        maxMessages: p.maxMessages,
        apiKey: p.apiKey,
        voice: p.voice,
        voiceKey: voiced ? (p.voiceKey ?? null) : null,
        voiceRegion: voiced ? (p.voiceRegion ?? null) : null,
        baseUrl: p.baseUrl,
      });
    },
    savedText: t('prompts.saved'),
    onSaved,
    onClose,
    toastRefusal: 'unmatched',
  });
  const { form, field, errors, error } = entity;
  const voice = form.watch('voice');
  const kept = (stored: string | null | undefined) => (stored ? t('common.secretKept') : undefined);

  return (
    <EntityDialog title={record ? t('prompts.dialogEdit') : t('prompts.dialogAdd')} entity={entity} onClose={onClose} testId="prompt-form">
      <div className="form-grid align-end">
        <TextField label={t('prompts.name')} autoFocus {...field('name')} />
        <ControlledSelect control={form.control} name="queueId" label={t('prompts.queue')} empty={t('prompts.chooseQueue')} choices={choicesOf(queues)} hasError={!!errors.queueId} errorMessage={error('queueId')} />
      </div>
      <TextAreaField label={t('prompts.prompt')} rows={7} descriptiveText={t('prompts.promptHint')} {...field('prompt')} />

      <fieldset className="form-section">
        <legend>{t('prompts.sectionModel')}</legend>
        <div className="form-grid align-end">
          <TextField label={t('prompts.apiKey')} autoComplete="off" spellCheck={false} descriptiveText={kept(record?.apiKey)} {...field('apiKey')} />
          <TextField label={t('prompts.baseUrl')} type="url" inputMode="url" spellCheck={false} descriptiveText={t('prompts.baseUrlHint')} {...field('baseUrl')} />
        </div>
        <div className="form-grid align-end" style={{ marginTop: '0.9rem' }}>
          <TextField label={t('prompts.maxTokens')} type="number" min={1} inputMode="numeric" {...field('maxTokens')} />
          <TextField label={t('prompts.temperature')} type="number" min={0} max={2} step={0.1} inputMode="decimal" descriptiveText={t('prompts.temperatureHint')} {...field('temperature')} />
          <TextField label={t('prompts.maxMessages')} type="number" min={1} inputMode="numeric" descriptiveText={t('prompts.maxMessagesHint')} {...field('maxMessages')} />
        </div>
      </fieldset>

      <fieldset className="form-section">
        <legend>{t('prompts.sectionVoice')}</legend>
        <Select label={t('prompts.voice')} {...field('voice')} choices={voiceChoices(t)} descriptiveText={t('prompts.voiceHint')} />
        {voice !== 'texto' && (
          <div className="form-grid align-end" style={{ marginTop: '0.9rem' }} data-testid="prompt-voice-keys">
            <TextField label={t('prompts.voiceKey')} autoComplete="off" spellCheck={false} descriptiveText={kept(record?.voiceKey)} {...field('voiceKey')} />
            <TextField label={t('prompts.voiceRegion')} spellCheck={false} placeholder="brazilsouth" descriptiveText={t('prompts.voiceRegionHint')} {...field('voiceRegion')} />
          </div>
        )}
      </fieldset>
    </EntityDialog>
  );
}
