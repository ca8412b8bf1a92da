import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { SelectField, TextAreaField, TextField } from '@aws-amplify/ui-react';
import { ANNOUNCEMENT_IMAGE_EXTENSIONS, ANNOUNCEMENT_IMAGE_MAX_BYTES, ANNOUNCEMENT_PRIORITIES, DEFAULT_ANNOUNCEMENT_PRIORITY, announcementSchema, type ApiAnnouncement } from '@balcao/shared';
import { announcementsApi } from '../../api/announcements';
import { errorText } from '../../api/errors';
import { AttachmentField, saveAttachment, useAttachment } from '../../ui/AttachmentField';
import { EntityDialog } from '../../ui/EntityDialog';
import { useEntityForm } from '../../ui/useEntityForm';

interface Values {
  title: string;
  text: string;
  status: 'true' | 'false';
  priority: '1' | '2' | '3';
}

/** Spec 002 §5: the image accepts .png, .jpg and .jpeg (the server checks the bytes too). */
const imageTypes = (refused: string) => ({
  accept: [...ANNOUNCEMENT_IMAGE_EXTENSIONS, 'image/png', 'image/jpeg'].join(','),
  allows: (name: string) => ANNOUNCEMENT_IMAGE_EXTENSIONS.some((ext) => name.toLowerCase().endsWith(ext)),
  refused,
});

/**
 * The announcement dialog (spec 002 §2, §5): title and text (required), status (active by default),
 * priority (low by default) and an optional image, uploaded after the announcement is saved (the
 * upload route needs its id).
 */
export default function AnnouncementDialog({ record, onClose, onSaved }: { record: ApiAnnouncement | null; onClose: () => void; onSaved: (a: ApiAnnouncement) => void }) {
  const { t } = useTranslation();
  // After a create whose upload failed, a retry edits that announcement instead of creating another.
  const [current, setCurrent] = useState<ApiAnnouncement | null>(record);
  const attachment = useAttachment();
  const entity = useEntityForm<Values, ApiAnnouncement>({
    schema: announcementSchema,
    defaultValues: {
      title: record?.title ?? '',
      text: record?.text ?? '',
      status: record && !record.status ? 'false' : 'true',
      priority: String(record?.priority ?? DEFAULT_ANNOUNCEMENT_PRIORITY) as Values['priority'],
    },
    save: (_, v) => announcementsApi.save(current?.id, { title: v.title.trim(), text: v.text.trim(), status: v.status === 'true', priority: Number(v.priority) }),
    then: (saved) => {
      setCurrent(saved);
      return saveAttachment(attachment, saved, announcementsApi);
    },
    // The text is saved; only the image failed: the dialog stays open on the saved announcement.
    onThenError: (e) => attachment.setError(errorText(e)),
    savedText: t('announcements.saved'),
    onSaved,
    onClose,
    toastRefusal: 'unmatched',
  });
  const { field } = entity;

  return (
    <EntityDialog title={current ? t('announcements.dialogEdit') : t('announcements.dialogAdd')} entity={entity} onClose={onClose} testId="announcement-dialog">
      <TextField label={t('announcements.subject')} autoFocus {...field('title')} />
      <TextAreaField label={t('announcements.text')} rows={5} {...field('text')} />
      <div className="ann-row-2">
        <SelectField label={t('announcements.status')} {...field('status')}>
          <option value="true">{t('announcements.active')}</option>
          <option value="false">{t('announcements.inactive')}</option>
        </SelectField>
        <SelectField label={t('announcements.priority')} {...field('priority')}>
          {ANNOUNCEMENT_PRIORITIES.map((p) => (
            <option key={p} value={String(p)}>
              {t(`announcements.priority${p}`)}
            </option>
          ))}
        </SelectField>
      </div>
      <AttachmentField
        attachment={attachment}
        savedName={current?.mediaName ?? current?.mediaPath ?? null}
        maxBytes={ANNOUNCEMENT_IMAGE_MAX_BYTES}
        types={imageTypes(t('validation.fileTypeNotAllowed'))}
        texts="announcements"
        classPrefix="ann"
        testId="announcement-file"
      />
      <span className="ann-hint">{t('announcements.imageHint')}</span>
    </EntityDialog>
  );
}
