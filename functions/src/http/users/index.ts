import { AppError, MIN_USER_SEARCH_CHARS } from '@balcao/shared';
import { createRouter, created, idParam, noContent, pageParams, type Request } from '../../core/http.js';
import { createUser, deleteUser, getUserItem, listUsersBrief, searchUsers, toApiUser, updateUser } from '../../services/users.js';

/** The super user administers any company through `companyId`; everyone else only their own. */
function targetCompany(req: Request): number {
  const asked = Number(req.query.companyId ?? req.body.companyId);
  if (req.identity.isSuper && Number.isSafeInteger(asked) && asked > 0) return asked;
  return req.identity.companyId;
}

export const handler = createRouter('users', {
  'GET /users': (req) => {
    if (!req.identity.isAdmin && !req.identity.isSuper) {
      // Agents may look colleagues up (transfers) but not page through the administration list.
      if ((req.query.searchParam ?? '').trim().length < MIN_USER_SEARCH_CHARS) throw new AppError(403, 'ERR_NO_PERMISSION');
    }
    return searchUsers(targetCompany(req), req.query.searchParam, pageParams(req.query).pageNumber);
  },
  'GET /users/list': (req) => listUsersBrief(targetCompany(req), req.query),
  'GET /users/{id}': async (req) => toApiUser(await getUserItem(targetCompany(req), idParam(req.params.id))),
  'POST /users': async (req) => {
    const user = await createUser(targetCompany(req), req.body, req.files);
    return created(await toApiUser(user));
  },
  'PUT /users/{id}': async (req) =>
    toApiUser(await updateUser(req.identity, targetCompany(req), idParam(req.params.id), req.body, req.files)),
  'DELETE /users/{id}': async (req) => {
    await deleteUser(req.identity, targetCompany(req), idParam(req.params.id));
    return noContent();
  },
});
