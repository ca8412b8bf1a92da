import { CfnOutput, Duration, RemovalPolicy, Stack, type StackProps } from 'aws-cdk-lib';
import { AccessLogFormat } from 'aws-cdk-lib/aws-apigateway';
import { LogGroupLogDestination, WebSocketApi, WebSocketStage } from 'aws-cdk-lib/aws-apigatewayv2';
import { WebSocketLambdaIntegration } from 'aws-cdk-lib/aws-apigatewayv2-integrations';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { Construct } from 'constructs';
import { allowManageConnections, allowMedia, allowSend, allowTable } from './access.js';
import type { AuthStack } from './auth-stack.js';
import type { BalcaoConfig } from './config.js';
import type { DataStack } from './data-stack.js';
import { BalcaoFunction, type RuntimeContract } from './function.js';
import { bucketName } from './names.js';
import { ack } from './nag.js';
import { QueueWorker } from './queue-worker.js';

export interface RealtimeStackProps extends StackProps {
  config: BalcaoConfig;
  data: DataStack;
  auth: AuthStack;
  webOrigin: string;
}

/** The queue whose worker delivers events through @connections (DESIGN §5). */
export const REALTIME_QUEUE = 'realtime';
export const WS_STAGE = 'live';

/**
 * DESIGN §5: the WebSocket API (`$connect` checks `?token=` itself, `$disconnect`, `$default` for the
 * client actions), its stage, and the fan-out worker of the realtime queue, which needs
 * ManageConnections on this API: keeping it here means the grant names the API directly.
 */
export class RealtimeStack extends Stack {
  readonly api: WebSocketApi;
  readonly stage: WebSocketStage;
  readonly fanout: QueueWorker;

  constructor(scope: Construct, id: string, props: RealtimeStackProps) {
    super(scope, id, props);
    const { config, data, auth } = props;

    this.api = new WebSocketApi(this, 'Socket', {
      apiName: `${config.prefix}-realtime`,
      description: 'Balcão console realtime events',
    });
    const accessLogs = new LogGroup(this, 'AccessLogs', {
      retention: RetentionDays.ONE_MONTH,
      removalPolicy: RemovalPolicy.DESTROY,
    });
    this.stage = new WebSocketStage(this, 'Stage', {
      webSocketApi: this.api,
      stageName: WS_STAGE,
      autoDeploy: true,
      throttle: { rateLimit: config.throttleRate, burstLimit: config.throttleBurst },
      accessLogSettings: {
        destination: new LogGroupLogDestination(accessLogs),
        format: AccessLogFormat.custom(
          JSON.stringify({
            requestId: '$context.requestId',
            time: '$context.requestTime',
            eventType: '$context.eventType',
            routeKey: '$context.routeKey',
            connectionId: '$context.connectionId',
            ip: '$context.identity.sourceIp',
            status: '$context.status',
            integrationStatus: '$context.integrationStatus',
            integrationLatency: '$context.integrationLatency',
            error: '$context.error.message',
          }),
        ),
      },
    });

    const contract: RuntimeContract = {
      TABLE_NAME: data.table.tableName,
      MEDIA_BUCKET: bucketName(config.prefix, 'media'),
      USER_POOL_ID: auth.userPool.userPoolId,
      USER_POOL_CLIENT_ID: auth.client.userPoolClientId,
      WS_CALLBACK_URL: this.stage.callbackUrl,
      WEB_ORIGIN: props.webOrigin,
      LOG_LEVEL: config.logLevel,
      SECRETS_KMS_KEY_ID: data.secretsKey.keyArn,
      queueUrls: data.queueUrls(),
      timers: data.timerEnv(),
    };
    const realtimeQueue = data.queue(REALTIME_QUEUE).queue;

    const socketFn = (name: 'connect' | 'disconnect' | 'message', description: string) => {
      const f = new BalcaoFunction(this, `Ws-${name}`, {
        entry: 'functions/src/ws/index.ts',
        handler: name,
        description,
        contract,
        memorySize: 256,
        timeout: Duration.seconds(10),
      });
      // Connection and room items (with TTL) live in the table; presence changes are published.
      allowTable(f, data.table, 'readwrite');
      allowSend(f, [realtimeQueue]);
      // Presence events carry the user with a presigned photo URL.
      allowMedia(f, config.prefix, 'read');
      return f;
    };
    const connect = socketFn('connect', 'Balcão WebSocket $connect (verifies ?token=)');
    const disconnect = socketFn('disconnect', 'Balcão WebSocket $disconnect');
    const message = socketFn('message', 'Balcão WebSocket actions (joinChatBox, leaveChatBox, userStatus; joinTickets, joinNotification and ping accepted)');

    this.api.addRoute('$connect', { integration: new WebSocketLambdaIntegration('ConnectIntegration', connect.fn) });
    this.api.addRoute('$disconnect', { integration: new WebSocketLambdaIntegration('DisconnectIntegration', disconnect.fn) });
    this.api.addRoute('$default', { integration: new WebSocketLambdaIntegration('DefaultIntegration', message.fn) });
    ack(
      this.api,
      'APIG4',
      'Browsers cannot send headers on a WebSocket upgrade: $connect verifies the Cognito token from ?token= in the handler and refuses with 401; $disconnect/$default run only on a connection accepted that way.',
    );

    this.fanout = new QueueWorker(this, 'Fanout', { pair: data.queue(REALTIME_QUEUE), contract });
    // Reads connections/rooms, drops the ones @connections answers 410 Gone for (which publishes the
    // user's presence, with a presigned photo URL).
    allowTable(this.fanout.fn, data.table, 'readwrite');
    allowSend(this.fanout.fn, [realtimeQueue]);
    allowMedia(this.fanout.fn, config.prefix, 'read');
    allowManageConnections(this.fanout.fn, this.api.apiId, WS_STAGE);

    new CfnOutput(this, 'WsUrl', { value: this.stage.url, description: 'WebSocket URL (config.json wsUrl)' });
  }

  /** wss://… – what the console connects to (config.json wsUrl). */
  get wsUrl(): string {
    return this.stage.url;
  }
}
