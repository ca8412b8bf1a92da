import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { routes } from '@balcao/functions/manifest';
import { queues as manifestQueues } from '@balcao/functions/manifest';
import { startCognito, Mailbox } from './cognito.js';
import { ensureTable, startDynamo } from './dynamodb.js';
import { FUNCTIONS_SRC } from './functions-loader.js';
import { startGateway } from './gateway.js';
import type { Log } from './http-util.js';
import { JwtAuthorizer } from './jwt.js';
import { freePort, pickPorts, type Ports } from './ports.js';
import { SandboxServer } from './sandbox-server.js';
import { attachPaymentsSandbox } from './payments-sandbox.js';
import { attachSandboxNetwork } from '@balcao/session-host/sandbox/index';
import { MEDIA_BUCKET, startSqsS3 } from './sqs-s3.js';
import { sessionHostProcess, type SessionHostControl } from './session-host.js';
import type { ChildServiceControl } from './child-service.js';
import { buildWebIfStale, startWebServer } from './web.js';
import { startWebSocket } from './websocket.js';
import { workersProcess } from './workers.js';
import { emulateLambdaConcurrency } from './functions-loader.js';

export const TABLE_NAME = 'balcao';

/* Node 20 is this machine's runtime: silence the SDKs' runtime-support notices (v3's Node 22 notice,
   v2's maintenance notice from inside cognito-local); they say nothing about the product. */
const QUIET_SDK = { AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true', AWS_SDK_JS_SUPPRESS_MAINTENANCE_MODE_MESSAGE: '1' };
for (const [k, v] of Object.entries(QUIET_SDK)) process.env[k] ??= v;

export interface Endpoints {
  webUrl: string;
  apiUrl: string;
  wsUrl: string;
  sandboxUrl: string;
  cognito: { region: string; endpoint: string; userPoolId: string; userPoolClientId: string };
  admin: { email: string; password: string };
  /** Health of the session host (`GET` → `{ ok, taskId, shards, sessions }`). */
  sessionHostUrl?: string;
}

export interface StackOptions {
  dataDir: string;
  ports: 'fixed' | 'auto';
  adminEmail: string;
  adminPassword: string;
  log?: Log;
  buildWeb?: boolean;
  seed?: boolean;
  /** DynamoDB Local's database directory, when not `<dataDir>/dynamodb` (the benchmark's bulk load on tmpfs). */
  dynamoDbPath?: string;
}

export interface LocalStack {
  endpoints: Endpoints;
  env: Record<string, string>;
  ports: Ports;
  /** Local helpers router; later issues add the WhatsApp sandbox here. */
  sandbox: SandboxServer;
  mailbox: Mailbox;
  seeded?: { companyId: unknown; adminUserId: unknown; demoConnectionId?: unknown };
  sessionHostUrl: string;
  /** The session host child process (tests in vitest workers use the /_local/session-host routes). */
  sessionHost: SessionHostControl;
  /** The workers' child process (SQS pollers and the sweeper). */
  workers: ChildServiceControl;
  stop(): Promise<void>;
}

const defaultLog: Log = (part, line) => process.stdout.write(`[${part}] ${line}\n`);

/** Any loopback page may call the local APIs (the console build and a Vite dev server alike). */
const loopbackOrigin = (origin: string) => /^https?:\/\/(127\.0\.0\.1|localhost|\[::1\])(:\d+)?$/.test(origin);

export async function startLocalStack(opts: StackOptions): Promise<LocalStack> {
  const log = opts.log ?? defaultLog;
  const dataDir = path.resolve(opts.dataDir);
  fs.mkdirSync(dataDir, { recursive: true });
  const ports = await pickPorts(opts.ports);
  const url = (port: number) => `http://127.0.0.1:${port}`;
  const stops: { name: string; stop: () => Promise<void> }[] = [];
  const stopAll = async () => {
    // Reverse start order: consumers stop before the services they call.
    for (const s of stops.splice(0).reverse()) {
      try {
        await s.stop();
      } catch (e) {
        log('stack', `stopping ${s.name} failed: ${(e as Error).message}`);
      }
    }
  };

  try {
    const mailbox = new Mailbox();
    // The slow parts start together: java, the web build, and the in-process services.
    const dynamoP = startDynamo({ dataDir, port: ports.dynamodb, log, corsOrigin: url(ports.web), dbPath: opts.dynamoDbPath });
    dynamoP.catch(() => {}); // awaited below; keeps an early failure from being "unhandled"
    const webBuildP = opts.buildWeb ? buildWebIfStale(log).catch((e: Error) => e) : Promise.resolve();
    const sqsS3 = await startSqsS3({ dataDir, port: ports.fauxqs, log, allowOrigin: loopbackOrigin });
    stops.push({ name: 'sqs/s3', stop: sqsS3.stop });
    const cognito = await startCognito({ dataDir, port: ports.cognito, log, mailbox });
    stops.push({ name: 'cognito', stop: cognito.stop });
    const dynamo = await dynamoP.catch((e) => {
      throw new Error(`DynamoDB Local did not start: ${(e as Error).message}`);
    });
    stops.push({ name: 'dynamodb', stop: dynamo.stop });
    await ensureTable(dynamo.endpoint, TABLE_NAME, log);

    const endpoints: Endpoints = {
      webUrl: url(ports.web),
      apiUrl: url(ports.api),
      wsUrl: `ws://127.0.0.1:${ports.ws}`,
      sandboxUrl: url(ports.sandbox),
      cognito: { region: cognito.region, endpoint: cognito.endpoint, userPoolId: cognito.userPoolId, userPoolClientId: cognito.userPoolClientId },
      admin: { email: opts.adminEmail, password: opts.adminPassword },
    };
    const paymentsSandboxToken = crypto.randomBytes(24).toString('hex');
    // The functions' environment contract (functions/src/core/env.ts), set before any function module loads.
    const env: Record<string, string> = {
      AWS_REGION: 'us-east-1',
      AWS_DEFAULT_REGION: 'us-east-1',
      AWS_ACCESS_KEY_ID: 'local',
      AWS_SECRET_ACCESS_KEY: 'local',
      AWS_EC2_METADATA_DISABLED: 'true',
      ...QUIET_SDK,
      TABLE_NAME,
      DYNAMODB_ENDPOINT: dynamo.endpoint,
      SQS_ENDPOINT: sqsS3.endpoint,
      S3_ENDPOINT: sqsS3.endpoint,
      MEDIA_BUCKET,
      USER_POOL_ID: cognito.userPoolId,
      USER_POOL_CLIENT_ID: cognito.userPoolClientId,
      COGNITO_ENDPOINT: cognito.endpoint,
      JWT_ISSUER: cognito.issuer,
      JWKS_URI: cognito.jwksUri,
      WS_CALLBACK_URL: url(ports.wsManagement),
      WEB_ORIGIN: endpoints.webUrl,
      SANDBOX_URL: endpoints.sandboxUrl,
      SECRETS_LOCAL_KEY: localSecretsKey(dataDir),
      // Timers in the stack's process (core/timers.ts): what a stop loses, the sweeper hands over.
      LOCAL_TIMERS: '1',
      // Tests point the outside services with fixed hosts at their local fakes.
      ...(process.env.DIALOGFLOW_API_URL ? { DIALOGFLOW_API_URL: process.env.DIALOGFLOW_API_URL } : {}),
      ...(process.env.AZURE_TTS_URL ? { AZURE_TTS_URL: process.env.AZURE_TTS_URL } : {}),
      ...(process.env.GOOGLE_TOKEN_URL ? { GOOGLE_TOKEN_URL: process.env.GOOGLE_TOKEN_URL } : {}),
      ...(process.env.OUTSIDE_ALLOW_PRIVATE ? { OUTSIDE_ALLOW_PRIVATE: process.env.OUTSIDE_ALLOW_PRIVATE } : {}),
      ...(process.env.ASAAS_API_URL ? { ASAAS_API_URL: process.env.ASAAS_API_URL } : {}),
      // The sandbox payment provider (decision 61): the default on one machine; its pay button calls the webhook with this token.
      PAYMENTS_SANDBOX_URL: endpoints.sandboxUrl,
      PAYMENTS_SANDBOX_TOKEN: paymentsSandboxToken,
    };
    for (const q of manifestQueues) env[q.envVar] = sqsS3.queues[q.name].url;
    Object.assign(process.env, env);
    await emulateLambdaConcurrency();

    const sandbox = new SandboxServer(log);
    sandbox.route('GET', '/mailbox/{email}', (req) => mailbox.for(req.params.email));
    // The simulated WhatsApp network (issue 3 §3): its page, customer API and the device socket.
    const sandboxNetwork = attachSandboxNetwork(sandbox, { dir: path.join(dataDir, 'sandbox'), log: (line) => log('sandbox', line) });
    attachPaymentsSandbox(sandbox, { dataDir, apiUrl: endpoints.apiUrl, token: paymentsSandboxToken, log });
    await sandbox.start(ports.sandbox);
    stops.push({ name: 'sandbox', stop: () => sandbox.stop() });
    // Stops first (reverse order): closes the device sockets and writes the state before the server closes.
    stops.push({ name: 'sandbox network', stop: () => sandboxNetwork.stop() });

    const authorizer = new JwtAuthorizer(cognito.issuer, [cognito.userPoolClientId], cognito.jwksUri);
    const gateway = await startGateway({ port: ports.api, routes, authorizer, allowOrigin: loopbackOrigin, log });
    stops.push({ name: 'gateway', stop: gateway.stop });
    const ws = await startWebSocket({ wsPort: ports.ws, mgmtPort: ports.wsManagement, log });
    stops.push({ name: 'ws', stop: ws.stop });

    // The workers run in their own process, as Lambda runs them apart from the API (issue 23).
    const workers = workersProcess({
      env,
      port: Number(process.env.BALCAO_PORT_WORKERS) || (await freePort()),
      queues: manifestQueues.filter((def) => def.worker !== null).map((def) => ({ name: def.name, url: sqsS3.queues[def.name].url, arn: sqsS3.queues[def.name].arn })),
      log,
    });
    stops.push({ name: 'workers', stop: workers.stop });
    await workers.start();

    const buildError = await webBuildP;
    if (buildError instanceof Error) log('web', `!!! ${buildError.message}; serving whatever web/dist holds`);
    const web = await startWebServer({
      port: ports.web,
      log,
      config: () => ({ apiUrl: endpoints.apiUrl, wsUrl: endpoints.wsUrl, cognito: endpoints.cognito }),
    });
    stops.push({ name: 'web', stop: web.stop });

    let seeded: LocalStack['seeded'];
    if (opts.seed) seeded = await runSeed(opts.adminEmail, opts.adminPassword, log);

    // The session host runs as its own process, as in ECS, once the seed's connections exist.
    const sessionHostPort = Number(process.env.BALCAO_PORT_SESSION_HOST) || (await freePort());
    const sessionHost = sessionHostProcess({ env, port: sessionHostPort, log });
    stops.push({ name: 'session host', stop: sessionHost.stop });
    await sessionHost.start();
    endpoints.sessionHostUrl = sessionHost.url;
    // The demo connection a first start made is linked at once (its QR scanned by a simulated phone),
    // so a newcomer finds it CONNECTED instead of a QR that timed out before they got there.
    const demoId = seeded?.demoConnectionId;
    if (typeof demoId === 'number') await linkDemoConnection(sandboxNetwork, demoId, endpoints.sandboxUrl, log);
    // Local only (tests in vitest workers cannot reach the stack object): stop and start it over HTTP.
    sandbox.route('GET', '/_local/ws-stats', () => ws.stats());
    sandbox.route('POST', '/_local/session-host/stop', async () => (await sessionHost.stop(), { pid: sessionHost.pid() }));
    sandbox.route('POST', '/_local/session-host/start', async () => (await sessionHost.start(), { pid: sessionHost.pid() }));
    sandbox.route('POST', '/_local/session-host/kill', async () => (await sessionHost.kill(), { pid: sessionHost.pid() }));

    fs.writeFileSync(path.join(dataDir, 'endpoints.json'), `${JSON.stringify(endpoints, null, 2)}\n`);
    let stopped: Promise<void> | undefined;
    return {
      endpoints,
      env,
      ports,
      sandbox,
      mailbox,
      seeded,
      sessionHostUrl: sessionHost.url,
      sessionHost,
      workers,
      stop: () => (stopped ??= stopAll()),
    };
  } catch (e) {
    await stopAll();
    throw e;
  }
}

/** Scans the demo connection's first QR with the simulator's default phone number. */
async function linkDemoConnection(network: ReturnType<typeof attachSandboxNetwork>, id: number, sandboxUrl: string, log: Log) {
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    if (network.view(id).status === 'qr') {
      try {
        const { number } = await network.scan(id);
        log('stack', `demo connection ${id} linked to the simulated phone ${number}`);
        return;
      } catch (e) {
        log('stack', `linking the demo connection: ${(e as Error).message}; trying again`);
      }
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  log('stack', `!!! the demo connection ${id} showed no QR within a minute: scan it from the simulator (${sandboxUrl})`);
}

async function runSeed(adminEmail: string, adminPassword: string, log: Log) {
  const file = path.join(FUNCTIONS_SRC, 'services', 'seed.ts');
  if (!fs.existsSync(file)) {
    log('stack', `!!! ${path.relative(process.cwd(), file)} does not exist yet: nothing seeded, the super user cannot sign in`);
    return undefined;
  }
  const mod = (await import(pathToFileURL(file).href)) as {
    seedLocal: (a: { adminEmail: string; adminPassword: string }) => Promise<{ companyId: unknown; adminUserId: unknown; demoConnectionId?: unknown }>;
  };
  const out = await mod.seedLocal({ adminEmail, adminPassword });
  log('stack', `seed ok: company ${String(out.companyId)}, admin user ${String(out.adminUserId)}`);
  return out;
}

/**
 * The key that seals the companies' outside-service secrets on this machine (functions/src/core/secrets.ts):
 * made once, kept in the data directory readable by its owner only, so secrets survive restarts.
 */
function localSecretsKey(dataDir: string): string {
  const file = path.join(dataDir, 'secrets.key');
  let existing: string | undefined;
  try {
    existing = fs.readFileSync(file, 'utf8').trim();
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  if (existing !== undefined) {
    // Replacing a damaged key would make every stored secret unreadable without a word: stop instead.
    if (Buffer.from(existing, 'base64').length !== 32) throw new Error(`${file} is not a 32-byte base64 key: restore it (or delete it to start over; stored integration keys are then lost)`);
    return existing;
  }
  const key = crypto.randomBytes(32).toString('base64');
  // Written whole or not at all (a crash mid-write must not leave half a key).
  const tmp = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(tmp, `${key}\n`, { mode: 0o600 });
  fs.renameSync(tmp, file);
  return key;
}
