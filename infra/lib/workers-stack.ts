import { Duration, Stack, type StackProps } from 'aws-cdk-lib';
import { Alarm, ComparisonOperator, TreatMissingData } from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import { Rule, Schedule } from 'aws-cdk-lib/aws-events';
import { LambdaFunction } from 'aws-cdk-lib/aws-events-targets';
import { Topic } from 'aws-cdk-lib/aws-sns';
import { EmailSubscription } from 'aws-cdk-lib/aws-sns-subscriptions';
import type { Construct } from 'constructs';
import { SWEEPER } from '@balcao/functions/manifest';
import { allowMedia, allowSend, allowTable, allowTimers } from './access.js';
import type { AuthStack } from './auth-stack.js';
import type { BalcaoConfig } from './config.js';
import type { DataStack } from './data-stack.js';
import { BalcaoFunction, type RuntimeContract } from './function.js';
import { bucketName } from './names.js';
import { ack } from './nag.js';
import { QueueWorker } from './queue-worker.js';
import { REALTIME_QUEUE, type RealtimeStack } from './realtime-stack.js';

export interface WorkersStackProps extends StackProps {
  config: BalcaoConfig;
  data: DataStack;
  auth: AuthStack;
  realtime: RealtimeStack;
  webOrigin: string;
}

/**
 * Background work: the consumer of every manifest queue (except the realtime queue, whose fan-out
 * lives with the WebSocket API), the sweeper on an EventBridge rate(1 minute) rule (DESIGN §7), and an
 * alarm on every dead-letter queue, published to the operations topic.
 */
export class WorkersStack extends Stack {
  readonly sweeper: BalcaoFunction;
  readonly workers = new Map<string, QueueWorker>();
  readonly alarmTopic: Topic;

  constructor(scope: Construct, id: string, props: WorkersStackProps) {
    super(scope, id, props);
    const { config, data, auth, realtime } = props;

    const contract: RuntimeContract = {
      TABLE_NAME: data.table.tableName,
      MEDIA_BUCKET: bucketName(config.prefix, 'media'),
      USER_POOL_ID: auth.userPool.userPoolId,
      USER_POOL_CLIENT_ID: auth.client.userPoolClientId,
      WS_CALLBACK_URL: realtime.stage.callbackUrl,
      WEB_ORIGIN: props.webOrigin,
      LOG_LEVEL: config.logLevel,
      SECRETS_KMS_KEY_ID: data.secretsKey.keyArn,
      queueUrls: data.queueUrls(),
      timers: data.timerEnv(),
    };
    const allQueues = data.queues.map((q) => q.queue);

    for (const pair of data.queues) {
      if (pair.def.name === REALTIME_QUEUE) continue;
      // Queues without a worker are consumed by the session host (sessions stack).
      if (pair.def.worker === null) continue;
      const worker = new QueueWorker(this, `Worker-${pair.def.name}`, { pair, contract });
      // Pipeline workers (ingest, campaigns, …) read and write the table and media and hand work on.
      allowTable(worker.fn, data.table, 'readwrite');
      allowMedia(worker.fn, config.prefix, 'readwrite');
      allowSend(worker.fn, allQueues);
      // The automation worker opens integration and AI secrets to call their services.
      if (pair.def.name === 'automation') worker.fn.allow(['kms:Decrypt'], [data.secretsKey.keyArn]);
      // A campaign's start job arriving early (its time moved) sets its timer again.
      if (pair.def.name === 'campaigns') allowTimers(worker.fn, data);
      this.workers.set(pair.def.name, worker);
    }

    this.sweeper = new BalcaoFunction(this, 'Sweeper', {
      entry: `functions/src/workers/${SWEEPER.worker}.ts`,
      description: 'Balcão sweeper: enqueues what is due every minute',
      contract,
      // A sweep must end before the next one starts.
      timeout: Duration.seconds(Math.max(10, SWEEPER.rateMinutes * 60 - 5)),
    });
    allowTable(this.sweeper, data.table, 'readwrite');
    allowSend(this.sweeper, allQueues);
    // Expiring stale presence publishes users, whose photo URLs are presigned.
    allowMedia(this.sweeper, config.prefix, 'read');
    new Rule(this, 'SweeperSchedule', {
      description: `Runs the sweeper every ${SWEEPER.rateMinutes} minute(s)`,
      schedule: Schedule.rate(Duration.minutes(SWEEPER.rateMinutes)),
      // Jobs are idempotent and the next tick comes a minute later: no retries of a missed tick.
      targets: [new LambdaFunction(this.sweeper.fn, { retryAttempts: 0 })],
    });

    this.alarmTopic = new Topic(this, 'OpsAlarms', {
      topicName: `${config.prefix}-ops-alarms`,
      displayName: 'Balcão operations alarms',
      enforceSSL: true,
    });
    ack(
      this.alarmTopic,
      'SNS2',
      'CloudWatch alarms cannot publish to a topic encrypted with the AWS managed SNS key; the notifications carry only alarm names and states.',
    );
    if (config.alarmEmail) this.alarmTopic.addSubscription(new EmailSubscription(config.alarmEmail));

    for (const { def, dlq } of data.queues) {
      const alarm = new Alarm(this, `Dlq-${def.name}`, {
        alarmName: `${config.prefix}-${def.name}-dlq-not-empty`,
        alarmDescription: `Messages of queue ${def.name} failed ${def.maxReceiveCount} times and are waiting in its DLQ`,
        metric: dlq.metricApproximateNumberOfMessagesVisible({ period: Duration.minutes(1), statistic: 'Maximum' }),
        threshold: 1,
        evaluationPeriods: 1,
        comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
        treatMissingData: TreatMissingData.NOT_BREACHING,
      });
      alarm.addAlarmAction(new SnsAction(this.alarmTopic));
    }
  }
}
