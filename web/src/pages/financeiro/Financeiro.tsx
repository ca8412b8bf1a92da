import { useCallback, useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Button, Flex, Heading, SelectField, Table, TableBody, TableCell, TableHead, TableRow, TextField } from '@aws-amplify/ui-react';
import { invoiceDisplay, type ApiInvoice, type Company } from '@balcao/shared';
import { billingApi } from '../../api/billing';
import { api } from '../../api/http';
import { realtime } from '../../api/realtime';
import { useAuth } from '../../auth/AuthContext';
import { useDebounced, useInfiniteScroll } from '../../ui/hooks';
import { useDates } from '../../ui/dates';
import { toast } from '../../ui/toast';
import CheckoutDialog from './CheckoutDialog';
import { formatMoney } from './money';
import { usePaymentEvents } from './usePaymentEvents';
import './financeiro.css';

/**
 * `/financeiro` (spec 003 §2, §4): the invoices (infinite scroll; Pago, Vencido tinted, Em Aberto;
 * DD/MM/YYYY in the company's zone; BRL in the user's language), Pay opening the checkout. The
 * super user sees every company's, with a company filter.
 */
export default function Financeiro() {
  const { t, i18n } = useTranslation();
  const { user } = useAuth();
  const dates = useDates();
  const [items, setItems] = useState<ApiInvoice[]>([]);
  const [page, setPage] = useState(1);
  const [hasMore, setHasMore] = useState(false);
  const [loading, setLoading] = useState(false);
  const [search, setSearch] = useState('');
  const [companyId, setCompanyId] = useState('');
  const [companies, setCompanies] = useState<Company[]>([]);
  const [paying, setPaying] = useState<ApiInvoice>();
  const term = useDebounced(search, 500);
  const [generation, setGeneration] = useState(0);

  useEffect(() => {
    if (user?.super) void api.get<Company[]>('/companies/list').then(setCompanies, () => undefined);
  }, [user?.super]);

  const load = useCallback(
    async (pageNumber: number) => {
      setLoading(true);
      try {
        const r = await billingApi.list({ searchParam: term || undefined, pageNumber, companyId: companyId ? Number(companyId) : undefined });
        setItems((prev) => (pageNumber === 1 ? r.invoices : [...prev, ...r.invoices.filter((x) => !prev.some((p) => p.id === x.id))]));
        setHasMore(r.hasMore);
        setPage(pageNumber);
      } catch {
        toast.error(t('billing.loadError'));
      } finally {
        setLoading(false);
      }
    },
    [term, companyId, t],
  );
  useEffect(() => void load(1), [load, generation]);
  // What changed while the socket was away is read again when it opens.
  useEffect(() => realtime.onReconnect(() => setGeneration((g) => g + 1)), []);
  usePaymentEvents(useCallback(() => setGeneration((g) => g + 1), []));
  const { scroller, onScroll } = useInfiniteScroll({ hasMore, loading, more: () => void load(page + 1), watch: items.length });

  return (
    <Flex direction="column" gap="1rem" className="financeiro" data-testid="financeiro">
      <Flex justifyContent="space-between" alignItems="flex-end" wrap="wrap" gap="0.75rem">
        <Heading level={3}>
          {t('billing.title')} ({items.length})
        </Heading>
        <Flex gap="0.5rem" alignItems="flex-end" className="inv-toolbar">
          {user?.super && (
            <SelectField label={t('billing.company')} labelHidden value={companyId} onChange={(e) => setCompanyId(e.target.value)} data-testid="invoice-company-filter">
              <option value="">{t('billing.allCompanies')}</option>
              {companies.map((c) => (
                <option key={c.id} value={c.id}>
                  {c.name}
                </option>
              ))}
            </SelectField>
          )}
          <TextField className="inv-search" label={t('billing.searchPlaceholder')} labelHidden placeholder={t('billing.searchPlaceholder')} value={search} onChange={(e) => setSearch(e.target.value)} />
        </Flex>
      </Flex>
      <div className="financeiro-scroll" ref={scroller} onScroll={onScroll}>
        <Table size="small" highlightOnHover>
          <TableHead>
            <TableRow>
              <TableCell as="th" className="inv-col-id">
                {t('billing.id')}
              </TableCell>
              {user?.super && <TableCell as="th">{t('billing.company')}</TableCell>}
              <TableCell as="th">{t('billing.detail')}</TableCell>
              <TableCell as="th">{t('billing.value')}</TableCell>
              <TableCell as="th">{t('billing.dueDate')}</TableCell>
              <TableCell as="th" className="inv-col-status">
                {t('billing.status')}
              </TableCell>
              <TableCell as="th">{t('billing.action')}</TableCell>
            </TableRow>
          </TableHead>
          <TableBody>
            {items.map((inv) => {
              const state = invoiceDisplay(inv);
              return (
                <TableRow key={inv.id} className={`invoice-${state}`} data-testid={`invoice-row-${inv.id}`} data-state={state}>
                  <TableCell className="inv-col-id">{inv.id}</TableCell>
                  {user?.super && <TableCell>{inv.companyName}</TableCell>}
                  <TableCell>{inv.detail}</TableCell>
                  <TableCell>{formatMoney(inv.value, i18n.language)}</TableCell>
                  {/* Narrow screens fold the status under the due date (CSS `attr(data-status)`). */}
                  <TableCell className="inv-due" data-status={t(`billing.${state}`)}>
                    {dates.day(inv.dueDate)}
                  </TableCell>
                  <TableCell className="inv-col-status">{t(`billing.${state}`)}</TableCell>
                  <TableCell>
                    {state !== 'paid' && (
                      <Button size="small" variation="primary" onClick={() => setPaying(inv)} data-testid={`invoice-pay-${inv.id}`}>
                        {t('billing.pay')}
                      </Button>
                    )}
                  </TableCell>
                </TableRow>
              );
            })}
            {!loading && !items.length && (
              <TableRow>
                <TableCell colSpan={7}>{t('billing.empty')}</TableCell>
              </TableRow>
            )}
          </TableBody>
        </Table>
      </div>
      {paying && <CheckoutDialog invoice={paying} onClose={() => setPaying(undefined)} />}
    </Flex>
  );
}
