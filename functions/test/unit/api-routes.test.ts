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

  it('fills path parameters (encoded) and refuses a missing one', () => {
    expect(routeRequest('GET /tickets/{id}', { id: 7 })).toEqual(['GET', '/tickets/7']);
    expect(routeRequest('POST /forgetpassword/{email}', { email: 'a b@x.com' })).toEqual(['POST', '/forgetpassword/a%20b%40x.com']);
    expect(routeRequest('GET /tickets')).toEqual(['GET', '/tickets']);
    expect(() => routeRequest('PUT /tickets/{id}' as ApiRoute, {})).toThrow('missing id');
  });
});
