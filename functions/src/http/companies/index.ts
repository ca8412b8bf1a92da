import { AppError } from '@balcao/shared';
import { clientIp, LIMITS, takeRate } from '../../services/rate-limits.js';
import { createRouter, created, idParam, noContent, pageParams, type Request } from '../../core/http.js';
import {
  companyDetails,
  companyWithPlan,
  createCompany,
  deleteCompany,
  listCompanies,
  searchCompanies,
  signup,
  toApiCompany,
  updateCompany,
  updateCompanySchedules,
} from '../../services/companies.js';

/** A company's own users may read it; only the super user reads others (404, never a leak). */
function ownOrSuper(req: Request): number {
  const id = idParam(req.params.id);
  if (!req.identity.isSuper && id !== req.identity.companyId) throw new AppError(404, 'ERR_NO_COMPANY_FOUND');
  return id;
}

export const handler = createRouter('companies', {
  'POST /companies/cadastro': async (req) => {
    await takeRate('signup-ip', clientIp(req.event), LIMITS.signupPerIp);
    return created(await signup(req.body));
  },
  'GET /companies/listPlan/{id}': (req) => companyWithPlan(ownOrSuper(req)),
  'GET /companies/list': () => listCompanies(),
  'GET /companies': (req) => searchCompanies(req.query.searchParam, pageParams(req.query).pageNumber),
  'POST /companies': async (req) => {
    const { company } = await createCompany(req.body);
    return created(toApiCompany(company));
  },
  'GET /companies/{id}': (req) => companyDetails(ownOrSuper(req)),
  'PUT /companies/{id}': (req) => updateCompany(idParam(req.params.id), req.body),
  'PUT /companies/{id}/schedules': (req) => updateCompanySchedules(req.identity, idParam(req.params.id), req.body),
  'DELETE /companies/{id}': async (req) => {
    await deleteCompany(idParam(req.params.id), req.identity.companyId);
    return noContent();
  },
});
