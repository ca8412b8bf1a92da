import { describe, expect, it } from 'vitest';
import { as, call, endpoints, fetchFrom, login, member, PASSWORD, tenant, uniq } from './client.js';

/**
 * Issue 16 §4 and §5: rate limits per client address and per account on the public routes (reset,
 * sign-up, API sign-in, external-API tokens), Cognito's lockouts (wrong passwords, wrong reset
 * codes) in the local stand-in too, and a reset or an admin's password change ending the user's
 * sessions. Each test sends from a loopback address of its own, so its limits are its own.
 */
const api = (from: ReturnType<typeof fetchFrom>) => async (method: string, path: string, body?: unknown, token?: string) => {
  const headers: Record<string, string> = {};
  if (body !== undefined) headers['content-type'] = 'application/json';
  if (token) headers.authorization = `Bearer ${token}`;
  const res = await from(`${endpoints().apiUrl}${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await res.text();
  return { status: res.status, retryAfter: res.headers.get('retry-after'), body: text ? JSON.parse(text) : undefined };
};

async function cognito(target: string, body: Record<string, unknown>) {
  const res = await fetch(endpoints().cognito.endpoint, {
    method: 'POST',
    headers: { 'content-type': 'application/x-amz-json-1.1', 'x-amz-target': `AWSCognitoIdentityProviderService.${target}` },
    body: JSON.stringify({ ClientId: endpoints().cognito.userPoolClientId, ...body }),
  });
  return { status: res.status, body: (await res.json()) as any };
}
const signIn = (email: string, password: string) => cognito('InitiateAuth', { AuthFlow: 'USER_PASSWORD_AUTH', AuthParameters: { USERNAME: email, PASSWORD: password } });
const lastCode = async (email: string) => {
  const mail = (await fetch(`${endpoints().sandboxUrl}/mailbox/${encodeURIComponent(email)}`).then((r) => r.json())) as { code: string }[];
  return mail[0]!.code; // newest first
};

describe('abuse limits', () => {
  it('reset codes: 5 per e-mail an hour and 10 per address in 15 minutes, then 429 with Retry-After', async () => {
    const from = fetchFrom();
    const send = api(from);
    const email = `${uniq('ninguem')}@nada.test`;
    // Unknown e-mails still answer the spec's 404: the limit is what keeps them from being listed in bulk.
    for (let i = 0; i < 5; i++) expect((await send('POST', `/forgetpassword/${email}`)).status).toBe(404);
    const flood = await send('POST', `/forgetpassword/${email}`);
    expect(flood.status).toBe(429);
    expect(flood.body).toMatchObject({ error: 'ERR_RATE_LIMITED' });
    expect(Number(flood.retryAfter)).toBeGreaterThan(0);
    // Other addresses from the same client: the per-address budget (10, the flood took 6).
    for (let i = 0; i < 4; i++) expect((await send('POST', `/forgetpassword/${uniq('outro')}@nada.test`)).status).toBe(404);
    const listing = await send('POST', `/forgetpassword/${uniq('mais')}@nada.test`);
    expect(listing.status).toBe(429);
    // Another client is not held back by this one.
    expect((await call('POST', `/forgetpassword/${uniq('livre')}@nada.test`)).status).toBe(404);
    await from.close();
  });

  it('public sign-ups: 10 per address an hour', async () => {
    const from = fetchFrom();
    const send = api(from);
    // Invalid sign-ups count too (a bot does not fill the form right either).
    for (let i = 0; i < 10; i++) expect((await send('POST', '/companies/cadastro', { name: '' })).status).toBe(400);
    const res = await send('POST', '/companies/cadastro', { name: '' });
    expect(res.status).toBe(429);
    expect(Number(res.retryAfter)).toBeGreaterThan(0);
    await from.close();
  });

  it('external API: 10 unknown tokens a minute per address, then every request from it waits, a right token too', async () => {
    const from = fetchFrom();
    const send = api(from);
    for (let i = 0; i < 10; i++) expect((await send('POST', '/api/messages/send', { number: '5511999990000', body: 'x' }, uniq('tok'))).status).toBe(401);
    const guess = await send('POST', '/api/messages/send', { number: '5511999990000', body: 'x' }, uniq('tok'));
    expect(guess.status).toBe(429);
    expect(Number(guess.retryAfter)).toBeGreaterThan(0);
    await from.close();
  });

  it('API sign-in with e-mail and password: Cognito locks after 5 wrong passwords, the API allows 10 per e-mail in 5 minutes', async () => {
    const from = fetchFrom();
    const send = api(from);
    const email = `${uniq('alvo')}@nada.test`;
    const statuses: number[] = [];
    let last: Awaited<ReturnType<typeof send>> | undefined;
    for (let i = 0; i < 11; i++) statuses.push((last = await send('POST', '/auth/login', { email, password: 'Errada123' })).status);
    // Five wrong passwords, then Cognito's lockout; past ten, the API's own limit (with Retry-After).
    expect(statuses).toEqual([401, 401, 401, 401, 401, 429, 429, 429, 429, 429, 429]);
    expect(Number(last!.retryAfter)).toBeGreaterThan(0);
    await from.close();
  });

  it('Cognito (the local stand-in too) locks an account after 5 wrong passwords, also for the right one', async () => {
    const t = await tenant();
    const agent = await member(t.admin);
    for (let i = 0; i < 5; i++) expect((await signIn(agent.email, 'Errada123')).body.__type).toBe('NotAuthorizedException');
    const locked = await signIn(agent.email, PASSWORD);
    expect(locked.body).toMatchObject({ __type: 'NotAuthorizedException', message: 'Password attempts exceeded' });
    // Through the API the lockout is a 429.
    const viaApi = await call('POST', '/auth/login', { body: { email: agent.email, password: PASSWORD } });
    expect(viaApi.status).toBe(429);
    // The first lockout lasts a second.
    await new Promise((r) => setTimeout(r, 1100));
    expect((await signIn(agent.email, PASSWORD)).status).toBe(200);
  });

  it('a reset code dies after 5 wrong tries; a new one works; the reset ends every session of the user', async () => {
    const t = await tenant();
    const agent = await member(t.admin);
    const old = await login(agent.email, PASSWORD);
    expect((await as(old.token).get('/auth/me')).status).toBe(200);

    expect((await call('POST', `/forgetpassword/${encodeURIComponent(agent.email)}`)).status).toBe(200);
    const code = await lastCode(agent.email);
    const wrong = code === '000000' ? '111111' : '000000';
    for (let i = 0; i < 5; i++) expect((await call('POST', `/resetpasswords/${encodeURIComponent(agent.email)}/${wrong}/NovaSenha9`)).status).toBe(400);
    const dead = await call('POST', `/resetpasswords/${encodeURIComponent(agent.email)}/${code}/NovaSenha9`);
    expect(dead.status).toBe(429);

    expect((await call('POST', `/forgetpassword/${encodeURIComponent(agent.email)}`)).status).toBe(200);
    const fresh = await lastCode(agent.email);
    expect((await call('POST', `/resetpasswords/${encodeURIComponent(agent.email)}/${fresh}/NovaSenha9`)).status).toBe(200);

    // The session signed in with the old password is over, and its refresh token is revoked.
    expect((await as(old.token).get('/auth/me')).status).toBe(401);
    const renewed = await cognito('InitiateAuth', { AuthFlow: 'REFRESH_TOKEN_AUTH', AuthParameters: { REFRESH_TOKEN: old.refreshToken } });
    expect(renewed.body.__type).toBe('NotAuthorizedException');
    await expect(login(agent.email, 'NovaSenha9')).resolves.toMatchObject({ user: { id: agent.id } });
  });

  it('an admin who sets another user’s password ends that user’s session; their own stays', async () => {
    const t = await tenant();
    const agent = await member(t.admin);
    expect((await agent.api.get('/auth/me')).status).toBe(200);
    const changed = await t.admin.put(`/users/${agent.id}`, { name: 'Agente Teste', email: agent.email, password: 'OutraSenha7' });
    expect(changed.status).toBe(200);
    expect((await agent.api.get('/auth/me')).status).toBe(401);
    expect((await t.admin.get('/auth/me')).status).toBe(200);
    await expect(login(agent.email, 'OutraSenha7')).resolves.toMatchObject({ user: { id: agent.id } });
  });
});
