import { useEffect, useState } from 'react';
import { Controller, useForm } from 'react-hook-form';
import { useTranslation } from 'react-i18next';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { Button, CheckboxField, Flex, Loader, Table, TableBody, TableCell, TableHead, TableRow, TextField } from '@aws-amplify/ui-react';
import { MSG, PLAN_FLAGS, planSchema, type Plan, type PlanFlag } from '@balcao/shared';
import { z } from 'zod';
import { api } from '../../api/http';
import { applyFieldErrors, toastError } from '../../api/errors';
import { ConfirmDialog } from '../../ui/ConfirmDialog';
import { Modal } from '../../ui/Modal';
import { fieldError, resolver } from '../../ui/form';
import { toast } from '../../ui/toast';
import { UNBUILT_PLAN_FLAGS } from '../../features';
import { RowActions } from '../../ui/TableParts';

type Numbers = 'users' | 'connections' | 'queues' | 'campaigns' | 'schedules';
const NUMBERS: Numbers[] = ['users', 'connections', 'queues', 'campaigns', 'schedules'];
type Values = { name: string; value: string } & Record<Numbers, string> & Record<PlanFlag, boolean>;

// Brazilians type prices with a decimal comma.
const formSchema = planSchema.extend({
  value: z.preprocess(
    (v) => (typeof v === 'string' ? v.trim().replace(/\./g, '').replace(',', '.') : v),
    z.coerce.number({ error: MSG.invalidValue }).min(0, { error: MSG.invalidValue }),
  ),
});

export const brl = (v: number) => v.toLocaleString('pt-BR', { style: 'currency', currency: 'BRL' });

export default function Plans() {
  const { t } = useTranslation();
  const qc = useQueryClient();
  const { data: plans = [], isLoading, error } = useQuery({ queryKey: ['plans-all'], queryFn: () => api.get<Plan[]>('/plans/all') });
  const [editing, setEditing] = useState<Plan | null | undefined>(undefined);
  const [deleting, setDeleting] = useState<Plan | null>(null);
  useEffect(() => {
    if (error) toastError(error);
  }, [error]);

  const remove = async (p: Plan) => {
    try {
      await api.del(`/plans/${p.id}`);
      qc.setQueryData<Plan[]>(['plans-all'], (l = []) => l.filter((x) => x.id !== p.id));
      toast.success(t('common.deleted'));
    } catch (e) {
      toastError(e);
    }
  };

  return (
    <Flex direction="column" gap="0.75rem" paddingTop="1rem">
      <Flex justifyContent="flex-end">
        <Button variation="primary" onClick={() => setEditing(null)}>
          {t('plans.add')}
        </Button>
      </Flex>
      <div className="table-scroll">
        <Table size="small" highlightOnHover className="data-table">
          <TableHead>
            <TableRow>
              <TableCell as="th">{t('plans.name')}</TableCell>
              {NUMBERS.map((n) => (
                <TableCell as="th" key={n} className="hide-narrow">
                  {t(`plans.${n}`)}
                </TableCell>
              ))}
              <TableCell as="th">{t('plans.value')}</TableCell>
              <TableCell as="th" className="actions-col">{t('common.actions')}</TableCell>
            </TableRow>
          </TableHead>
          <TableBody>
            {plans.map((p) => (
              <TableRow key={p.id}>
                <TableCell>{p.name}</TableCell>
                {NUMBERS.map((n) => (
                  <TableCell key={n} className="hide-narrow">
                    {p[n]}
                  </TableCell>
                ))}
                <TableCell>{brl(p.value)}</TableCell>
                <RowActions name={p.name} onEdit={() => setEditing(p)} onDelete={() => setDeleting(p)} />
              </TableRow>
            ))}
          </TableBody>
        </Table>
        {isLoading && <Loader variation="linear" />}
      </div>
      {editing !== undefined && (
        <PlanDialog
          plan={editing}
          onClose={() => setEditing(undefined)}
          onSaved={(p) => qc.setQueryData<Plan[]>(['plans-all'], (l = []) => (l.some((x) => x.id === p.id) ? l.map((x) => (x.id === p.id ? p : x)) : [...l, p]))}
        />
      )}
      <ConfirmDialog open={!!deleting} title={deleting?.name ?? ''} onClose={() => setDeleting(null)} onConfirm={() => deleting && void remove(deleting)} />
    </Flex>
  );
}

function PlanDialog({ plan, onClose, onSaved }: { plan: Plan | null; onClose: () => void; onSaved: (p: Plan) => void }) {
  const { t } = useTranslation();
  const defaults = {
    name: plan?.name ?? '',
    value: (plan?.value ?? 0).toFixed(2).replace('.', ','),
    ...Object.fromEntries(NUMBERS.map((n) => [n, String(plan?.[n] ?? 0)])),
    ...Object.fromEntries(PLAN_FLAGS.map((f) => [f, plan ? !!plan[f] : true])),
  } as Values;
  const { register, control, handleSubmit, setError, formState } = useForm<Values>({ resolver: resolver<Values>(formSchema), defaultValues: defaults });

  const onSubmit = handleSubmit(async (v) => {
    const body = {
      name: v.name.trim(),
      // The resolver hands over the parsed form (numbers already).
      value: Math.round(Number(v.value) * 100) / 100,
      ...Object.fromEntries(NUMBERS.map((n) => [n, Number(v[n])])),
      ...Object.fromEntries(PLAN_FLAGS.map((f) => [f, !!v[f]])),
    };
    try {
      const saved = plan ? await api.put<Plan>(`/plans/${plan.id}`, body) : await api.post<Plan>('/plans', body);
      toast.success(t('common.saved'));
      onSaved(saved);
      onClose();
    } catch (e) {
      applyFieldErrors(e, setError as never, ['name', 'value', ...NUMBERS]);
      toastError(e);
    }
  });
  const err = formState.errors;
  return (
    <Modal open title={plan ? t('plans.dialogEdit') : t('plans.dialogAdd')} onClose={onClose} wide>
      <form onSubmit={onSubmit} noValidate>
        <Flex direction="column" gap="0.9rem">
          <div className="form-grid">
            <TextField label={t('plans.name')} autoFocus {...register('name')} hasError={!!err.name} errorMessage={fieldError(err.name)} />
            <TextField label={t('plans.value')} inputMode="decimal" innerStartComponent={<span className="input-prefix">R$</span>} {...register('value')} hasError={!!err.value} errorMessage={fieldError(err.value)} />
            {NUMBERS.map((n) => (
              <TextField key={n} label={t(`plans.${n}`)} type="number" min={0} {...register(n)} hasError={!!err[n]} errorMessage={fieldError(err[n])} />
            ))}
          </div>
          <div className="flag-grid">
            {PLAN_FLAGS.map((f) => (
              <Controller
                key={f}
                control={control}
                name={f}
                render={({ field }) => (
                  <CheckboxField
                    label={UNBUILT_PLAN_FLAGS.includes(f) ? t('plans.flagComingSoon', { name: t(`plans.flags.${f}`) }) : t(`plans.flags.${f}`)}
                    name={f}
                    checked={!!field.value}
                    onChange={(e) => field.onChange(e.target.checked)}
                  />
                )}
              />
            ))}
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
