import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import {
  CreateTableCommand,
  DescribeTableCommand,
  type DescribeTableCommandOutput,
  DescribeTimeToLiveCommand,
  DynamoDBClient,
  ResourceNotFoundException,
  UpdateTableCommand,
  UpdateTimeToLiveCommand,
  waitUntilTableExists,
} from '@aws-sdk/client-dynamodb';
import { TABLE_DEFINITION } from '@balcao/functions/manifest';
import { onLines, type Log } from './http-util.js';
import { waitForPort } from './ports.js';

const require = createRequire(import.meta.url);

/** The official DynamoDB Local engine ships inside amplify-dynamodb-simulator. */
export function dynamoJarDir() {
  const pkg = require.resolve('amplify-dynamodb-simulator/package.json');
  const dir = path.join(path.dirname(pkg), 'emulator');
  if (!fs.existsSync(path.join(dir, 'DynamoDBLocal.jar'))) throw new Error(`DynamoDBLocal.jar not found in ${dir}`);
  return dir;
}

/**
 * The JVM that runs DynamoDB Local: `$JAVA_HOME/bin/java` when JAVA_HOME names one (the usual
 * convention of Java tools), else `java` on the PATH.
 */
export function javaCommand() {
  const home = process.env.JAVA_HOME;
  const java = home ? path.join(home, 'bin', 'java') : undefined;
  return java && fs.existsSync(java) ? java : 'java';
}

/** `java/LoopbackDynamoDB.java`: starts the jar's server bound to one address. */
const LAUNCHER = fileURLToPath(new URL('./java/LoopbackDynamoDB.java', import.meta.url));

/** Java 11+ runs a source file directly when its image has the compiler module (Debian's JRE has it). */
function canRunJavaSource(java: string): boolean {
  const out = spawnSync(java, ['--list-modules'], { encoding: 'utf8', timeout: 20_000 });
  return out.status === 0 && /^jdk\.compiler@/m.test(out.stdout);
}

/*
 * java runs under a small sh guard: when our stdin pipe closes (we stop it, or this Node process dies
 * in any way, even SIGKILL), the guard kills java. That is what keeps `pgrep -f DynamoDBLocal` empty.
 */
const GUARD = `exec 3<&0
"$@" </dev/null & child=$!
trap 'kill $child 2>/dev/null' TERM INT HUP
(cat <&3 >/dev/null; kill $child 2>/dev/null) &
exec 3<&-
wait $child`;

export interface DynamoHandle {
  endpoint: string;
  stop(): Promise<void>;
}

export async function startDynamo(opts: { dataDir: string; port: number; log: Log; corsOrigin: string; dbPath?: string }): Promise<DynamoHandle> {
  const dir = dynamoJarDir();
  const dbPath = path.resolve(opts.dbPath ?? path.join(opts.dataDir, 'dynamodb'));
  fs.mkdirSync(dbPath, { recursive: true });
  const java = javaCommand();
  const loopback = canRunJavaSource(java);
  if (!loopback) opts.log('dynamodb', '!!! this Java cannot run source files (no jdk.compiler module): DynamoDB Local listens on every interface, not only on 127.0.0.1');
  const args = [
    `-Djava.library.path=${path.join(dir, 'DynamoDBLocal_lib')}`,
    '-Xmx512m',
    // The jar alone listens on every interface (issue 16 §6): a small launcher binds it to loopback.
    ...(loopback
      ? ['-Dbalcao.bindHost=127.0.0.1', '-cp', [path.join(dir, 'DynamoDBLocal.jar'), path.join(dir, 'DynamoDBLocal_lib', '*')].join(path.delimiter), LAUNCHER]
      : ['-jar', path.join(dir, 'DynamoDBLocal.jar')]),
    '-sharedDb',
    '-dbPath',
    dbPath,
    '-port',
    String(opts.port),
    '-disableTelemetry',
    // Browsers on other origins may not read the table either.
    '-cors',
    opts.corsOrigin,
  ];
  const child: ChildProcess = spawn('sh', ['-c', GUARD, 'dynamodb-guard', java, ...args], {
    cwd: dir,
    stdio: ['pipe', 'pipe', 'pipe'],
    // Own process group: a terminal Ctrl-C reaches only Node, which then stops java last, after
    // the parts that still write to the table ($disconnect, workers) have finished.
    detached: true,
  });
  let exited = false;
  const exitPromise = new Promise<void>((resolve) => child.once('exit', () => ((exited = true), resolve())));
  onLines(child.stdout, (l) => opts.log('dynamodb', l));
  onLines(child.stderr, (l) => opts.log('dynamodb', l));
  child.on('error', (e) => opts.log('dynamodb', `failed to start java: ${e.message}`));

  let stopping = false;
  child.once('exit', (code, signal) => {
    if (!stopping) opts.log('dynamodb', `!!! DynamoDB Local exited unexpectedly (${signal ?? code}); restart the stack`);
  });
  const stop = async () => {
    stopping = true;
    if (exited) return;
    child.stdin?.end();
    const t = setTimeout(() => child.kill('SIGTERM'), 8000);
    const k = setTimeout(() => child.kill('SIGKILL'), 15000);
    await exitPromise;
    clearTimeout(t);
    clearTimeout(k);
  };
  try {
    await waitForPort(opts.port, 60_000, () => !exited);
  } catch (e) {
    await stop();
    throw e;
  }
  return { endpoint: `http://127.0.0.1:${opts.port}`, stop };
}

/** Creates the single table from TABLE_DEFINITION if absent (same keys and GSIs as the CDK data stack). */
export async function ensureTable(endpoint: string, tableName: string, log: Log) {
  const ddb = new DynamoDBClient({
    endpoint,
    region: 'us-east-1',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  });
  try {
    let exists = true;
    let described: DescribeTableCommandOutput | undefined;
    try {
      described = await ddb.send(new DescribeTableCommand({ TableName: tableName }));
    } catch (e) {
      if (!(e instanceof ResourceNotFoundException)) throw e;
      exists = false;
    }
    if (!exists) {
      const d = TABLE_DEFINITION;
      const attrs = new Set<string>([d.partitionKey, d.sortKey]);
      for (const g of d.globalSecondaryIndexes) attrs.add(g.partitionKey).add(g.sortKey);
      await ddb.send(
        new CreateTableCommand({
          TableName: tableName,
          BillingMode: 'PAY_PER_REQUEST',
          AttributeDefinitions: [...attrs].map((a) => ({ AttributeName: a, AttributeType: 'S' })),
          KeySchema: [
            { AttributeName: d.partitionKey, KeyType: 'HASH' },
            { AttributeName: d.sortKey, KeyType: 'RANGE' },
          ],
          GlobalSecondaryIndexes: d.globalSecondaryIndexes.map((g) => ({
            IndexName: g.indexName,
            KeySchema: [
              { AttributeName: g.partitionKey, KeyType: 'HASH' },
              { AttributeName: g.sortKey, KeyType: 'RANGE' },
            ],
            Projection: { ProjectionType: 'ALL' },
          })),
        }),
      );
      await waitUntilTableExists({ client: ddb, maxWaitTime: 30 }, { TableName: tableName });
      log('dynamodb', `created table ${tableName}`);
    } else {
      log('dynamodb', `table ${tableName} exists`);
      // A data directory from before an index was added gets it now (as a CDK deploy would add it).
      const present = new Set((described?.Table?.GlobalSecondaryIndexes ?? []).map((g) => g.IndexName));
      for (const g of TABLE_DEFINITION.globalSecondaryIndexes.filter((x) => !present.has(x.indexName))) {
        await ddb.send(
          new UpdateTableCommand({
            TableName: tableName,
            AttributeDefinitions: [g.partitionKey, g.sortKey].map((a) => ({ AttributeName: a, AttributeType: 'S' })),
            GlobalSecondaryIndexUpdates: [
              {
                Create: {
                  IndexName: g.indexName,
                  KeySchema: [
                    { AttributeName: g.partitionKey, KeyType: 'HASH' },
                    { AttributeName: g.sortKey, KeyType: 'RANGE' },
                  ],
                  Projection: { ProjectionType: 'ALL' },
                },
              },
            ],
          }),
        );
        // Queries of a backfilling index fail: wait until it is ACTIVE (seconds locally).
        for (let i = 0; i < 60; i++) {
          const d = await ddb.send(new DescribeTableCommand({ TableName: tableName }));
          if (d.Table?.GlobalSecondaryIndexes?.find((x) => x.IndexName === g.indexName)?.IndexStatus === 'ACTIVE') break;
          await new Promise((r) => setTimeout(r, 500));
        }
        log('dynamodb', `added index ${g.indexName} to ${tableName}`);
      }
    }
    const ttl = await ddb.send(new DescribeTimeToLiveCommand({ TableName: tableName }));
    if (ttl.TimeToLiveDescription?.TimeToLiveStatus !== 'ENABLED') {
      await ddb.send(
        new UpdateTimeToLiveCommand({
          TableName: tableName,
          TimeToLiveSpecification: { AttributeName: TABLE_DEFINITION.timeToLiveAttribute, Enabled: true },
        }),
      );
    }
  } finally {
    ddb.destroy();
  }
}
