import { Duration, RemovalPolicy, Stack, type StackProps } from 'aws-cdk-lib';
import { AttributeType, BillingMode, ProjectionType, Table, TableEncryption } from 'aws-cdk-lib/aws-dynamodb';
import {
  BlockPublicAccess,
  Bucket,
  BucketEncryption,
  HttpMethods,
  ObjectOwnership,
  StorageClass,
} from 'aws-cdk-lib/aws-s3';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import { Key } from 'aws-cdk-lib/aws-kms';
import { Effect, PolicyStatement, Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { ScheduleGroup } from 'aws-cdk-lib/aws-scheduler';
import type { Construct } from 'constructs';
import { TABLE_DEFINITION } from '@balcao/functions/manifest';
import { queues as QUEUE_DEFS, TIMER_QUEUES, timerQueueArnEnv, type QueueDef } from '@balcao/functions/manifest';
import type { BalcaoConfig } from './config.js';
import { bucketName } from './names.js';
import { ack } from './nag.js';

export interface QueuePair {
  def: QueueDef;
  queue: Queue;
  dlq: Queue;
}

export interface DataStackProps extends StackProps {
  config: BalcaoConfig;
  /** Origin of the console (`https://…`), allowed by the media bucket's CORS for presigned PUT/GET. */
  webOrigin: string;
}

/**
 * Durable state: the single table, the media bucket and every queue of the workers manifest with its
 * dead-letter queue. Queues live here (not in the workers stack) because every function, including
 * the socket handlers and the HTTP routers, needs their URLs, while the workers need the WebSocket
 * callback URL: owning the queues upstream keeps the stack graph acyclic.
 */
export class DataStack extends Stack {
  readonly table: Table;
  readonly mediaBucket: Bucket;
  readonly queues: QueuePair[];
  /** Seals the companies' outside-service secrets (functions/src/core/secrets.ts: envelope encryption). */
  readonly secretsKey: Key;
  /**
   * The one-time timers of scheduled messages and campaigns (functions/src/core/timers.ts): their
   * EventBridge Scheduler group, and the role Scheduler assumes to put a timer's job on its queue.
   */
  readonly timerGroup: ScheduleGroup;
  readonly timerRole: Role;

  constructor(scope: Construct, id: string, props: DataStackProps) {
    super(scope, id, props);
    const { config } = props;
    const keep = config.retainData ? RemovalPolicy.RETAIN : RemovalPolicy.DESTROY;

    this.secretsKey = new Key(this, 'SecretsKey', {
      description: 'Balcão: data keys for the companies\' integration and AI secrets',
      enableKeyRotation: true,
      removalPolicy: keep,
    });

    this.table = new Table(this, 'Table', {
      partitionKey: { name: TABLE_DEFINITION.partitionKey, type: AttributeType.STRING },
      sortKey: { name: TABLE_DEFINITION.sortKey, type: AttributeType.STRING },
      timeToLiveAttribute: TABLE_DEFINITION.timeToLiveAttribute,
      billingMode: BillingMode.PAY_PER_REQUEST,
      pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
      deletionProtection: config.retainData,
      encryption: TableEncryption.AWS_MANAGED,
      removalPolicy: keep,
    });
    for (const gsi of TABLE_DEFINITION.globalSecondaryIndexes) {
      this.table.addGlobalSecondaryIndex({
        indexName: gsi.indexName,
        partitionKey: { name: gsi.partitionKey, type: AttributeType.STRING },
        sortKey: { name: gsi.sortKey, type: AttributeType.STRING },
        projectionType: ProjectionType.ALL,
      });
    }

    const logs = new Bucket(this, 'AccessLogs', {
      bucketName: bucketName(config.prefix, 'logs'),
      encryption: BucketEncryption.S3_MANAGED,
      blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
      objectOwnership: ObjectOwnership.BUCKET_OWNER_ENFORCED,
      enforceSSL: true,
      lifecycleRules: [{ id: 'expire-access-logs', expiration: Duration.days(90) }],
      removalPolicy: keep,
    });
    ack(logs, 'S1', 'This bucket is the destination of the server access logs; logging it into itself would loop.');

    this.mediaBucket = new Bucket(this, 'Media', {
      bucketName: bucketName(config.prefix, 'media'),
      encryption: BucketEncryption.S3_MANAGED,
      blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
      objectOwnership: ObjectOwnership.BUCKET_OWNER_ENFORCED,
      enforceSSL: true,
      serverAccessLogsBucket: logs,
      serverAccessLogsPrefix: 'media/',
      // The console uploads (presigned PUT) and reads (presigned GET) straight from the browser.
      cors: [
        {
          allowedOrigins: [props.webOrigin],
          allowedMethods: [HttpMethods.GET, HttpMethods.PUT, HttpMethods.HEAD],
          allowedHeaders: ['*'],
          exposedHeaders: ['ETag'],
          maxAge: 3000,
        },
      ],
      lifecycleRules: [
        // Presigned uploads that were started and never finished.
        { id: 'abort-incomplete-uploads', abortIncompleteMultipartUploadAfter: Duration.days(1) },
        // Scratch objects (e.g. audio being converted) are never needed after a day.
        { id: 'expire-tmp', prefix: 'tmp/', expiration: Duration.days(1) },
        // Conversation media is read often for days, rarely after months.
        {
          id: 'infrequent-access',
          transitions: [{ storageClass: StorageClass.INFREQUENT_ACCESS, transitionAfter: Duration.days(90) }],
        },
      ],
      removalPolicy: keep,
    });

    this.queues = QUEUE_DEFS.map((def) => {
      const suffix = def.fifo ? '.fifo' : '';
      const dlq = new Queue(this, `${def.name}-dlq`, {
        queueName: `${config.prefix}-${def.name}-dlq${suffix}`,
        fifo: def.fifo || undefined,
        encryption: QueueEncryption.SQS_MANAGED,
        enforceSSL: true,
        retentionPeriod: Duration.days(14),
      });
      const queue = new Queue(this, def.name, {
        queueName: `${config.prefix}-${def.name}${suffix}`,
        fifo: def.fifo || undefined,
        // Producers may pass their own deduplication id; without one the body deduplicates.
        contentBasedDeduplication: def.fifo || undefined,
        encryption: QueueEncryption.SQS_MANAGED,
        enforceSSL: true,
        visibilityTimeout: Duration.seconds(def.visibilityTimeoutSeconds),
        deadLetterQueue: { queue: dlq, maxReceiveCount: def.maxReceiveCount },
      });
      return { def, queue, dlq };
    });

    this.timerGroup = new ScheduleGroup(this, 'Timers', { scheduleGroupName: `${config.prefix}-timers` });
    this.timerRole = new Role(this, 'TimersRole', {
      description: 'Assumed by EventBridge Scheduler to put a timer\'s job on the schedules or campaigns queue',
      // Only this account's schedules (the confused-deputy guard Scheduler documents).
      assumedBy: new ServicePrincipal('scheduler.amazonaws.com', { conditions: { StringEquals: { 'aws:SourceAccount': this.account } } }),
    });
    this.timerRole.addToPrincipalPolicy(
      new PolicyStatement({ effect: Effect.ALLOW, actions: ['sqs:SendMessage'], resources: TIMER_QUEUES.map((q) => this.queue(q).queue.queueArn) }),
    );
  }

  /** The timers' part of the function environment (functions/src/core/env.ts). */
  timerEnv(): Record<string, string> {
    return {
      TIMER_GROUP: this.timerGroup.scheduleGroupName,
      TIMER_ROLE_ARN: this.timerRole.roleArn,
      ...Object.fromEntries(TIMER_QUEUES.map((q) => [timerQueueArnEnv(q), this.queue(q).queue.queueArn])),
    };
  }

  /** `{ REALTIME_QUEUE_URL: url, … }` for the function environment. */
  queueUrls(): Record<string, string> {
    return Object.fromEntries(this.queues.map((q) => [q.def.envVar, q.queue.queueUrl]));
  }

  queue(name: string): QueuePair {
    const q = this.queues.find((x) => x.def.name === name);
    if (!q) throw new Error(`Queue ${name} is not in functions/src/workers/manifest.ts`);
    return q;
  }
}
