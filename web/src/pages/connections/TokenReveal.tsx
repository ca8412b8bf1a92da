import { useTranslation } from 'react-i18next';
import { Button, Flex, Text, TextField } from '@aws-amplify/ui-react';
import { Modal } from '../../ui/Modal';
import { toast } from '../../ui/toast';

/** The token the server just made, shown this once with a copy button. */
export function TokenReveal({ name, token, onClose }: { name: string; token: string; onClose: () => void }) {
  const { t } = useTranslation();
  return (
    <Modal open title={t('connections.tokenRevealTitle', { name })} onClose={onClose}>
      <Flex direction="column" gap="0.75rem" data-testid="token-reveal">
        <TextField label={t('connections.token')} value={token} isReadOnly autoComplete="off" spellCheck={false} onFocus={(e) => e.currentTarget.select()} />
        <Text fontSize="small" role="note" className="token-note">
          {t('connections.tokenShownOnce')}
        </Text>
        <Flex justifyContent="flex-end" gap="0.5rem">
          <Button
            onClick={() =>
              void navigator.clipboard
                ?.writeText(token)
                .then(() => toast.success(t('connections.tokenCopied')))
                .catch(() => undefined)
            }
          >
            {t('connections.copyToken')}
          </Button>
          <Button variation="primary" onClick={onClose}>
            {t('common.close')}
          </Button>
        </Flex>
      </Flex>
    </Modal>
  );
}
