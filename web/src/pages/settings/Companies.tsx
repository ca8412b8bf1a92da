import { useEffect, useRef, useState } from 'react';
import { useForm } from 'react-hook-form';
import { useTranslation } from 'react-i18next';
import { z } from 'zod';
import { useQuery } from '@tanstack/react-query';
import { Button, Flex, Loader, PasswordField, SelectField, Table, TableBody, TableCell, TableHead, TableRow, TextField } from '@aws-amplify/ui-react';
import {
  advanceDueDate,
  companySchema,
  companyUpdateSchema,
  dayInputValue,
  INFINITE_SCROLL_THRESHOLD_PX,
  isPastDue,
  passwordField,
  SEARCH_DEBOUNCE_MS,
  type Company,
  type Plan,
} from '@balcao/shared';
import { api } from '../../api/http';
import { applyFieldErrors, toastError } from '../../api/errors';
import { ConfirmDialog } from '../../ui/ConfirmDialog';
import { useDates } from '../../ui/dates';
import { Modal } from '../../ui/Modal';
import { useDebounced } from '../../ui/hooks';
import { Icon } from '../../ui/icons';
import { fieldError, resolver } from '../../ui/form';
import { toast } from '../../ui/toast';

interface Values {
  name: string;
  email: string;
  phone: string;
  planId: string;
  status: string;
  campaignsEnabled: string;
  dueDate: string;
  recurrence: string;
  password: string;
}

// The admin password is optional on create: an empty field means "not given".
const createSchema = companySchema.extend({ password: z.preprocess((v) => (v === '' ? undefined : v), passwordField().optional()) });
// The day the table shows (the signed-in company's time zone), not the UTC date of the stored instant.
const dayInput = (iso: string | null, timeZone: string) => (iso ? dayInputValue(iso, timeZone) : '');

export default function Companies() {
  const { t } = useTranslation();
  const dates = useDates();
  const [search, setSearch] = useState('');
  const searchParam = useDebounced(search.trim(), SEARCH_DEBOUNCE_MS);
  const [list, setList] = useState<Company[]>([]);
  const [page, setPage] = useState(1);
  const [hasMore, setHasMore] = useState(false);
  const [loading, setLoading] = useState(false);
  const [editing, setEditing] = useState<Company | null | undefined>(undefined);
  const [deleting, setDeleting] = useState<Company | null>(null);
  const scroller = useRef<HTMLDivElement>(null);
  const { data: plans = [] } = useQuery({ queryKey: ['plans-all'], queryFn: () => api.get<Plan[]>('/plans/all') });

  useEffect(() => {
    setPage(1);
  }, [searchParam]);
  useEffect(() => {
    let live = true;
    setLoading(true);
    api
      .get<{ companies: Company[]; hasMore: boolean }>('/companies', { query: { searchParam, pageNumber: page } })
      .then((r) => {
        if (!live) return;
        setList((prev) => (page === 1 ? r.companies : [...prev, ...r.companies.filter((c) => !prev.some((p) => p.id === c.id))]));
        setHasMore(r.hasMore);
      })
      .catch((e) => live && toastError(e))
      .finally(() => live && setLoading(false));
    return () => {
      live = false;
    };
  }, [searchParam, page]);

  const upsert = (c: Company) => setList((l) => (l.some((x) => x.id === c.id) ? l.map((x) => (x.id === c.id ? { ...x, ...c } : x)) : [c, ...l]));

  const save = async (c: Company, patch: Partial<Company>) => {
    try {
      upsert(await api.put<Company>(`/companies/${c.id}`, patch));
      toast.success(t('common.saved'));
    } catch (e) {
      toastError(e);
    }
  };

  const remove = async (c: Company) => {
    try {
      await api.del(`/companies/${c.id}`);
      setList((l) => l.filter((x) => x.id !== c.id));
      toast.success(t('common.deleted'));
    } catch (e) {
      toastError(e);
    }
  };

  const planName = (id: number) => plans.find((p) => p.id === id)?.name ?? id;
  return (
    <Flex direction="column" gap="0.75rem" paddingTop="1rem">
      <Flex justifyContent="space-between" gap="0.5rem" wrap="wrap">
        <TextField label={t('common.search')} labelHidden placeholder={t('users.searchPlaceholder')} type="search" value={search} onChange={(e) => setSearch(e.target.value)} />
        <Button variation="primary" onClick={() => setEditing(null)}>
          {t('companies.add')}
        </Button>
      </Flex>
      <div
        className="table-scroll"
        ref={scroller}
        onScroll={() => {
          const el = scroller.current;
          if (el && hasMore && !loading && el.scrollHeight - el.scrollTop - el.clientHeight < INFINITE_SCROLL_THRESHOLD_PX) setPage((p) => p + 1);
        }}
      >
        <Table size="small" className="data-table">
          <TableHead>
            <TableRow>
              <TableCell as="th">{t('companies.name')}</TableCell>
              <TableCell as="th" className="hide-narrow">{t('companies.email')}</TableCell>
              <TableCell as="th" className="hide-narrow">{t('companies.phone')}</TableCell>
              <TableCell as="th">{t('companies.plan')}</TableCell>
              <TableCell as="th">{t('companies.status')}</TableCell>
              <TableCell as="th" className="hide-narrow">{t('companies.campaignsEnabled')}</TableCell>
              <TableCell as="th">{t('companies.dueDate')}</TableCell>
              <TableCell as="th" className="hide-narrow">{t('companies.recurrence')}</TableCell>
              <TableCell as="th" className="hide-narrow">{t('companies.createdAt')}</TableCell>
              <TableCell as="th" className="actions-col">{t('common.actions')}</TableCell>
            </TableRow>
          </TableHead>
          <TableBody>
            {list.map((c) => (
              <TableRow key={c.id} className={!c.status ? 'row-inactive' : isPastDue(c.dueDate) ? 'row-overdue' : undefined}>
                <TableCell>{c.name}</TableCell>
                <TableCell className="hide-narrow">{c.email}</TableCell>
                <TableCell className="hide-narrow">{c.phone}</TableCell>
                <TableCell>{planName(c.planId)}</TableCell>
                <TableCell>{c.status ? t('companies.active') : t('companies.inactive')}</TableCell>
                <TableCell className="hide-narrow">{c.campaignsEnabled ? t('common.enabled') : t('common.disabled')}</TableCell>
                <TableCell>{dates.day(c.dueDate)}</TableCell>
                <TableCell className="hide-narrow">{c.recurrence}</TableCell>
                <TableCell className="hide-narrow">{dates.day(c.createdAt)}</TableCell>
                <TableCell className="actions-col">
                  <Button size="small" isDisabled={!c.dueDate} onClick={() => c.dueDate && void save(c, { dueDate: advanceDueDate(c.dueDate, c.recurrence ?? 'MENSAL') })}>
                    {t('companies.addDue')}
                  </Button>
                  <button type="button" className="icon-btn" aria-label={`${t('common.edit')} ${c.name}`} onClick={() => setEditing(c)}>
                    <Icon name="edit" size={20} />
                  </button>
                  <button type="button" className="icon-btn danger" aria-label={`${t('common.delete')} ${c.name}`} onClick={() => setDeleting(c)}>
                    <Icon name="delete" size={20} />
                  </button>
                </TableCell>
              </TableRow>
            ))}
          </TableBody>
        </Table>
        {loading && <Loader variation="linear" />}
      </div>
      {editing !== undefined && <CompanyDialog company={editing} plans={plans} onClose={() => setEditing(undefined)} onSaved={upsert} />}
      <ConfirmDialog open={!!deleting} title={deleting?.name ?? ''} onClose={() => setDeleting(null)} onConfirm={() => deleting && void remove(deleting)} />
    </Flex>
  );
}

function CompanyDialog({ company, plans, onClose, onSaved }: { company: Company | null; plans: Plan[]; onClose: () => void; onSaved: (c: Company) => void }) {
  const { t } = useTranslation();
  const { timeZone } = useDates();
  const { register, handleSubmit, setError, formState } = useForm<Values>({
    resolver: resolver<Values>(company ? companyUpdateSchema : createSchema),
    defaultValues: {
      name: company?.name ?? '',
      email: company?.email ?? '',
      phone: company?.phone ?? '',
      planId: company ? String(company.planId) : '',
      status: String(company?.status ?? true),
      campaignsEnabled: String(company?.campaignsEnabled ?? false),
      dueDate: dayInput(company?.dueDate ?? null, timeZone),
      recurrence: company?.recurrence ?? 'MENSAL',
      password: '',
    },
  });
  const onSubmit = handleSubmit(async (v) => {
    const body: Record<string, unknown> = {
      name: v.name.trim(),
      email: v.email.trim().toLowerCase(),
      phone: v.phone,
      planId: Number(v.planId),
      // The resolver hands over the parsed form: booleans, and the due date as ISO or null.
      status: String(v.status) === 'true',
      campaignsEnabled: String(v.campaignsEnabled) === 'true',
      // Spec 003 §4: an empty or invalid due date is sent as null. Noon UTC keeps the calendar day
      // the same in Brazilian time zones.
      dueDate: v.dueDate ? `${String(v.dueDate).slice(0, 10)}T12:00:00.000Z` : null,
      recurrence: v.recurrence,
    };
    if (!company && v.password) body.password = v.password;
    try {
      const saved = company ? await api.put<Company>(`/companies/${company.id}`, body) : await api.post<Company>('/companies', body);
      toast.success(t('common.saved'));
      onSaved(saved);
      onClose();
    } catch (e) {
      applyFieldErrors(e, setError as never, ['name', 'email', 'phone', 'planId', 'dueDate', 'password']);
      toastError(e);
    }
  });
  const err = formState.errors;
  return (
    <Modal open title={company ? t('companies.dialogEdit') : t('companies.dialogAdd')} onClose={onClose} wide>
      <form onSubmit={onSubmit} noValidate>
        <Flex direction="column" gap="0.9rem">
          <div className="form-grid">
            <TextField label={t('companies.name')} autoFocus {...register('name')} hasError={!!err.name} errorMessage={fieldError(err.name)} />
            <TextField label={t('companies.email')} type="email" {...register('email')} hasError={!!err.email} errorMessage={fieldError(err.email)} />
            <TextField label={t('companies.phone')} type="tel" {...register('phone')} hasError={!!err.phone} errorMessage={fieldError(err.phone)} />
            <SelectField label={t('companies.plan')} placeholder="-" {...register('planId')} hasError={!!err.planId} errorMessage={fieldError(err.planId)}>
              {plans.map((p) => (
                <option key={p.id} value={p.id}>
                  {p.name}
                </option>
              ))}
            </SelectField>
            <SelectField label={t('companies.status')} {...register('status')}>
              <option value="true">{t('companies.active')}</option>
              <option value="false">{t('companies.inactive')}</option>
            </SelectField>
            <SelectField label={t('companies.campaignsEnabled')} {...register('campaignsEnabled')}>
              <option value="true">{t('common.enabled')}</option>
              <option value="false">{t('common.disabled')}</option>
            </SelectField>
            <TextField label={t('companies.dueDate')} type="date" {...register('dueDate')} />
            <SelectField label={t('companies.recurrence')} {...register('recurrence')}>
              <option value="MENSAL">{t('companies.monthly')}</option>
            </SelectField>
            {!company && (
              <PasswordField label={t('companies.password')} autoComplete="new-password" showPasswordButtonLabel={t('common.showPassword')} {...register('password')} hasError={!!err.password} errorMessage={fieldError(err.password)} />
            )}
          </div>
          <Flex justifyContent="flex-end" gap="0.5rem">
            <Button onClick={onClose}>{t('common.cancel')}</Button>
            <Button type="submit" variation="primary" isLoading={formState.isSubmitting}>
              {t('common.save')}
            </Button>
          </Flex>
        </Flex>
      </form>
    </Modal>
  );
}
