import { createRouter, created, idParam, noContent, pageParams } from '../../core/http.js';
import { createPlan, deletePlan, getPlan, listPlans, listPublicPlans, toPlan, updatePlan } from '../../services/plans.js';

export const handler = createRouter('plans', {
  'GET /plans/list': () => listPublicPlans(),
  'GET /plans/all': () => listPlans(),
  'GET /plans': async (req) => {
    const { pageNumber, pageSize } = pageParams(req.query);
    const term = (req.query.searchParam ?? '').trim().toLowerCase();
    const all = (await listPlans()).filter((p) => !term || p.name.toLowerCase().includes(term));
    return { plans: all.slice((pageNumber - 1) * pageSize, pageNumber * pageSize), count: all.length, hasMore: pageNumber * pageSize < all.length };
  },
  'POST /plans': async (req) => created(await createPlan(req.body)),
  'GET /plans/{id}': async (req) => toPlan(await getPlan(idParam(req.params.id))),
  'PUT /plans/{id}': (req) => updatePlan(idParam(req.params.id), req.body),
  'DELETE /plans/{id}': async (req) => {
    await deletePlan(idParam(req.params.id));
    return noContent();
  },
});
