import { describe, expect, it } from 'vitest';
import { as, call, cognitoSignIn, endpoints, login, member, PASSWORD, socket, socketRefusal, superUser, tenant, uniq } from './client.js';

/** Cognito's InitiateAuth REFRESH_TOKEN_AUTH: the new access token. */
async function refresh(refreshToken: string): Promise<string> {
  const res = await fetch(endpoints().cognito.endpoint, {
    method: 'POST',
    headers: { 'content-type': 'application/x-amz-json-1.1', 'x-amz-target': 'AWSCognitoIdentityProviderService.InitiateAuth' },
    body: JSON.stringify({ AuthFlow: 'REFRESH_TOKEN_AUTH', ClientId: endpoints().cognito.userPoolClientId, AuthParameters: { REFRESH_TOKEN: refreshToken } }),
  });
  return ((await res.json()) as { AuthenticationResult: { AccessToken: string } }).AuthenticationResult.AccessToken;
}

describe('sign-in and sessions', () => {
  it('registers the session and answers the user with company, plan and settings', async () => {
    const t = await tenant();
    const me = await t.admin.get('/auth/me');
    expect(me.status).toBe(200);
    expect(me.body).toMatchObject({ email: t.email, profile: 'admin', companyId: t.companyId, online: true });
    expect(me.body.company).toMatchObject({ id: t.companyId, status: true });
    expect(me.body.company.plan).toMatchObject({ id: t.planId, useCampaigns: true });
    expect(me.body.company.settings).toEqual(expect.arrayContaining([{ key: 'CheckMsgIsGroup', value: 'enabled', companyId: t.companyId }]));
  });

  it('signs in with e-mail and password on POST /auth/login too, and refuses a wrong one with the spec message', async () => {
    const t = await tenant();
    const ok = await call('POST', '/auth/login', { body: { email: t.email, password: PASSWORD } });
    expect(ok.status).toBe(200);
    expect(typeof ok.body.token).toBe('string');
    expect(ok.body.user.email).toBe(t.email);
    const bad = await call('POST', '/auth/login', { body: { email: t.email, password: 'Errada123' } });
    expect(bad.status).toBe(401);
    expect(bad.body).toMatchObject({ error: 'ERR_INVALID_CREDENTIALS', message: 'Email ou senha incorreta!' });
    const missing = await call('POST', '/auth/login', { body: { email: 'nao-e-email' } });
    expect(missing.status).toBe(400);
    expect(missing.body.field).toBe('email');
  });

  it('refuses requests without a valid token', async () => {
    expect((await call('GET', '/auth/me')).status).toBe(401);
    expect((await call('GET', '/auth/me', { token: 'not.a.jwt' })).status).toBe(401);
  });

  it('keeps one session: a second sign-in refuses the first and sends it the auth event', async () => {
    const t = await tenant();
    const agent = await member(t.admin);
    const first = await socket(agent.token);
    const second = await login(agent.email, PASSWORD);
    const kicked = await first.waitFor(`company-${t.companyId}-auth`);
    expect(kicked.data).toMatchObject({ action: 'anotherLogin', user: { id: agent.id } });
    expect((await agent.api.get('/auth/me')).status).toBe(401);
    expect((await as(second.token).get('/auth/me')).status).toBe(200);
    first.close();
  });

  it('keeps a refreshed token of the current session valid (API and a socket that hears events); a refreshed old session stays refused', async () => {
    const t = await tenant();
    const old = await login(t.email, PASSWORD);
    const tokens = await cognitoSignIn(t.email, PASSWORD);
    expect((await call('POST', '/auth/login', { token: tokens.AccessToken })).status).toBe(200);
    // A later second: cognito-local alone gives a refreshed token a new auth_time.
    await new Promise((r) => setTimeout(r, 1100));
    const refreshed = await refresh(tokens.RefreshToken!);
    const claims = (token: string) => JSON.parse(Buffer.from(token.split('.')[1], 'base64url').toString()) as Record<string, unknown>;
    expect(claims(refreshed)).toMatchObject({ origin_jti: claims(tokens.AccessToken!).origin_jti, auth_time: claims(tokens.AccessToken!).auth_time });
    expect(claims(old.token).origin_jti).not.toBe(claims(tokens.AccessToken!).origin_jti);
    expect((await as(refreshed).get('/auth/me')).status).toBe(200);
    expect((await as(refreshed).post('/auth/refresh_token')).body.user.email).toBe(t.email);
    const ws = await socket(refreshed);
    const created = await as(refreshed).post('/users', { name: 'Ouvida', email: `${uniq('ouvida')}@e.test`, password: PASSWORD });
    await ws.waitFor(`company-${t.companyId}-user`, (d) => d.action === 'create' && d.user.id === created.body.id);
    ws.close();

    const oldRefreshed = await refresh(old.refreshToken);
    expect((await as(oldRefreshed).get('/auth/me')).status).toBe(401);
    expect(await socketRefusal(oldRefreshed)).toBe(401);
  });

  it('logout marks the user offline and ends the session', async () => {
    const t = await tenant();
    const agent = await member(t.admin);
    expect((await t.admin.get(`/users/${agent.id}`)).body.online).toBe(true);
    expect((await agent.api.del('/auth/logout')).status).toBe(204);
    expect((await t.admin.get(`/users/${agent.id}`)).body.online).toBe(false);
    expect((await agent.api.get('/auth/me')).status).toBe(401);
  });

  it('a blocked company cannot sign in or call the API', async () => {
    const t = await tenant();
    const sup = await superUser();
    expect((await sup.put(`/companies/${t.companyId}`, { status: false })).status).toBe(200);
    const tokens = await cognitoSignIn(t.email, PASSWORD);
    const res = await call('POST', '/auth/login', { token: tokens.AccessToken });
    expect(res.status).toBe(403);
    expect(res.body).toEqual(expect.objectContaining({ error: 'ERR_COMPANY_BLOCKED', message: 'Sistema bloqueado, entre em contato com o suporte' }));
  });

  it('a past-due subscription cannot sign in, with the due date in the message', async () => {
    const t = await tenant();
    const sup = await superUser();
    await sup.put(`/companies/${t.companyId}`, { dueDate: '2026-01-10T12:00:00.000Z' });
    const tokens = await cognitoSignIn(t.email, PASSWORD);
    const res = await call('POST', '/auth/login', { token: tokens.AccessToken });
    expect(res.status).toBe(403);
    expect(res.body.error).toBe('ERR_SUBSCRIPTION_EXPIRED');
    expect(res.body.message).toMatch(/^Opss! Sua assinatura venceu 10\/01\/2026\./);
  });
});

describe('password reset', () => {
  it('answers 404 for an unknown e-mail', async () => {
    const res = await call('POST', `/forgetpassword/${encodeURIComponent('ninguem@nada.test')}`);
    expect(res.status).toBe(404);
    expect(res.body.message).toBe('Email não encontrado');
  });

  it('sends a code and resets the password with it', async () => {
    const t = await tenant();
    const agent = await member(t.admin);
    const sent = await call('POST', `/forgetpassword/${encodeURIComponent(agent.email)}`);
    expect(sent.status).toBe(200);
    const mail = (await fetch(`${endpoints().sandboxUrl}/mailbox/${encodeURIComponent(agent.email)}`).then((r) => r.json())) as { code: string }[];
    const code = mail[0].code as string;
    expect(code).toMatch(/^\d+$/);
    const weak = await call('POST', `/resetpasswords/${encodeURIComponent(agent.email)}/${code}/fraca`);
    expect(weak.status).toBe(400);
    expect(weak.body.field).toBe('newPassword');
    const ok = await call('POST', `/resetpasswords/${encodeURIComponent(agent.email)}/${code}/NovaSenha9`);
    expect(ok.status).toBe(200);
    await expect(login(agent.email, 'NovaSenha9')).resolves.toMatchObject({ user: { id: agent.id } });
  });
});

describe('signup', () => {
  it('creates a trial company (3 days, MENSAL) whose admin can sign in', async () => {
    const plans = await call('GET', '/plans/list');
    expect(plans.status).toBe(200);
    const planId = plans.body[0].id;
    const email = `${uniq('loja')}@signup.test`;
    const res = await call('POST', '/companies/cadastro', { body: { name: 'Loja Nova', email, phone: '(11) 98765-4321', password: PASSWORD, planId } });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ name: 'Loja Nova', email, recurrence: 'MENSAL', status: true, phone: '11987654321' });
    const days = (Date.parse(res.body.dueDate) - Date.now()) / 86_400_000;
    expect(days).toBeGreaterThan(2.9);
    expect(days).toBeLessThan(3.1);
    expect(res.body.trialExpiration).toBe(res.body.dueDate);
    const admin = await login(email, PASSWORD);
    expect(admin.user).toMatchObject({ profile: 'admin', companyId: res.body.id });
    const settings = await as(admin.token).get('/settings');
    expect(settings.body).toEqual(expect.arrayContaining([expect.objectContaining({ key: 'scheduleType', value: 'disabled' })]));
    const again = await call('POST', '/companies/cadastro', { body: { name: 'Loja Nova', email, phone: '11987654321', password: PASSWORD, planId } });
    expect(again.status).toBe(409);
    expect(again.body.error).toBe('ERR_COMPANY_EMAIL_ALREADY_EXISTS');
  });

  it('refuses bad input with the field and changes nothing', async () => {
    const res = await call('POST', '/companies/cadastro', { body: { name: 'L', email: 'x@y.z', phone: '1', password: PASSWORD, planId: 1 } });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ field: 'name', message: 'Too Short!' });
  });
});
