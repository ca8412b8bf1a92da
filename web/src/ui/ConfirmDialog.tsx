import { Button, Flex, Text } from '@aws-amplify/ui-react';
import { useTranslation } from 'react-i18next';
import { Modal } from './Modal';

export function ConfirmDialog({
  open,
  title,
  message,
  onConfirm,
  onClose,
}: {
  open: boolean;
  title: string;
  /** Defaults to the spec's delete confirmation. */
  message?: string;
  onConfirm: () => void;
  onClose: () => void;
}) {
  const { t } = useTranslation();
  return (
    <Modal open={open} title={title} onClose={onClose}>
      <Text>{message ?? t('common.deleteConfirm')}</Text>
      <Flex justifyContent="flex-end" marginTop="1.5rem" gap="0.5rem">
        <Button onClick={onClose}>{t('common.cancel')}</Button>
        <Button
          variation="primary"
          colorTheme="error"
          onClick={() => {
            onConfirm();
            onClose();
          }}
        >
          {t('common.confirm')}
        </Button>
      </Flex>
    </Modal>
  );
}
