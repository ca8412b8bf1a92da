import { useTranslation } from 'react-i18next';
import { z } from 'zod';
import { useQuery } from '@tanstack/react-query';
import { Button, TableCell, TableRow, TextField } from '@aws-amplify/ui-react';
import { advanceDueDate, companySchema, companyUpdateSchema, dayInputValue, isPastDue, passwordField, type Company, type Plan } from '@balcao/shared';
import { toastError } from '../../api/errors';
import { companiesApi } from '../../api/companies';
import { PLANS_KEY, plansApi } from '../../api/plans';
import { NewPasswordField } from '../../ui/AuthCard';
import { useDates } from '../../ui/dates';
import { EntityDialog } from '../../ui/EntityDialog';
import { EntityTablePage } from '../../ui/EntityTablePage';
import { choicesOf, DateTimeField, Select } from '../../ui/fields';
import { RowActions } from '../../ui/TableParts';
import { toast } from '../../ui/toast';
import { useEntityForm } from '../../ui/useEntityForm';
import { useLiveList } from '../../ui/useLiveList';
import { useRowActions, useSearch } from '../../ui/useRowActions';

interface Values {
  name: string;
  email: string;
  phone: string;
  planId: string;
  status: string;
  campaignsEnabled: string;
  billingExempt: string;
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
  const { search, setSearch, searchParam } = useSearch();
  const { items: list, loading, scroller, onScroll, upsert, removeById } = useLiveList<Company>({ path: companiesApi.path, itemsKey: 'companies', searchParam });
  const actions = useRowActions<Company>({ remove: (c) => companiesApi.remove(c.id), onRemoved: (c) => removeById(c.id), deletedText: t('common.deleted') });
  const { data: plans = [] } = useQuery({ queryKey: PLANS_KEY, queryFn: plansApi.all });

  const save = async (c: Company, patch: Partial<Company>) => {
    try {
      upsert(await companiesApi.update(c.id, patch));
      toast.success(t('common.saved'));
    } catch (e) {
      toastError(e);
    }
  };

  const planName = (id: number) => plans.find((p) => p.id === id)?.name ?? id;
  return (
    <EntityTablePage
      tab
      search={{ value: search, onChange: setSearch, placeholder: t('users.searchPlaceholder') }}
      add={t('companies.add')}
      actions={actions}
      deleteTitle={(c) => c.name}
      texts="companies"
      columns={['name', ['email', 'hide-narrow'], ['phone', 'hide-narrow'], 'plan', 'status', ['campaignsEnabled', 'hide-narrow'], 'dueDate', ['recurrence', 'hide-narrow'], ['createdAt', 'hide-narrow']]}
      loading={loading}
      highlight={false}
      scroll={{ scroller, onScroll }}
      dialogs={actions.editing && <CompanyDialog company={actions.editing.item} plans={plans} onClose={actions.close} onSaved={(c) => upsert(c)} />}
    >
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
          <RowActions name={c.name} onEdit={() => actions.edit(c)} onDelete={() => actions.askDelete(c)}>
            <Button size="small" isDisabled={!c.dueDate} onClick={() => c.dueDate && void save(c, { dueDate: advanceDueDate(c.dueDate, c.recurrence ?? 'MENSAL') })}>
              {t('companies.addDue')}
            </Button>
          </RowActions>
        </TableRow>
      ))}
    </EntityTablePage>
  );
}

function CompanyDialog({ company, plans, onClose, onSaved }: { company: Company | null; plans: Plan[]; onClose: () => void; onSaved: (c: Company) => void }) {
  const { t } = useTranslation();
  const { timeZone } = useDates();
  const entity = useEntityForm<Values, Company>({
    schema: company ? companyUpdateSchema : createSchema,
    defaultValues: {
      name: company?.name ?? '',
      email: company?.email ?? '',
      phone: company?.phone ?? '',
      planId: company ? String(company.planId) : '',
      status: String(company?.status ?? true),
      campaignsEnabled: String(company?.campaignsEnabled ?? false),
      billingExempt: String(company?.billingExempt ?? false),
      dueDate: dayInput(company?.dueDate ?? null, timeZone),
      recurrence: company?.recurrence ?? 'MENSAL',
      password: '',
    },
    fields: ['name', 'email', 'phone', 'planId', 'dueDate', 'password'],
    save: (v) => {
      const body: Record<string, unknown> = {
        name: v.name.trim(),
        email: v.email.trim().toLowerCase(),
        phone: v.phone,
        planId: Number(v.planId),
        // The resolver hands over the parsed form: booleans, and the due date as ISO or null.
        status: String(v.status) === 'true',
        campaignsEnabled: String(v.campaignsEnabled) === 'true',
        // The platform's own company is never billed (decision 61).
        billingExempt: String(v.billingExempt) === 'true',
        // Spec 003 §4: an empty or invalid due date is sent as null. Noon UTC keeps the calendar day
        // the same in Brazilian time zones.
        dueDate: v.dueDate ? `${String(v.dueDate).slice(0, 10)}T12:00:00.000Z` : null,
        recurrence: v.recurrence,
      };
      if (!company && v.password) body.password = v.password;
      return companiesApi.save(company?.id, body);
    },
    savedText: t('common.saved'),
    onSaved,
    onClose,
    pause: false,
  });
  const { form, field } = entity;
  const onOff = [
    { value: 'true', label: t('common.enabled') },
    { value: 'false', label: t('common.disabled') },
  ];
  return (
    <EntityDialog title={company ? t('companies.dialogEdit') : t('companies.dialogAdd')} entity={entity} onClose={onClose}>
      <div className="form-grid">
        <TextField label={t('companies.name')} autoFocus {...field('name')} />
        <TextField label={t('companies.email')} type="email" {...field('email')} />
        <TextField label={t('companies.phone')} type="tel" {...field('phone')} />
        <Select label={t('companies.plan')} placeholder="-" {...field('planId')} choices={choicesOf(plans)} />
        <Select
          label={t('companies.status')}
          {...form.register('status')}
          choices={[
            { value: 'true', label: t('companies.active') },
            { value: 'false', label: t('companies.inactive') },
          ]}
        />
        <Select label={t('companies.campaignsEnabled')} {...form.register('campaignsEnabled')} choices={onOff} />
        <Select label={t('companies.billingExempt')} {...form.register('billingExempt')} choices={onOff} />
        <DateTimeField label={t('companies.dueDate')} type="date" timeZone={timeZone} {...form.register('dueDate')} />
        <Select label={t('companies.recurrence')} {...form.register('recurrence')} choices={[{ value: 'MENSAL', label: t('companies.monthly') }]} />
        {!company && <NewPasswordField label={t('companies.password')} {...field('password')} />}
      </div>
    </EntityDialog>
  );
}
