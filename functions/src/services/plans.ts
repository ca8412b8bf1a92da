import { AppError, parseOrThrow, planSchema, planUpdateSchema, PLAN_FLAGS, type Plan } from '@balcao/shared';
import { clean, getItem, nextId, queryAll, queryIndexAll, transact, tx, updateItem } from '../core/db.js';
import { keys } from '../table/keys.js';
import { invalidateCompanyCache } from '../core/identity.js';
import { type CompanyItem, type PlanItem } from '../table/items.js';
import { nowIso } from '../core/ports.js';

const duplicateName = () =>
  new AppError(409, 'ERR_VALIDATION', {
    message: 'Já existe um plano com esse nome',
    fields: [{ field: 'name', message: 'Já existe um plano com esse nome' }],
  });

export const toPlan = (item: PlanItem): Plan => clean(item) as unknown as Plan;

export async function listPlans(): Promise<Plan[]> {
  const items = await queryAll<PlanItem>(keys.plansPartition());
  return items.sort((a, b) => a.id - b.id).map(toPlan);
}

/** The public list for signup: what a visitor needs to choose a plan. */
export async function listPublicPlans() {
  return (await listPlans()).map((p) => ({
    id: p.id,
    name: p.name,
    users: p.users,
    connections: p.connections,
    queues: p.queues,
    value: p.value,
    ...Object.fromEntries(PLAN_FLAGS.map((f) => [f, p[f]])),
  }));
}

export async function getPlan(id: number): Promise<PlanItem> {
  const item = await getItem<PlanItem>(keys.plan(id));
  if (!item) throw new AppError(404, 'ERR_NO_PLAN_FOUND');
  return item;
}

export async function createPlan(input: unknown): Promise<Plan> {
  const data = parseOrThrow(planSchema, input);
  const id = await nextId(0, 'plan');
  const now = nowIso();
  const item: PlanItem = { ...keys.plan(id), entity: 'plan', id, ...data, createdAt: now, updatedAt: now };
  await transact([tx.putUnique({ ...keys.planName(data.name), entity: 'unique', planId: id }), tx.put(item)], (i) =>
    i === 0 ? duplicateName() : undefined,
  );
  return toPlan(item);
}

export async function updatePlan(id: number, input: unknown): Promise<Plan> {
  const current = await getPlan(id);
  const data = parseOrThrow(planUpdateSchema, input);
  const now = nowIso();
  if (data.name && data.name.trim().toLowerCase() !== current.name.trim().toLowerCase()) {
    await transact(
      [
        tx.putUnique({ ...keys.planName(data.name), entity: 'unique', planId: id }),
        tx.delete(keys.planName(current.name)),
        tx.update(keys.plan(id), 'SET #n = :n, updatedAt = :u', { ':n': data.name, ':u': now }, 'attribute_exists(PK)', { '#n': 'name' }),
      ],
      (i) => (i === 0 ? duplicateName() : i === 2 ? new AppError(404, 'ERR_NO_PLAN_FOUND') : undefined),
    );
  }
  const { name: _name, ...rest } = data;
  const updated = await updateItem<PlanItem>(keys.plan(id), { ...rest, updatedAt: now });
  invalidateCompanyCache();
  return toPlan(updated);
}

export async function deletePlan(id: number): Promise<void> {
  const current = await getPlan(id);
  const companies = await queryIndexAll<CompanyItem>('GSI1', keys.companyList());
  const inUse = companies.filter((c) => c.planId === id).length;
  if (inUse > 0) {
    throw new AppError(409, 'ERR_PLAN_IN_USE', { message: `Plano em uso por ${inUse} empresa(s)`, details: { companies: inUse } });
  }
  await transact([tx.delete(keys.plan(id), 'attribute_exists(PK)'), tx.delete(keys.planName(current.name))], (i) =>
    i === 0 ? new AppError(404, 'ERR_NO_PLAN_FOUND') : undefined,
  );
}
