import { useTranslation } from 'react-i18next';
import { TableCell, TableRow, TextField } from '@aws-amplify/ui-react';
import { MSG, PLAN_FLAGS, planSchema, type Plan, type PlanFlag } from '@balcao/shared';
import { z } from 'zod';
import { PLANS_KEY, plansApi } from '../../api/plans';
import { UNBUILT_PLAN_FLAGS } from '../../features';
import { EntityDialog } from '../../ui/EntityDialog';
import { EntityTablePage, type ColumnSpec } from '../../ui/EntityTablePage';
import { CheckField } from '../../ui/fields';
import { RowActions } from '../../ui/TableParts';
import { useEntityForm } from '../../ui/useEntityForm';
import { useLiveQuery } from '../../ui/useLiveQuery';
import { useRowActions } from '../../ui/useRowActions';

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
  const { items: plans, isLoading, upsert, drop } = useLiveQuery<Plan>({ key: PLANS_KEY, load: plansApi.all });
  const actions = useRowActions<Plan>({ remove: (p) => plansApi.remove(p.id), onRemoved: (p) => drop(p.id), deletedText: t('common.deleted') });

  return (
    <EntityTablePage
      tab
      add={t('plans.add')}
      actions={actions}
      deleteTitle={(p) => p.name}
      texts="plans"
      columns={['name', ...NUMBERS.map((n): ColumnSpec => [n, 'hide-narrow']), 'value']}
      loading={isLoading}
      dialogs={actions.editing && <PlanDialog plan={actions.editing.item} onClose={actions.close} onSaved={upsert} />}
    >
      {plans.map((p) => (
        <TableRow key={p.id}>
          <TableCell>{p.name}</TableCell>
          {NUMBERS.map((n) => (
            <TableCell key={n} className="hide-narrow">
              {p[n]}
            </TableCell>
          ))}
          <TableCell>{brl(p.value)}</TableCell>
          <RowActions name={p.name} onEdit={() => actions.edit(p)} onDelete={() => actions.askDelete(p)} />
        </TableRow>
      ))}
    </EntityTablePage>
  );
}

function PlanDialog({ plan, onClose, onSaved }: { plan: Plan | null; onClose: () => void; onSaved: (p: Plan) => void }) {
  const { t } = useTranslation();
  const entity = useEntityForm<Values, Plan>({
    schema: formSchema,
    defaultValues: {
      name: plan?.name ?? '',
      value: (plan?.value ?? 0).toFixed(2).replace('.', ','),
      ...Object.fromEntries(NUMBERS.map((n) => [n, String(plan?.[n] ?? 0)])),
      ...Object.fromEntries(PLAN_FLAGS.map((f) => [f, plan ? !!plan[f] : true])),
    } as Values,
    fields: ['name', 'value', ...NUMBERS],
    save: (v) =>
      plansApi.save(plan?.id, {
        name: v.name.trim(),
        // The resolver hands over the parsed form (numbers already).
        value: Math.round(Number(v.value) * 100) / 100,
        ...Object.fromEntries(NUMBERS.map((n) => [n, Number(v[n])])),
        ...Object.fromEntries(PLAN_FLAGS.map((f) => [f, !!v[f]])),
      }),
    savedText: t('common.saved'),
    onSaved,
    onClose,
    pause: false,
  });
  const { form, field } = entity;
  return (
    <EntityDialog title={plan ? t('plans.dialogEdit') : t('plans.dialogAdd')} entity={entity} onClose={onClose}>
      <div className="form-grid">
        <TextField label={t('plans.name')} autoFocus {...field('name')} />
        <TextField label={t('plans.value')} inputMode="decimal" innerStartComponent={<span className="input-prefix">R$</span>} {...field('value')} />
        {NUMBERS.map((n) => (
          <TextField key={n} label={t(`plans.${n}`)} type="number" min={0} {...field(n)} />
        ))}
      </div>
      <div className="flag-grid">
        {PLAN_FLAGS.map((f) => (
          <CheckField
            key={f}
            control={form.control}
            name={f}
            label={UNBUILT_PLAN_FLAGS.includes(f) ? t('plans.flagComingSoon', { name: t(`plans.flags.${f}`) }) : t(`plans.flags.${f}`)}
          />
        ))}
      </div>
    </EntityDialog>
  );
}
