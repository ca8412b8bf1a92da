import { useTranslation } from 'react-i18next';
import { Button, Flex } from '@aws-amplify/ui-react';

/**
 * A dialog's Cancel and submit buttons (Close alone when `readOnly`). `submitText` defaults to Save;
 * `busyText` shows beside the spinner while submitting; `onSubmit` for a footer outside a form, or
 * `form` (its id) to submit a form the footer is not in (Enter in the form presses it too).
 */
export function DialogFooter({
  onCancel,
  busy,
  submitText,
  busyText,
  readOnly,
  marginTop,
  onSubmit,
  form,
}: {
  onCancel: () => void;
  busy: boolean;
  submitText?: string;
  busyText?: string;
  readOnly?: boolean;
  marginTop?: string;
  onSubmit?: () => void;
  form?: string;
}) {
  const { t } = useTranslation();
  return (
    <Flex justifyContent="flex-end" gap="0.5rem" marginTop={marginTop}>
      <Button onClick={onCancel}>{readOnly ? t('common.close') : t('common.cancel')}</Button>
      {!readOnly && (
        <Button type={onSubmit ? 'button' : 'submit'} form={form} variation="primary" isLoading={busy} loadingText={busyText} onClick={onSubmit}>
          {submitText ?? t('common.save')}
        </Button>
      )}
    </Flex>
  );
}
