import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RouteDef } from '@balcao/functions/manifest';
import { startGateway } from '../../local/gateway.js';
import { JwtAuthorizer } from '../../local/jwt.js';
import { freePort } from '../../local/ports.js';
import { endpoints, signIn, type Tokens } from '../support/index.js';
import * as echo from './fixtures/echo-http.js';
import { foreignKey, signToken } from './tokens.js';

const fixtureRoutes: RouteDef[] = [
  { method: 'GET', path: '/things/{id}', handler: 'echo', auth: 'user' },
  { method: 'GET', path: '/things/list', handler: 'echo', auth: 'user' },
  { method: 'POST', path: '/things', handler: 'echo', auth: 'public' },
  { method: 'GET', path: '/files/{key+}', handler: 'echo', auth: 'public' },
  { method: 'GET', path: '/fail/throw', handler: 'echo', auth: 'public' },
  { method: 'GET', path: '/fail/binary', handler: 'echo', auth: 'public' },
  { method: 'GET', path: '/fail/plain', handler: 'echo', auth: 'public' },
  { method: 'GET', path: '/missing', handler: 'does-not-exist', auth: 'public' },
  { method: 'GET', path: '/slow', handler: 'slow', auth: 'public' },
  { method: 'POST', path: '/resets/{email}/{token}/{newPassword}', handler: 'echo', auth: 'public' },
];
const logLines: string[] = [];

let gw: { url: string; stop(): Promise<void> };
let tokens: Tokens;
let issuer: string;

beforeAll(async () => {
  const e = endpoints();
  issuer = `${e.cognito.endpoint}/${e.cognito.userPoolId}`;
  const authorizer = new JwtAuthorizer(issuer, [e.cognito.userPoolClientId], `${issuer}/.well-known/jwks.json`);
  gw = await startGateway({
    port: await freePort(),
    routes: fixtureRoutes,
    authorizer,
    allowOrigin: (o) => o === 'http://console.test',
    log: (_source: string, line: string) => void logLines.push(line),
    bodyLimit: 1024 * 1024,
    integrationTimeoutMs: 300,
    loadHandler: async (name) => {
      if (name === 'echo') return echo;
      if (name === 'slow') return { handler: () => new Promise((r) => setTimeout(() => r({ statusCode: 200 }), 2000)) };
      throw new Error(`no module ${name}`);
    },
  });
  tokens = await signIn(e.admin.email, e.admin.password);
});
afterAll(() => gw?.stop());

const get = (path: string, headers: Record<string, string> = {}) => fetch(`${gw.url}${path}`, { headers });
const bearer = (t: string) => ({ authorization: `Bearer ${t}` });
const baseClaims = () => {
  const e = endpoints();
  const now = Math.floor(Date.now() / 1000);
  return { sub: 'x', iss: issuer, client_id: e.cognito.userPoolClientId, token_use: 'access', iat: now, exp: now + 600 };
};

describe('the local gateway: JWT authorizer', () => {
  it('refuses a user route without a token, with a malformed, expired, foreign-issuer, wrong-audience or wrongly signed token', async () => {
    const cases: Record<string, Record<string, string>> = {
      missing: {},
      notBearer: { authorization: tokens.accessToken },
      malformed: bearer('not.a.jwt'),
      expired: bearer(signToken({ ...baseClaims(), exp: Math.floor(Date.now() / 1000) - 5 })),
      notYetValid: bearer(signToken({ ...baseClaims(), nbf: Math.floor(Date.now() / 1000) + 600 })),
      foreignIssuer: bearer(signToken({ ...baseClaims(), iss: 'https://cognito-idp.us-east-1.amazonaws.com/us-east-1_other' })),
      wrongAudience: bearer(signToken({ ...baseClaims(), client_id: 'someotherclient' })),
      wrongKey: bearer(signToken(baseClaims(), { key: foreignKey() })),
      tampered: bearer(`${tokens.accessToken.split('.')[0]}.${Buffer.from(JSON.stringify({ ...baseClaims(), sub: 'evil' })).toString('base64url')}.${tokens.accessToken.split('.')[2]}`),
    };
    for (const [name, headers] of Object.entries(cases)) {
      const res = await get('/things/1', headers);
      expect(res.status, name).toBe(401);
      expect(await res.json(), name).toEqual({ message: 'Unauthorized' });
    }
  });

  it('accepts Cognito access and id tokens and hands their claims to the handler', async () => {
    for (const t of [tokens.accessToken, tokens.idToken]) {
      const res = await get('/things/42?x=1&x=2&y=%C3%A9', { ...bearer(t), cookie: 'c1=v1; c2=v2', 'X-Custom': 'Yes' });
      expect(res.status).toBe(201);
      const ev: any = await res.json();
      expect(ev.version).toBe('2.0');
      expect(ev.routeKey).toBe('GET /things/{id}');
      expect(ev.rawPath).toBe('/things/42');
      expect(ev.rawQueryString).toBe('x=1&x=2&y=%C3%A9');
      expect(ev.queryStringParameters).toEqual({ x: '1,2', y: 'é' });
      expect(ev.pathParameters).toEqual({ id: '42' });
      expect(ev.cookies).toEqual(['c1=v1', 'c2=v2']);
      expect(ev.headers['x-custom']).toBe('Yes');
      expect(ev.headers.cookie).toBeUndefined();
      expect(ev.requestContext).toMatchObject({ routeKey: 'GET /things/{id}', stage: '$default', http: { method: 'GET', path: '/things/42', sourceIp: '127.0.0.1' } });
      expect(typeof ev.requestContext.requestId).toBe('string');
      expect(typeof ev.requestContext.timeEpoch).toBe('number');
      expect(ev.requestContext.authorizer.jwt.claims.iss).toBe(issuer);
      expect(typeof ev.requestContext.authorizer.jwt.claims.exp).toBe('string');
      expect(ev.isBase64Encoded).toBe(false);
    }
    const res = await get('/things/1', bearer(tokens.accessToken));
    expect(res.headers.get('x-fixture')).toBe('yes');
    expect(res.headers.getSetCookie()).toEqual(['a=1; Path=/', 'b=2; Path=/']);
  });

  it('shares one JWKS fetch between concurrent first requests', async () => {
    const e = endpoints();
    const fresh = new JwtAuthorizer(issuer, [e.cognito.userPoolClientId], `${issuer}/.well-known/jwks.json`);
    const all = await Promise.all(Array.from({ length: 6 }, () => fresh.verify(tokens.accessToken)));
    expect(all.every((c) => c.iss === issuer)).toBe(true);
  });

  it('matches static segments before parameters, greedy paths, and one trailing slash', async () => {
    const list: any = await (await get('/things/list/', bearer(tokens.accessToken))).json();
    expect(list.routeKey).toBe('GET /things/list');
    const file: any = await (await get('/files/company1/photos/a%20b.png')).json();
    expect(file.routeKey).toBe('GET /files/{key+}');
    expect(file.pathParameters).toEqual({ key: 'company1/photos/a b.png' });
    expect((await get('/things')).status).toBe(404);
    expect(await (await get('/nowhere')).json()).toEqual({ message: 'Not Found' });
  });

  it('passes JSON as text and multipart as base64, and refuses bodies over the limit', async () => {
    const json: any = await (await fetch(`${gw.url}/things`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"a":"é"}' })).json();
    expect(json.body).toBe('{"a":"é"}');
    expect(json.isBase64Encoded).toBe(false);
    const form = new FormData();
    form.set('name', 'x');
    form.set('file', new Blob([new Uint8Array([0, 1, 2, 255])], { type: 'image/png' }), 'a.png');
    const mp: any = await (await fetch(`${gw.url}/things`, { method: 'POST', body: form })).json();
    expect(mp.isBase64Encoded).toBe(true);
    expect(mp.headers['content-type']).toMatch(/^multipart\/form-data; boundary=/);
    expect(Buffer.from(mp.body, 'base64').includes(Buffer.from([0, 1, 2, 255]))).toBe(true);
    const big = await fetch(`${gw.url}/things`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: 'x'.repeat(1024 * 1024 + 1) });
    expect(big.status).toBe(413);
  });

  it('decodes base64 results, wraps plain results as JSON, and turns failures into 500/502', async () => {
    const bin = await get('/fail/binary');
    expect(bin.headers.get('content-type')).toBe('image/png');
    expect([...new Uint8Array(await bin.arrayBuffer())]).toEqual([0x89, 0x50, 0x4e, 0x47]);
    const plain = await get('/fail/plain');
    expect(plain.status).toBe(200);
    expect(await plain.json()).toEqual({ hello: 'world' });
    expect((await get('/fail/throw')).status).toBe(500);
    expect((await get('/missing')).status).toBe(502);
    const slow = await get('/slow');
    expect(slow.status).toBe(503);
    expect(await slow.json()).toEqual({ message: 'Service Unavailable' });
    expect(slow.headers.get('apigw-requestid')).toBeTruthy();
  });

  it('answers CORS preflight for the console origin and tags responses', async () => {
    const pre = await fetch(`${gw.url}/things/1`, {
      method: 'OPTIONS',
      headers: { origin: 'http://console.test', 'access-control-request-method': 'PUT', 'access-control-request-headers': 'authorization,content-type' },
    });
    expect(pre.status).toBe(204);
    expect(pre.headers.get('access-control-allow-origin')).toBe('http://console.test');
    expect(pre.headers.get('access-control-allow-methods')).toContain('PUT');
    expect(pre.headers.get('access-control-allow-headers')).toContain('authorization');
    expect(Number(pre.headers.get('access-control-max-age'))).toBeGreaterThan(0);
    const other = await fetch(`${gw.url}/things/1`, { method: 'OPTIONS', headers: { origin: 'http://evil.test', 'access-control-request-method': 'GET' } });
    expect(other.headers.get('access-control-allow-origin')).toBeNull();
    const unauth = await get('/things/1', { origin: 'http://console.test' });
    expect(unauth.status).toBe(401);
    expect(unauth.headers.get('access-control-allow-origin')).toBe('http://console.test');
  });
});

describe('the local gateway: logs', () => {
  it('names a route whose path carries a password, token or e-mail by its key, never by the values', async () => {
    logLines.length = 0;
    const res = await fetch(`${gw.url}/resets/ana%40loja.test/123456/S3nhaSecreta!`, { method: 'POST' });
    expect(res.status).toBe(201);
    await get('/things/list', bearer(tokens.accessToken));
    const text = logLines.join('\n');
    expect(text).toContain('POST /resets/{email}/{token}/{newPassword} 201');
    expect(text).not.toMatch(/S3nhaSecreta|123456|ana%40loja|ana@loja/);
    // Other routes keep their path: ids help when reading the log.
    expect(text).toContain('GET /things/list 201');
  });
});

describe('the stack gateway', () => {
  it('guards the real user routes and allows the console origin', async () => {
    const e = endpoints();
    const me = await fetch(`${e.apiUrl}/auth/me`);
    expect(me.status).toBe(401);
    expect(await me.json()).toEqual({ message: 'Unauthorized' });
    const forged = await fetch(`${e.apiUrl}/auth/me`, { headers: bearer(signToken({ ...baseClaims(), exp: 1 })) });
    expect(forged.status).toBe(401);
    const pre = await fetch(`${e.apiUrl}/users/1`, { method: 'OPTIONS', headers: { origin: e.webUrl, 'access-control-request-method': 'DELETE' } });
    expect(pre.status).toBe(204);
    expect(pre.headers.get('access-control-allow-origin')).toBe(e.webUrl);
  });

  it('serves the console config', async () => {
    const e = endpoints();
    const cfg: any = await (await fetch(`${e.webUrl}/config.json`)).json();
    expect(cfg).toEqual({ apiUrl: e.apiUrl, wsUrl: e.wsUrl, cognito: e.cognito });
  });
});
