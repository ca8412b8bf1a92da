import { describe, expect, it } from 'vitest';
import { apiRoutes, type ApiRoute } from '@balcao/shared';
import type { z } from 'zod';
import { routes, routeKey, type RouteDef } from '../../src/routes.js';
import { endpoints, fetchFrom, member, superUserToken, tenant } from './client.js';

/**
 * Bad input never gets a 5xx (issue 16 §2): every route of the route table (the table is the
 * list, so a new route is fuzzed the day it is added) receives malformed path values, queries and
 * bodies — wrong types, nulls, arrays for objects, huge strings, deep nesting, prototype keys,
 * lone surrogates, malformed JSON, wrong content types, bad multipart — as a tenant's admin, and as
 * the super user on the super user's routes. Every answer must be below 500. DELETE routes only
 * get ids that name nothing, so the run removes nothing.
 */
const BAD_PATH_VALUES = ['999999999', '-1', 'abc', '1e309', '%ZZ', '%E0%A4%A', '%00', 'x'.repeat(400), '..%2F..%2Fetc', '%F0%9F%98%80'];
const BAD_QUERIES = [
  'pageNumber=abc',
  'pageNumber=-5&searchParam=' + 'a'.repeat(5000),
  'searchParam=%ZZ',
  'searchParam=%ED%A0%80',
  'queueIds=[1,&tags=nope&users={}',
  'status=__proto__&date=2026-13-45&cursor=%00',
  'type=x&type=y&kanban=2',
  'withUnreadMessages=maybe&showAll=[]&isUseStatusFilter=1e400',
];
const HUGE = 'x'.repeat(200_000);
const deep = (n: number) => '['.repeat(n) + ']'.repeat(n);

/** Values that break a field of a body's schema. */
const FIELD_VALUES: unknown[] = [null, [], {}, [{}], 1e308, -1, true, '', HUGE, '\ud800', { __proto__: { polluted: true } }, { constructor: { prototype: {} } }];

function bodyKeys(route: ApiRoute): string[] {
  // A route the console does not call (a webhook) has no entry in the contracts.
  const spec = apiRoutes[route] as { body?: z.ZodType } | undefined;
  const shape = (spec?.body as unknown as { shape?: Record<string, unknown> } | undefined)?.shape;
  return shape ? Object.keys(shape) : ['name', 'id', 'body'];
}

interface Attempt {
  method: string;
  path: string;
  headers?: Record<string, string>;
  body?: string | Uint8Array;
  what: string;
}

function attemptsFor(route: RouteDef, ids: Record<string, string>): Attempt[] {
  const key = routeKey(route) as ApiRoute;
  const names = [...route.path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]);
  const fill = (value: (name: string) => string) => route.path.replace(/\{(\w+)\}/g, (_, n: string) => value(n));
  const real = route.method === 'DELETE' ? undefined : fill((n) => ids[`${route.path.split('/')[1]}:${n}`] ?? ids[n] ?? '999999999');
  const out: Attempt[] = [];
  for (const v of names.length ? BAD_PATH_VALUES : []) out.push({ method: route.method, path: fill(() => v), what: `path ${v.slice(0, 20)}` });
  const base = real ?? fill(() => '999999999');
  for (const q of BAD_QUERIES) out.push({ method: route.method, path: `${base}?${q}`, what: `query ${q.slice(0, 40)}` });
  if (route.method === 'GET') return out;
  const json = (body: string, what: string) => out.push({ method: route.method, path: base, headers: { 'content-type': 'application/json' }, body, what });
  json('{"name": ', 'malformed JSON');
  json('[1,2,3]', 'an array body');
  json('"just a string"', 'a string body');
  json('null', 'null body');
  json(deep(5000), 'deep nesting');
  json(`{"a":${deep(2000)}}`, 'deep nesting in a field');
  json('{"__proto__": {"isAdmin": true}, "constructor": {"prototype": {"x": 1}}}', 'prototype keys');
  json('{"name": "\\ud800\\udc00\\ud800"}', 'lone surrogate');
  for (const k of bodyKeys(key)) {
    for (const v of FIELD_VALUES) json(JSON.stringify({ [k]: v }), `${k}=${JSON.stringify(v)?.slice(0, 20)}`);
  }
  out.push({ method: route.method, path: base, headers: { 'content-type': 'multipart/form-data' }, body: 'no boundary', what: 'multipart without boundary' });
  out.push({
    method: route.method,
    path: base,
    headers: { 'content-type': 'multipart/form-data; boundary=XyZ' },
    body: '--XyZ\r\nContent-Disposition: form-data\r\n\r\nvalue\r\n--XyZ\r\nContent-Disposition: form-data; name="file"; filename="a.png"\r\nContent-Type: image/png\r\n\r\nnot a png\r\n--XyZ--\r\n',
    what: 'multipart part without a name',
  });
  out.push({ method: route.method, path: base, headers: { 'content-type': 'multipart/form-data; boundary=XyZ' }, body: '--XyZ\r\ngarbage', what: 'truncated multipart' });
  out.push({ method: route.method, path: base, headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'a=%ZZ&b=%E0&__proto__[x]=1', what: 'bad form' });
  out.push({ method: route.method, path: base, headers: { 'content-type': 'text/plain' }, body: '<xml/>', what: 'wrong content type' });
  out.push({ method: route.method, path: base, headers: { 'content-type': 'application/json' }, body: new Uint8Array([0xff, 0xfe, 0x00, 0x7b]), what: 'invalid UTF-8' });
  return out;
}

const fuzzFetch = fetchFrom();

async function send(a: Attempt, token: string | undefined) {
  const headers: Record<string, string> = { ...a.headers };
  if (token) headers.authorization = `Bearer ${token}`;
  // From an address of its own: its many requests to the rate-limited public routes (sign-up, reset)
  // must not use up the limits of the other tests' address.
  const res = await fuzzFetch(`${endpoints().apiUrl}${a.path}`, { method: a.method, headers, body: a.body });
  await res.arrayBuffer();
  return res.status;
}

describe('bad input never answers 5xx', () => {
  it('every route of the route table, as the tenant admin and (super routes) the super user', { timeout: 600_000 }, async () => {
    const t = await tenant();
    const superToken = await superUserToken();
    const queue = await t.admin.post('/queue', { name: 'Fila Fuzz', color: '#2196f3', greetingMessage: '' });
    const tag = await t.admin.post('/tags', { name: 'Etiqueta Fuzz', color: '#2196f3' });
    const contact = await t.admin.post('/contacts', { name: 'Contato Fuzz', number: '5511955554444' });
    const reply = await t.admin.post('/quick-messages', { shortcode: 'fuzz', message: 'Olá' });
    expect([queue.status, tag.status, contact.status, reply.status]).toEqual([201, 201, 201, 201]);
    // Another user to fuzz the user routes with: the admin's own record must keep its rights.
    const other = await member(t.admin, { name: 'Usuário Fuzz' });
    const ids: Record<string, string> = {
      'queue:id': String(queue.body.id),
      'tags:id': String(tag.body.id),
      'contacts:id': String(contact.body.id),
      'quick-messages:id': String(reply.body.id),
      'companies:id': String(t.companyId),
      'plans:id': String(t.planId),
      'users:id': String(other.id),
      'settings:key': 'userRating',
    };
    const failures: string[] = [];
    let sent = 0;
    // Signing in and out changes the session the other requests use: those routes go last.
    const sessionRoutes = new Set(['POST /auth/login', 'DELETE /auth/logout', 'POST /auth/refresh_token']);
    const ordered = [...routes.filter((r) => !sessionRoutes.has(routeKey(r))), ...routes.filter((r) => sessionRoutes.has(routeKey(r)))];
    const refusedCaller: string[] = [];
    for (const route of ordered) {
      const token = route.auth === 'public' ? undefined : route.super ? superToken : t.adminToken;
      const attempts = attemptsFor(route, ids);
      // A few at a time: the local stack runs on two cores.
      for (let i = 0; i < attempts.length; i += 6) {
        const batch = attempts.slice(i, i + 6);
        const statuses = await Promise.all(batch.map((a) => send(a, token).catch((e: Error) => `network ${e.message}`)));
        statuses.forEach((s, j) => {
          sent++;
          if (typeof s !== 'number' || s >= 500) failures.push(`${routeKey(route)} ${batch[j].what} (${batch[j].path.slice(0, 80)}) → ${s}`);
          // A 401 would mean the session was lost and the rest of the run proved nothing.
          if (s === 401 && route.auth === 'user' && !sessionRoutes.has(routeKey(route))) refusedCaller.push(`${routeKey(route)} ${batch[j].what}`);
        });
      }
    }
    expect(failures, `${failures.length} of ${sent} answered 5xx`).toEqual([]);
    expect(refusedCaller.slice(0, 5), `${refusedCaller.length} requests lost their session`).toEqual([]);
    expect(sent).toBeGreaterThan(3000);
  });
});
