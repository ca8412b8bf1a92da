import { describe, expect, it } from 'vitest';
import { apiRoutes, routeRequest, type ApiRoute } from '@balcao/shared';
import { routes } from '../../src/routes.js';

/** The console's typed route contracts (shared/src/api-routes.ts) name only routes the route table serves. */
describe('typed API route contracts', () => {
  it('every contract is a route of the route table, with the same method and path', () => {
    const served = new Set(routes.map((r) => `${r.method} ${r.path}`));
    const missing = Object.keys(apiRoutes).filter((k) => !served.has(k));
    expect(missing).toEqual([]);
  });

  it('the file lists and campaign settings (issue 20 §3) have their contracts: bodies and queries by the shared schemas', () => {
    const mine = routes.filter((r) => r.handler === 'files' || r.handler === 'campaignSettings').map((r) => `${r.method} ${r.path}`);
    expect(mine).toHaveLength(8);
    for (const key of mine) expect(apiRoutes, key).toHaveProperty([key]);
    expect(apiRoutes['GET /files'].query.safeParse({ searchParam: 'catálogo', pageNumber: '2' }).success).toBe(true);
    expect(apiRoutes['POST /files'].body.safeParse({ name: 'Ab', message: 'Olá' }).error?.issues[0]?.message).toBe('nome muito curto');
    expect(apiRoutes['POST /campaign-settings'].body.safeParse({ messageInterval: 15, variables: [{ key: 'cupom', value: 'X' }] }).success).toBe(true);
    expect(routeRequest('POST /files/uploadList/{id}', { id: 9 })).toEqual(['POST', '/files/uploadList/9']);
  });

  it('fills path parameters (encoded) and refuses a missing one', () => {
    expect(routeRequest('GET /tickets/{id}', { id: 7 })).toEqual(['GET', '/tickets/7']);
    expect(routeRequest('POST /forgetpassword/{email}', { email: 'a b@x.com' })).toEqual(['POST', '/forgetpassword/a%20b%40x.com']);
    expect(routeRequest('GET /tickets')).toEqual(['GET', '/tickets']);
    expect(() => routeRequest('PUT /tickets/{id}' as ApiRoute, {})).toThrow('missing id');
  });
});
