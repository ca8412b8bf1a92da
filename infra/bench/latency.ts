/**
 * Inbound message → agent consoles (issue 23). The stack runs in this process; the load (the
 * customers' sandbox POSTs, the agents' sockets, the `GET /tickets` probe) runs in a child process
 * (`latency-load.ts`), so the consoles' frames are not parsed on the stack's event loop.
 *
 * Here: a tenant with `consoles` agents (the admin and users who see every ticket), a sandbox
 * connection, one warm-up message per customer (each opens its ticket); `watching` consoles open a
 * customer's conversation (its ticket room). Then one phase per rate.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Endpoints } from '../local/stack.js';
import { agentSocket, connectedSandbox, login, must, PASSWORD, sandbox, sleep, tenant, uniq, type Api } from './client.js';
import type { LoadConfig, PhaseResult } from './latency-load.js';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const REPO_ROOT = path.resolve(HERE, '..', '..');

export interface LatencyOptions {
  rates: number[];
  seconds: number;
  customers: number;
  consoles: number;
  watching: number;
}

export async function latencyBench(ctx: { endpoints: Endpoints; env: Record<string, string>; sup: Api; log: (line: string) => void }, opts: LatencyOptions) {
  const e = ctx.endpoints;
  if (opts.watching > opts.consoles) throw new Error('--watching must be at most --consoles');
  if (opts.watching > opts.customers) throw new Error('--watching must be at most --customers (each watcher opens one customer)');
  const t = await tenant(e, ctx.sup, { users: opts.consoles + 2 });
  const adminMe = must(await t.admin.get('/auth/me'), 'me');
  const agents: { token: string; userId: number }[] = [{ token: t.admin.token, userId: adminMe.id as number }];
  ctx.log(`latency: ${opts.consoles} consoles (the admin and ${opts.consoles - 1} users who see every ticket)`);
  for (let i = 1; i < opts.consoles; i++) {
    const email = `${uniq('agente')}@bench.test`;
    const user = must(await t.admin.post('/users', { name: `Agente ${i}`, email, password: PASSWORD, profile: 'Nível 1', allTicket: 'enabled' }), 'create user');
    const api = await login(e, email, PASSWORD);
    agents.push({ token: api.token, userId: user.id as number });
  }
  const ws = await agentSocket(e, t.admin.token);
  const connectionId = await connectedSandbox(e, t, ws);
  const customers = Array.from({ length: opts.customers }, (_, i) => `55119${String(80_000_000 + i).padStart(8, '0')}`);

  // Warm-up (not measured): each customer's first message opens its ticket, as in a running shop.
  ctx.log(`latency: warm-up, one message from each of ${customers.length} customers`);
  const warm = await Promise.all(
    customers.map(async (from, i) => must(await sandbox<{ id: string }>(e, 'POST', `/connections/${connectionId}/messages`, { from, name: `Cliente ${i}`, body: 'Oi' }), 'warm-up message').id),
  );
  // A message reaches every console as its ticket's update (issue 23; before, as the company-wide appMessage).
  const ticketOf = await Promise.all(
    warm.map(async (id) => {
      const f = await ws.waitFor(
        (x) => (x.event.endsWith('-ticket') || (x.event.endsWith('-appMessage') && x.data.action === 'create')) && x.data.message?.id === id && typeof x.data.ticket?.id === 'number',
        `warm-up ${id}`,
        60_000,
      );
      return Number(f.data.ticket.id);
    }),
  );
  ws.close();
  await sleep(2000);

  const config: LoadConfig = {
    endpoints: e,
    sqs: { endpoint: ctx.env.SQS_ENDPOINT, region: ctx.env.AWS_REGION, inboundQueueUrl: ctx.env.INBOUND_QUEUE_URL, realtimeQueueUrl: ctx.env.REALTIME_QUEUE_URL },
    companyId: t.companyId,
    connectionId,
    customers,
    customerTickets: ticketOf,
    consoles: agents.map((a, i) => ({ ...a, watchTicketId: i >= agents.length - opts.watching ? ticketOf[i % customers.length] : undefined })),
    rates: opts.rates,
    seconds: opts.seconds,
  };
  const phases = await runLoad(config, ctx.log);
  return {
    unit: 'ms',
    method:
      `Customer messages via POST {sandboxUrl}/connections/{id}/messages on a fixed schedule (message i at start + i/rate s, customer i mod ${customers.length}), ` +
      `not back-to-back, from customers whose tickets are open. ${opts.consoles} agent consoles are connected (the admin and users with allTicket), ${opts.watching} of them with a conversation open (joinChatBox). ` +
      'Latency of a message on a console = the arrival of the first frame there carrying it (its appMessage create, or a ticket event that carries the message) minus the time just before its POST; every console that may see the ticket counts, so p99 is over messages × consoles. ' +
      "'watchers' is the same for the consoles with that customer's conversation open, on the conversation's own stream (appMessage). A message missing on a console after the drain (nothing new for 30 s, or 180 s in all) is lost there; an appMessage create seen twice on one socket is duplicated. " +
      "GET /tickets (a console's list: status pending, showAll) is probed 5 times a second during the sending, at a fixed rate. Posts = @connections posts counted by the local WebSocket gateway during the phase and its drain, per accepted message. The load runs in a child process (infra/bench/latency-load.ts).",
    consoles: opts.consoles,
    watching: opts.watching,
    customers: customers.length,
    phases,
  };
}

/** Runs `latency-load.ts` in a child process and returns its phases; its log lines go to `log`. */
async function runLoad(config: LoadConfig, log: (line: string) => void): Promise<PhaseResult[]> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'balcao-latency-'));
  const cfgFile = path.join(dir, 'config.json');
  const outFile = path.join(dir, 'result.json');
  fs.writeFileSync(cfgFile, JSON.stringify(config));
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(HERE, 'latency-load.ts'), cfgFile, outFile], { cwd: REPO_ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  const relay = (chunk: Buffer) => String(chunk).split('\n').filter(Boolean).forEach((l) => log(`  ${l}`));
  child.stdout.on('data', relay);
  child.stderr.on('data', relay);
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  if (code !== 0) throw new Error(`the latency load process exited with ${code}`);
  const result = JSON.parse(fs.readFileSync(outFile, 'utf8')) as PhaseResult[];
  fs.rmSync(dir, { recursive: true, force: true });
  return result;
}
