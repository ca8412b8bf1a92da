import { App, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { buildApp } from '../lib/app.js';

// `npx cdk synth|deploy --all -c stage=prod` (context keys: infra/lib/config.ts). cdk-nag's
// AwsSolutions pack runs at synthesis: any unacknowledged finding stops the synth.
const app = new App();
buildApp(app);
Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
app.synth();
