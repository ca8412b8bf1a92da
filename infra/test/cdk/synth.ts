import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { App } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { AwsSolutionsChecks } from 'cdk-nag';
import { buildApp, type BalcaoStacks } from '../../lib/app.js';
import { REPO_ROOT } from '../../lib/config.js';

/** The context of cdk.json (feature flags, stage): tests synthesise what `npx cdk synth` does. */
export const cdkJsonContext = (): Record<string, unknown> =>
  JSON.parse(readFileSync(join(REPO_ROOT, 'cdk.json'), 'utf8')).context;

export interface Synthesised {
  app: App;
  stacks: BalcaoStacks;
  templates: Record<Exclude<keyof BalcaoStacks, 'config'>, Template>;
}

/**
 * One synthesis of the whole app, without bundling (esbuild is exercised by bundling.test.ts) and
 * without the console build (`webDist=skip`), so the suite stays fast and runs on a fresh checkout.
 */
export function synthAll(extra: Record<string, unknown> = {}): Synthesised {
  const app = new App({
    context: { ...cdkJsonContext(), webDist: 'skip', 'aws:cdk:bundling-stacks': [], ...extra },
  });
  const stacks = buildApp(app);
  const { config: _config, ...rest } = stacks;
  const templates = Object.fromEntries(
    Object.entries(rest).map(([k, stack]) => [k, Template.fromStack(stack)]),
  ) as Synthesised['templates'];
  return { app, stacks, templates };
}

/** cdk-nag v3 reports through the policy-validation framework, not annotations: run the pack directly. */
export function nagViolations(app: App) {
  return new AwsSolutionsChecks().validateScope(app).violations.flatMap((v) =>
    v.violatingResources.map((r) => `${v.severity} ${v.ruleName} at ${r.constructPath}`),
  );
}
