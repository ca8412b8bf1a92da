import { lazy, Suspense, useCallback, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Loader, Radio, RadioGroupField, TextAreaField, TextField } from '@aws-amplify/ui-react';
import { QUICK_MESSAGE_MEDIA_MAX_BYTES, quickMessageSchema } from '@balcao/shared';
import { errorText } from '../../api/errors';
import { quickMessagesApi } from '../../api/quickMessages';
import { AttachmentField, saveAttachment, useAttachment } from '../../ui/AttachmentField';
import { EntityDialog } from '../../ui/EntityDialog';
import { useEntityForm } from '../../ui/useEntityForm';
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
  const entity = useEntityForm<Values, QuickMessage>({
    schema: quickMessageSchema,
    defaultValues: { shortcode: record?.shortcode ?? '', message: record?.message ?? '', geral: record?.geral ? 'true' : 'false' },
    save: (_, v) => quickMessagesApi.save(current?.id, { shortcode: v.shortcode.trim(), message: v.message ?? '', geral: v.geral === 'true' }),
    then: (saved) => {
      setCurrent(saved);
      return saveAttachment(attachment, saved, quickMessagesApi, { typeArch: 'quickMessage' });
    },
    // The text is saved; only the attachment failed: the dialog stays open on the saved reply.
    onThenError: (e) => attachment.setError(errorText(e)),
    savedText: t('quickMessages.saved'),
    onSaved,
    onClose,
    toastRefusal: 'unmatched',
  });
  const { form, field } = entity;
  const geral = form.watch('geral');
  const messageField = field('message');

  const insertAtCursor = useCallback(
    (piece: string) => {
      const el = textArea.current;
      const cur = form.getValues('message') ?? '';
      const start = el?.selectionStart ?? cur.length;
      const end = el?.selectionEnd ?? cur.length;
      form.setValue('message', cur.slice(0, start) + piece + cur.slice(end), { shouldDirty: true });
      requestAnimationFrame(() => {
        if (!el) return;
        el.focus();
        el.selectionStart = el.selectionEnd = start + piece.length;
      });
    },
    [form],
  );

  return (
    <EntityDialog title={current ? t('quickMessages.dialogEdit') : t('quickMessages.dialogAdd')} entity={entity} onClose={onClose}>
      <TextField label={t('quickMessages.shortcode')} autoFocus {...field('shortcode')} />
      <div className="qm-message">
        <TextAreaField
          label={t('quickMessages.message')}
          rows={5}
          {...messageField}
          ref={(el: HTMLTextAreaElement | null) => {
            messageField.ref(el);
            textArea.current = el;
          }}
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
      <RadioGroupField legend={t('quickMessages.scope')} name="geral" direction="row" value={geral} onChange={(e) => form.setValue('geral', e.target.value as Values['geral'])}>
        <Radio value="true">{t('quickMessages.geral')}</Radio>
        <Radio value="false">{t('quickMessages.personal')}</Radio>
      </RadioGroupField>
    </EntityDialog>
  );
}
