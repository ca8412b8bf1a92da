import { defineConfig } from 'vitest/config';

/*
 * Projects (issue 2 §8): `unit` (pure code), `cdk` (synthesised templates, slow but offline),
 * `stack` (integration and browser tests against ONE local stack started by the globalSetup) and
 * `stack-disruptive` (tests that disturb the shared stack, alone and last).
 * The CI machine has 2 cores: two workers overall, generous timeouts for the stack and CDK.
 */
export default defineConfig({
  test: {
    maxWorkers: 2,
    projects: [
      {
        test: {
          name: 'unit',
          environment: 'node',
          include: ['shared/test/**/*.test.ts', 'functions/test/unit/**/*.test.ts', 'session-host/test/*.test.ts', 'web/src/**/*.test.ts'],
        },
      },
      {
        test: {
          name: 'cdk',
          environment: 'node',
          include: ['infra/test/cdk/**/*.test.ts'],
          testTimeout: 300_000,
          hookTimeout: 300_000,
        },
      },
      {
        test: {
          name: 'stack',
          environment: 'node',
          include: ['functions/test/integration/**/*.test.ts', 'web/e2e/**/*.test.ts', 'infra/test/local/**/*.test.ts', 'session-host/test/integration/**/*.test.ts'],
          exclude: ['**/*.disruptive.test.ts', '**/node_modules/**'],
          globalSetup: ['infra/test/local/global-setup.ts'],
          testTimeout: 60_000,
          hookTimeout: 120_000,
          // Retrying a stack test hides races instead of fixing them.
          retry: 0,
        },
      },
      {
        // Tests that disturb the shared stack (stopping its session host, load bursts) run alone,
        // after every other group, on the same stack (the global setup shares it).
        test: {
          name: 'stack-disruptive',
          environment: 'node',
          include: ['functions/test/integration/**/*.disruptive.test.ts', 'session-host/test/integration/**/*.disruptive.test.ts'],
          globalSetup: ['infra/test/local/global-setup.ts'],
          testTimeout: 120_000,
          hookTimeout: 120_000,
          retry: 0,
          maxWorkers: 1,
          sequence: { groupOrder: 1 },
        },
      },
    ],
  },
});
