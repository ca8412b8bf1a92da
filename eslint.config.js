// One lint setup for every workspace (issue 2 §1): typescript-eslint's recommended rules.
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['**/node_modules/**', '**/dist/**', 'cdk.out/**', '.local/**', 'bench-results/**', 'web/e2e/screenshots/**', '**/*.js', '**/*.cjs', '**/*.mjs'] },
  ...tseslint.configs.recommended,
  {
    rules: {
      // Unused names prefixed with _ are deliberate (destructuring a field away).
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none', destructuredArrayIgnorePattern: '^_' }],
      // Handlers receive loosely typed framework payloads; `any` is allowed where it is explicit.
      '@typescript-eslint/no-explicit-any': 'off',
    },
  },
  // Workspace boundaries (issue 15 §2; docs/architecture.md). Package exports already refuse deep
  // imports by package name; these rules also refuse them by relative path.
  ...boundary(['session-host/src/**', 'infra/lib/**', 'infra/local/**', 'infra/bin/**', 'infra/bench/**'], [
    '**/functions/src/**',
    'The functions are reached only through @balcao/functions (the session host), @balcao/functions/manifest (routes, queues, table) or @balcao/functions/tools (seed, benchmarks).',
  ]),
  ...boundary(['shared/**'], ['**/functions/**', '**/session-host/**', '**/web/**', '@balcao/functions*', '@balcao/session-host*', '@aws-sdk/*', 'The shared domain is pure: no platform code, no AWS SDK.']),
  ...boundary(['web/src/**'], ['**/functions/**', '**/session-host/**', '@balcao/functions*', '@balcao/session-host*', '@aws-sdk/*', 'The console talks to the platform over HTTP and WebSocket only; shared rules come from @balcao/shared.']),
  ...boundary(['functions/src/**'], ['**/session-host/**', '**/web/**', '**/infra/**', '@balcao/session-host*', 'The functions do not reach into the session host, the console or the infrastructure.']),
  // Later entries replace the rule for their files, so the services' entry repeats the one above.
  ...boundary(['functions/src/services/**'], [
    '**/session-host/**',
    '**/web/**',
    '**/infra/**',
    '@balcao/session-host*',
    '@aws-sdk/client-*',
    '@aws-sdk/s3-request-presigner',
    '**/core/aws.js',
    '**/core/aws-ports.js',
    'Services reach the world through their ports (core/ports.ts: table, publisher, commands, jobs, media, clock, ids), never an SDK client; the document client commands (@aws-sdk/lib-dynamodb) are the table port\'s language. Nor do they reach into the session host, the console or the infrastructure.',
  ]),
);

/** Files matching `files` may not import what `patterns` names (the last entry is the message). */
function boundary(files, patterns) {
  const message = patterns.at(-1);
  return [{ files, rules: { 'no-restricted-imports': ['error', { patterns: [{ group: patterns.slice(0, -1), message }] }] } }];
}
