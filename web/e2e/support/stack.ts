// Brings the stack project's provide/inject types (endpoints, env) into this program.
import type {} from '../../../infra/test/local/global-setup.js';
import { createTenant, createUser, endpoints, login, PASSWORD, stackEnv, uniq, type Api } from '../../../infra/test/support/index.js';

export { createUser, endpoints, login, PASSWORD, uniq };

let superApi: Api | undefined;
let superCreds: { email: string; password: string } | undefined;

/**
 * A super user of this test file's own. Sessions are single per user, so sharing the seeded super
 * user with other files would kick their sessions out.
 */
export async function ownSuperUser(): Promise<{ email: string; password: string; api: Api }> {
  if (!superApi || !superCreds) {
    stackEnv();
    const { createUser: createUserRecord } = await import('../../../functions/src/services/users.js');
    const { getItem } = await import('../../../functions/src/core/db.js');
    const { keys } = await import('../../../functions/src/table/keys.js');
    const seeded = await getItem<{ companyId: number }>(keys.uniqueEmail(endpoints().admin.email));
    const email = `${uniq('websuper')}@balcao.test`;
    await createUserRecord(seeded!.companyId, { name: 'Super Web', email, password: PASSWORD, profile: 'admin' }, [], {
      isSuper: true,
      skipLimit: true,
    });
    superCreds = { email, password: PASSWORD };
    superApi = (await login(email, PASSWORD)).api;
  }
  return { ...superCreds, api: superApi };
}

/** A fresh tenant (created by this file's own super user) with a due date `dueInDays` ahead. */
export async function tenant(opts: { dueInDays?: number; planOverrides?: Record<string, unknown> } = {}) {
  const sup = await ownSuperUser();
  const t = await createTenant({ superApi: sup.api, planOverrides: opts.planOverrides });
  const dueDate = new Date(Date.now() + (opts.dueInDays ?? 365) * 86_400_000).toISOString();
  const res = await sup.api.put(`/companies/${t.companyId}`, { dueDate });
  if (res.status !== 200) throw new Error(`PUT /companies/${t.companyId}: ${res.status} ${JSON.stringify(res.body)}`);
  return { ...t, company: { ...t.company, dueDate } };
}

/**
 * A tenant with room for 100 users, and a second admin with its own API session to change things
 * while the browser watches (made before any browser sign-in: that one replaces the admin's API session).
 */
export async function tenantAndOtherAdmin() {
  const t = await tenant({ planOverrides: { users: 100 } });
  const otherAdmin = await createUser(t.admin.token, { profile: 'admin', name: 'Outra Admin' });
  return { t, otherAdmin };
}
