import { AppError, companyEvent, emailField, parseOrThrow, resetPasswordSchema, loginSchema, type LoginAnswer, type User } from '@balcao/shared';
import { z } from 'zod';
import { LIMITS, takeRate } from './rate-limits.js';
import { getItem, updateItem } from '../core/db.js';
import { keys } from '../table/keys.js';
import { identityProvider } from '../core/cognito.js';
import { verifyToken, sessionOf, type Claims } from '../core/jwt.js';
import { assertCompanyActive, loadCompanyAndPlan, loadUserBySub, type Identity } from '../core/identity.js';
import { publish } from '../core/realtime.js';
import { endSessions, toApiUser } from './users.js';
import { listSettings } from './settings.js';
import { toApiCompany } from './companies.js';
import { toPlan } from './plans.js';
import { type UserItem } from '../table/items.js';
import { nowIso } from '../core/ports.js';

/** The signed-in user with the company, its plan and settings (what the console keeps). */
export async function currentUser(user: UserItem): Promise<User> {
  const { company, plan } = await loadCompanyAndPlan(user.companyId, true);
  const api = await toApiUser(user);
  return {
    ...api,
    company: {
      ...toApiCompany(company),
      plan: plan ? toPlan(plan) : undefined,
      settings: await listSettings(user.companyId),
    },
  };
}

/**
 * Registers a sign-in as the user's only session (server-behaviour §14). The console signs in with
 * Cognito and calls this with the new access token; API clients may send e-mail and password.
 * Older sessions are refused from now on and their consoles receive `company-{id}-auth`.
 */
export async function login(body: Record<string, unknown>, bearerToken?: string, ip = 'unknown'): Promise<LoginAnswer> {
  let claims: Claims;
  let tokens: Awaited<ReturnType<typeof identityProvider.passwordSignIn>> | undefined;
  if (bearerToken) {
    try {
      claims = await verifyToken(bearerToken);
    } catch {
      throw new AppError(401, 'ERR_SESSION_EXPIRED');
    }
  } else {
    const { email, password } = parseOrThrow(loginSchema, body);
    await takeRate('login-ip', ip, LIMITS.loginPerIp);
    await takeRate('login-email', email, LIMITS.loginPerEmail);
    tokens = await identityProvider.passwordSignIn(email, password);
    claims = await verifyToken(tokens.accessToken);
  }
  const user = await loadUserBySub(claims.sub);
  if (!user) throw new AppError(401, 'ERR_INVALID_CREDENTIALS', { message: 'Email ou senha incorreta!' });
  const { company } = await loadCompanyAndPlan(user.companyId, true);
  assertCompanyActive(company, user.super === true);

  const session = sessionOf(claims);
  const previous = user.session;
  const now = nowIso();
  const updated = await updateItem<UserItem>(keys.user(user.companyId, user.id), {
    session: { ...session, startedAt: now },
    online: true,
    lastSeenAt: now,
    GSI2PK: keys.onlineUsersPartition(),
    GSI2SK: now,
    updatedAt: now,
  });
  if (previous && previous.id !== session.id) {
    await publish({
      companyId: user.companyId,
      event: companyEvent(user.companyId, 'auth'),
      data: { action: 'anotherLogin', user: { id: user.id }, session: { id: session.id } },
      audience: [{ kind: 'user', userId: user.id }],
    });
  }
  const me = await currentUser(updated);
  return tokens ? { user: me, token: tokens.accessToken, idToken: tokens.idToken, refreshToken: tokens.refreshToken } : { user: me };
}

/** Ends the session: its tokens stop working and the user shows offline. */
export async function logout(identity: Identity): Promise<void> {
  await endSessions(identity.user);
}

/**
 * Step 1 of the reset: 404 when nobody signs in with that e-mail (spec 003 §7). The answer tells
 * whether an address has an account, so asking is limited per client address (enumerating in bulk
 * runs into 429) and per e-mail (no flood of codes to one mailbox); decision 46.
 */
export async function forgotPassword(emailParam: string, ip = 'unknown') {
  await takeRate('forgot-ip', ip, LIMITS.forgotPerIp);
  const { email } = parseOrThrow(z.object({ email: emailField() }), { email: emailParam });
  await takeRate('forgot-email', email, LIMITS.forgotPerEmail);
  const marker = await getItem(keys.uniqueEmail(email));
  if (!marker) throw new AppError(404, 'ERR_NO_USER_FOUND', { message: 'Email não encontrado', details: { status: 404 } });
  await identityProvider.forgotPassword(email);
  return { status: 200, message: 'Email enviado com sucesso!' };
}

/** Step 2: the code from the e-mail and the new password (policy: 8+ with upper, lower, digit). */
export async function resetPassword(input: Record<string, unknown>, ip = 'unknown') {
  await takeRate('reset-ip', ip, LIMITS.resetPerIp);
  const data = parseOrThrow(resetPasswordSchema, { email: input.email, token: input.token, newPassword: input.newPassword, confirmPassword: input.confirmPassword });
  await takeRate('reset-email', data.email, LIMITS.resetPerEmail);
  await identityProvider.confirmForgotPassword(data.email, data.token, data.newPassword);
  // Whoever was signed in with the old password (a stolen session too) is signed out (issue 16 §5).
  const marker = await getItem<{ companyId: number; userId: number }>(keys.uniqueEmail(data.email));
  const user = marker && (await getItem<UserItem>(keys.user(marker.companyId, marker.userId)));
  if (user) await endSessions(user, { revokeSignIns: true });
  return { status: 200, message: 'Senha redefinida com sucesso.' };
}
