import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Button, Flex, SelectField, Text, TextField } from '@aws-amplify/ui-react';
import { QRCodeSVG } from 'qrcode.react';
import { CHECKOUT_COUNTRIES, subscriptionSchema, type ApiInvoice, type PixCheckout } from '@balcao/shared';
import { billingApi } from '../../api/billing';
import { toastError } from '../../api/errors';
import { translateMessage } from '../../i18n';
import { Modal } from '../../ui/Modal';
import { toast } from '../../ui/toast';
import { formatMoney } from './money';

/** Spec 003 §9: the Pix QR at 256 px (the connections page's QR library, qrcode.react). */
const QR_SIZE = 256;
const STEPS = ['stepData', 'stepCustomize', 'stepReview'] as const;
type Address = { firstName: string; lastName: string; address2: string; city: string; state: string; zipcode: string; country: string };
const ADDRESS_FIELDS = ['firstName', 'lastName', 'address2', 'city', 'state', 'zipcode', 'country'] as const;

/**
 * The checkout (spec 003 §2, §5): Dados (the billing address, with the spec's messages), Personalizar
 * (the plan and amount of the invoice), Revisar, then Pagar → `POST /subscription` → the Pix QR
 * code (256 px), the amount and a copy button.
 */
export default function CheckoutDialog({ invoice, onClose }: { invoice: ApiInvoice; onClose: () => void }) {
  const { t, i18n } = useTranslation();
  const [step, setStep] = useState(0);
  const [form, setForm] = useState<Address>({ firstName: '', lastName: '', address2: '', city: '', state: '', zipcode: '', country: 'Brasil' });
  const [errors, setErrors] = useState<Partial<Record<keyof Address, string>>>({});
  const [busy, setBusy] = useState(false);
  const [pix, setPix] = useState<PixCheckout>();
  const money = formatMoney(invoice.value, i18n.language);

  const validate = () => {
    const r = subscriptionSchema.safeParse({ ...form, invoiceId: invoice.id });
    const found: Partial<Record<keyof Address, string>> = {};
    for (const issue of r.success ? [] : r.error.issues) {
      const field = issue.path[0] as keyof Address;
      if (ADDRESS_FIELDS.includes(field) && !found[field]) found[field] = translateMessage(issue.message) ?? issue.message;
    }
    setErrors(found);
    return Object.keys(found).length === 0;
  };

  const pay = async () => {
    setBusy(true);
    try {
      const answer = await billingApi.checkout({ ...form, invoiceId: invoice.id, plan: invoice.detail, price: invoice.value });
      setPix(answer);
      toast.success(t('billing.subscribed'));
    } catch (err) {
      toastError(err);
    } finally {
      setBusy(false);
    }
  };

  const field = (name: keyof Address, label: string) => (
    <TextField
      label={label}
      name={name}
      value={form[name]}
      onChange={(e) => setForm({ ...form, [name]: e.target.value })}
      hasError={!!errors[name]}
      errorMessage={errors[name]}
      data-testid={`checkout-${name}`}
    />
  );

  return (
    <Modal open title={t('billing.checkout')} onClose={onClose}>
      {pix ? (
        <Flex direction="column" alignItems="center" gap="0.75rem" data-testid="checkout-pix">
          <QRCodeSVG value={pix.qrcode.qrcode} size={QR_SIZE} marginSize={2} title={t('billing.qrAlt')} data-testid="checkout-qr" />
          <Text fontWeight="bold" data-testid="checkout-amount">
            {t('billing.amount')}: {formatMoney(pix.valor.original, i18n.language)}
          </Text>
          <Text fontSize="small" style={{ wordBreak: 'break-all' }} data-testid="checkout-pix-code">
            {pix.qrcode.qrcode}
          </Text>
          <Flex gap="0.5rem">
            <Button
              onClick={() => void navigator.clipboard?.writeText(pix.qrcode.qrcode).then(() => toast.info(t('billing.copied')), () => undefined)}
              data-testid="checkout-copy"
            >
              {t('billing.copy')}
            </Button>
            <Button onClick={onClose}>{t('billing.close')}</Button>
          </Flex>
        </Flex>
      ) : (
        <Flex direction="column" gap="0.75rem">
          <ol className="checkout-steps" aria-label={t('billing.checkout')}>
            {STEPS.map((s, i) => (
              <li key={s} className={i === step ? 'current' : i < step ? 'done' : ''} aria-current={i === step ? 'step' : undefined}>
                {t(`billing.${s}`)}
              </li>
            ))}
          </ol>
          {step === 0 && (
            <Flex direction="column" gap="0.5rem">
              {field('firstName', t('billing.fullName'))}
              {field('lastName', t('billing.lastName'))}
              {field('address2', t('billing.address'))}
              <Flex gap="0.5rem">
                {field('city', t('billing.city'))}
                {field('state', t('billing.state'))}
              </Flex>
              <Flex gap="0.5rem">
                {field('zipcode', t('billing.zipcode'))}
                <SelectField
                  label={t('billing.country')}
                  value={form.country}
                  onChange={(e) => setForm({ ...form, country: e.target.value })}
                  hasError={!!errors.country}
                  errorMessage={errors.country}
                  data-testid="checkout-country"
                >
                  {CHECKOUT_COUNTRIES.map((c) => (
                    <option key={c} value={c}>
                      {c}
                    </option>
                  ))}
                </SelectField>
              </Flex>
            </Flex>
          )}
          {step === 1 && (
            <Flex direction="column" gap="0.25rem" data-testid="checkout-plan">
              <Text>
                {t('billing.plan')}: <b>{invoice.detail}</b>
              </Text>
              <Text>
                {t('billing.amount')}: <b>{money}</b>
              </Text>
            </Flex>
          )}
          {step === 2 && (
            <Flex direction="column" gap="0.25rem" data-testid="checkout-review">
              <Text>
                {[form.firstName, form.lastName].filter(Boolean).join(' ')} — {form.address2}, {form.city} {form.state} {form.zipcode}, {form.country}
              </Text>
              <Text>
                {t('billing.plan')}: <b>{invoice.detail}</b> — {money}
              </Text>
            </Flex>
          )}
          <Flex justifyContent="flex-end" gap="0.5rem">
            {step > 0 && <Button onClick={() => setStep(step - 1)}>{t('billing.back')}</Button>}
            {step < 2 ? (
              <Button variation="primary" onClick={() => (step > 0 || validate()) && setStep(step + 1)} data-testid="checkout-next">
                {t('billing.next')}
              </Button>
            ) : (
              <Button variation="primary" isLoading={busy} onClick={() => void pay()} data-testid="checkout-pay">
                {t('billing.payNow')}
              </Button>
            )}
          </Flex>
        </Flex>
      )}
    </Modal>
  );
}
