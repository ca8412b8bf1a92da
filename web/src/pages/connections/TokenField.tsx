import { useTranslation } from 'react-i18next';
import { Button, Flex, Text } from '@aws-amplify/ui-react';
import type { ConnectionForm } from './ConnectionDialog';

/**
 * The connection's API token. The server makes it (256 random bits) when the connection is saved
 * with "Gerar" pressed, and shows it once (TokenReveal); nobody types one, so none is guessable.
 */
export function TokenField({ entity, hasToken }: { entity: ConnectionForm; hasToken: boolean }) {
  const { t } = useTranslation();
  const { form } = entity;
  const generate = form.watch('generateToken');
  const set = (value: boolean) => form.setValue('generateToken', value, { shouldDirty: true });
  return (
    <Flex direction="column" gap="0.35rem" data-testid="token-field">
      <Text as="div" fontWeight="bold" fontSize="small">
        {t('connections.token')}
      </Text>
      <Text as="div" fontSize="small" color="font.secondary">
        {hasToken ? t('connections.tokenKeep') : t('connections.tokenHelp')}
      </Text>
      <Flex alignItems="center" gap="0.5rem" wrap="wrap">
        {generate ? (
          <>
            <Text fontSize="small" role="note" className="token-note">
              {hasToken ? t('connections.tokenWillReplace') : t('connections.tokenWillGenerate')}
            </Text>
            <Button size="small" onClick={() => set(false)}>
              {t('connections.tokenDontGenerate')}
            </Button>
          </>
        ) : (
          <Button size="small" onClick={() => set(true)}>
            {hasToken ? t('connections.regenerateToken') : t('connections.generateToken')}
          </Button>
        )}
      </Flex>
    </Flex>
  );
}
