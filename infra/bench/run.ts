/**
 * `npm run bench` (issue 3 §6): starts its own local stack (temporary data directory, free ports, no
 * web build) and measures
 *   latency   inbound message → agent consoles, one phase per --rate (default 2,20,50,100 messages/s) of
 *             --seconds each, with --consoles 20 connected and --watching 10 of them in a conversation
 *   capacity  DynamoDB read/write units per inbound and per outbound message (ConsumedCapacity)
 *   bot       customer message → the queue bot's answer on the phone at 5 messages/s for 60 s, and
 *             DynamoDB units and transactions per bot step (--bot-rate 5 --bot-seconds 60 --bot-customers 20)
 *   campaigns a 10 000-row contact-list import (seconds; target 180) and a campaign to its numbers with
 *             pacing off: time to planned and to the first message, DynamoDB units per recipient, memory,
 *             dispatch throughput (--campaign-rows 10000 --dispatch-seconds 60; infra/bench/campaigns.ts)
 *   kanban    the kanban board's first load and lane pages at 10 clients on 10 000 tickets in 20 lanes
 *             (target p99 <= 300 ms; --kanban-tickets 10000 --kanban-lanes 20 --clients 10; infra/bench/kanban.ts)
 *   dashboard GET /dashboard (last 90 days) and its two charts at 10 clients on the tickets data set
 *             (100 000 tickets; target p99 <= 200 ms; same data options as tickets; infra/bench/dashboard.ts)
 *   sessions  session-host memory per sandbox connection at 200 connections
 *   tickets   ticket lists, searches and message pages at 100 000 tickets / 1 000 000 messages,
 *             DynamoDB reads per request, console load times and first-load JS (infra/bench/tickets.ts)
 *   baileys-memory  memory per busy Baileys session on a fake socket, no stack (infra/bench/baileys-memory.ts,
 *             bench-results/baileys-memory.json; --sessions 20 --contacts 5000 --groups 200 --devices 3000
 *             --baileys-memory-out <file>); it runs first, in a child process
 * Results go to bench-results/pipeline.json (a part run alone with --only merges into it; the tickets
 * part writes bench-results/tickets.json), and a table is printed. Options: --only
 * latency|capacity|bot|campaigns|kanban|dashboard|sessions|tickets|baileys-memory (repeatable or comma-separated), --rate 2,20,50,100 --seconds 60 --consoles 20 --watching 10
 * --customers 20 --messages 50 --connections 200, --keep (keep the data dir), --out <file>; tickets:
 * --tickets 100000 --messages-per-ticket 10 --other-companies 50 --other-tickets 200 --agents 10
 * --clients 10 --requests 400 --warmup 400 --no-browser --tickets-out <file>, and --data-dir <dir> (kept; the
 * tickets data generated there is reused by a later run with the same sizes). The stack's log is
 * written to <data dir>/stack.log.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { fileURLToPath } from 'node:url';
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { javaCommand } from '../local/dynamodb.js';

const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const PARTS = ['capacity', 'latency', 'bot', 'campaigns', 'kanban', 'dashboard', 'sessions', 'tickets', 'baileys-memory'] as const;
/** The parts that run on the local stack. */
type Part = Exclude<(typeof PARTS)[number], 'baileys-memory'>;

const { values: args } = parseArgs({
  options: {
    only: { type: 'string', multiple: true },
    // The latency part: one phase per rate (messages/s), each --seconds long (issue 23).
    rate: { type: 'string', default: '2,20,50,100' },
    consoles: { type: 'string', default: '20' },
    // The latency part also records its phases in bench-results/realtime.json under this name.
    'realtime-label': { type: 'string', default: 'latest' },
    'realtime-out': { type: 'string', default: path.join(REPO_ROOT, 'bench-results', 'realtime.json') },
    watching: { type: 'string', default: '10' },
    'bot-rate': { type: 'string', default: '5' },
    'bot-seconds': { type: 'string', default: '60' },
    'bot-customers': { type: 'string', default: '20' },
    'campaign-rows': { type: 'string', default: '10000' },
    'dispatch-seconds': { type: 'string', default: '60' },
    'kanban-tickets': { type: 'string', default: '10000' },
    'kanban-lanes': { type: 'string', default: '20' },
    seconds: { type: 'string', default: '60' },
    customers: { type: 'string', default: '20' },
    messages: { type: 'string', default: '50' },
    connections: { type: 'string', default: '200' },
    out: { type: 'string', default: path.join(REPO_ROOT, 'bench-results', 'pipeline.json') },
    keep: { type: 'boolean', default: false },
    'data-dir': { type: 'string' },
    // Where a generated tickets data set is kept for later runs with a new data dir (issue 23).
    'data-cache': { type: 'string', default: path.join(os.homedir(), '.cache', 'balcao-bench') },
    'no-data-cache': { type: 'boolean', default: false },
    tickets: { type: 'string', default: '100000' },
    'messages-per-ticket': { type: 'string', default: '10' },
    'other-companies': { type: 'string', default: '50' },
    'other-tickets': { type: 'string', default: '200' },
    agents: { type: 'string', default: '10' },
    clients: { type: 'string', default: '10' },
    requests: { type: 'string', default: '400' },
    warmup: { type: 'string', default: '400' },
    'pending-share': { type: 'string', default: '0.02' },
    'open-share': { type: 'string', default: '0.03' },
    'write-concurrency': { type: 'string', default: '6' },
    'no-browser': { type: 'boolean', default: false },
    'browser-runs': { type: 'string', default: '5' },
    'tickets-out': { type: 'string', default: path.join(REPO_ROOT, 'bench-results', 'tickets.json') },
    sessions: { type: 'string', default: '20' },
    contacts: { type: 'string', default: '5000' },
    groups: { type: 'string', default: '200' },
    devices: { type: 'string', default: '3000' },
    'baileys-memory-out': { type: 'string', default: path.join(REPO_ROOT, 'bench-results', 'baileys-memory.json') },
  },
});
const only = (args.only ?? []).flatMap((s) => s.split(',')).map((s) => s.trim()).filter(Boolean);
for (const p of only) if (!(PARTS as readonly string[]).includes(p)) throw new Error(`unknown part "${p}" (parts: ${PARTS.join(', ')})`);
const selected = only.length ? PARTS.filter((p) => only.includes(p)) : [...PARTS];
const parts: Part[] = selected.filter((p): p is Part => p !== 'baileys-memory');
const num = (v: string | undefined, name: string) => {
  const n = Number(v);
  if (!Number.isFinite(n) || n <= 0) throw new Error(`--${name} must be a positive number`);
  return n;
};
const whole = (v: string | undefined, name: string, min = 1) => {
  const n = Number(v);
  if (!Number.isInteger(n) || n < min) throw new Error(`--${name} must be a whole number >= ${min}`);
  return n;
};

/** The tickets data set's sizes (the tickets and dashboard parts share it through --data-dir). */
function ticketsDataSizes() {
  const pendingShare = num(args['pending-share'], 'pending-share');
  const openShare = num(args['open-share'], 'open-share');
  // Each contact's newest ticket is the only one that may still be open (one per chat).
  if (pendingShare + openShare > 0.5) throw new Error('--pending-share + --open-share must be at most 0.5');
  return {
    tickets: whole(args.tickets, 'tickets', 2),
    messagesPerTicket: whole(args['messages-per-ticket'], 'messages-per-ticket'),
    otherCompanies: whole(args['other-companies'], 'other-companies', 0),
    otherTickets: whole(args['other-tickets'], 'other-tickets', 2),
    agents: whole(args.agents, 'agents'),
    pendingShare,
    openShare,
  };
}

/** The sizes and how a new data set is written. */
function ticketsDataOptions() {
  return {
    ...ticketsDataSizes(),
    concurrency: whole(args['write-concurrency'], 'write-concurrency'),
    writeMode: bulkLoadDir ? ('batch' as const) : ('transact' as const),
  };
}

/** Issue 23's bars for the latency part. */
const REALTIME_TARGETS = {
  '2/s': 'p99 <= 100 ms',
  '20/s': 'p99 <= 200 ms',
  '50/s': 'p99 <= 1000 ms, 0 lost, 0 duplicated, GET /tickets p99 <= 300 ms during the burst (20 consoles, 10 watching)',
  '100/s': 'p99 <= 3000 ms, 0 lost, 0 duplicated',
  posts: 'at most one frame per interested socket per fan-out batch',
};

const startedAt = Date.now();
const elapsed = () => `${((Date.now() - startedAt) / 1000).toFixed(0).padStart(4)}s`;
const say = (line: string) => process.stdout.write(`[bench ${elapsed()}] ${line}\n`);

// baileys-memory needs no stack: it runs first, in a child `node --expose-gc`, and writes its own file.
let memoryFailed = false;
if (selected.includes('baileys-memory')) {
  const { baileysMemoryPart, BAILEYS_MEMORY_DEFAULTS } = await import('./baileys-memory.js');
  say('--- baileys-memory');
  try {
    await baileysMemoryPart(
      {
        ...BAILEYS_MEMORY_DEFAULTS,
        sessions: whole(args.sessions, 'sessions'),
        contacts: whole(args.contacts, 'contacts'),
        groups: whole(args.groups, 'groups'),
        devices: whole(args.devices, 'devices'),
        out: path.resolve(args['baileys-memory-out']!),
      },
      say,
    );
  } catch (err) {
    memoryFailed = true;
    say(`!!! baileys-memory failed: ${(err as Error).message}`);
  }
  if (!parts.length) process.exit(memoryFailed ? 1 : 0);
}

// --data-dir: a directory kept between runs (the tickets part reuses the data it generated there).
const dataDir = args['data-dir'] ? path.resolve(args['data-dir']) : fs.mkdtempSync(path.join(os.tmpdir(), 'balcao-bench-'));
fs.mkdirSync(dataDir, { recursive: true });
const capacityDir = path.join(dataDir, 'capacity');
fs.mkdirSync(capacityDir, { recursive: true });
const logFile = path.join(dataDir, 'stack.log');
const logStream = fs.createWriteStream(logFile);
let sweeperRuns = 0;
const recent: string[] = [];

// Before any function module (and so functions/src/core/aws.ts) loads; the session host inherits it.
process.env.BALCAO_MEASURE_CAPACITY = '1';
// No CloudWatch here: the handlers' EMF lines would only cost CPU (set before any product module loads).
process.env.POWERTOOLS_METRICS_DISABLED ??= 'true';
process.env.BALCAO_MEASURE_CAPACITY_DIR = capacityDir;
// The product's info logs at 20 messages/s would only slow the stack down; warnings and errors stay.
process.env.LOG_LEVEL ??= 'warn';
// The sessions part forces a GC in the session host through its inspector (a free port, loopback only).
let inspectorUrl: string | undefined;
if (parts.includes('sessions')) process.env.NODE_OPTIONS = `${process.env.NODE_OPTIONS ?? ''} --inspect=127.0.0.1:0`.trim();

/**
 * A new tickets data set (millions of items) is bulk-loaded with DynamoDB Local's database on tmpfs,
 * where its commits cost no disk sync (table-writer.ts); the database is moved into the data dir when
 * the stack stops, so a later run with the same --data-dir reads it from there.
 */
const usesTicketsData = parts.some((p) => p === 'tickets' || p === 'dashboard');
// Only when needed: it loads the product's modules, whose metrics read the environment once.
const { MANIFEST_VERSION } = usesTicketsData ? await import('./tickets-data.js') : { MANIFEST_VERSION: 0 };
/**
 * A data set generated once is kept (the whole data dir: DynamoDB Local's database, the users'
 * Cognito store, the secrets key) under --data-cache, by its sizes: a later run with a new data dir
 * copies it in a minute or two instead of generating it again.
 */
const dataCacheDir = (() => {
  if (!usesTicketsData || args['no-data-cache']) return undefined;
  const key = createHash('sha256')
    .update(JSON.stringify([MANIFEST_VERSION, ticketsDataSizes()]))
    .digest('hex')
    .slice(0, 16);
  return path.join(path.resolve(args['data-cache']!), `tickets-${key}`);
})();
const CACHE_SKIPS = new Set(['stack.log', 'capacity']);
if (dataCacheDir && !fs.existsSync(path.join(dataDir, 'tickets-data.json')) && fs.existsSync(path.join(dataCacheDir, 'tickets-data.json'))) {
  const t0 = Date.now();
  say(`copying the tickets data set from ${dataCacheDir}`);
  fs.cpSync(dataCacheDir, dataDir, { recursive: true });
  say(`copied in ${((Date.now() - t0) / 1000).toFixed(0)} s`);
}
const bulkLoadDir = (() => {
  if (!usesTicketsData || fs.existsSync(path.join(dataDir, 'tickets-data.json'))) return undefined;
  if (os.platform() !== 'linux' || !fs.existsSync('/dev/shm')) return undefined;
  const { bavail, bsize } = fs.statfsSync('/dev/shm');
  if (bavail * bsize < 16 * 2 ** 30) return undefined; // the full data set needs ~10 GB
  return fs.mkdtempSync(path.join('/dev/shm', 'balcao-bench-'));
})();
// An interrupted bulk load must not leave gigabytes in memory (tmpfs).
if (bulkLoadDir) {
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => {
      fs.rmSync(bulkLoadDir, { recursive: true, force: true });
      process.exit(130);
    });
  }
}

const { startLocalStack, TABLE_NAME } = await import('../local/stack.js');
const { login } = await import('./client.js');
const { cpuSnapshot, cpuDelta, loadAverage } = await import('./system.js');

const adminEmail = 'admin@balcao.local';
const adminPassword = 'Balcao123';
say(`starting the local stack in ${dataDir} (log: ${logFile})`);
const stack = await startLocalStack({
  dataDir,
  ports: 'auto',
  // The tickets part measures the console in Chromium: the stack then builds (if stale) and serves it.
  buildWeb: parts.includes('tickets') && !args['no-browser'],
  seed: true,
  dynamoDbPath: bulkLoadDir && path.join(bulkLoadDir, 'dynamodb'),
  adminEmail,
  adminPassword,
  log: (part, line) => {
    if (part === 'sweeper' && line.startsWith('run done')) sweeperRuns++;
    const inspector = part === 'session-host' && /Debugger listening on (ws:\/\/\S+)/.exec(line);
    if (inspector) inspectorUrl = inspector[1];
    const l = `${new Date().toISOString()} [${part}] ${line}`;
    logStream.write(`${l}\n`);
    recent.push(l);
    if (recent.length > 40) recent.shift();
  },
});
say(`stack up; session host pid ${stack.sessionHost.pid()}`);

const results: Record<string, unknown> = {};
let ticketsResult: Record<string, unknown> | undefined;
const machine: Record<string, unknown> = {};
const failures: Record<string, string> = {};
let exitCode = memoryFailed ? 1 : 0;
try {
  const sup = await login(stack.endpoints, adminEmail, adminPassword);
  const log = (line: string) => say(line);
  for (const part of parts) {
    const t0 = Date.now();
    const cpu0 = cpuSnapshot(stack.sessionHost.pid());
    const elu0 = performance.eventLoopUtilization();
    const load0 = loadAverage();
    say(`--- ${part} (load average ${load0.join(' ')})`);
    try {
      if (part === 'capacity') {
        const { capacityBench, verifyCapacityReporting } = await import('./capacity.js');
        const check = await verifyCapacityReporting(TABLE_NAME);
        if (check.missing.length) say(`!!! DynamoDB Local reported no units for: ${check.missing.join(', ')}`);
        const r = await capacityBench(
          { endpoints: stack.endpoints, sup, capacityDir, sessionHostPid: () => stack.sessionHost.pid(), sweeperRuns: () => sweeperRuns, log },
          { messages: num(args.messages, 'messages') },
        );
        results.dynamodbUnits = { ...r, reportingCheck: check };
      } else if (part === 'latency') {
        const { latencyBench } = await import('./latency.js');
        results.inboundToWebSocket = await latencyBench(
          { endpoints: stack.endpoints, env: stack.env, sup, log },
          {
            rates: String(args.rate).split(',').map((r) => num(r.trim(), 'rate')),
            seconds: num(args.seconds, 'seconds'),
            customers: whole(args.customers, 'customers'),
            consoles: whole(args.consoles, 'consoles'),
            watching: whole(args.watching, 'watching', 0),
          },
        );
        const bad = (results.inboundToWebSocket as { phases: { rate: number; lost: number; duplicated: number; sendErrors: number }[] }).phases.filter((p) => p.lost || p.duplicated || p.sendErrors);
        if (bad.length) {
          failures.latency = bad.map((p) => `${p.rate}/s: ${p.lost} lost, ${p.duplicated} duplicated, ${p.sendErrors} send errors`).join('; ');
          exitCode = 1;
        }
      } else if (part === 'bot') {
        const { botBench } = await import('./bot.js');
        results.botAnswer = await botBench(
          { endpoints: stack.endpoints, sup, capacityDir, sessionHostPid: () => stack.sessionHost.pid(), sweeperRuns: () => sweeperRuns, log },
          { rate: num(args['bot-rate'], 'bot-rate'), seconds: num(args['bot-seconds'], 'bot-seconds'), customers: whole(args['bot-customers'], 'bot-customers') },
        );
        const r = results.botAnswer as { lost: number; sendErrors: number };
        if (r.lost || r.sendErrors) {
          failures.bot = `${r.lost} lost, ${r.sendErrors} send errors`;
          exitCode = 1;
        }
      } else if (part === 'campaigns') {
        const { campaignsBench } = await import('./campaigns.js');
        results.campaigns = await campaignsBench(
          { endpoints: stack.endpoints, sup, capacityDir, sessionHostPid: () => stack.sessionHost.pid(), sweeperRuns: () => sweeperRuns, log },
          { rows: whole(args['campaign-rows'], 'campaign-rows'), dispatchSeconds: num(args['dispatch-seconds'], 'dispatch-seconds') },
        );
        const r = results.campaigns as { import: { target: { pass: boolean } } };
        if (!r.import.target.pass) say('campaigns: the import missed its target');
      } else if (part === 'kanban') {
        const { kanbanBench } = await import('./kanban.js');
        results.kanban = await kanbanBench(
          { endpoints: stack.endpoints, sup, table: TABLE_NAME, log },
          {
            tickets: whole(args['kanban-tickets'], 'kanban-tickets', 20),
            lanes: whole(args['kanban-lanes'], 'kanban-lanes', 3),
            clients: whole(args.clients, 'clients'),
            requests: whole(args.requests, 'requests'),
            warmup: whole(args.warmup, 'warmup', 0),
          },
        );
        const missed = (results.kanban as { results: { name: string; pass: boolean }[] }).results.filter((x) => !x.pass).map((x) => x.name);
        // A missed target is a finding written to the results, not a failure of the run.
        if (missed.length) say(`kanban: targets missed: ${missed.join('; ')}`);
      } else if (part === 'dashboard') {
        const { dashboardBench } = await import('./dashboard.js');
        results.dashboard = await dashboardBench(
          { endpoints: stack.endpoints, sup, dataDir, table: TABLE_NAME, log },
          { ...ticketsDataOptions(), clients: whole(args.clients, 'clients'), requests: whole(args.requests, 'requests'), warmup: whole(args.warmup, 'warmup', 0) },
        );
        const missed = (results.dashboard as { results: { name: string; pass: boolean }[] }).results.filter((x) => !x.pass).map((x) => x.name);
        if (missed.length) say(`dashboard: targets missed: ${missed.join('; ')}`);
      } else if (part === 'tickets') {
        const { ticketsBench } = await import('./tickets.js');
        ticketsResult = await ticketsBench(
          { endpoints: stack.endpoints, sup, dataDir, table: TABLE_NAME, log },
          {
            ...ticketsDataOptions(),
            clients: whole(args.clients, 'clients'),
            requests: whole(args.requests, 'requests'),
            warmup: whole(args.warmup, 'warmup', 0),
            browser: !args['no-browser'],
            browserRuns: whole(args['browser-runs'], 'browser-runs'),
          },
        );
        const failed = (ticketsResult.api as { name: string; pass?: boolean }[]).filter((r) => r.pass === false).map((r) => r.name);
        const js = ticketsResult.console as { pass: boolean } | undefined;
        if (js && !js.pass) failed.push('first-load JavaScript');
        // Missing a target is a finding written to the results, not a failure of the benchmark run.
        if (failed.length) say(`tickets: targets missed: ${failed.join('; ')}`);
      } else {
        const { sessionsBench } = await import('./sessions.js');
        const n = num(args.connections, 'connections');
        results.sessionHostMemory = await sessionsBench(
          { endpoints: stack.endpoints, sup, sessionHostPid: () => stack.sessionHost.pid(), sessionHostUrl: stack.sessionHostUrl, inspectorUrl: () => inspectorUrl, log },
          { connections: n, timeoutMs: 240_000 },
        );
        const r = results.sessionHostMemory as { connections: { connected: number } };
        if (r.connections.connected < n) {
          failures.sessions = `only ${r.connections.connected} of ${n} connections CONNECTED`;
          exitCode = 1;
        }
      }
      machine[part] = {
        loadAverageBefore: load0,
        loadAverageAfter: loadAverage(),
        cpu: cpuDelta(cpu0, cpuSnapshot(stack.sessionHost.pid())),
        benchProcessEventLoopUtilization: Math.round(performance.eventLoopUtilization(elu0).utilization * 1000) / 1000,
      };
      say(`--- ${part} done in ${((Date.now() - t0) / 1000).toFixed(0)} s (load average ${loadAverage().join(' ')})`);
    } catch (err) {
      exitCode = 1;
      failures[part] = (err as Error).stack ?? String(err);
      say(`!!! ${part} failed: ${(err as Error).message}`);
      say(`last stack log lines:\n  ${recent.join('\n  ')}`);
    }
  }
} finally {
  say('stopping the stack');
  await stack.stop();
  if (bulkLoadDir) {
    const to = path.join(dataDir, 'dynamodb');
    say(`moving the database from ${bulkLoadDir} to ${to}`);
    fs.rmSync(to, { recursive: true, force: true });
    fs.cpSync(path.join(bulkLoadDir, 'dynamodb'), to, { recursive: true });
    fs.rmSync(bulkLoadDir, { recursive: true, force: true });
  }
  if (dataCacheDir && !fs.existsSync(path.join(dataCacheDir, 'tickets-data.json')) && fs.existsSync(path.join(dataDir, 'tickets-data.json'))) {
    say(`keeping the tickets data set in ${dataCacheDir} (--no-data-cache to skip)`);
    fs.rmSync(dataCacheDir, { recursive: true, force: true });
    fs.cpSync(dataDir, dataCacheDir, { recursive: true, filter: (src) => !CACHE_SKIPS.has(path.relative(dataDir, src)) });
  }
  logStream.end();
  if (!args.keep && !args['data-dir'] && exitCode === 0) fs.rmSync(dataDir, { recursive: true, force: true });
  else say(`kept ${dataDir}`);
}

/** The JVM that ran DynamoDB Local (the runtime line of `java -version`): its pace is in every figure. */
function javaVersion() {
  const r = spawnSync(javaCommand(), ['-version'], { encoding: 'utf8' });
  const lines = `${r.stderr ?? ''}${r.stdout ?? ''}`.split('\n').filter(Boolean);
  return lines[1]?.trim() ?? lines[0]?.trim() ?? String(r.error?.message ?? 'unknown');
}

const machineInfo = {
  node: process.version,
  dynamodbLocalJava: javaVersion(),
  cpus: os.cpus().length,
  cpuModel: os.cpus()[0]?.model,
  memoryGB: Math.round(os.totalmem() / 2 ** 30),
  platform: `${os.platform()} ${os.release()}`,
};
const command = `npm run bench${process.argv.length > 2 ? ` -- ${process.argv.slice(2).join(' ')}` : ''}`;
if (parts.includes('tickets')) {
  const ticketsOut = path.resolve(args['tickets-out']!);
  const ticketsDoc = {
    generatedAt: new Date().toISOString(),
    machine: machineInfo,
    command,
    environment: 'local stack (infra/local/stack.ts): DynamoDB Local, gateway and handlers in the benchmark process (the load generator shares it), console served from web/dist',
    ...(ticketsResult ?? {}),
    machineDuringPart: machine.tickets,
    failure: failures.tickets,
  };
  fs.mkdirSync(path.dirname(ticketsOut), { recursive: true });
  fs.writeFileSync(ticketsOut, `${JSON.stringify(ticketsDoc, null, 2)}\n`);
  if (ticketsResult) printTicketsTable(ticketsResult);
  say(`tickets results written to ${path.relative(process.cwd(), ticketsOut)}`);
  if (parts.length === 1) process.exit(exitCode);
}

// The realtime figures (issue 23) keep each labelled run side by side ('before', 'after', ...).
if (results.inboundToWebSocket) {
  const realtimeOut = path.resolve(args['realtime-out']!);
  let runs: Record<string, unknown> = {};
  try {
    runs = (JSON.parse(fs.readFileSync(realtimeOut, 'utf8')) as { runs: Record<string, unknown> }).runs ?? {};
  } catch {
    /* first run */
  }
  runs[args['realtime-label']!] = { generatedAt: new Date().toISOString(), machine: machineInfo, command, ...(results.inboundToWebSocket as object), machineDuringPart: machine.latency };
  fs.mkdirSync(path.dirname(realtimeOut), { recursive: true });
  fs.writeFileSync(realtimeOut, `${JSON.stringify({ targets: REALTIME_TARGETS, runs }, null, 2)}\n`);
}

// A part run alone replaces only its own section of an existing results file.
const out = path.resolve(args.out!);
let previous: Record<string, unknown> = {};
try {
  previous = JSON.parse(fs.readFileSync(out, 'utf8')) as Record<string, unknown>;
} catch {
  /* first run */
}
const doc = {
  ...previous,
  generatedAt: new Date().toISOString(),
  machine: machineInfo,
  command,
  environment: 'local stack (infra/local/stack.ts): DynamoDB Local, fauxqs SQS/S3, cognito-local, gateway + pollers in the benchmark process, session host as a child process; the load generator shares the stack process',
  results: { ...((previous.results as Record<string, unknown>) ?? {}), ...results },
  machineDuringParts: { ...((previous.machineDuringParts as Record<string, unknown>) ?? {}), ...machine },
  failures: Object.keys(failures).length ? failures : undefined,
  durationSeconds: Math.round((Date.now() - startedAt) / 1000),
};
fs.mkdirSync(path.dirname(out), { recursive: true });
fs.writeFileSync(out, `${JSON.stringify(doc, null, 2)}\n`);
printTable(results);
say(`results written to ${path.relative(process.cwd(), out)}`);
process.exit(exitCode);

function printTable(r: Record<string, any>) {
  const rows: [string, string, string][] = [];
  const bot = r.botAnswer;
  if (bot) {
    const l = bot.latency;
    rows.push(['customer → bot answer on the phone p50 / p95 / p99 / max', `${l.p50} / ${l.p95} / ${l.p99} / ${l.max}`, 'ms (target p99 <= 1000)']);
    rows.push(['bot answers sent / answered / lost', `${bot.accepted} / ${bot.answered} / ${bot.lost}`, 'msgs']);
    rows.push(['bot: transactions per message (state)', `${bot.transactionsPerMessage.measured} (${bot.transactionsPerMessage.botState})`, 'target state <= 1']);
    rows.push(['bot: units per message read / write (AWS floor)', `${bot.dynamodbUnits.total.read} / ${bot.dynamodbUnits.total.writeAwsFloor}`, 'RCU / WCU']);
  }
  const lat = r.inboundToWebSocket;
  for (const p of lat?.phases ?? []) {
    const l = p.latency;
    rows.push([`inbound → ${p.consoles} consoles at ${p.rate}/s: p50 / p99 / max`, `${l.p50} / ${l.p99} / ${l.max}`, `ms (watchers p99 ${p.watchers.latency.p99})`]);
    rows.push([`  at ${p.rate}/s: accepted / lost / duplicated`, `${p.accepted} / ${p.lost} / ${p.duplicated}`, `msgs × consoles (achieved ${p.schedule.achievedRatePerSecond}/s)`]);
    rows.push([`  at ${p.rate}/s: GET /tickets p50 / p99 during the burst`, `${p.getTickets.p50} / ${p.getTickets.p99}`, `ms (${p.getTickets.count} requests, ${p.getTickets.errors} errors)`]);
    rows.push([`  at ${p.rate}/s: @connections posts per inbound message`, `${p.posts.perAcceptedMessage}`, `posts (load ${p.loadAverage.after.join(' ')})`]);
  }
  const cap = r.dynamodbUnits;
  if (cap) {
    for (const [k, label] of [['inboundNewTicket', 'inbound, first message (new ticket)'], ['inboundExistingTicket', 'inbound, existing ticket'], ['outbound', 'outbound, to ack 2']] as const) {
      const c = cap[k];
      rows.push([`DynamoDB ${label}: RCU / WCU (AWS floor)`, `${c.functions.read} / ${c.functions.write} (${c.functions.writeAwsFloor})`, `per msg (+ session host ${c.sessionHost.read} / ${c.sessionHost.write})`]);
    }
  }
  for (const k of r.kanban?.results ?? []) rows.push([`kanban ${k.name} p50 / p99`, `${k.p50} / ${k.p99}`, `ms at ${r.kanban.clients} clients (target p99 <= ${k.targetP99Ms}) ${k.pass ? 'PASS' : 'MISS'}`]);
  for (const k of r.dashboard?.results ?? []) rows.push([`dashboard ${k.name} p50 / p99`, `${k.p50} / ${k.p99}`, `ms at ${r.dashboard.clients} clients (target p99 <= ${k.targetP99Ms}) ${k.pass ? 'PASS' : 'MISS'}`]);
  const s = r.sessionHostMemory;
  if (s) {
    rows.push([`session host at ${s.connections.connected} sandbox connections`, `${s.memory.rssBeforeMB} → ${s.memory.rssAfterMB}`, 'MB RSS']);
    rows.push(['per connection: RSS total / RSS 2nd half / heap+external', `${s.memory.perConnectionKB} / ${s.memory.marginalRssPerConnectionKB} / ${s.memory.heapPlusExternalPerConnectionKB}`, 'KB']);
    rows.push([`time to connect all ${s.connections.requested}`, `${s.timeToConnectAll.total}`, 's']);
  }
  const w = Math.max(...rows.map((x) => x[0].length), 10);
  const v = Math.max(...rows.map((x) => x[1].length), 5);
  process.stdout.write(`\n${rows.map(([a, b, c]) => `${a.padEnd(w)}  ${b.padStart(v)}  ${c}`).join('\n')}\n\n`);
}

/** Each figure of the tickets part beside its target. */
function printTicketsTable(r: Record<string, any>) {
  const rows: [string, string, string, string][] = [];
  const d = r.data;
  if (d) {
    const c = d.sizes.company;
    rows.push([`data${d.reused ? ' (reused, not generated)' : ''}`, `${c.tickets} tickets / ${c.messages} messages / ${c.contacts} contacts`, `+ ${d.sizes.others.companies} companies, ${d.sizes.totalItems} items`, '']);
  }
  for (const a of r.api ?? []) {
    if (a.skipped) {
      rows.push([a.name, 'skipped', a.skipped, '']);
      continue;
    }
    const t = a.target;
    const one = `${a.oneClient.p50} / ${a.oneClient.p99}`;
    const many = `${a.clients.p50} / ${a.clients.p99}`;
    const target = [t.p50OneClient !== undefined ? `p50@1 <= ${t.p50OneClient}` : '', `p99@${a.clients.clients} <= ${t.p99Clients}`].filter(Boolean).join(', ');
    rows.push([a.name, `${one} | ${many} ms`, `${target}; ${a.dynamodb.readUnitsPerRequest.median} RCU, ${a.dynamodb.itemsReadPerRequest.median} read / ${a.dynamodb.itemsReturnedPerRequest.median} returned${a.dynamodb.readsFarMoreThanReturned ? ' FLAG' : ''}`, a.pass ? 'pass' : 'FAIL']);
  }
  const c = r.console;
  if (c) {
    rows.push(['console first-load JavaScript', `${c.javascript.gzipKB} KB gzip`, `<= ${c.target.firstLoadJsGzipKB} KB`, c.pass ? 'pass' : 'FAIL']);
    rows.push(['console → first ticket row (cold / warm p50)', `${c.firstTicketRow.coldCache.p50} / ${c.firstTicketRow.warmCache.p50} ms`, 'no target', '']);
    rows.push(['console → opened conversation (cold / warm p50)', `${c.openedConversation.coldCache.p50} / ${c.openedConversation.warmCache.p50} ms`, 'no target', '']);
  }
  const w = Math.max(...rows.map((x) => x[0].length), 10);
  const v = Math.max(...rows.map((x) => x[1].length), 5);
  process.stdout.write(`\nGET p50 / p99 at 1 client | at ${r.requests?.clients ?? '?'} clients\n${rows.map(([a, b, c2, p]) => `${a.padEnd(w)}  ${b.padStart(v)}  ${p.padEnd(4)}  ${c2}`).join('\n')}\n\n`);
}
