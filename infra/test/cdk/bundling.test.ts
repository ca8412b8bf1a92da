import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { App, Stack } from 'aws-cdk-lib';
import { afterAll, expect, it } from 'vitest';
import { SWEEPER } from '@balcao/functions/manifest';
import { BalcaoFunction } from '../../lib/function.js';

const outdir = mkdtempSync(join(tmpdir(), 'balcao-bundle-'));
afterAll(() => rmSync(outdir, { recursive: true, force: true }));

// The stack tests skip bundling for speed; this one really runs esbuild on one entry (the sweeper,
// which pulls in the table, queue and shared code) with the production options.
it('bundles a function as minified ESM with the createRequire banner and a source map, and the bundle loads', async () => {
  const app = new App({ outdir });
  const stack = new Stack(app, 'Bundle');
  new BalcaoFunction(stack, 'Sweeper', {
    entry: `functions/src/workers/${SWEEPER.worker}.ts`,
    description: 'bundling test',
    contract: {
      TABLE_NAME: 't',
      MEDIA_BUCKET: 'b',
      USER_POOL_ID: 'p',
      USER_POOL_CLIENT_ID: 'c',
      SECRETS_KMS_KEY_ID: 'k',
      WS_CALLBACK_URL: 'https://example.invalid/live',
      WEB_ORIGIN: 'https://example.invalid',
      LOG_LEVEL: 'info',
      queueUrls: {},
      timers: {},
    },
  });
  const assembly = app.synth();
  const dirs = readdirSync(assembly.directory).filter((d) => d.startsWith('asset.') && existsSync(join(assembly.directory, d, 'index.mjs')));
  expect(dirs).toHaveLength(1);
  const dir = join(assembly.directory, dirs[0]);
  const code = readFileSync(join(dir, 'index.mjs'), 'utf8');
  expect(code.startsWith("import { createRequire as __balcaoCreateRequire } from 'module'")).toBe(true);
  expect(code).toMatch(/export\s*\{[^}]*\bhandler\b/);
  // Minified: lines are long (only string literals keep their newlines).
  expect(code.length / code.split('\n').length).toBeGreaterThan(1000);
  expect(existsSync(join(dir, 'index.mjs.map'))).toBe(true);
  expect(code).toContain('//# sourceMappingURL=index.mjs.map');
  // The bundle loads as the runtime would load it: middy, Powertools and the X-Ray SDK (CommonJS,
  // through the banner's require) resolve inside it, and the handler is the middy-wrapped one.
  const mod = (await import(pathToFileURL(join(dir, 'index.mjs')).href)) as { handler?: { use?: unknown } };
  expect(typeof mod.handler).toBe('function');
  expect(typeof mod.handler!.use).toBe('function');
}, 120_000);
