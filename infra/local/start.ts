import { settlingLog } from './http-util.js';
import { startLocalStack } from './stack.js';

/*
 * `npm start`: the whole product on loopback, one log stream prefixed per part. Ctrl-C or SIGTERM
 * stops every part (DynamoDB Local persists each write under .local/dynamodb, so nothing is lost).
 */
const COLORS: Record<string, number> = {
  dynamodb: 34, 'sqs/s3': 36, cognito: 35, gateway: 32, ws: 33, workers: 94, sweeper: 96, web: 92, sandbox: 95, stack: 37,
};
const tty = process.stdout.isTTY;
const out = settlingLog((part: string, line: string) => {
  const tag = `[${part}]`;
  process.stdout.write(`${tty ? `\x1b[${COLORS[part] ?? 37}m${tag}\x1b[0m` : tag} ${line}\n`);
});
const log = out.log;

const started = Date.now();
let stack: Awaited<ReturnType<typeof startLocalStack>> | undefined;
let stopping = false;
const shutdown = async (signal: string) => {
  if (stopping) return;
  stopping = true;
  log('stack', `${signal}: stopping…`);
  const force = setTimeout(() => {
    log('stack', 'stop took too long; exiting');
    process.exit(1);
  }, 20_000);
  await stack?.stop();
  clearTimeout(force);
  log('stack', 'stopped');
  process.exit(0);
};
process.on('SIGINT', () => void shutdown('SIGINT'));
process.on('SIGTERM', () => void shutdown('SIGTERM'));

try {
  stack = await startLocalStack({
    // Where the product keeps its data (tables, queues, media, simulator): `.local` unless told.
    dataDir: process.env.BALCAO_DATA_DIR || '.local',
    ports: 'fixed',
    buildWeb: true,
    seed: true,
    adminEmail: process.env.BALCAO_ADMIN_EMAIL ?? 'admin@balcao.local',
    adminPassword: process.env.BALCAO_ADMIN_PASSWORD ?? 'Balcao123',
    log,
  });
  if (stopping) await stack.stop();
  const e = stack.endpoints;
  const ready = Date.now() - started;
  // The banner comes last: after the lines parts still log once the stack is up.
  await out.settled(1500, 15_000);
  log('stack', `ready in ${(ready / 1000).toFixed(1)} s`);
  process.stdout.write(
    [
      '',
      `  Console      ${e.webUrl}`,
      `  Sign in as   ${e.admin.email} / ${e.admin.password}`,
      `  API          ${e.apiUrl}`,
      `  WebSocket    ${e.wsUrl}`,
      `  WhatsApp     ${e.sandboxUrl}/  (simulator: the demo connection is linked; write as customers, scan new QRs)`,
      `  Mailbox      ${e.sandboxUrl}/mailbox/{email}  (password-reset codes)`,
      `  Cognito      ${e.cognito.endpoint}  pool ${e.cognito.userPoolId}  client ${e.cognito.userPoolClientId}`,
      `  Endpoints    ${process.env.BALCAO_DATA_DIR || '.local'}/endpoints.json`,
      '  Ctrl-C stops everything.',
      '',
    ].join('\n') + '\n',
  );
} catch (err) {
  log('stack', `failed to start: ${(err as Error).stack ?? err}`);
  process.exit(1);
}
