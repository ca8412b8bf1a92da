import { describe, expect, it } from 'vitest';
import { as, call, endpoints, fetchFrom, login, member, PASSWORD, tenant, uniq, type Res } from './client.js';

/**
 * Issue 16 §4 and §5: rate limits per client address and per account on the public routes (reset,
 * sign-up, API sign-in, external-API tokens), Cognito's lockouts (wrong passwords, wrong reset
 * codes) in the local stand-in too, and a reset or an admin's password change ending the user's
 * sessions. Each test sends from a loopback address of its own, so its limits are its own.
 */
/** Requests from a loopback address of their own (its per-address limits are the test's alone). */
const api = (from: ReturnType<typeof fetchFrom>) => (method: string, path: string, body?: unknown, token?: string) => call(method, path, { from, body, token });

/** `times` requests answered `status`, then the next one refused with 429 and a Retry-After. */
async function refusedAfter(times: number, status: number, request: () => Promise<Res>) {
  for (let i = 0; i < times; i++) expect((await request()).status).toBe(status);
  const refused = await request();
  expect(refused.status).toBe(429);
  expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
  return refused;
}

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
    const flood = await refusedAfter(5, 404, () => send('POST', `/forgetpassword/${email}`));
    expect(flood.body).toMatchObject({ error: 'ERR_RATE_LIMITED' });
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
    await refusedAfter(10, 400, () => send('POST', '/companies/cadastro', { name: '' }));
    await from.close();
  });

  it('external API: 10 unknown tokens a minute per address, then every request from it waits, a right token too', async () => {
    const from = fetchFrom();
    const send = api(from);
    const t = await tenant();
    const conn = await t.admin.post('/whatsapp', { name: 'Loja API', provider: 'sandbox', generateToken: true });
    expect(conn.status).toBe(201);
    const message = { number: '5511999990000', body: 'x' };
    await refusedAfter(10, 401, () => send('POST', '/api/messages/send', message, uniq('tok')));
    // The guesser's address is refused before any token is looked up, so a right guess gets nothing either.
    expect((await send('POST', '/api/messages/send', message, conn.body.token)).status).toBe(429);
    // Another address with the right token is served (the connection is not linked yet: 400, not 401 or 429).
    expect((await call('POST', '/api/messages/send', { body: message, token: conn.body.token })).status).toBe(400);
    await from.close();
  });

  it('API sign-in with e-mail and password: Cognito locks after 5 wrong passwords, the API allows 10 per e-mail in 5 minutes', async () => {
    const from = fetchFrom();
    const send = api(from);
    const email = `${uniq('alvo')}@nada.test`;
    const statuses: number[] = [];
    let last: Awaited<ReturnType<typeof send>> | undefined;
    for (let i = 0; i < 11; i++) statuses.push((last = await send('POST', '/auth/login', { email, password: 'Errada123' })).status);
    // Five wrong passwords, then Cognito's lockout: 1 s, doubling with each wrong password let through
    // once it ends (a slow machine lets one or two through); past ten, the API's own limit (with Retry-After).
    expect(statuses.slice(0, 5)).toEqual([401, 401, 401, 401, 401]);
    expect(statuses.slice(5, 10).every((s) => s === 401 || s === 429)).toBe(true);
    expect(statuses.slice(5, 10).filter((s) => s === 429).length).toBeGreaterThanOrEqual(3);
    expect(statuses[10]).toBe(429);
    expect(Number(last!.headers.get('retry-after'))).toBeGreaterThan(0);
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
