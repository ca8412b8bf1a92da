import { describe, expect, it } from 'vitest';
import { readdirSync, existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { routes, routeKey, routeHandlers } from '../../src/routes.js';

const httpDir = fileURLToPath(new URL('../../src/http/', import.meta.url));

describe('route manifest', () => {
  it('declares no route twice', () => {
    const seen = routes.map(routeKey);
    expect(new Set(seen).size).toBe(seen.length);
  });
  it('writes paths without trailing slashes and with {params}', () => {
    for (const r of routes) {
      expect(r.path).toMatch(/^\/[A-Za-z0-9_\-/{}+]*$/);
      expect(r.path === '/' || !r.path.endsWith('/')).toBe(true);
    }
  });
  it('has one router module per handler and no module outside the manifest', () => {
    const handlers = routeHandlers();
    for (const h of handlers) expect(existsSync(`${httpDir}${h}/index.ts`), h).toBe(true);
    expect(readdirSync(httpDir).sort()).toEqual([...handlers].sort());
  });
  it('every router implements exactly its manifest routes (checked at import)', async () => {
    process.env.TABLE_NAME ??= 'unit';
    for (const h of routeHandlers()) {
      const mod = await import(`${httpDir}${h}/index.ts`);
      expect(typeof mod.handler, h).toBe('function');
    }
    // Imports every router with its services, the AWS SDK and Powertools: seconds on a busy machine.
  }, 60_000);
});
