import { AppError, isAdminProfile, isPastDue, blockedMessage, pastDueMessage, type Profile } from '@balcao/shared';
import type { RouteDef } from '../routes.js';
import { getItem } from './db.js';
import { keys } from './keys.js';
import { sessionOf } from './jwt.js';
import type { CompanyItem, PlanItem, UserItem } from '../services/types.js';

/** Who is calling, as the table says (tokens identify, the table authorises: DESIGN §4). */
export interface Identity {
  sub: string;
  userId: number;
  companyId: number;
  profile: Profile;
  isAdmin: boolean;
  isSuper: boolean;
  queueIds: number[];
  allTicket: boolean;
  user: UserItem;
  company: CompanyItem;
  plan: PlanItem | undefined;
  session: { id: string; authTime: number };
}

const COMPANY_CACHE_MS = 15_000;
const companyCache = new Map<number, { at: number; company: CompanyItem; plan: PlanItem | undefined }>();

export function invalidateCompanyCache(companyId?: number) {
  if (companyId === undefined) companyCache.clear();
  else companyCache.delete(companyId);
}

export async function loadCompanyAndPlan(companyId: number, fresh = false) {
  const hit = companyCache.get(companyId);
  if (!fresh && hit && Date.now() - hit.at < COMPANY_CACHE_MS) return hit;
  const company = await getItem<CompanyItem>(keys.company(companyId));
  if (!company) throw new AppError(401, 'ERR_SESSION_EXPIRED');
  const plan = company.planId ? await getItem<PlanItem>(keys.plan(company.planId)) : undefined;
  const entry = { at: Date.now(), company, plan };
  companyCache.set(companyId, entry);
  return entry;
}

/** Blocked companies and past-due subscriptions can neither sign in nor call the API (§14). */
export function assertCompanyActive(company: CompanyItem, isSuper: boolean) {
  if (isSuper) return;
  if (company.status === false) throw new AppError(403, 'ERR_COMPANY_BLOCKED', { message: blockedMessage });
  if (company.dueDate && isPastDue(company.dueDate)) {
    throw new AppError(403, 'ERR_SUBSCRIPTION_EXPIRED', { message: pastDueMessage(company.dueDate), details: { dueDate: company.dueDate } });
  }
}

/**
 * Sign-in identity → user pointers seen by this instance: a sub's pointer is written once with its
 * user, so every request reads only the user item, fresh. A cached pointer whose user is gone is
 * read again (the sub may belong to a user made since).
 */
const POINTERS_KEPT = 5_000;
const pointerCache = new Map<string, { companyId: number; userId: number }>();

export async function loadUserBySub(sub: string): Promise<UserItem | undefined> {
  const cached = pointerCache.get(sub);
  if (cached) {
    const user = await getItem<UserItem>(keys.user(cached.companyId, cached.userId));
    if (user?.sub === sub) return user;
    pointerCache.delete(sub);
  }
  const pointer = await getItem<{ companyId: number; userId: number }>(keys.identity(sub));
  if (!pointer) return undefined;
  const user = await getItem<UserItem>(keys.user(pointer.companyId, pointer.userId));
  if (user) {
    if (pointerCache.size >= POINTERS_KEPT) pointerCache.delete(pointerCache.keys().next().value!);
    pointerCache.set(sub, { companyId: pointer.companyId, userId: pointer.userId });
  }
  return user;
}

/** The token's sign-in must be the user's current one (single session, §14). */
export function isCurrentSession(user: UserItem, claims: Record<string, unknown>): boolean {
  if (!user.session) return false;
  const tokenSession = sessionOf(claims);
  if (tokenSession.id === user.session.id) return true;
  // Without origin_jti (the local Cognito stand-in) refreshed tokens carry a newer auth_time.
  return typeof claims.origin_jti !== 'string' && tokenSession.authTime > user.session.authTime;
}

export async function authenticate(claims: Record<string, unknown>, route?: RouteDef, opts: { skipSession?: boolean } = {}): Promise<Identity> {
  const sub = typeof claims.sub === 'string' ? claims.sub : undefined;
  if (!sub) throw new AppError(401, 'ERR_SESSION_EXPIRED');
  const user = await loadUserBySub(sub);
  if (!user) throw new AppError(401, 'ERR_SESSION_EXPIRED');
  if (!opts.skipSession && !isCurrentSession(user, claims)) throw new AppError(401, 'ERR_SESSION_EXPIRED');
  const { company, plan } = await loadCompanyAndPlan(user.companyId);
  const isSuper = user.super === true;
  assertCompanyActive(company, isSuper);
  const identity: Identity = {
    sub,
    userId: user.id,
    companyId: user.companyId,
    profile: user.profile,
    isAdmin: isAdminProfile(user.profile),
    isSuper,
    queueIds: user.queueIds ?? [],
    allTicket: user.allTicket === 'enabled',
    user,
    company,
    plan,
    session: sessionOf(claims),
  };
  if (route) authorizeRoute(identity, route);
  return identity;
}

export function authorizeRoute(identity: Identity, route: RouteDef) {
  if (route.super && !identity.isSuper) throw new AppError(403, 'ERR_NO_PERMISSION');
  if (route.admin && !identity.isAdmin && !identity.isSuper) throw new AppError(403, 'ERR_NO_PERMISSION');
  if (route.planFlag && !identity.plan?.[route.planFlag]) throw new AppError(403, 'ERR_PLAN_FEATURE_DISABLED');
}
