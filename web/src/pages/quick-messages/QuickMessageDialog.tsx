import { lazy, Suspense, useCallback, useRef, useState } from 'react';
import { useForm } from 'react-hook-form';
import { useTranslation } from 'react-i18next';
import { Button, Flex, Loader, Radio, RadioGroupField, TextAreaField, TextField } from '@aws-amplify/ui-react';
import { FORM_SUBMIT_DELAY_MS, QUICK_MESSAGE_MEDIA_MAX_BYTES, quickMessageSchema } from '@balcao/shared';
import { api } from '../../api/http';
import { applyFieldErrors, errorText, toastError } from '../../api/errors';
import { AttachmentField, useAttachment } from '../../ui/AttachmentField';
import { Modal } from '../../ui/Modal';
import { delay, fieldError, resolver } from '../../ui/form';
import { toast } from '../../ui/toast';
import type { QuickMessage } from './types';

// The composer's picker (plain component, no data download); loaded only when opened.
const EmojiPicker = lazy(() => import('../../ui/EmojiPicker'));

interface Values {
  shortcode: string;
  message: string;
  geral: 'true' | 'false';
}

/**
 * Quick reply dialog (spec 001 §3): shortcode, multiline message with emoji at the cursor, an
 * optional attachment (uploaded after the reply is saved: the upload route needs its id) and
 * whether the whole company or only its author gets it.
 */
export default function QuickMessageDialog({ record, onClose, onSaved }: { record: QuickMessage | null; onClose: () => void; onSaved: (q: QuickMessage) => void }) {
  const { t } = useTranslation();
  // After a create whose upload failed, a retry edits that reply instead of creating another.
  const [current, setCurrent] = useState<QuickMessage | null>(record);
  const attachment = useAttachment();
  const [emojiOpen, setEmojiOpen] = useState(false);
  const textArea = useRef<HTMLTextAreaElement | null>(null);
  const { register, handleSubmit, setValue, getValues, watch, setError, formState } = useForm<Values>({
    resolver: resolver<Values>(quickMessageSchema),
    defaultValues: { shortcode: record?.shortcode ?? '', message: record?.message ?? '', geral: record?.geral ? 'true' : 'false' },
  });
  const geral = watch('geral');
  const messageField = register('message');

  const insertAtCursor = useCallback(
    (piece: string) => {
      const el = textArea.current;
      const cur = getValues('message') ?? '';
      const start = el?.selectionStart ?? cur.length;
      const end = el?.selectionEnd ?? cur.length;
      setValue('message', cur.slice(0, start) + piece + cur.slice(end), { shouldDirty: true });
      requestAnimationFrame(() => {
        if (!el) return;
        el.focus();
        el.selectionStart = el.selectionEnd = start + piece.length;
      });
    },
    [getValues, setValue],
  );

  const onSubmit = handleSubmit(async () => {
    await delay(FORM_SUBMIT_DELAY_MS);
    const v = getValues();
    const body = { shortcode: v.shortcode.trim(), message: v.message ?? '', geral: v.geral === 'true' };
    let saved: QuickMessage;
    try {
      saved = current ? await api.put<QuickMessage>(`/quick-messages/${current.id}`, body) : await api.post<QuickMessage>('/quick-messages', body);
    } catch (e) {
      if (!applyFieldErrors(e, setError as never, ['shortcode', 'message', 'geral'])) toastError(e);
      return;
    }
    setCurrent(saved);
    const { file } = attachment;
    try {
      if (file) {
        const form = new FormData();
        form.append('typeArch', 'quickMessage');
        form.append('file', file, file.name);
        saved = await api.post<QuickMessage>(`/quick-messages/${saved.id}/media-upload`, form);
      } else if (attachment.dropSaved && saved.mediaPath) {
        saved = await api.del<QuickMessage>(`/quick-messages/${saved.id}/media-upload`);
      }
    } catch (e) {
      // The text is saved; only the attachment failed: keep the dialog open on the saved reply.
      onSaved(saved);
      attachment.setError(errorText(e));
      toastError(e);
      return;
    }
    toast.success(t('quickMessages.saved'));
    onSaved(saved);
    onClose();
  });

  const err = formState.errors;
  return (
    <Modal open title={current ? t('quickMessages.dialogEdit') : t('quickMessages.dialogAdd')} onClose={onClose} wide>
      <form onSubmit={onSubmit} noValidate>
        <Flex direction="column" gap="0.9rem">
          <TextField label={t('quickMessages.shortcode')} autoFocus {...register('shortcode')} hasError={!!err.shortcode} errorMessage={fieldError(err.shortcode)} />
          <div className="qm-message">
            <TextAreaField
              label={t('quickMessages.message')}
              rows={5}
              {...messageField}
              ref={(el: HTMLTextAreaElement | null) => {
                messageField.ref(el);
                textArea.current = el;
              }}
              hasError={!!err.message}
              errorMessage={fieldError(err.message)}
            />
            <button
              type="button"
              className={`icon-btn qm-emoji-btn${emojiOpen ? ' on' : ''}`}
              aria-label={t('quickMessages.emoji')}
              aria-expanded={emojiOpen}
              onClick={() => setEmojiOpen((o) => !o)}
            >
              <span aria-hidden="true">😀</span>
            </button>
          </div>
          {emojiOpen && (
            <Suspense fallback={<Loader />}>
              <EmojiPicker onPick={insertAtCursor} />
            </Suspense>
          )}
          <AttachmentField
            attachment={attachment}
            savedName={current?.mediaName ?? current?.mediaPath ?? null}
            maxBytes={QUICK_MESSAGE_MEDIA_MAX_BYTES}
            texts="quickMessages"
            classPrefix="qm"
            testId="qm-file"
          />
          <RadioGroupField
            legend={t('quickMessages.scope')}
            name="geral"
            direction="row"
            value={geral}
            onChange={(e) => setValue('geral', e.target.value as Values['geral'])}
          >
            <Radio value="true">{t('quickMessages.geral')}</Radio>
            <Radio value="false">{t('quickMessages.personal')}</Radio>
          </RadioGroupField>
          <Flex justifyContent="flex-end" gap="0.5rem">
            <Button onClick={onClose}>{t('common.cancel')}</Button>
            <Button type="submit" variation="primary" isLoading={formState.isSubmitting}>
              {t('common.save')}
            </Button>
          </Flex>
        </Flex>
      </form>
    </Modal>
  );
}
