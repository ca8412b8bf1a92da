import { useTranslation } from 'react-i18next';
import { Button, Flex, Text, TextField } from '@aws-amplify/ui-react';
import { toast } from '../../ui/toast';
import { randomToken } from './connection-form';
import type { ConnectionForm } from './ConnectionDialog';

/** The connection's API token: write-only, generated here and shown once, with a copy button. */
export function TokenField({ entity, hasToken }: { entity: ConnectionForm; hasToken: boolean }) {
  const { t } = useTranslation();
  const { form, field } = entity;
  const token = form.watch('token');
  return (
    <>
      <Flex alignItems="flex-end" gap="0.5rem" wrap="wrap">
        <TextField
          flex="1 1 260px"
          label={t('connections.token')}
          autoComplete="off"
          spellCheck={false}
          descriptiveText={hasToken ? t('connections.tokenKeep') : t('connections.tokenHelp')}
          {...field('token')}
        />
        <Button onClick={() => form.setValue('token', randomToken(), { shouldDirty: true, shouldValidate: true })}>{t('connections.generateToken')}</Button>
        <Button
          isDisabled={!token}
          onClick={() =>
            void navigator.clipboard
              ?.writeText(token)
              .then(() => toast.success(t('connections.tokenCopied')))
              .catch(() => undefined)
          }
        >
          {t('connections.copyToken')}
        </Button>
      </Flex>
      {token && (
        <Text fontSize="small" className="token-note" marginTop="0.35rem" role="note">
          {t('connections.tokenShownOnce')}
        </Text>
      )}
    </>
  );
}
