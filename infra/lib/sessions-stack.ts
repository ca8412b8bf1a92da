import { Duration, IgnoreMode, RemovalPolicy, Stack, type StackProps } from 'aws-cdk-lib';
import {
  FlowLogDestination,
  FlowLogTrafficType,
  GatewayVpcEndpointAwsService,
  SecurityGroup,
  SubnetType,
  Vpc,
} from 'aws-cdk-lib/aws-ec2';
import { Platform } from 'aws-cdk-lib/aws-ecr-assets';
import {
  Cluster,
  ContainerImage,
  ContainerInsights,
  CpuArchitecture,
  FargateService,
  FargateTaskDefinition,
  LogDrivers,
  OperatingSystemFamily,
} from 'aws-cdk-lib/aws-ecs';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { Construct } from 'constructs';
import { TABLE_DEFINITION } from '@balcao/functions/manifest';
import { type BalcaoConfig, REPO_ROOT } from './config.js';
import type { DataStack } from './data-stack.js';
import { bucketName, bucketObjectsArn } from './names.js';
import { ack, ackWildcardResource } from './nag.js';

/** Port of the session host's HTTP server (GET /health). */
export const SESSION_HOST_PORT = 8080;

/**
 * Not sent to Docker: dependencies are installed inside the image, local data and build output stay
 * out, and of the parts the session host does not run only the package.json files that `npm ci`
 * checks against the lockfile are kept (so a console change does not rebuild the image).
 */
export const SESSION_HOST_ASSET_EXCLUDE = [
  '**/node_modules',
  '.local',
  'cdk.out',
  '.git',
  '.ci',
  'docs',
  'coverage',
  'bench-results',
  '**/*.log',
  '**/dist',
  '**/test',
  'web',
  '!web/package.json',
  'infra',
  '!infra/package.json',
];

export interface SessionsStackProps extends StackProps {
  config: BalcaoConfig;
  data: DataStack;
}

/**
 * DESIGN §6: the long-running session host (Baileys sockets) on ECS Fargate. Tasks need outbound
 * internet (WhatsApp) and no inbound traffic, so they run in public subnets with a public IP and a
 * security group without ingress rules (no NAT gateway to pay for); DynamoDB and S3 go through
 * gateway endpoints.
 */
export class SessionsStack extends Stack {
  readonly service: FargateService;
  readonly vpc: Vpc;

  constructor(scope: Construct, id: string, props: SessionsStackProps) {
    super(scope, id, props);
    const { config, data } = props;

    const flowLogs = new LogGroup(this, 'VpcFlowLogs', {
      retention: RetentionDays.ONE_MONTH,
      removalPolicy: RemovalPolicy.DESTROY,
    });
    this.vpc = new Vpc(this, 'Vpc', {
      maxAzs: 2,
      natGateways: 0,
      subnetConfiguration: [{ name: 'public', subnetType: SubnetType.PUBLIC, cidrMask: 24 }],
      gatewayEndpoints: {
        DynamoDb: { service: GatewayVpcEndpointAwsService.DYNAMODB },
        S3: { service: GatewayVpcEndpointAwsService.S3 },
      },
      flowLogs: {
        all: { destination: FlowLogDestination.toCloudWatchLogs(flowLogs), trafficType: FlowLogTrafficType.ALL },
      },
    });

    const cluster = new Cluster(this, 'Cluster', {
      clusterName: `${config.prefix}-sessions`,
      vpc: this.vpc,
      containerInsightsV2: ContainerInsights.ENABLED,
    });

    const arm = config.sessionHostArch === 'arm64';
    const task = new FargateTaskDefinition(this, 'Task', {
      cpu: 512,
      memoryLimitMiB: 1024,
      runtimePlatform: {
        cpuArchitecture: arm ? CpuArchitecture.ARM64 : CpuArchitecture.X86_64,
        operatingSystemFamily: OperatingSystemFamily.LINUX,
      },
    });

    const logs = new LogGroup(this, 'Logs', {
      retention: RetentionDays.ONE_MONTH,
      removalPolicy: RemovalPolicy.DESTROY,
    });
    task.addContainer('SessionHost', {
      image: ContainerImage.fromAsset(REPO_ROOT, {
        file: 'session-host/Dockerfile',
        platform: arm ? Platform.LINUX_ARM64 : Platform.LINUX_AMD64,
        exclude: SESSION_HOST_ASSET_EXCLUDE,
        ignoreMode: IgnoreMode.DOCKER,
      }),
      logging: LogDrivers.awsLogs({ logGroup: logs, streamPrefix: 'session-host' }),
      environment: {
        TABLE_NAME: data.table.tableName,
        MEDIA_BUCKET: bucketName(config.prefix, 'media'),
        ...data.queueUrls(),
        LOG_LEVEL: config.logLevel,
        AWS_REGION: this.region,
        SESSION_PROVIDER: 'baileys',
        PORT: String(SESSION_HOST_PORT),
      },
      portMappings: [{ containerPort: SESSION_HOST_PORT }],
      healthCheck: {
        // node:22-slim has no curl; Node's fetch is enough.
        command: [
          'CMD',
          'node',
          '-e',
          `fetch('http://127.0.0.1:${SESSION_HOST_PORT}/health').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))`,
        ],
        interval: Duration.seconds(30),
        timeout: Duration.seconds(5),
        retries: 3,
        startPeriod: Duration.seconds(60),
      },
      // Time to release shard leases and close sockets cleanly on SIGTERM.
      stopTimeout: Duration.seconds(60),
    });
    ack(task, 'ECS2', 'The environment holds only resource names, URLs and settings; secrets (API keys) will be injected from Secrets Manager via `secrets`.');

    // Least privilege for the task: the table and its indexes, media objects, sending to every queue.
    const indexes = TABLE_DEFINITION.globalSecondaryIndexes.map((g) => `${data.table.tableArn}/index/${g.indexName}`);
    task.taskRole.addToPrincipalPolicy(
      new PolicyStatement({
        actions: [
          'dynamodb:GetItem',
          'dynamodb:BatchGetItem',
          'dynamodb:Query',
          'dynamodb:ConditionCheckItem',
          'dynamodb:PutItem',
          'dynamodb:UpdateItem',
          'dynamodb:DeleteItem',
          'dynamodb:BatchWriteItem',
        ],
        resources: [data.table.tableArn, ...indexes],
      }),
    );
    const media = bucketObjectsArn(config.prefix, 'media');
    task.taskRole.addToPrincipalPolicy(
      new PolicyStatement({ actions: ['s3:GetObject', 's3:PutObject', 's3:DeleteObject', 's3:AbortMultipartUpload'], resources: [media] }),
    );
    ackWildcardResource(task, media, 'Inbound WhatsApp media is stored under keys generated per company and message; access is to objects of this one bucket.');
    task.taskRole.addToPrincipalPolicy(
      new PolicyStatement({ actions: ['sqs:SendMessage'], resources: data.queues.map((q) => q.queue.queueArn) }),
    );
    // The session host consumes its shards' outbound command queues itself.
    task.taskRole.addToPrincipalPolicy(
      new PolicyStatement({
        actions: ['sqs:ReceiveMessage', 'sqs:DeleteMessage', 'sqs:ChangeMessageVisibility', 'sqs:GetQueueAttributes'],
        resources: data.queues.filter((q) => q.def.worker === null).map((q) => q.queue.queueArn),
      }),
    );
    ack(task, 'IAM5[Resource::*]', 'The execution role needs ecr:GetAuthorizationToken, which has no resource-level permissions.');

    const sg = new SecurityGroup(this, 'TaskSecurityGroup', {
      vpc: this.vpc,
      description: 'Session host tasks: outbound only (WhatsApp, AWS APIs), nothing inbound',
      allowAllOutbound: true,
    });

    this.service = new FargateService(this, 'Service', {
      serviceName: `${config.prefix}-session-host`,
      cluster,
      taskDefinition: task,
      desiredCount: config.sessionHostTasks,
      assignPublicIp: true,
      vpcSubnets: { subnetType: SubnetType.PUBLIC },
      securityGroups: [sg],
      circuitBreaker: { rollback: true },
      // Shards move by lease: a replacement may start before the old task lets go of its shards.
      minHealthyPercent: 100,
      maxHealthyPercent: 200,
    });
  }
}
