import { useCallback, useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Button, Card, Flex, Heading, PasswordField, Text } from '@aws-amplify/ui-react';
import { billingApi } from '../../api/billing';
import { errorText, toastError } from '../../api/errors';
import { toast } from '../../ui/toast';

/**
 * The super user's payment provider setting (decision 61): the Asaas API key and webhook token,
 * shown masked; sending a mask back keeps the stored value, an empty key returns to the sandbox.
 * Save waits for the stored values: a form that never loaded them would send empty fields.
 */
export default function AsaasSetting() {
  const { t } = useTranslation();
  const [key, setKey] = useState('');
  const [token, setToken] = useState('');
  const [provider, setProvider] = useState('');
  const [busy, setBusy] = useState(false);
  const [loaded, setLoaded] = useState(false);
  const [loadError, setLoadError] = useState('');
  const load = useCallback(() => {
    setLoadError('');
    void billingApi.providerSetting().then(
      (s) => (setKey(s.value), setToken(s.webhookToken), setProvider(s.provider), setLoaded(true)),
      (err: unknown) => setLoadError(`${t('billing.asaasLoadError')} ${errorText(err)}`),
    );
  }, [t]);
  useEffect(load, [load]);
  const save = async () => {
    setBusy(true);
    try {
      const s = await billingApi.saveProviderSetting({ value: key, webhookToken: token });
      setKey(s.value);
      setToken(s.webhookToken);
      setProvider(s.provider);
      toast.success(t('billing.asaasSaved'));
    } catch (err) {
      toastError(err);
    } finally {
      setBusy(false);
    }
  };
  return (
    <Card variation="outlined" data-testid="asaas-setting">
      <Flex direction="column" gap="0.5rem">
        <Heading level={5}>{t('billing.asaasTitle')}</Heading>
        {provider && <Text fontSize="small">{t('billing.asaasProvider', { provider })}</Text>}
        {loadError && (
          <Flex alignItems="center" gap="0.5rem" data-testid="asaas-load-error">
            <Text variation="error" role="alert">
              {loadError}
            </Text>
            <Button size="small" onClick={load}>
              {t('billing.asaasRetry')}
            </Button>
          </Flex>
        )}
        <PasswordField label={t('billing.asaasKey')} value={key} autoComplete="off" onChange={(e) => setKey(e.target.value)} data-testid="asaas-key" />
        <PasswordField label={t('billing.asaasToken')} value={token} autoComplete="off" onChange={(e) => setToken(e.target.value)} data-testid="asaas-token" />
        <Flex justifyContent="flex-end">
          <Button variation="primary" isLoading={busy} isDisabled={!loaded} onClick={() => void save()} data-testid="asaas-save">
            {t('billing.asaasSave')}
          </Button>
        </Flex>
      </Flex>
    </Card>
  );
}
