import { useEffect, useMemo, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Alert, Flex, Tabs, Text, TextAreaField, TextField } from '@aws-amplify/ui-react';
import { CAMPAIGN_BUILTIN_VARIABLES, MSG, campaignEditable, campaignSchema, mediaKindOf, type ApiCampaign } from '@balcao/shared';
import { campaignLookups, campaignsApi } from '../../api/campaigns';
import { campaignSettingsApi } from '../../api/campaignSettings';
import { connectionsApi } from '../../api/connections';
import { contactListsApi } from '../../api/contactLists';
import { errorText, toastError } from '../../api/errors';
import { AttachmentField, saveAttachment, useAttachment } from '../../ui/AttachmentField';
import { useDates } from '../../ui/dates';
import { EntityDialog } from '../../ui/EntityDialog';
import { ControlledSelect, DateTimeField, Select, type Choice } from '../../ui/fields';
import { Icon } from '../../ui/icons';
import { useEntityForm } from '../../ui/useEntityForm';
import { useOptions, useRecord } from '../../ui/useLoad';
import { CampaignStatus } from './CampaignStatus';
import { FORM_FIELDS, VARIANTS, campaignBody, hasMessage, isPast, toValues, type CampaignValues, type MessageField, type Variant } from './form';

/** The campaign media's largest file: the upload route's body limit (17 MB) less the form around it. */
const CAMPAIGN_MEDIA_MAX_BYTES = 16 * 1024 * 1024;

const variantOf = (f: MessageField) => Number(f.slice(-1)) as Variant;

/**
 * The campaign dialog (spec 002 §2 "Campaign dialog", §4, §5): name, confirmation, contact list, tag
 * list ("Nenhuma"), connection (connected ones only; the campaign's own stays shown by name), the
 * scheduled time on the company's wall clock (empty: not scheduled), file list, five message tabs
 * with their confirmation messages while confirmation is on, the variables (click one to insert it)
 * and an optional media file, uploaded after the campaign is saved. A campaign past editing opens
 * read-only (its title says so); a cancelled one keeps only its messages editable.
 */
export default function CampaignDialog({ record, onClose, onSaved }: { record: ApiCampaign | null; onClose: () => void; onSaved: (c: ApiCampaign) => void }) {
  const { t } = useTranslation();
  const dates = useDates();
  const zone = dates.timeZone;
  // After a create whose upload failed, saving again edits that campaign instead of creating another.
  const [current, setCurrent] = useState<ApiCampaign | null>(record);
  const [tab, setTab] = useState<Variant>(1);
  const attachment = useAttachment();
  const connections = useOptions(connectionsApi.list, null, { onError: toastError });
  const lists = useOptions(contactListsApi.all, null, { onError: toastError });
  const tags = useOptions(campaignLookups.contactTags, null, { onError: toastError });
  const fileLists = useOptions(campaignLookups.fileLists, null, { onError: toastError });
  // The company's own variables: without them the hint names only the built-in ones.
  const settings = useOptions(campaignSettingsApi.get, null, { onError: () => undefined });

  const mode = current ? campaignEditable(current, Date.now()) : 'all';
  const readOnly = mode === 'none';
  const fixed = mode !== 'all';

  const entity = useEntityForm<CampaignValues, ApiCampaign>({
    schema: campaignSchema,
    defaultValues: toValues(record, zone),
    fields: FORM_FIELDS,
    save: async (_, v) => {
      if (readOnly) return undefined;
      // The server's own refusals, told before asking it.
      if (!hasMessage(v)) {
        entity.form.setError('message1', { type: 'client', message: MSG.campaignNoMessage }, { shouldFocus: true });
        setTab(1);
        return undefined;
      }
      if (!current && isPast(v.scheduledAt, zone, null)) {
        entity.form.setError('scheduledAt', { type: 'client', message: MSG.campaignPastDate }, { shouldFocus: true });
        return undefined;
      }
      return campaignsApi.save(current?.id, campaignBody(v, mode === 'messages' ? 'messages' : 'all', zone, current?.scheduledAt));
    },
    then: (saved) => {
      setCurrent(saved);
      return saveAttachment(attachment, saved, campaignsApi);
    },
    // The campaign is saved; only its media failed: the dialog stays open on it.
    onThenError: (e) => attachment.setError(errorText(e)),
    savedText: t('campaigns.saved'),
    onSaved,
    onClose,
    toastRefusal: 'unmatched',
  });
  const { form, field, error, errors } = entity;

  const loading = useRecord(
    record?.id,
    campaignsApi.get,
    (c) => {
      // The campaign as it is now (its status decides what may change).
      setCurrent(c);
      form.reset(toValues(c, zone));
    },
    onClose,
  );

  const values = form.watch();
  const confirmation = values.confirmation === 'true';

  // A refusal of a message shows on its tab.
  const errorTab = VARIANTS.find((n) => errors[`message${n}`] || errors[`confirmationMessage${n}`]);
  useEffect(() => {
    if (errorTab) setTab(errorTab);
  }, [errorTab]);

  const none = t('campaigns.none');
  const listChoices = useMemo<Choice[]>(() => {
    const out: Choice[] = (lists ?? []).map((l) => ({ value: l.id, label: t('campaigns.listOption', { name: l.name, count: l.contactsCount }) }));
    const own = current?.contactList;
    if (own && !out.some((c) => c.value === own.id)) out.push({ value: own.id, label: own.name });
    return out;
  }, [lists, current, t]);
  const tagChoices = useMemo<Choice[]>(() => (tags ?? []).map((x) => ({ value: x.id, label: x.name })), [tags]);
  const fileChoices = useMemo<Choice[]>(() => (fileLists ?? []).map((x) => ({ value: x.id, label: x.name })), [fileLists]);
  // Spec 002 §2: only connected connections are offered; the campaign's own stays shown by name.
  const connected = useMemo(() => (connections ?? []).filter((c) => c.status === 'CONNECTED'), [connections]);
  const connectionChoices = useMemo<Choice[]>(() => {
    const out: Choice[] = connected.map((c) => ({ value: c.id, label: c.name }));
    const ownId = current?.whatsappId;
    if (ownId && !out.some((c) => c.value === ownId)) {
      const name = connections?.find((c) => c.id === ownId)?.name ?? current?.whatsapp?.name ?? `#${ownId}`;
      out.push({ value: ownId, label: t('campaigns.connectionOffline', { name }), disabled: true });
    }
    return out;
  }, [connected, connections, current, t]);

  // The variables: the contact's own, then the company's (campaign settings), each a button that
  // writes it where the cursor was in the tab's message (or its confirmation message).
  const variables = useMemo(
    () => [...CAMPAIGN_BUILTIN_VARIABLES.map((key) => ({ key, value: '' })), ...(settings?.variables ?? [])],
    [settings],
  );
  const box = useRef<HTMLDivElement>(null);
  const lastFocused = useRef<MessageField>('message1');
  const insert = (key: string) => {
    const token = `{${key}}`;
    const name: MessageField = variantOf(lastFocused.current) === tab && (confirmation || lastFocused.current.startsWith('message')) ? lastFocused.current : `message${tab}`;
    const el = box.current?.querySelector<HTMLTextAreaElement>(`textarea[name="${name}"]`);
    const text = form.getValues(name) ?? '';
    const start = el?.selectionStart ?? text.length;
    const end = el?.selectionEnd ?? text.length;
    form.setValue(name, text.slice(0, start) + token + text.slice(end), { shouldDirty: true });
    requestAnimationFrame(() => {
      el?.focus();
      el?.setSelectionRange(start + token.length, start + token.length);
    });
  };
  const messageField = (name: MessageField) => ({ ...field(name), onFocus: () => (lastFocused.current = name) });

  const title = !current ? t('campaigns.dialogAdd') : readOnly ? t('campaigns.dialogReadOnly') : t('campaigns.dialogEdit');
  const selectErrors = (name: 'contactListId' | 'tagListId' | 'whatsappId' | 'fileListId') => ({ hasError: !!errors[name], errorMessage: error(name) });

  return (
    <EntityDialog title={title} entity={entity} onClose={onClose} loading={loading} readOnly={readOnly} testId="campaign-form">
      <div ref={box} className="cp-form">
        <Flex direction="column" gap="0.9rem">
          {current && (
            <Flex alignItems="center" gap="0.5rem" wrap="wrap">
              <CampaignStatus campaign={current} />
            </Flex>
          )}
          {readOnly && (
            <Alert variation="info" data-testid="campaign-readonly">
              {t('campaigns.readOnlyHint')}
            </Alert>
          )}
          {mode === 'messages' && (
            <Alert variation="info" data-testid="campaign-messages-only">
              {t('campaigns.messagesOnlyHint')}
            </Alert>
          )}
          <div className="form-grid align-end">
            <TextField label={t('campaigns.name')} autoFocus={!fixed} isReadOnly={fixed} {...field('name')} />
            <Select label={t('campaigns.confirmation')} isDisabled={fixed} choices={[{ value: 'false', label: t('campaigns.confirmationOff') }, { value: 'true', label: t('campaigns.confirmationOn') }]} {...field('confirmation')} />
          </div>
          <div className="form-grid align-end">
            <ControlledSelect control={form.control} name="contactListId" label={t('campaigns.contactList')} isDisabled={fixed} empty={none} choices={listChoices} {...selectErrors('contactListId')} />
            <ControlledSelect control={form.control} name="tagListId" label={t('campaigns.tagList')} isDisabled={fixed} empty={none} choices={tagChoices} {...selectErrors('tagListId')} />
          </div>
          <div className="form-grid align-end">
            <ControlledSelect
              control={form.control}
              name="whatsappId"
              label={t('campaigns.connection')}
              isDisabled={fixed}
              empty={t('campaigns.chooseConnection')}
              choices={connectionChoices}
              descriptiveText={connections && connected.length === 0 && !fixed ? t('campaigns.noConnected') : undefined}
              {...selectErrors('whatsappId')}
            />
            <ControlledSelect control={form.control} name="fileListId" label={t('campaigns.fileList')} isDisabled={fixed} empty={none} choices={fileChoices} {...selectErrors('fileListId')} />
          </div>
          <Flex direction="column" gap="0.3rem">
            <DateTimeField label={t('campaigns.scheduledAt')} timeZone={zone} isReadOnly={fixed} {...field('scheduledAt')} />
            <Text as="span" fontSize="small" color="var(--muted)" className="cp-schedule-hint">
              {values.scheduledAt ? t('campaigns.scheduledHint') : t('campaigns.unscheduledHint')}
              {!fixed && values.scheduledAt && (
                <button type="button" className="cp-link-btn" onClick={() => form.setValue('scheduledAt', '', { shouldDirty: true })}>
                  {t('campaigns.clearSchedule')}
                </button>
              )}
            </Text>
          </Flex>

          <fieldset className="form-section cp-messages">
            <legend>{t('campaigns.messages')}</legend>
            <Tabs.Container value={String(tab)} onValueChange={(v) => setTab(Number(v) as Variant)} className="cp-tabs">
              <Tabs.List>
                {VARIANTS.map((n) => (
                  // Inside the form: a tab is a button that must not submit it.
                  <Tabs.Item key={n} value={String(n)} type="button" data-testid={`campaign-tab-${n}`}>
                    {t('campaigns.tab', { n })}
                    {values[`message${n}`]?.trim() && <span className="cp-filled" aria-hidden="true" />}
                  </Tabs.Item>
                ))}
              </Tabs.List>
              {VARIANTS.map((n) => (
                <Tabs.Panel key={n} value={String(n)} paddingTop="0.75rem">
                  <Flex direction="column" gap="0.75rem">
                    <TextAreaField label={t('campaigns.message', { n })} rows={5} isReadOnly={readOnly} {...messageField(`message${n}`)} />
                    {confirmation && (
                      <TextAreaField
                        label={t('campaigns.confirmationMessage', { n })}
                        rows={3}
                        isReadOnly={readOnly}
                        descriptiveText={t('campaigns.confirmationHint')}
                        {...messageField(`confirmationMessage${n}`)}
                      />
                    )}
                  </Flex>
                </Tabs.Panel>
              ))}
            </Tabs.Container>
            <div className="cp-variables" data-testid="campaign-variables">
              <Text as="span" fontSize="small" color="var(--muted)">
                {t('campaigns.variablesHint')}
              </Text>
              {!readOnly && (
                <span className="cp-variable-list">
                  {variables.map((v) => (
                    <button
                      key={v.key}
                      type="button"
                      className={v.value ? 'cp-variable custom' : 'cp-variable'}
                      title={v.value ? t('campaigns.insertCustom', { value: v.value }) : t('campaigns.insertVariable')}
                      onClick={() => insert(v.key)}
                    >
                      {`{${v.key}}`}
                    </button>
                  ))}
                </span>
              )}
            </div>
          </fieldset>

          <AttachmentField
            attachment={attachment}
            savedName={current?.mediaName ?? current?.mediaPath ?? null}
            maxBytes={CAMPAIGN_MEDIA_MAX_BYTES}
            types={{ accept: '', allows: (_, type) => !!mediaKindOf(type || 'application/octet-stream'), refused: t('validation.fileTypeNotAllowed') }}
            readOnly={readOnly}
            texts="campaigns"
            classPrefix="cp"
            testId="campaign-media"
          />
          {current?.mediaUrl && !attachment.file && !attachment.dropSaved && (
            <a className="cp-media-link" href={current.mediaUrl} target="_blank" rel="noreferrer">
              <Icon name="attach" size={16} />
              {t('campaigns.openMedia')}
            </a>
          )}
        </Flex>
      </div>
    </EntityDialog>
  );
}
