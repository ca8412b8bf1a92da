import { useTranslation } from 'react-i18next';
import { Button, Flex } from '@aws-amplify/ui-react';

/**
 * A dialog's Cancel and submit buttons (Close alone when `readOnly`). `submitText` defaults to Save;
 * `busyText` shows beside the spinner while submitting; `onSubmit` for a footer outside a form.
 */
export function DialogFooter({
  onCancel,
  busy,
  submitText,
  busyText,
  readOnly,
  marginTop,
  onSubmit,
}: {
  onCancel: () => void;
  busy: boolean;
  submitText?: string;
  busyText?: string;
  readOnly?: boolean;
  marginTop?: string;
  onSubmit?: () => void;
}) {
  const { t } = useTranslation();
  return (
    <Flex justifyContent="flex-end" gap="0.5rem" marginTop={marginTop}>
      <Button onClick={onCancel}>{readOnly ? t('common.close') : t('common.cancel')}</Button>
      {!readOnly && (
        <Button type={onSubmit ? 'button' : 'submit'} variation="primary" isLoading={busy} loadingText={busyText} onClick={onSubmit}>
          {submitText ?? t('common.save')}
        </Button>
      )}
    </Flex>
  );
}
