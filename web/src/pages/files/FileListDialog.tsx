import { useRef, useState } from 'react';
import { useFieldArray } from 'react-hook-form';
import { useTranslation } from 'react-i18next';
import { Button, Flex, Text, TextAreaField, TextField } from '@aws-amplify/ui-react';
import { FILE_LIST_MAX_OPTIONS, FILE_LIST_MEDIA_MAX_BYTES, fileListSchema, mediaKindOf, type ApiFileList, type ApiFileListOption } from '@balcao/shared';
import { errorText } from '../../api/errors';
import { fileListsApi } from '../../api/fileLists';
import { EntityDialog } from '../../ui/EntityDialog';
import { Icon } from '../../ui/icons';
import { useEntityForm } from '../../ui/useEntityForm';
import { useRecord } from '../../ui/useLoad';

interface OptionValues {
  /** The saved option's id (its file stays with it); null for an option not saved yet. */
  optionId: number | null;
  name: string;
}

interface Values {
  name: string;
  message: string;
  options: OptionValues[];
}

const toValues = (l: ApiFileList | null): Values => ({
  name: l?.name ?? '',
  message: l?.message ?? '',
  options: (l?.options ?? []).map((o) => ({ optionId: o.id, name: o.name })),
});

/** A picked file's name as the option's name: without its extension. */
const baseName = (fileName: string) => fileName.replace(/\.[^.]+$/, '').replace(/_/g, ' ').trim();

/**
 * The file list dialog (spec 002 §2): name, message and a list of options, each a name and one file.
 * The list is saved first (the upload needs its options' ids), then each picked file is uploaded to
 * its option; a failed upload leaves the dialog open on the saved list with the reason under that
 * option, so saving again sends only what is still missing.
 */
export default function FileListDialog({ record, onClose, onSaved }: { record: ApiFileList | null; onClose: () => void; onSaved: (l: ApiFileList) => void }) {
  const { t } = useTranslation();
  // After a create whose upload failed, saving again edits that list instead of creating another.
  const [current, setCurrent] = useState<ApiFileList | null>(record);
  // The picked files and their messages, by option row (kept in step with the form's options).
  const [files, setFiles] = useState<(File | null)[]>(() => (record?.options ?? []).map(() => null));
  const [fileErrors, setFileErrors] = useState<(string | undefined)[]>([]);
  const picked = useRef(files);
  picked.current = files;
  const inputs = useRef<(HTMLInputElement | null)[]>([]);

  const entity = useEntityForm<Values, ApiFileList>({
    schema: fileListSchema,
    defaultValues: toValues(record),
    fields: ['name', 'message', 'options', ...files.map((_, i) => `options.${i}.name`)],
    save: (_, v) =>
      fileListsApi.save(current?.id, {
        name: v.name.trim(),
        message: v.message,
        options: v.options.map((o) => ({ ...(o.optionId ? { id: o.optionId } : {}), name: o.name.trim() })),
      }),
    then: async (saved) => {
      setCurrent(saved);
      // The saved options (same order) now have ids: a second save keeps them and their files.
      form.setValue('options', saved.options.map((o) => ({ optionId: o.id, name: o.name })));
      const pending = [...picked.current];
      let latest = saved;
      for (let i = 0; i < saved.options.length; i++) {
        const file = pending[i];
        if (!file) continue;
        try {
          latest = await fileListsApi.uploadOption(saved.id, saved.options[i], file);
        } catch (e) {
          setFileErrors((errs) => Object.assign([...errs], { [i]: errorText(e) }));
          setCurrent(latest);
          throw e;
        }
        pending[i] = null;
        setFiles([...pending]);
        setCurrent(latest);
      }
      return latest;
    },
    savedText: t('fileLists.saved'),
    onSaved,
    onClose,
    toastRefusal: 'unmatched',
  });
  const { form, field, error } = entity;
  const options = useFieldArray({ control: form.control, name: 'options' });

  const loading = useRecord(
    record?.id,
    fileListsApi.get,
    (l) => {
      // The list as it is now (another admin may have changed it; its file links are fresh).
      setCurrent(l);
      setFiles(l.options.map(() => null));
      form.reset(toValues(l));
    },
    onClose,
  );

  const savedOption = (i: number): ApiFileListOption | undefined => {
    const id = form.getValues(`options.${i}.optionId`);
    return id ? current?.options.find((o) => o.id === id) : undefined;
  };

  const setRow = <T,>(list: T[], i: number, v: T) => Object.assign([...list], { [i]: v }) as T[];

  const pick = (i: number, f: File | undefined) => {
    const input = inputs.current[i];
    if (input) input.value = '';
    if (!f) return;
    const refused = f.size > FILE_LIST_MEDIA_MAX_BYTES ? t('errors.ERR_PAYLOAD_TOO_LARGE') : !mediaKindOf(f.type || 'application/octet-stream') ? t('validation.fileTypeNotAllowed') : undefined;
    setFileErrors((errs) => setRow(errs, i, refused));
    if (refused) return;
    // Spaces in file names become underscores (the server stores them so, spec 001 §5).
    setFiles((list) => setRow(list, i, new File([f], f.name.replace(/ /g, '_'), { type: f.type })));
    if (!form.getValues(`options.${i}.name`)?.trim()) form.setValue(`options.${i}.name`, baseName(f.name).slice(0, 100), { shouldDirty: true, shouldValidate: true });
  };

  const addOption = () => {
    options.append({ optionId: null, name: '' });
    setFiles((list) => [...list, null]);
  };
  const removeOption = (i: number) => {
    options.remove(i);
    setFiles((list) => list.filter((_, j) => j !== i));
    setFileErrors((errs) => errs.filter((_, j) => j !== i));
  };

  return (
    <EntityDialog title={current ? t('fileLists.dialogEdit') : t('fileLists.dialogAdd')} entity={entity} onClose={onClose} loading={loading} testId="file-list-form">
      <TextField label={t('fileLists.name')} autoFocus {...field('name')} />
      <TextAreaField label={t('fileLists.message')} rows={4} {...field('message')} />
      <fieldset className="form-section fl-options">
        <legend>{t('fileLists.options')}</legend>
        <Text fontSize="small" color="var(--muted)">
          {t('fileLists.hint')}
        </Text>
        <Flex direction="column" gap="0.6rem" marginTop="0.5rem">
          {options.fields.length === 0 && (
            <Text as="span" className="fl-none">
              {t('fileLists.noOptions')}
            </Text>
          )}
          {options.fields.map((f, i) => {
            const saved = savedOption(i);
            const file = files[i];
            const shown = file?.name ?? saved?.mediaName ?? saved?.path ?? null;
            return (
              <div key={f.id} className="fl-option" data-testid={`file-option-${i}`}>
                <TextField label={t('fileLists.optionName')} flex="1" {...field(`options.${i}.name`)} />
                <div className="fl-file">
                  <Icon name="attach" size={18} />
                  {file ? (
                    <span className="fl-file-name pending" data-testid={`file-option-${i}-file`} title={t('fileLists.pendingFile')}>
                      {shown}
                    </span>
                  ) : saved?.mediaUrl && shown ? (
                    <a className="fl-file-name" href={saved.mediaUrl} target="_blank" rel="noreferrer" data-testid={`file-option-${i}-file`}>
                      {shown}
                    </a>
                  ) : (
                    <span className="fl-none">{t('fileLists.noFile')}</span>
                  )}
                  <Button size="small" onClick={() => inputs.current[i]?.click()}>
                    {shown ? t('fileLists.replaceFile') : t('fileLists.chooseFile')}
                  </Button>
                  <input
                    ref={(el) => {
                      inputs.current[i] = el;
                    }}
                    type="file"
                    hidden
                    data-testid={`file-option-${i}-input`}
                    onChange={(e) => pick(i, e.target.files?.[0])}
                  />
                </div>
                <button type="button" className="icon-btn danger fl-remove" aria-label={t('fileLists.removeOption', { n: i + 1 })} onClick={() => removeOption(i)}>
                  <Icon name="delete" size={20} />
                </button>
                {fileErrors[i] && (
                  <Text as="span" className="fl-file-error" role="alert">
                    {fileErrors[i]}
                  </Text>
                )}
              </div>
            );
          })}
          {error('options') && (
            <Text variation="error" fontSize="small">
              {error('options')}
            </Text>
          )}
          {options.fields.length < FILE_LIST_MAX_OPTIONS && (
            <Button size="small" alignSelf="flex-start" onClick={addOption}>
              {t('fileLists.addOption')}
            </Button>
          )}
        </Flex>
      </fieldset>
    </EntityDialog>
  );
}
