import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { App, Stack } from 'aws-cdk-lib';
import { Annotations, Match, Template } from 'aws-cdk-lib/assertions';
import type { CfnResource } from 'aws-cdk-lib';
import { beforeAll, describe, expect, it } from 'vitest';
import { TABLE_DEFINITION } from '@balcao/functions/manifest';
import { routeHandlers, routeKey, routes } from '@balcao/functions/manifest';
import { queues, SWEEPER, TIMER_QUEUES, timerQueueArnEnv } from '@balcao/functions/manifest';
import { readConfig, REPO_ROOT } from '../../lib/config.js';
import type { BalcaoFunction } from '../../lib/function.js';
import { WebStack } from '../../lib/web-stack.js';
import { cdkJsonContext, nagViolations, synthAll, type Synthesised } from './synth.js';

// Every function must receive the environment contract of functions/src/core/env.ts.
const CONTRACT_KEYS = [
  'TABLE_NAME',
  'MEDIA_BUCKET',
  'USER_POOL_ID',
  'USER_POOL_CLIENT_ID',
  'WS_CALLBACK_URL',
  'WEB_ORIGIN',
  'LOG_LEVEL',
  ...queues.map((q) => q.envVar),
  'TIMER_GROUP',
  'TIMER_ROLE_ARN',
  ...TIMER_QUEUES.map(timerQueueArnEnv),
];

let s: Synthesised;
beforeAll(() => {
  s = synthAll();
});

const logicalId = (c: { node: { defaultChild?: unknown } } | CfnResource) => {
  const cfn = ('cfnResourceType' in c ? c : c.node.defaultChild) as CfnResource;
  return Stack.of(cfn).getLogicalId(cfn);
};
const fnLogicalId = (f: BalcaoFunction) => logicalId(f.fn);

type Resources = Record<string, { Type: string; Properties: Record<string, any>; DeletionPolicy?: string }>;
const resources = (t: Template, type: string): Resources => t.findResources(type) as Resources;

describe('data stack', () => {
  it('has the single table of TABLE_DEFINITION: keys, its GSIs, TTL, on-demand, PITR, protected', () => {
    const t = s.templates.data;
    t.resourceCountIs('AWS::DynamoDB::Table', 1);
    t.hasResource('AWS::DynamoDB::Table', {
      DeletionPolicy: 'Retain',
      Properties: Match.objectLike({
        KeySchema: [
          { AttributeName: TABLE_DEFINITION.partitionKey, KeyType: 'HASH' },
          { AttributeName: TABLE_DEFINITION.sortKey, KeyType: 'RANGE' },
        ],
        BillingMode: 'PAY_PER_REQUEST',
        PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
        DeletionProtectionEnabled: true,
        TimeToLiveSpecification: { AttributeName: TABLE_DEFINITION.timeToLiveAttribute, Enabled: true },
      }),
    });
    const [table] = Object.values(resources(t, 'AWS::DynamoDB::Table'));
    const gsis = table.Properties.GlobalSecondaryIndexes as any[];
    expect(gsis.map((g) => g.IndexName)).toEqual(['GSI1', 'GSI2', 'GSI3', 'GSI4']);
    for (const def of TABLE_DEFINITION.globalSecondaryIndexes) {
      const gsi = gsis.find((g) => g.IndexName === def.indexName);
      expect(gsi.KeySchema).toEqual([
        { AttributeName: def.partitionKey, KeyType: 'HASH' },
        { AttributeName: def.sortKey, KeyType: 'RANGE' },
      ]);
      expect(gsi.Projection).toEqual({ ProjectionType: 'ALL' });
    }
    const attrs = (table.Properties.AttributeDefinitions as any[]).map((a) => `${a.AttributeName}:${a.AttributeType}`).sort();
    expect(attrs).toEqual(['GSI1PK:S', 'GSI1SK:S', 'GSI2PK:S', 'GSI2SK:S', 'GSI3PK:S', 'GSI3SK:S', 'GSI4PK:S', 'GSI4SK:S', 'PK:S', 'SK:S']);
  });

  it('keeps media in an encrypted, private, SSL-only bucket with CORS for the console origin', () => {
    const t = s.templates.data;
    t.hasResource('AWS::S3::Bucket', {
      DeletionPolicy: 'Retain',
      Properties: Match.objectLike({
        BucketName: Match.objectLike({ 'Fn::Join': ['', Match.arrayWith([Match.stringLikeRegexp('^balcao-prod-media-')])] }),
        BucketEncryption: { ServerSideEncryptionConfiguration: [{ ServerSideEncryptionByDefault: { SSEAlgorithm: 'AES256' } }] },
        PublicAccessBlockConfiguration: {
          BlockPublicAcls: true,
          BlockPublicPolicy: true,
          IgnorePublicAcls: true,
          RestrictPublicBuckets: true,
        },
        CorsConfiguration: {
          CorsRules: [
            Match.objectLike({
              AllowedMethods: ['GET', 'PUT', 'HEAD'],
              AllowedOrigins: [Match.anyValue()],
            }),
          ],
        },
        LifecycleConfiguration: {
          Rules: Match.arrayWith([Match.objectLike({ AbortIncompleteMultipartUpload: { DaysAfterInitiation: 1 } })]),
        },
      }),
    });
    // enforceSSL: a Deny on aws:SecureTransport=false for every bucket.
    const policies = Object.values(resources(t, 'AWS::S3::BucketPolicy'));
    expect(policies.length).toBeGreaterThanOrEqual(2);
    for (const p of policies) {
      expect(JSON.stringify(p.Properties.PolicyDocument)).toContain('"aws:SecureTransport":"false"');
    }
  });

  it('gives every manifest queue an encrypted DLQ through a redrive policy with its maxReceiveCount', () => {
    const t = s.templates.data;
    const all = resources(t, 'AWS::SQS::Queue');
    expect(Object.keys(all)).toHaveLength(queues.length * 2);
    for (const def of queues) {
      const dlqId = logicalId(s.stacks.data.queue(def.name).dlq);
      const qId = logicalId(s.stacks.data.queue(def.name).queue);
      const q = all[qId].Properties;
      expect(q.RedrivePolicy).toEqual({
        deadLetterTargetArn: { 'Fn::GetAtt': [dlqId, 'Arn'] },
        maxReceiveCount: def.maxReceiveCount,
      });
      expect(q.VisibilityTimeout).toBe(def.visibilityTimeoutSeconds);
      expect(q.SqsManagedSseEnabled).toBe(true);
      expect(all[dlqId].Properties.SqsManagedSseEnabled).toBe(true);
      expect(Boolean(q.FifoQueue)).toBe(def.fifo);
    }
  });
});

describe('timers (EventBridge Scheduler)', () => {
  const policyDocOf = (t: Template, roleId: string) =>
    JSON.stringify(Object.values(resources(t, 'AWS::IAM::Policy')).filter((p) => JSON.stringify(p.Properties.Roles).includes(roleId)).map((p) => p.Properties.PolicyDocument));

  it('has a schedule group and a role only Scheduler of this account assumes, sending to the schedules and campaigns queues only', () => {
    const t = s.templates.data;
    t.resourceCountIs('AWS::Scheduler::ScheduleGroup', 1);
    const roleId = logicalId(s.stacks.data.timerRole);
    const role = resources(t, 'AWS::IAM::Role')[roleId];
    expect(role.Properties.AssumeRolePolicyDocument.Statement).toEqual([
      expect.objectContaining({ Principal: { Service: 'scheduler.amazonaws.com' }, Condition: { StringEquals: { 'aws:SourceAccount': { Ref: 'AWS::AccountId' } } } }),
    ]);
    const statements = Object.values(resources(t, 'AWS::IAM::Policy'))
      .filter((p) => JSON.stringify(p.Properties.Roles).includes(roleId))
      .flatMap((p) => p.Properties.PolicyDocument.Statement);
    expect(statements).toHaveLength(1);
    expect(statements[0].Action).toBe('sqs:SendMessage');
    const targets = JSON.stringify(statements[0].Resource);
    for (const q of queues) expect(targets.includes(`"${logicalId(s.stacks.data.queue(q.name).queue)}"`), q.name).toBe((TIMER_QUEUES as readonly string[]).includes(q.name));
  });

  it('lets only the schedules and campaigns routers and the campaigns worker set timers, passing the role to Scheduler alone', () => {
    for (const [handler, fn] of s.stacks.api.routers) {
      const doc = policyDocOf(s.templates.api, logicalId(fn.role));
      const sets = ['schedules', 'campaigns'].includes(handler);
      expect(doc.includes('scheduler:CreateSchedule'), handler).toBe(sets);
      expect(doc.includes('iam:PassRole'), handler).toBe(sets);
      if (sets) {
        expect(doc, handler).toContain('scheduler:DeleteSchedule');
        expect(doc, handler).toContain('"iam:PassedToService":"scheduler.amazonaws.com"');
      }
    }
    for (const [name, worker] of s.stacks.workers.workers) {
      expect(policyDocOf(s.templates.workers, logicalId(worker.fn.role)).includes('scheduler:CreateSchedule'), name).toBe(name === 'campaigns');
    }
  });
});

describe('auth stack', () => {
  it('has the spec password policy, e-mail sign-in, admin-only sign-up and e-mail recovery', () => {
    s.templates.auth.hasResourceProperties('AWS::Cognito::UserPool', {
      UsernameAttributes: ['email'],
      Policies: {
        PasswordPolicy: Match.objectLike({
          MinimumLength: 8,
          RequireUppercase: true,
          RequireLowercase: true,
          RequireNumbers: true,
          RequireSymbols: false,
        }),
      },
      AdminCreateUserConfig: { AllowAdminCreateUserOnly: true },
      AccountRecoverySetting: { RecoveryMechanisms: [{ Name: 'verified_email', Priority: 1 }] },
    });
  });

  it('has a public app client with USER_PASSWORD_AUTH and refresh', () => {
    s.templates.auth.hasResourceProperties('AWS::Cognito::UserPoolClient', {
      GenerateSecret: false,
      ExplicitAuthFlows: Match.arrayWith(['ALLOW_USER_PASSWORD_AUTH', 'ALLOW_REFRESH_TOKEN_AUTH']),
    });
    const [client] = Object.values(resources(s.templates.auth, 'AWS::Cognito::UserPoolClient'));
    expect(client.Properties.ExplicitAuthFlows).not.toContain('ALLOW_USER_SRP_AUTH');
  });
});

describe('api stack', () => {
  const routeResources = () => Object.values(resources(s.templates.api, 'AWS::ApiGatewayV2::Route'));

  it('has one router function per manifest handler', () => {
    expect([...s.stacks.api.routers.keys()].sort()).toEqual(routeHandlers().sort());
  });

  it('wires every manifest route with its exact path, its authorization and its router', () => {
    const t = s.templates.api;
    const authorizers = Object.entries(resources(t, 'AWS::ApiGatewayV2::Authorizer'));
    expect(authorizers).toHaveLength(1);
    const [authorizerId, authorizer] = authorizers[0];
    expect(authorizer.Properties.AuthorizerType).toBe('JWT');
    expect(authorizer.Properties.IdentitySource).toEqual(['$request.header.Authorization']);
    expect(JSON.stringify(authorizer.Properties.JwtConfiguration.Issuer)).toContain('https://cognito-idp.');
    expect(authorizer.Properties.JwtConfiguration.Audience).toHaveLength(1);

    const integrations = resources(t, 'AWS::ApiGatewayV2::Integration');
    const byKey = new Map(routeResources().map((r) => [r.Properties.RouteKey as string, r.Properties]));
    expect(byKey.size).toBe(routes.length);

    for (const def of routes) {
      const key = routeKey(def);
      const route = byKey.get(key);
      expect(route, key).toBeDefined();
      if (def.auth === 'user') {
        expect(route!.AuthorizationType, key).toBe('JWT');
        expect(route!.AuthorizerId, key).toEqual({ Ref: authorizerId });
      } else {
        expect(route!.AuthorizationType, key).toBe('NONE');
        expect(route!.AuthorizerId, key).toBeUndefined();
      }
      // Target is "integrations/<Ref integration>"; that integration invokes the handler's function.
      const integrationId = route!.Target['Fn::Join'][1][1].Ref as string;
      const integration = integrations[integrationId].Properties;
      expect(integration.IntegrationType).toBe('AWS_PROXY');
      expect(integration.PayloadFormatVersion).toBe('2.0');
      expect(integration.IntegrationUri, key).toEqual({
        'Fn::GetAtt': [fnLogicalId(s.stacks.api.routers.get(def.handler)!), 'Arn'],
      });
    }
  });

  it('keeps parameterised paths verbatim ({id}, several parameters, greedy {key+})', () => {
    const keys = routeResources().map((r) => r.Properties.RouteKey);
    const parameterised = routes.filter((r) => r.path.includes('{'));
    expect(parameterised.length).toBeGreaterThan(0);
    for (const r of parameterised) expect(keys).toContain(routeKey(r));
  });

  it('throttles and logs the default stage, and allows the console origin', () => {
    const t = s.templates.api;
    t.hasResourceProperties('AWS::ApiGatewayV2::Stage', {
      StageName: '$default',
      AutoDeploy: true,
      DefaultRouteSettings: { ThrottlingRateLimit: 50, ThrottlingBurstLimit: 100 },
      AccessLogSettings: { DestinationArn: Match.anyValue(), Format: Match.stringLikeRegexp('requestId') },
    });
    // The route key, never the path: the reset route carries the new password in it (issue 16 §5).
    const stage = Object.values(t.findResources('AWS::ApiGatewayV2::Stage'))[0] as { Properties: { AccessLogSettings: { Format: string } } };
    expect(stage.Properties.AccessLogSettings.Format).toContain('$context.routeKey');
    expect(stage.Properties.AccessLogSettings.Format).not.toContain('$context.path');
    t.hasResourceProperties('AWS::ApiGatewayV2::Api', {
      ProtocolType: 'HTTP',
      CorsConfiguration: Match.objectLike({
        AllowOrigins: [Match.anyValue()],
        AllowHeaders: Match.arrayWith(['authorization', 'content-type']),
      }),
    });
  });

  it('grants Cognito admin actions only to the routers that manage users', () => {
    const t = s.templates.api;
    const policies = Object.values(resources(t, 'AWS::IAM::Policy'));
    for (const [handler, fn] of s.stacks.api.routers) {
      const roleId = logicalId(fn.role);
      const doc = JSON.stringify(policies.filter((p) => JSON.stringify(p.Properties.Roles).includes(roleId)).map((p) => p.Properties.PolicyDocument));
      expect(doc.includes('cognito-idp:AdminCreateUser'), handler).toBe(['auth', 'users', 'companies'].includes(handler));
      expect(doc, handler).toContain('dynamodb:Query');
      expect(doc, handler).toContain('sqs:SendMessage');
      // Routers that start or stop WhatsApp sessions may send to the session host's queues.
      const outbound = queues.filter((q) => q.worker === null).map((q) => logicalId(s.stacks.data.queue(q.name).queue));
      if (['whatsapp', 'companies', 'messages', 'tickets'].includes(handler)) for (const id of outbound) expect(doc, `${handler} → ${id}`).toContain(id);
      expect(doc, handler).not.toContain('dynamodb:Scan');
      expect(doc, handler).not.toContain('execute-api:ManageConnections');
      // The integrations router seals and opens outside-service secrets (decision 51); the settings
      // router only seals the super user's Asaas key and the invoices router only opens it (decision 61).
      expect(doc.includes('kms:GenerateDataKey'), handler).toBe(['integrations', 'settings'].includes(handler));
      expect(doc.includes('kms:Decrypt'), handler).toBe(['integrations', 'invoices'].includes(handler));
    }
  });

  it('keeps the secrets key rotated, and lets only the automation worker of the workers open secrets', () => {
    s.templates.data.hasResourceProperties('AWS::KMS::Key', { EnableKeyRotation: true });
    const policies = Object.values(resources(s.templates.workers, 'AWS::IAM::Policy'));
    for (const [name, worker] of s.stacks.workers.workers) {
      const roleId = logicalId(worker.fn.role);
      const doc = JSON.stringify(policies.filter((p) => JSON.stringify(p.Properties.Roles).includes(roleId)).map((p) => p.Properties.PolicyDocument));
      expect(doc.includes('kms:Decrypt'), name).toBe(name === 'automation');
      expect(doc, name).not.toContain('kms:GenerateDataKey');
    }
  });
});

describe('realtime stack', () => {
  it('routes $connect (no authorizer), $disconnect and $default to the socket handlers', () => {
    const t = s.templates.realtime;
    t.hasResourceProperties('AWS::ApiGatewayV2::Api', {
      ProtocolType: 'WEBSOCKET',
      RouteSelectionExpression: '$request.body.action',
    });
    const routesByKey = new Map(
      Object.values(resources(t, 'AWS::ApiGatewayV2::Route')).map((r) => [r.Properties.RouteKey, r.Properties]),
    );
    expect([...routesByKey.keys()].sort()).toEqual(['$connect', '$default', '$disconnect']);
    expect(routesByKey.get('$connect')!.AuthorizationType ?? 'NONE').toBe('NONE');

    const integrations = resources(t, 'AWS::ApiGatewayV2::Integration');
    const functions = resources(t, 'AWS::Lambda::Function');
    const handlerOf = (routeKey: string) => {
      const integrationId = routesByKey.get(routeKey)!.Target['Fn::Join'][1][1].Ref as string;
      const uri = JSON.stringify(integrations[integrationId].Properties.IntegrationUri);
      const fnId = Object.keys(functions).find((id) => uri.includes(`"${id}"`));
      return functions[fnId!].Properties.Handler;
    };
    expect(handlerOf('$connect')).toBe('index.connect');
    expect(handlerOf('$disconnect')).toBe('index.disconnect');
    expect(handlerOf('$default')).toBe('index.message');
  });

  it('has a throttled, logged stage whose callback URL is WS_CALLBACK_URL', () => {
    const t = s.templates.realtime;
    t.hasResourceProperties('AWS::ApiGatewayV2::Stage', {
      StageName: 'live',
      DefaultRouteSettings: { ThrottlingRateLimit: 50, ThrottlingBurstLimit: 100 },
      AccessLogSettings: Match.objectLike({ Format: Match.stringLikeRegexp('connectionId') }),
    });
    const [fanout] = [s.stacks.realtime.fanout.fn];
    const fn = resources(t, 'AWS::Lambda::Function')[fnLogicalId(fanout)].Properties;
    const url = JSON.stringify(fn.Environment.Variables.WS_CALLBACK_URL);
    expect(url).toContain('https://');
    expect(url).toContain('.execute-api.');
    expect(url).toContain('/live');
  });

  it('feeds the fan-out worker from the realtime queue and lets it manage connections', () => {
    const t = s.templates.realtime;
    const def = queues.find((q) => q.name === 'realtime')!;
    t.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      BatchSize: def.batchSize,
      FunctionResponseTypes: ['ReportBatchItemFailures'],
      FunctionName: { Ref: fnLogicalId(s.stacks.realtime.fanout.fn) },
    });
    const roleId = logicalId(s.stacks.realtime.fanout.fn.role);
    const doc = JSON.stringify(
      Object.values(resources(t, 'AWS::IAM::Policy'))
        .filter((p) => JSON.stringify(p.Properties.Roles).includes(roleId))
        .map((p) => p.Properties.PolicyDocument),
    );
    expect(doc).toContain('execute-api:ManageConnections');
    expect(doc).toContain('/live/*/@connections/*');
    expect(doc).toContain('sqs:ReceiveMessage');

    // The socket handlers answer through their return value: none of them may post to connections.
    const fanoutRole = logicalId(s.stacks.realtime.fanout.fn.role);
    for (const p of Object.values(resources(t, 'AWS::IAM::Policy'))) {
      if (JSON.stringify(p.Properties.Roles).includes(fanoutRole)) continue;
      expect(JSON.stringify(p.Properties.PolicyDocument)).not.toContain('execute-api:ManageConnections');
    }
  });
});

describe('workers stack', () => {
  it('consumes every manifest queue with its batch size and partial batch failures', () => {
    const mappings = [
      ...Object.values(resources(s.templates.realtime, 'AWS::Lambda::EventSourceMapping')),
      ...Object.values(resources(s.templates.workers, 'AWS::Lambda::EventSourceMapping')),
    ];
    const lambdaQueues = queues.filter((q) => q.worker !== null);
    expect(mappings).toHaveLength(lambdaQueues.length);
    for (const def of lambdaQueues) {
      const m = mappings.find((x) => JSON.stringify(x.Properties.EventSourceArn).includes(logicalId(s.stacks.data.queue(def.name).queue)));
      expect(m, def.name).toBeDefined();
      expect(m!.Properties.BatchSize).toBe(def.batchSize);
      expect(m!.Properties.FunctionResponseTypes).toEqual(['ReportBatchItemFailures']);
    }
  });

  it('runs the sweeper on an EventBridge rate(1 minute) rule', () => {
    expect(SWEEPER.rateMinutes).toBe(1);
    s.templates.workers.hasResourceProperties('AWS::Events::Rule', {
      ScheduleExpression: 'rate(1 minute)',
      State: 'ENABLED',
      Targets: [Match.objectLike({ Arn: { 'Fn::GetAtt': [fnLogicalId(s.stacks.workers.sweeper), 'Arn'] } })],
    });
  });

  it("lets the sweeper send the session host's commands (a blocked company's stop, decision 61) to every outbound queue", () => {
    const roleId = logicalId(s.stacks.workers.sweeper.fn.role!);
    const policies = Object.values(resources(s.templates.workers, 'AWS::IAM::Policy')).filter((p) => JSON.stringify(p.Properties.Roles).includes(roleId));
    const sends = JSON.stringify(policies.flatMap((p) => p.Properties.PolicyDocument.Statement).filter((st: { Action: unknown }) => JSON.stringify(st.Action).includes('sqs:SendMessage')));
    const outbound = queues.filter((q) => q.worker === null);
    expect(outbound.length).toBeGreaterThan(0);
    for (const q of outbound) expect(sends, q.name).toContain(logicalId(s.stacks.data.queue(q.name).queue));
    const env = JSON.stringify(resources(s.templates.workers, 'AWS::Lambda::Function')[fnLogicalId(s.stacks.workers.sweeper)].Properties.Environment);
    for (const q of outbound) expect(env, q.envVar).toContain(q.envVar);
  });

  it('alarms on the visible messages of every DLQ', () => {
    const alarms = Object.values(resources(s.templates.workers, 'AWS::CloudWatch::Alarm'));
    expect(alarms).toHaveLength(queues.length);
    for (const a of alarms) {
      expect(a.Properties.MetricName).toBe('ApproximateNumberOfMessagesVisible');
      expect(a.Properties.Namespace).toBe('AWS/SQS');
      expect(a.Properties.Threshold).toBe(1);
      expect(a.Properties.AlarmActions).toHaveLength(1);
    }
  });
});

describe('every Lambda', () => {
  it('runs Node 22 on arm64 with tracing, its own log group and the environment contract', () => {
    const stacks = ['realtime', 'api', 'workers'] as const;
    let count = 0;
    for (const name of stacks) {
      const fns = resources(s.templates[name], 'AWS::Lambda::Function');
      for (const [id, fn] of Object.entries(fns)) {
        const p = fn.Properties;
        expect(p.Runtime, id).toBe('nodejs22.x');
        expect(p.Architectures, id).toEqual(['arm64']);
        expect(p.TracingConfig, id).toEqual({ Mode: 'Active' });
        expect(p.LoggingConfig?.LogGroup, id).toBeDefined();
        expect(Object.keys(p.Environment.Variables), id).toEqual(expect.arrayContaining(CONTRACT_KEYS));
        expect(p.Environment.Variables.JWT_ISSUER, id).toBeUndefined();
        count++;
      }
      s.templates[name].allResourcesProperties('AWS::Logs::LogGroup', { RetentionInDays: 30 });
    }
    // 3 socket handlers + fan-out + routers + queue workers + sweeper
    // (queues without a worker are consumed by the session host, not by a Lambda)
    expect(count).toBe(3 + 1 + routeHandlers().length + (queues.filter((q) => q.worker !== null).length - 1) + 1);
  });

  it('uses no AWS managed policy on its role', () => {
    for (const name of ['realtime', 'api', 'workers'] as const) {
      for (const role of Object.values(resources(s.templates[name], 'AWS::IAM::Role'))) {
        expect(role.Properties.ManagedPolicyArns).toBeUndefined();
      }
    }
  });
});

describe('sessions stack', () => {
  it('runs the session host image on Fargate with a /health check and the data grants', () => {
    const t = s.templates.sessions;
    t.resourceCountIs('AWS::ECS::Service', 1);
    t.hasResourceProperties('AWS::ECS::Cluster', {
      ClusterSettings: [{ Name: 'containerInsights', Value: 'enabled' }],
    });
    const [task] = Object.values(resources(t, 'AWS::ECS::TaskDefinition'));
    const [container] = task.Properties.ContainerDefinitions;
    expect(JSON.stringify(container.HealthCheck.Command)).toContain('/health');
    expect(JSON.stringify(container.Image)).toContain('cdk-hnb659fds-container-assets');
    const envNames = (container.Environment as { Name: string }[]).map((e) => e.Name);
    expect(envNames).toEqual(expect.arrayContaining(['TABLE_NAME', 'MEDIA_BUCKET', 'LOG_LEVEL', ...queues.map((q) => q.envVar)]));
    expect(existsSync(join(REPO_ROOT, 'session-host/Dockerfile'))).toBe(true);
    const taskPolicy = JSON.stringify(Object.values(resources(t, 'AWS::IAM::Policy')).map((p) => p.Properties.PolicyDocument));
    expect(taskPolicy).toContain('dynamodb:PutItem');
    expect(taskPolicy).toContain('sqs:SendMessage');
    // It consumes its shards' outbound command queues itself (no Lambda does).
    expect(taskPolicy).toContain('sqs:ReceiveMessage');
    expect(taskPolicy).toContain('sqs:DeleteMessage');
    t.hasResourceProperties('AWS::EC2::FlowLog', { TrafficType: 'ALL' });
  });
});

describe('web stacks', () => {
  it('serves a private bucket through CloudFront with OAC and the SPA fallback', () => {
    const t = s.templates.web;
    t.resourceCountIs('AWS::CloudFront::OriginAccessControl', 1);
    t.hasResourceProperties('AWS::CloudFront::Distribution', {
      DistributionConfig: Match.objectLike({
        DefaultRootObject: 'index.html',
        CustomErrorResponses: Match.arrayWith([
          Match.objectLike({ ErrorCode: 403, ResponseCode: 200, ResponsePagePath: '/index.html' }),
          Match.objectLike({ ErrorCode: 404, ResponseCode: 200, ResponsePagePath: '/index.html' }),
        ]),
        CacheBehaviors: [Match.objectLike({ PathPattern: '/config.json' })],
      }),
    });
  });

  it('deploys config.json with the API, WebSocket and Cognito settings', () => {
    const stack = s.stacks.webContent;
    const cfg = stack.resolve(stack.runtimeConfig);
    expect(Object.keys(cfg).sort()).toEqual(['apiUrl', 'cognito', 'wsUrl']);
    expect(Object.keys(cfg.cognito).sort()).toEqual(['endpoint', 'region', 'userPoolClientId', 'userPoolId']);
    expect(JSON.stringify(cfg.cognito.endpoint)).toContain('https://cognito-idp.');
    expect(JSON.stringify(cfg.wsUrl)).toContain('wss://');
    s.templates.webContent.resourceCountIs('Custom::CDKBucketDeployment', 1);
  });

  it('uses the custom domain with TLS 1.2 when webDomain is given, still without nag findings', () => {
    const app = new App({
      context: {
        ...cdkJsonContext(),
        webDist: 'skip',
        webDomain: 'app.example.com',
        webCertificateArn: 'arn:aws:acm:us-east-1:123456789012:certificate/00000000-0000-0000-0000-000000000000',
      },
    });
    const web = new WebStack(app, 'custom-web', { config: readConfig(app.node) });
    Template.fromStack(web).hasResourceProperties('AWS::CloudFront::Distribution', {
      DistributionConfig: Match.objectLike({
        Aliases: ['app.example.com'],
        ViewerCertificate: Match.objectLike({ MinimumProtocolVersion: 'TLSv1.2_2021', SslSupportMethod: 'sni-only' }),
      }),
    });
    expect(web.origin).toBe('https://app.example.com');
    expect(nagViolations(app)).toEqual([]);
  });

  it('refuses to synthesise without the console build, naming the command to run', () => {
    const app = new App({ context: { webDist: 'no-such-dist' } });
    expect(() => readConfig(app.node)).toThrow(/npm run build -w web/);
  });
});

describe('cdk-nag AwsSolutions', () => {
  it('leaves no unacknowledged finding', () => {
    expect(nagViolations(s.app)).toEqual([]);
  });

  it('leaves no error or warning annotation on any stack', () => {
    const { config: _c, ...stacks } = s.stacks;
    for (const stack of Object.values(stacks)) {
      expect(Annotations.fromStack(stack).findError('*', Match.anyValue()), stack.stackName).toEqual([]);
      expect(
        Annotations.fromStack(stack).findWarning('*', Match.stringLikeRegexp('AwsSolutions-.*')),
        stack.stackName,
      ).toEqual([]);
    }
  });
});
