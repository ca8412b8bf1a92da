import { type App, type Environment, Tags } from 'aws-cdk-lib';
import { ApiStack } from './api-stack.js';
import { AuthStack } from './auth-stack.js';
import { readConfig, type BalcaoConfig } from './config.js';
import { DataStack } from './data-stack.js';
import { RealtimeStack } from './realtime-stack.js';
import { SessionsStack } from './sessions-stack.js';
import { WebContentStack, WebStack } from './web-stack.js';
import { WorkersStack } from './workers-stack.js';

export interface BalcaoStacks {
  config: BalcaoConfig;
  web: WebStack;
  data: DataStack;
  auth: AuthStack;
  realtime: RealtimeStack;
  api: ApiStack;
  workers: WorkersStack;
  sessions: SessionsStack;
  webContent: WebContentStack;
}

/**
 * The stack graph (arrows = "is used by"), chosen so that no two stacks refer to each other:
 *
 *   web ──origin──▶ data (table, media, queues) ──▶ auth ──▶ realtime (WebSocket + fan-out)
 *     │                                                         │
 *     │                                   api (HTTP routers) ◀──┤──▶ workers (queues' workers, sweeper, alarms)
 *     │                                         │               │
 *     └──────────▶ web-content (web/dist + config.json) ◀───────┘        sessions (Fargate) ◀── data
 *
 * `web` only creates the bucket and the distribution, so its origin can be given to the API's CORS;
 * the files and config.json (which need the API and WebSocket URLs) come last in `web-content`.
 */
export function buildApp(app: App): BalcaoStacks {
  const config = readConfig(app.node);
  // No account needed to synthesise: with CDK_DEFAULT_* unset the stacks are environment-agnostic.
  const env: Environment = { account: process.env.CDK_DEFAULT_ACCOUNT, region: process.env.CDK_DEFAULT_REGION };
  const name = (s: string) => `${config.prefix}-${s}`;
  Tags.of(app).add('project', 'balcao');
  Tags.of(app).add('stage', config.stage);

  const web = new WebStack(app, name('web'), { env, config, description: 'Balcão console hosting (S3 + CloudFront)' });
  const webOrigin = web.origin;
  const data = new DataStack(app, name('data'), { env, config, webOrigin, description: 'Balcão table, media bucket and queues' });
  const auth = new AuthStack(app, name('auth'), { env, config, description: 'Balcão Cognito user pool' });
  const realtime = new RealtimeStack(app, name('realtime'), {
    env,
    config,
    data,
    auth,
    webOrigin,
    description: 'Balcão WebSocket API and realtime fan-out',
  });
  const api = new ApiStack(app, name('api'), { env, config, data, auth, realtime, webOrigin, description: 'Balcão HTTP API' });
  const workers = new WorkersStack(app, name('workers'), {
    env,
    config,
    data,
    auth,
    realtime,
    webOrigin,
    description: 'Balcão queue workers, sweeper and DLQ alarms',
  });
  const sessions = new SessionsStack(app, name('sessions'), { env, config, data, description: 'Balcão WhatsApp session host (ECS Fargate)' });
  const webContent = new WebContentStack(app, name('web-content'), {
    env,
    config,
    web,
    apiUrl: api.apiUrl,
    wsUrl: realtime.wsUrl,
    userPoolId: auth.userPool.userPoolId,
    userPoolClientId: auth.client.userPoolClientId,
    description: 'Balcão console files and config.json',
  });
  return { config, web, data, auth, realtime, api, workers, sessions, webContent };
}
