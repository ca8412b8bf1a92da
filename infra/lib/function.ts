import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { Duration, RemovalPolicy, Stack } from 'aws-cdk-lib';
import { type IGrantable, type IPrincipal, PolicyStatement, Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { Architecture, Runtime, Tracing } from 'aws-cdk-lib/aws-lambda';
import { NodejsFunction, OutputFormat, SourceMapMode } from 'aws-cdk-lib/aws-lambda-nodejs';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import { REPO_ROOT } from './config.js';
import { ack } from './nag.js';

/**
 * The environment contract of every function (functions/src/core/env.ts). JWT_ISSUER and JWKS_URI are
 * left out on purpose: in AWS they default to the user pool's issuer.
 */
export interface RuntimeContract {
  TABLE_NAME: string;
  MEDIA_BUCKET: string;
  USER_POOL_ID: string;
  USER_POOL_CLIENT_ID: string;
  WS_CALLBACK_URL: string;
  WEB_ORIGIN: string;
  LOG_LEVEL: string;
  /** The KMS key that seals outside-service secrets (core/secrets.ts). */
  SECRETS_KMS_KEY_ID: string;
  /** One entry per queue of the workers manifest: `REALTIME_QUEUE_URL` → URL, … */
  queueUrls: Record<string, string>;
  /** The one-time timers' group, role and target queues (DataStack.timerEnv). */
  timers: Record<string, string>;
}

export const contractEnvironment = (c: RuntimeContract): Record<string, string> => {
  const { queueUrls, timers, ...rest } = c;
  return { ...rest, ...queueUrls, ...timers };
};

export interface BalcaoFunctionProps {
  /** Entry module relative to the repository root, e.g. `functions/src/http/users/index.ts`. */
  entry: string;
  /** Exported handler name (`handler`, or `connect`/`disconnect`/`message` for the socket module). */
  handler?: string;
  description: string;
  contract: RuntimeContract;
  memorySize?: number;
  timeout?: Duration;
}

/** Gives the ESM bundle a `require`: bundled CommonJS dependencies call it for Node built-ins. */
const ESM_REQUIRE_BANNER = "import { createRequire as __balcaoCreateRequire } from 'module'; const require = __balcaoCreateRequire(import.meta.url);";

/**
 * One Lambda of the platform: Node 22 on arm64, bundled by esbuild as minified ESM with source maps,
 * its own role (no AWS managed policy: only write access to its own log group) and log group with a
 * retention, X-Ray active tracing. Grants are added by the stacks, per function, on `role`.
 */
export class BalcaoFunction extends Construct implements IGrantable {
  readonly fn: NodejsFunction;
  readonly role: Role;
  readonly logGroup: LogGroup;

  constructor(scope: Construct, id: string, props: BalcaoFunctionProps) {
    super(scope, id);
    const entry = join(REPO_ROOT, props.entry);
    if (!existsSync(entry)) {
      throw new Error(`Function entry ${props.entry} does not exist (construct ${this.node.path})`);
    }

    this.logGroup = new LogGroup(this, 'Logs', {
      retention: RetentionDays.ONE_MONTH,
      // Operational logs only: they go with the stack.
      removalPolicy: RemovalPolicy.DESTROY,
    });
    this.role = new Role(this, 'Role', {
      assumedBy: new ServicePrincipal('lambda.amazonaws.com'),
      description: `${props.description} (${Stack.of(this).stackName})`,
    });
    this.role.addToPrincipalPolicy(
      new PolicyStatement({
        actions: ['logs:CreateLogStream', 'logs:PutLogEvents'],
        resources: [this.logGroup.logGroupArn],
      }),
    );

    this.fn = new NodejsFunction(this, 'Fn', {
      entry,
      handler: props.handler ?? 'handler',
      description: props.description,
      runtime: Runtime.NODEJS_22_X,
      architecture: Architecture.ARM_64,
      memorySize: props.memorySize ?? 512,
      timeout: props.timeout ?? Duration.seconds(20),
      role: this.role,
      logGroup: this.logGroup,
      tracing: Tracing.ACTIVE,
      projectRoot: REPO_ROOT,
      depsLockFilePath: join(REPO_ROOT, 'package-lock.json'),
      environment: {
        ...contractEnvironment(props.contract),
        // Stack traces point at the TypeScript sources through the bundled source map.
        NODE_OPTIONS: '--enable-source-maps',
      },
      bundling: {
        format: OutputFormat.ESM,
        target: 'node22',
        platform: 'node',
        mainFields: ['module', 'main'],
        banner: ESM_REQUIRE_BANNER,
        minify: true,
        sourceMap: true,
        sourceMapMode: SourceMapMode.DEFAULT,
        sourcesContent: false,
        // The SDK is bundled (pinned by our lockfile) rather than taken from the runtime's copy.
        bundleAwsSDK: true,
        externalModules: [],
        tsconfig: join(REPO_ROOT, 'tsconfig.base.json'),
      },
    });

    ack(this, 'IAM5[Resource::*]', 'X-Ray PutTraceSegments/PutTelemetryRecords do not support resource-level permissions.');
    ack(this, 'L1', 'DESIGN §9 fixes nodejs22.x for Lambda: the same code must also run on the Node 20 machines of the local stack.');
  }

  get grantPrincipal(): IPrincipal {
    return this.role;
  }

  /** Helper for the stacks: `fn.allow(['dynamodb:GetItem'], [arn])`. */
  allow(actions: string[], resources: string[]) {
    this.role.addToPrincipalPolicy(new PolicyStatement({ actions, resources }));
  }
}
