import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Node } from 'constructs';

/** The repository root: assets (function entries, the session host image, web/dist) are found from here. */
export const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');

/**
 * Everything the CDK app reads from context (`-c key=value` or cdk.json). Only `stage` has a value in
 * cdk.json; everything else is optional so that `npx cdk synth` works on a fresh checkout without an
 * AWS account.
 *
 * | key | default | meaning |
 * | --- | --- | --- |
 * | stage | prod | prefix of every stack and resource name (`balcao-<stage>-…`), lowercase |
 * | webDomain | – | custom host name of the console (e.g. app.example.com); needs webCertificateArn |
 * | webCertificateArn | – | ACM certificate in us-east-1 covering webDomain (CloudFront requirement) |
 * | webDist | web/dist | the built console; `skip` deploys only config.json (tests, API-only stages) |
 * | logLevel | info | LOG_LEVEL of every function and of the session host |
 * | alarmEmail | – | e-mail subscribed to the operations topic (DLQ alarms) |
 * | sessionHostArch | arm64 | `arm64` or `x86_64`: CPU of the Fargate task and of the image build |
 * | sessionHostTasks | 1 | desired count of session host tasks (shards are leased, so >1 just spreads them) |
 * | throttleRate / throttleBurst | 50 / 100 | default stage throttling of the HTTP API (requests/s) |
 * | retainData | true | `false` lets `cdk destroy` delete the table and media bucket (throwaway stages only) |
 */
export interface BalcaoConfig {
  stage: string;
  /** `balcao-<stage>` – stack names and resource name prefix. */
  prefix: string;
  webDomain?: string;
  webCertificateArn?: string;
  /** Absolute path of the console build, or undefined when `webDist=skip`. */
  webDist?: string;
  logLevel: string;
  alarmEmail?: string;
  sessionHostArch: 'arm64' | 'x86_64';
  sessionHostTasks: number;
  throttleRate: number;
  throttleBurst: number;
  retainData: boolean;
}

const str = (node: Node, key: string): string | undefined => {
  const v = node.tryGetContext(key);
  if (v === undefined || v === null || v === '') return undefined;
  return String(v);
};

const num = (node: Node, key: string, dflt: number): number => {
  const v = str(node, key);
  if (v === undefined) return dflt;
  const n = Number(v);
  if (!Number.isFinite(n) || n < 0) throw new Error(`Context ${key} must be a non-negative number, got "${v}"`);
  return n;
};

export function readConfig(node: Node): BalcaoConfig {
  const stage = str(node, 'stage') ?? 'prod';
  // Bucket names embed the stage, account and region and must stay under 63 characters.
  if (!/^[a-z][a-z0-9-]{0,11}$/.test(stage)) {
    throw new Error(`Context stage must be 1-12 lowercase letters, digits or '-', starting with a letter; got "${stage}"`);
  }
  const webDomain = str(node, 'webDomain');
  const webCertificateArn = str(node, 'webCertificateArn');
  if (webDomain && !webCertificateArn) {
    throw new Error('Context webDomain needs webCertificateArn: an ACM certificate in us-east-1 that covers it');
  }

  const distSetting = str(node, 'webDist') ?? 'web/dist';
  let webDist: string | undefined;
  if (distSetting !== 'skip') {
    webDist = resolve(REPO_ROOT, distSetting);
    if (!existsSync(join(webDist, 'index.html'))) {
      throw new Error(
        `The console build was not found at ${webDist}. Run \`npm run build -w web\` before \`cdk synth\`/\`cdk deploy\`, ` +
          'or pass `-c webDist=skip` to synthesise without the console (only config.json is deployed).',
      );
    }
  }

  const arch = str(node, 'sessionHostArch') ?? 'arm64';
  if (arch !== 'arm64' && arch !== 'x86_64') throw new Error(`Context sessionHostArch must be arm64 or x86_64, got "${arch}"`);

  return {
    stage,
    prefix: `balcao-${stage}`,
    webDomain,
    webCertificateArn,
    webDist,
    logLevel: str(node, 'logLevel') ?? 'info',
    alarmEmail: str(node, 'alarmEmail'),
    sessionHostArch: arch,
    sessionHostTasks: num(node, 'sessionHostTasks', 1),
    throttleRate: num(node, 'throttleRate', 50),
    throttleBurst: num(node, 'throttleBurst', 100),
    retainData: str(node, 'retainData') !== 'false',
  };
}
