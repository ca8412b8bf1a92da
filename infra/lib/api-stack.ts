import { CfnOutput, Duration, RemovalPolicy, Stack, type StackProps } from 'aws-cdk-lib';
import { AccessLogFormat } from 'aws-cdk-lib/aws-apigateway';
import {
  CorsHttpMethod,
  HttpApi,
  HttpMethod,
  HttpNoneAuthorizer,
  HttpRoute,
  HttpRouteKey,
  HttpStage,
  LogGroupLogDestination,
} from 'aws-cdk-lib/aws-apigatewayv2';
import { HttpJwtAuthorizer } from 'aws-cdk-lib/aws-apigatewayv2-authorizers';
import { HttpLambdaIntegration } from 'aws-cdk-lib/aws-apigatewayv2-integrations';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { Construct } from 'constructs';
import { routeHandlers, routeKey, routes, type RouteDef } from '@balcao/functions/manifest';
import { queues as queueDefs } from '@balcao/functions/manifest';
import { COGNITO_ADMIN_ACTIONS, allowMedia, allowSend, allowTable, allowTimers } from './access.js';
import type { AuthStack } from './auth-stack.js';
import type { BalcaoConfig } from './config.js';
import type { DataStack } from './data-stack.js';
import { BalcaoFunction, type RuntimeContract } from './function.js';
import { bucketName } from './names.js';
import { ack } from './nag.js';
import type { RealtimeStack } from './realtime-stack.js';

/**
 * What each router may touch beyond the default (table read/write and sending to the realtime queue).
 * A router not listed here gets only the default: add a line when a domain needs more.
 */
const OUTBOUND_QUEUES = queueDefs.filter((q) => q.worker === null).map((q) => q.name);
/** A message sent to WhatsApp leaves its delayed timeout check on the ticket-timers queue (services/outbound.ts). */
const SENDS_MESSAGES = ['realtime', ...OUTBOUND_QUEUES, 'ticket-timers'];

export const ROUTER_ACCESS: Record<string, { cognitoAdmin?: boolean; media?: 'read' | 'readwrite'; sendTo?: string[]; secrets?: 'seal' | 'open' | 'sealAndOpen'; timers?: boolean }> = {
  // Sign-in goes through InitiateAuth/ForgotPassword (public client calls); /auth/me returns the user
  // with a presigned photo URL, which only works if the signer may read the object.
  auth: { cognitoAdmin: true, media: 'read' },
  // Users are created, renamed and deleted in Cognito by the API; their photos are media objects.
  users: { cognitoAdmin: true, media: 'readwrite' },
  // Sign-up (/companies/cadastro) and super-user company administration create and remove users.
  // A company blocked or unblocked by hand stops or starts its WhatsApp sessions (commands).
  companies: { cognitoAdmin: true, media: 'readwrite', sendTo: ['realtime', ...OUTBOUND_QUEUES] },
  // Connection changes and session actions are commands for the session host.
  whatsapp: { sendTo: ['realtime', ...OUTBOUND_QUEUES] },
  // Sending stores media and hands the message to the session host.
  messages: { media: 'readwrite', sendTo: SENDS_MESSAGES },
  externalApi: { media: 'readwrite', sendTo: SENDS_MESSAGES },
  // Ticket changes send automated messages (greeting, transfer, rating) and read receipts.
  tickets: { media: 'read', sendTo: SENDS_MESSAGES },
  // Importing a phone's address book asks the session host (an rpc command).
  contacts: { sendTo: ['realtime', ...OUTBOUND_QUEUES] },
  // Quick replies keep their attachments in the media bucket.
  quickMessages: { media: 'readwrite' },
  // Scheduled messages keep their image attachments in the media bucket; a save sets its timer,
  // or hands one due within the minute to the schedules queue at once.
  schedules: { media: 'readwrite', timers: true, sendTo: ['realtime', 'schedules'] },
  // File lists keep their options' files in the media bucket.
  files: { media: 'readwrite' },
  // Integrations and prompts seal their secrets (KMS data keys) and open them for the Test button.
  integrations: { secrets: 'sealAndOpen' },
  // A list item's number is checked on WhatsApp (an rpc command); a spreadsheet import is a job.
  contactLists: { sendTo: ['realtime', ...OUTBOUND_QUEUES, 'contact-list-imports'] },
  // Campaigns keep their media in the bucket; a save or restart enqueues its start job, or sets its
  // timer when it is due beyond SQS's delay.
  campaigns: { media: 'readwrite', sendTo: ['realtime', 'campaigns'], timers: true },
  // Internal chat files live in the media bucket (uploads copied under the chat).
  chats: { media: 'readwrite' },
  // Announcement images live in the media bucket (`p/announcements/`), answered as presigned URLs.
  announcements: { media: 'readwrite' },
  // Billing (decision 61): the webhook restarts the sessions a block stopped; the checkout opens the
  // sealed Asaas key to call Asaas (it never seals one).
  invoices: { sendTo: ['realtime', ...OUTBOUND_QUEUES], secrets: 'open' },
  // The super user's `asaas` setting is sealed with the platform's key and answered masked (never opened).
  settings: { secrets: 'seal' },
};

const DEFAULT_SEND = ['realtime'];

export interface ApiStackProps extends StackProps {
  config: BalcaoConfig;
  data: DataStack;
  auth: AuthStack;
  realtime: RealtimeStack;
  webOrigin: string;
}

/**
 * The HTTP API of the route manifest: one Lambda per router `handler`, every route with its exact
 * path, the Cognito JWT authorizer on 'user' routes, none on 'public' and 'connectionToken' routes
 * (the handler checks the connection token), CORS for the console origin, throttling and access logs
 * on the default stage.
 */
export class ApiStack extends Stack {
  readonly api: HttpApi;
  readonly stage: HttpStage;
  readonly routers = new Map<string, BalcaoFunction>();
  readonly routesByKey = new Map<string, HttpRoute>();

  constructor(scope: Construct, id: string, props: ApiStackProps) {
    super(scope, id, props);
    const { config, data, auth, realtime } = props;

    this.api = new HttpApi(this, 'Http', {
      apiName: `${config.prefix}-api`,
      description: 'Balcão HTTP API (functions/src/routes.ts)',
      createDefaultStage: false,
      corsPreflight: {
        allowOrigins: [props.webOrigin],
        allowMethods: [
          CorsHttpMethod.GET,
          CorsHttpMethod.POST,
          CorsHttpMethod.PUT,
          CorsHttpMethod.PATCH,
          CorsHttpMethod.DELETE,
          CorsHttpMethod.OPTIONS,
        ],
        allowHeaders: ['authorization', 'content-type', 'x-requested-with'],
        exposeHeaders: ['content-disposition'],
        maxAge: Duration.hours(1),
      },
    });

    const accessLogs = new LogGroup(this, 'AccessLogs', {
      retention: RetentionDays.ONE_MONTH,
      removalPolicy: RemovalPolicy.DESTROY,
    });
    this.stage = new HttpStage(this, 'DefaultStage', {
      httpApi: this.api,
      stageName: '$default',
      autoDeploy: true,
      throttle: { rateLimit: config.throttleRate, burstLimit: config.throttleBurst },
      accessLogSettings: {
        destination: new LogGroupLogDestination(accessLogs),
        format: AccessLogFormat.custom(
          JSON.stringify({
            requestId: '$context.requestId',
            time: '$context.requestTime',
            ip: '$context.identity.sourceIp',
            method: '$context.httpMethod',
            // The route key, never the path: the reset route carries the new password in it (issue 16 §5).
            routeKey: '$context.routeKey',
            status: '$context.status',
            protocol: '$context.protocol',
            responseLength: '$context.responseLength',
            latency: '$context.responseLatency',
            integrationLatency: '$context.integrationLatency',
            integrationError: '$context.integrationErrorMessage',
            authorizerError: '$context.authorizer.error',
          }),
        ),
      },
    });

    const jwt = new HttpJwtAuthorizer('Cognito', auth.issuer, {
      authorizerName: 'cognito',
      jwtAudience: [auth.client.userPoolClientId],
      identitySource: ['$request.header.Authorization'],
    });
    const none = new HttpNoneAuthorizer();

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

    const integrations = new Map<string, HttpLambdaIntegration>();
    for (const handler of routeHandlers()) {
      const fn = new BalcaoFunction(this, `Router-${handler}`, {
        entry: `functions/src/http/${handler}/index.ts`,
        description: `Balcão HTTP router ${handler}`,
        contract,
        // API Gateway gives up at 30 s; keep the function below it.
        timeout: Duration.seconds(28),
      });
      const access = ROUTER_ACCESS[handler] ?? {};
      allowTable(fn, data.table, 'readwrite');
      allowSend(fn, (access.sendTo ?? DEFAULT_SEND).map((q) => data.queue(q).queue));
      if (access.cognitoAdmin) fn.allow(COGNITO_ADMIN_ACTIONS, [auth.userPool.userPoolArn]);
      if (access.media) allowMedia(fn, config.prefix, access.media);
      // Sealing is GenerateDataKey (envelope encryption, functions/src/core/secrets.ts); opening is Decrypt.
      if (access.secrets) fn.allow({ seal: ['kms:GenerateDataKey'], open: ['kms:Decrypt'], sealAndOpen: ['kms:GenerateDataKey', 'kms:Decrypt'] }[access.secrets], [data.secretsKey.keyArn]);
      if (access.timers) allowTimers(fn, data);
      this.routers.set(handler, fn);
      integrations.set(handler, new HttpLambdaIntegration(`Integration-${handler}`, fn.fn));
    }

    for (const def of routes) {
      const key = routeKey(def);
      const route = new HttpRoute(this, `Route ${key.replace(/\//g, '|')}`, {
        httpApi: this.api,
        routeKey: HttpRouteKey.with(def.path, HttpMethod[def.method]),
        integration: integrations.get(def.handler)!,
        authorizer: def.auth === 'user' ? jwt : none,
      });
      if (def.auth !== 'user') ack(route, 'APIG4', publicRouteReason(def));
      this.routesByKey.set(key, route);
    }
    new CfnOutput(this, 'ApiUrl', { value: this.apiUrl, description: 'HTTP API base URL (config.json apiUrl)' });
  }

  /** Base URL of the API (config.json apiUrl), without the trailing slash. */
  get apiUrl(): string {
    return `https://${this.api.apiId}.execute-api.${this.region}.${this.urlSuffix}`;
  }
}

function publicRouteReason(def: RouteDef): string {
  return def.auth === 'connectionToken'
    ? `${routeKey(def)} is called by external systems with a WhatsApp connection token, which the handler verifies against the table.`
    : `${routeKey(def)} is public by specification (sign-in, sign-up, password reset, public plan list or short-lived signed media reads).`;
}
