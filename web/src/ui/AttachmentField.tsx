import { useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Button, Text } from '@aws-amplify/ui-react';
import { Icon } from './icons';

/** Spec 001 §5: spaces in attachment names become underscores (the server stores them so too). */
const attachmentName = (name: string) => name.replace(/ /g, '_');

/**
 * What a form's attachment holds until it is saved: the picked file, whether the saved one is to
 * be dropped, and the message under the field (also set by the form when the upload fails).
 */
export function useAttachment() {
  const [file, setFile] = useState<File | null>(null);
  const [dropSaved, setDropSaved] = useState(false);
  const [error, setError] = useState<string | undefined>();
  return { file, setFile, dropSaved, setDropSaved, error, setError };
}

export type Attachment = ReturnType<typeof useAttachment>;

/**
 * One optional attachment of a form (quick replies, schedules): pick a file, see its name, remove
 * or replace it. The file is checked here for type (`types`) and size before anything is sent;
 * the server checks again. Texts come from `<texts>.attachment/noAttachment/attach/
 * replaceAttachment/removeAttachment`, styles from the page's `<classPrefix>-attachment/-file/
 * -file-name/-file-error/-none` rules; the test ids are `<testId>` and `<testId>-input`.
 */
export function AttachmentField({
  attachment,
  savedName,
  maxBytes,
  types,
  readOnly,
  texts,
  classPrefix,
  testId,
}: {
  attachment: Attachment;
  /** The attachment already saved on the record, if any. */
  savedName: string | null;
  maxBytes: number;
  types?: { accept: string; allows: (name: string, type: string) => boolean; refused: string };
  readOnly?: boolean;
  texts: string;
  classPrefix: string;
  testId: string;
}) {
  const { t } = useTranslation();
  const input = useRef<HTMLInputElement>(null);
  const { file, setFile, dropSaved, setDropSaved, error, setError } = attachment;
  const shownName = file ? file.name : !dropSaved ? savedName : null;

  const refuse = (message: string) => {
    setError(message);
    // Cleared so that picking the same file again reports again.
    if (input.current) input.current.value = '';
  };

  const pick = (f: File | undefined) => {
    if (!f) return;
    if (types && !types.allows(f.name, f.type)) return refuse(types.refused);
    if (f.size > maxBytes) return refuse(t('errors.ERR_PAYLOAD_TOO_LARGE'));
    setError(undefined);
    setFile(new File([f], attachmentName(f.name), { type: f.type }));
  };

  const remove = () => {
    if (file) setFile(null);
    else setDropSaved(true);
    setError(undefined);
    if (input.current) input.current.value = '';
  };

  return (
    <div className={`${classPrefix}-attachment`}>
      <Text as="span" fontWeight={600}>
        {t(`${texts}.attachment`)}
      </Text>
      {shownName ? (
        <span className={`${classPrefix}-file`} data-testid={testId}>
          <Icon name="attach" size={18} />
          <span className={`${classPrefix}-file-name`}>{shownName}</span>
          {!readOnly && (
            <button type="button" className="icon-btn danger" aria-label={t(`${texts}.removeAttachment`, { name: shownName })} onClick={remove}>
              <Icon name="delete" size={18} />
            </button>
          )}
        </span>
      ) : (
        <Text as="span" color="var(--muted)" className={`${classPrefix}-none`}>
          {t(`${texts}.noAttachment`)}
        </Text>
      )}
      {!readOnly && (
        <Button size="small" onClick={() => input.current?.click()}>
          {shownName ? t(`${texts}.replaceAttachment`) : t(`${texts}.attach`)}
        </Button>
      )}
      <input ref={input} type="file" hidden accept={types?.accept} data-testid={`${testId}-input`} onChange={(e) => pick(e.target.files?.[0])} />
      {error && (
        <Text as="span" className={`${classPrefix}-file-error`} role="alert">
          {error}
        </Text>
      )}
    </div>
  );
}

/**
 * After its record is saved: uploads the picked file (with `fields` before it in the form), or drops
 * the saved one the user removed. Answers the record as it then is.
 */
export async function saveAttachment<T extends { id: number; mediaPath: string | null }>(
  attachment: Attachment,
  saved: T,
  media: { uploadMedia: (id: number, form: FormData) => Promise<T>; dropMedia: (id: number) => Promise<T> },
  fields: Record<string, string> = {},
): Promise<T> {
  const { file } = attachment;
  if (file) {
    const form = new FormData();
    for (const [k, v] of Object.entries(fields)) form.append(k, v);
    form.append('file', file, file.name);
    return media.uploadMedia(saved.id, form);
  }
  if (attachment.dropSaved && saved.mediaPath) return media.dropMedia(saved.id);
  return saved;
}
