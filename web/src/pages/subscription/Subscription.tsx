import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Button, Card, Flex, Heading, Text } from '@aws-amplify/ui-react';
import { trialDaysLeft, type ApiInvoice } from '@balcao/shared';
import { billingApi } from '../../api/billing';
import { useAuth } from '../../auth/AuthContext';
import CheckoutDialog from '../financeiro/CheckoutDialog';
import { usePaymentEvents } from '../financeiro/usePaymentEvents';
import '../financeiro/financeiro.css';

/**
 * `/subscription` (spec 003 §2; spec 002 §9): the trial's days left (rounded up), the billing e-mail
 * and the subscribe button, which opens the checkout for the company's open invoice.
 */
export default function Subscription() {
  const { t } = useTranslation();
  const { user } = useAuth();
  const [open, setOpen] = useState<ApiInvoice | null>();
  const [paying, setPaying] = useState(false);
  usePaymentEvents();
  useEffect(() => {
    void billingApi.list({ pageNumber: 1, companyId: user?.super ? user.companyId : undefined }).then(
      (r) => setOpen(r.invoices.find((i) => i.status === 'open') ?? null),
      () => setOpen(null),
    );
  }, [user?.super, user?.companyId]);
  const days = trialDaysLeft(user?.company?.trialExpiration);
  return (
    <Card variation="outlined" maxWidth="32rem" data-testid="subscription">
      <Flex direction="column" gap="0.75rem">
        <Heading level={3}>{t('billing.subscriptionTitle')}</Heading>
        <Text data-testid="trial-days">{t('billing.trialLeft', { count: days })}</Text>
        <Text>
          {t('billing.billingEmail')}: <b>{user?.company?.email ?? user?.email}</b>
        </Text>
        <Button variation="primary" isDisabled={!open} onClick={() => setPaying(true)} data-testid="subscribe">
          {t('billing.subscribe')}
        </Button>
        {open === null && <Text fontSize="small">{t('billing.noOpenInvoice')}</Text>}
      </Flex>
      {paying && open && <CheckoutDialog invoice={open} onClose={() => setPaying(false)} />}
    </Card>
  );
}
