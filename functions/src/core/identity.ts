import { AppError, isAdminProfile, isPastDue, blockedMessage, pastDueMessage, type Profile } from '@balcao/shared';
import type { RouteDef } from '../routes.js';
import { dynamo } from './aws.js';
import { getItem } from './db.js';
import { keys } from '../table/keys.js';
import { sessionOf } from './jwt.js';
import { type CompanyItem, type PlanItem, type UserItem } from '../table/items.js';

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
  // The platform's own company is never billed (decision 61): its due date does not lock it.
  if (company.dueDate && !company.billingExempt && isPastDue(company.dueDate)) {
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

/**
 * Users read by `authenticate`, kept for a second (DESIGN §4: "every request reads it, briefly
 * cached in the function"): a console page opening makes several requests at once, and a ticket
 * list page is two to four DynamoDB calls with it. Every write to a user item through this process's
 * DynamoDB client (a `USER#` key, seen by a middleware) drops them all, so in this instance, and in
 * the one-process local stack, a change of profile, queues or session counts from the next
 * request; other Lambda instances see it within the second. A read that overlapped such a write is
 * not kept (it may hold the state before it).
 */
const USER_CACHE_MS = 1_000;
const userCache = new Map<string, { at: number; user: UserItem }>();
let userWrites = 0;
let watchingUserWrites = false;

const isUserKey = (k: unknown) => {
  const sk = (k as { SK?: unknown } | undefined)?.SK;
  const v = typeof sk === 'string' ? sk : (sk as { S?: unknown } | undefined)?.S;
  return typeof v === 'string' && v.startsWith(keys.userPrefix());
};
/** The keys a write command's input touches (document or marshalled form). */
function writesUser(input: Record<string, unknown>): boolean {
  const keys: unknown[] = [input.Item, input.Key];
  for (const t of (input.TransactItems as Record<string, { Item?: unknown; Key?: unknown }>[] | undefined) ?? []) {
    for (const op of Object.values(t)) keys.push(op?.Item, op?.Key);
  }
  for (const reqs of Object.values((input.RequestItems as Record<string, { PutRequest?: { Item?: unknown }; DeleteRequest?: { Key?: unknown } }[]> | undefined) ?? {})) {
    if (Array.isArray(reqs)) for (const r of reqs) keys.push(r.PutRequest?.Item, r.DeleteRequest?.Key);
  }
  return keys.some(isUserKey);
}

/** Once per process, on its one DynamoDB client (core/aws.ts). */
function watchUserWrites() {
  if (watchingUserWrites) return;
  watchingUserWrites = true;
  dynamo().middlewareStack.add(
    (next, context) => async (args) => {
      if (!/^(Put|Update|Delete|TransactWrite|BatchWrite)/.test(context.commandName ?? '') || !writesUser(args.input as Record<string, unknown>)) return next(args);
      userWrites++;
      userCache.clear();
      try {
        return await next(args);
      } finally {
        userWrites++;
        userCache.clear();
      }
    },
    { step: 'initialize', name: 'balcaoUserCacheInvalidation' },
  );
}

async function cachedUserBySub(sub: string): Promise<UserItem | undefined> {
  watchUserWrites();
  const hit = userCache.get(sub);
  if (hit && Date.now() - hit.at < USER_CACHE_MS) return hit.user;
  const generation = userWrites;
  const user = await loadUserBySub(sub);
  if (user && generation === userWrites) {
    if (userCache.size >= POINTERS_KEPT) userCache.delete(userCache.keys().next().value!);
    userCache.set(sub, { at: Date.now(), user });
  }
  return user;
}

/** The token's sign-in must be the user's current one (single session, §14). */
export function isCurrentSession(user: UserItem, claims: Record<string, unknown>): boolean {
  // The same rule as the fan-out's (a socket hears events while its session is the user's), so a
  // socket this accepts is never a deaf one.
  return user.session !== undefined && user.session.id === sessionOf(claims).id;
}

export async function authenticate(claims: Record<string, unknown>, route?: RouteDef, opts: { skipSession?: boolean } = {}): Promise<Identity> {
  const sub = typeof claims.sub === 'string' ? claims.sub : undefined;
  if (!sub) throw new AppError(401, 'ERR_SESSION_EXPIRED');
  const user = await cachedUserBySub(sub);
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
  // Campaigns need both the plan's flag and the company's own switch (issue 20 §1; decision 52).
  if (route.planFlag === 'useCampaigns' && identity.company.campaignsEnabled === false) throw new AppError(403, 'ERR_PLAN_FEATURE_DISABLED');
}
