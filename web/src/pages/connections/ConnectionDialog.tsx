import { useEffect, useState } from 'react';
import { Controller, useForm } from 'react-hook-form';
import { useTranslation } from 'react-i18next';
import { Button, CheckboxField, Flex, Loader, SelectField, Text, TextAreaField, TextField } from '@aws-amplify/ui-react';
import { connectionSchema, FORM_SUBMIT_DELAY_MS, PROVIDERS, type Connection, type Queue } from '@balcao/shared';
import { api } from '../../api/http';
import { applyFieldErrors, toastError } from '../../api/errors';
import { Modal } from '../../ui/Modal';
import { BUILT } from '../../features';
import { QueueChips } from '../../ui/QueueChips';
import { delay, fieldError, resolver } from '../../ui/form';
import { toast } from '../../ui/toast';

interface Values {
  name: string;
  provider: string;
  isDefault: boolean;
  greetingMessage: string;
  complationMessage: string;
  outOfHoursMessage: string;
  ratingMessage: string;
  expiresInactiveMessage: string;
  token: string;
  queueIds: number[];
  transferQueueId: string;
  timeToTransfer: string;
  expiresTicket: string;
  timeUseBotQueues: string;
  maxUseBotQueues: string;
  promptId: string;
  integrationId: string;
}

/** What the resolver hands over: the shared schema's parsed output. */
interface Parsed {
  name: string;
  provider?: Connection['provider'];
  isDefault?: boolean;
  greetingMessage?: string;
  complationMessage?: string;
  outOfHoursMessage?: string;
  ratingMessage?: string;
  expiresInactiveMessage?: string;
  token?: string;
  queueIds?: number[];
  transferQueueId?: number | null;
  timeToTransfer?: number;
  expiresTicket?: number;
  timeUseBotQueues?: number;
  maxUseBotQueues?: number;
  promptId?: number | null;
  integrationId?: number | null;
}

interface Named {
  id: number;
  name: string;
}

const FIELDS = [
  'name', 'provider', 'isDefault', 'greetingMessage', 'complationMessage', 'outOfHoursMessage', 'ratingMessage',
  'expiresInactiveMessage', 'token', 'queueIds', 'transferQueueId', 'timeToTransfer', 'expiresTicket',
  'timeUseBotQueues', 'maxUseBotQueues', 'promptId', 'integrationId',
] as const;

const DEFAULT_MAX_USE_BOT_QUEUES = 3; // spec 000 §2.8

const EMPTY: Values = {
  name: '',
  provider: 'beta',
  isDefault: false,
  greetingMessage: '',
  complationMessage: '',
  outOfHoursMessage: '',
  ratingMessage: '',
  expiresInactiveMessage: '',
  token: '',
  queueIds: [],
  transferQueueId: '',
  timeToTransfer: '',
  expiresTicket: '',
  timeUseBotQueues: '',
  maxUseBotQueues: String(DEFAULT_MAX_USE_BOT_QUEUES),
  promptId: '',
  integrationId: '',
};

const num = (n: number | null | undefined) => (n ? String(n) : '');

function toValues(c: Connection): Values {
  return {
    name: c.name,
    provider: c.provider,
    isDefault: c.isDefault,
    greetingMessage: c.greetingMessage ?? '',
    complationMessage: c.complationMessage ?? '',
    outOfHoursMessage: c.outOfHoursMessage ?? '',
    ratingMessage: c.ratingMessage ?? '',
    expiresInactiveMessage: c.expiresInactiveMessage ?? '',
    token: '',
    queueIds: c.queueIds ?? c.queues?.map((q) => q.id) ?? [],
    transferQueueId: num(c.transferQueueId),
    timeToTransfer: num(c.timeToTransfer),
    expiresTicket: num(c.expiresTicket),
    timeUseBotQueues: num(c.timeUseBotQueues),
    maxUseBotQueues: c.maxUseBotQueues != null ? String(c.maxUseBotQueues) : '',
    promptId: num(c.promptId),
    integrationId: num(c.integrationId),
  };
}

/** 32 URL-safe characters from the browser's CSPRNG. */
export function randomToken(): string {
  const bytes = new Uint8Array(24);
  crypto.getRandomValues(bytes);
  return btoa(String.fromCharCode(...bytes)).replaceAll('+', '-').replaceAll('/', '_').replace(/=+$/, '');
}

/** Prompts and integrations come with later issues (features.ts): until then their fields stay disabled. */
const optionalList = (path: string) =>
  api
    .get<unknown>(path)
    .then((l) => (Array.isArray(l) ? l : l && typeof l === 'object' ? Object.values(l).find(Array.isArray) ?? null : null) as Named[] | null)
    .catch(() => null);

export default function ConnectionDialog({
  connectionId,
  onClose,
  onSaved,
}: {
  connectionId: number | null;
  onClose: () => void;
  onSaved: (c: Connection) => void;
}) {
  const { t } = useTranslation();
  const editing = connectionId !== null;
  // The id selects below are Controllers (React owns their value): the connection may load before
  // their option lists, and a select whose option is not there yet would lose the value.
  const [loading, setLoading] = useState(editing);
  const [current, setCurrent] = useState<Connection | null>(null);
  const [queues, setQueues] = useState<Queue[]>([]);
  const [prompts, setPrompts] = useState<Named[] | null>(null);
  const [integrations, setIntegrations] = useState<Named[] | null>(null);

  const { register, control, handleSubmit, reset, setError, setValue, watch, formState } = useForm<Values>({
    resolver: resolver<Values>(connectionSchema),
    defaultValues: EMPTY,
  });

  useEffect(() => {
    let live = true;
    api.get<Queue[]>('/queue').then((l) => live && setQueues(l)).catch(() => live && setQueues([]));
    if (BUILT.prompts) void optionalList('/prompt').then((l) => live && setPrompts(l));
    if (BUILT.integrations) void optionalList('/queueIntegration').then((l) => live && setIntegrations(l));
    if (connectionId !== null) {
      api
        .get<Connection>(`/whatsapp/${connectionId}`)
        .then((c) => {
          if (!live) return;
          setCurrent(c);
          reset(toValues(c));
        })
        .catch((e) => {
          if (!live) return;
          toastError(e);
          onClose();
        })
        .finally(() => live && setLoading(false));
    }
    return () => {
      live = false;
    };
  }, [connectionId, reset]);

  const onSubmit = handleSubmit(async (raw) => {
    const v = raw as unknown as Parsed;
    await delay(FORM_SUBMIT_DELAY_MS);
    const body: Record<string, unknown> = {
      name: v.name.trim(),
      provider: v.provider ?? 'beta',
      isDefault: !!v.isDefault,
      greetingMessage: v.greetingMessage ?? '',
      complationMessage: v.complationMessage ?? '',
      outOfHoursMessage: v.outOfHoursMessage ?? '',
      ratingMessage: v.ratingMessage ?? '',
      expiresInactiveMessage: v.expiresInactiveMessage ?? '',
      // Empty keeps the stored token (it is write-only).
      token: v.token?.trim() ?? '',
      queueIds: v.queueIds ?? [],
      transferQueueId: v.transferQueueId ?? null,
      // An emptied minutes field means "off" (0); an emptied maximum falls back to the default.
      timeToTransfer: v.timeToTransfer ?? 0,
      expiresTicket: v.expiresTicket ?? 0,
      timeUseBotQueues: v.timeUseBotQueues ?? 0,
      maxUseBotQueues: v.maxUseBotQueues ?? DEFAULT_MAX_USE_BOT_QUEUES,
    };
    // Without their routes the lists are unknown: leave whatever is stored untouched.
    if (prompts) body.promptId = v.promptId ?? null;
    if (integrations) body.integrationId = v.integrationId ?? null;
    try {
      const saved = editing ? await api.put<Connection>(`/whatsapp/${connectionId}`, body) : await api.post<Connection>('/whatsapp', body);
      toast.success(t('connections.saved'));
      onSaved(saved);
      onClose();
    } catch (e) {
      applyFieldErrors(e, setError as never, FIELDS);
      toastError(e);
    }
  });

  const err = formState.errors;
  const token = watch('token');
  const minutes = (name: 'timeToTransfer' | 'expiresTicket' | 'timeUseBotQueues', label: string) => (
    <TextField
      label={label}
      type="number"
      min={0}
      inputMode="numeric"
      descriptiveText={t('connections.minutesOff')}
      {...register(name)}
      hasError={!!err[name]}
      errorMessage={fieldError(err[name])}
    />
  );

  return (
    <Modal open title={editing ? t('connections.dialogEdit') : t('connections.dialogAdd')} onClose={onClose} wide>
      {loading ? (
        <Loader variation="linear" />
      ) : (
        <form onSubmit={onSubmit} noValidate>
          <Flex direction="column" gap="0.9rem">
            <fieldset className="form-section">
              <legend>{t('connections.sectionGeneral')}</legend>
              <div className="form-grid">
                <TextField label={t('connections.name')} autoFocus {...register('name')} hasError={!!err.name} errorMessage={fieldError(err.name)} />
                <SelectField label={t('connections.provider')} {...register('provider')} hasError={!!err.provider} errorMessage={fieldError(err.provider)}>
                  {PROVIDERS.map((p) => (
                    <option key={p} value={p}>
                      {t(`connections.providers.${p}`)}
                    </option>
                  ))}
                </SelectField>
              </div>
              <Controller
                control={control}
                name="isDefault"
                render={({ field }) => (
                  <CheckboxField
                    label={t('connections.isDefault')}
                    name={field.name}
                    checked={!!field.value}
                    onChange={(e) => field.onChange(e.target.checked)}
                    hasError={!!err.isDefault}
                    errorMessage={fieldError(err.isDefault)}
                    marginTop="0.75rem"
                  />
                )}
              />
            </fieldset>

            <fieldset className="form-section">
              <legend>{t('connections.sectionMessages')}</legend>
              <Flex direction="column" gap="0.75rem">
                <TextAreaField label={t('connections.greetingMessage')} rows={3} {...register('greetingMessage')} hasError={!!err.greetingMessage} errorMessage={fieldError(err.greetingMessage)} />
                <TextAreaField label={t('connections.complationMessage')} rows={3} {...register('complationMessage')} hasError={!!err.complationMessage} errorMessage={fieldError(err.complationMessage)} />
                <TextAreaField label={t('connections.outOfHoursMessage')} rows={3} {...register('outOfHoursMessage')} hasError={!!err.outOfHoursMessage} errorMessage={fieldError(err.outOfHoursMessage)} />
                <TextAreaField label={t('connections.ratingMessage')} rows={3} {...register('ratingMessage')} hasError={!!err.ratingMessage} errorMessage={fieldError(err.ratingMessage)} />
              </Flex>
            </fieldset>

            <fieldset className="form-section">
              <legend>{t('connections.sectionQueues')}</legend>
              <Text as="div" fontSize="small" color="font.secondary" marginBottom="0.35rem">
                {t('connections.queues')}
              </Text>
              <Controller
                control={control}
                name="queueIds"
                render={({ field }) => (
                  <QueueChips queues={queues} value={field.value} onChange={field.onChange} label={t('connections.queues')} />
                )}
              />
              {err.queueIds && (
                <Text color="font.error" fontSize="small" marginTop="0.25rem">
                  {fieldError(err.queueIds as { message?: string })}
                </Text>
              )}
              <div className="form-grid align-end" style={{ marginTop: '0.9rem' }}>
                <Controller
                  control={control}
                  name="transferQueueId"
                  render={({ field }) => (
                    <SelectField
                      label={t('connections.transferQueue')}
                      name={field.name}
                      value={field.value ?? ''}
                      onChange={(e) => field.onChange(e.target.value)}
                      onBlur={field.onBlur}
                      hasError={!!err.transferQueueId}
                      errorMessage={fieldError(err.transferQueueId)}
                    >
                      <option value="">{t('connections.noQueue')}</option>
                      {queues.map((q) => (
                        <option key={q.id} value={q.id}>
                          {q.name}
                        </option>
                      ))}
                    </SelectField>
                  )}
                />
                {minutes('timeToTransfer', t('connections.timeToTransfer'))}
                {minutes('expiresTicket', t('connections.expiresTicket'))}
                {minutes('timeUseBotQueues', t('connections.timeUseBotQueues'))}
                <TextField
                  label={t('connections.maxUseBotQueues')}
                  type="number"
                  min={0}
                  inputMode="numeric"
                  {...register('maxUseBotQueues')}
                  hasError={!!err.maxUseBotQueues}
                  errorMessage={fieldError(err.maxUseBotQueues)}
                />
              </div>
              <TextAreaField
                label={t('connections.expiresInactiveMessage')}
                rows={3}
                marginTop="0.9rem"
                {...register('expiresInactiveMessage')}
                hasError={!!err.expiresInactiveMessage}
                errorMessage={fieldError(err.expiresInactiveMessage)}
              />
            </fieldset>

            <fieldset className="form-section">
              <legend>{t('connections.sectionIntegrations')}</legend>
              <Flex alignItems="flex-end" gap="0.5rem" wrap="wrap">
                <TextField
                  flex="1 1 260px"
                  label={t('connections.token')}
                  autoComplete="off"
                  spellCheck={false}
                  descriptiveText={current?.hasToken ? t('connections.tokenKeep') : t('connections.tokenHelp')}
                  {...register('token')}
                  hasError={!!err.token}
                  errorMessage={fieldError(err.token)}
                />
                <Button onClick={() => setValue('token', randomToken(), { shouldDirty: true, shouldValidate: true })}>{t('connections.generateToken')}</Button>
                <Button
                  isDisabled={!token}
                  onClick={() =>
                    void navigator.clipboard
                      ?.writeText(token)
                      .then(() => toast.success(t('connections.tokenCopied')))
                      .catch(() => undefined)
                  }
                >
                  {t('connections.copyToken')}
                </Button>
              </Flex>
              {token && (
                <Text fontSize="small" className="token-note" marginTop="0.35rem" role="note">
                  {t('connections.tokenShownOnce')}
                </Text>
              )}
              <div className="form-grid" style={{ marginTop: '0.9rem' }}>
                <Controller
                  control={control}
                  name="promptId"
                  render={({ field }) => (
                    <SelectField
                      label={t('connections.prompt')}
                      name={field.name}
                      value={field.value ?? ''}
                      onChange={(e) => field.onChange(e.target.value)}
                      onBlur={field.onBlur}
                      isDisabled={!prompts}
                      descriptiveText={prompts ? undefined : t('common.comingSoon')}
                      hasError={!!err.promptId}
                      errorMessage={fieldError(err.promptId)}
                    >
                      <option value="">{t('common.none')}</option>
                      {(prompts ?? []).map((p) => (
                        <option key={p.id} value={p.id}>
                          {p.name}
                        </option>
                      ))}
                    </SelectField>
                  )}
                />
                <Controller
                  control={control}
                  name="integrationId"
                  render={({ field }) => (
                    <SelectField
                      label={t('connections.integration')}
                      name={field.name}
                      value={field.value ?? ''}
                      onChange={(e) => field.onChange(e.target.value)}
                      onBlur={field.onBlur}
                      isDisabled={!integrations}
                      descriptiveText={integrations ? undefined : t('common.comingSoon')}
                      hasError={!!err.integrationId}
                      errorMessage={fieldError(err.integrationId)}
                    >
                      <option value="">{t('common.none')}</option>
                      {(integrations ?? []).map((p) => (
                        <option key={p.id} value={p.id}>
                          {p.name}
                        </option>
                      ))}
                    </SelectField>
                  )}
                />
              </div>
            </fieldset>

            <Flex justifyContent="flex-end" gap="0.5rem">
              <Button onClick={onClose}>{t('common.cancel')}</Button>
              <Button type="submit" variation="primary" isLoading={formState.isSubmitting}>
                {t('common.save')}
              </Button>
            </Flex>
          </Flex>
        </form>
      )}
    </Modal>
  );
}
