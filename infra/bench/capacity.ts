/**
 * DynamoDB units per inbound and per outbound message, from ConsumedCapacity. The stack runs with
 * BALCAO_MEASURE_CAPACITY=1 (functions/src/core/aws.ts): every DynamoDB call of the in-process
 * functions (gateway handlers, ingest worker, realtime fan-out, sweeper) adds its units to a counter
 * of this process; the session host (a child process) writes its own counter to
 * `<BALCAO_MEASURE_CAPACITY_DIR>/<pid>.json`. Figures are deltas over a window that starts and ends
 * quiet (no counter moving for QUIET_MS).
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Endpoints } from '../local/stack.js';
import { agentSocket, connectedSandbox, must, sandbox, sleep, tenant, type Api } from './client.js';

const CAPACITY = Symbol.for('balcao.consumedCapacity');
type Units = { read: number; write: number; calls: number; items: number };
type Counter = Units & { byCommand: Record<string, Units> };
const zero = (): Counter => ({ read: 0, write: 0, calls: 0, items: 0, byCommand: {} });
const QUIET_MS = 1500;

export interface CapacityContext {
  endpoints: Endpoints;
  sup: Api;
  capacityDir: string;
  sessionHostPid: () => number;
  /** Sweeper runs seen so far (the sweeper's calls are counted too; windows report how many they include). */
  sweeperRuns: () => number;
  log: (line: string) => void;
}

/**
 * The units so far: the stack = this process (the API) plus every other process but the session
 * host (the workers' process, and one that ran before a restart), each from its `<pid>.json`.
 */
export function snapshot(ctx: CapacityContext) {
  const stack = structuredClone((globalThis as { [CAPACITY]?: Counter })[CAPACITY] ?? zero());
  const read = (file: string) => {
    try {
      return JSON.parse(fs.readFileSync(path.join(ctx.capacityDir, file), 'utf8')) as Counter;
    } catch {
      return zero(); // nothing written yet
    }
  };
  const hostFile = `${ctx.sessionHostPid()}.json`;
  for (const file of fs.readdirSync(ctx.capacityDir)) {
    if (file === hostFile || file === `${process.pid}.json` || !file.endsWith('.json')) continue;
    addCounter(stack, read(file));
  }
  return { stack, sessionHost: read(hostFile), sweeperRuns: ctx.sweeperRuns(), at: Date.now() };
}

function addCounter(into: Counter, c: Counter) {
  for (const [to, from] of [[into, c] as const, ...Object.entries(c.byCommand ?? {}).map(([k, u]) => [(into.byCommand[k] ??= { read: 0, write: 0, calls: 0, items: 0 }), u] as const)]) {
    to.read += from.read;
    to.write += from.write;
    to.calls += from.calls;
    to.items += from.items;
  }
}
type Snapshot = ReturnType<typeof snapshot>;

/** Waits until no counter moved for QUIET_MS (at most 20 s) and returns that snapshot. */
export async function quiet(ctx: CapacityContext): Promise<Snapshot> {
  const end = Date.now() + 20_000;
  let last = snapshot(ctx);
  let since = Date.now();
  while (Date.now() - since < QUIET_MS) {
    await sleep(250);
    const now = snapshot(ctx);
    if (JSON.stringify({ ...now, at: 0 }) !== JSON.stringify({ ...last, at: 0 })) {
      last = now;
      since = Date.now();
    }
    if (Date.now() > end) {
      ctx.log('capacity: counters still moving after 20 s; using the last reading');
      break;
    }
  }
  return last;
}

const r3 = (v: number) => Math.round(v * 1000) / 1000;

/** Per-message figures of one process's counter between two snapshots, with the per-command breakdown. */
function perProcess(b: Counter, a: Counter, n: number) {
  const byCommand: Record<string, { calls: number; items: number; read: number; write: number }> = {};
  for (const [name, u] of Object.entries(a.byCommand)) {
    const p = b.byCommand[name] ?? { read: 0, write: 0, calls: 0, items: 0 };
    if (u.calls === p.calls) continue;
    byCommand[name] = { calls: r3((u.calls - p.calls) / n), items: r3((u.items - p.items) / n), read: r3((u.read - p.read) / n), write: r3((u.write - p.write) / n) };
  }
  // DynamoDB Local reports the same units for a TransactWriteItems call whatever its number of items
  // (see reportingCheck); DynamoDB charges 2 x the item's write units per item. So transactional
  // writes are given apart, with AWS's floor (2 WCU per item: items <= 1 KB, no index writes).
  const tx = byCommand.TransactWriteItems ?? { calls: 0, items: 0, write: 0 };
  const write = (a.write - b.write) / n;
  return {
    read: r3((a.read - b.read) / n),
    write: r3(write),
    writeNonTransactional: r3(write - tx.write),
    transactWrite: { callsPerMessage: tx.calls, itemsPerMessage: tx.items, unitsReportedByDynamoDBLocal: tx.write, awsFloorWcu: r3(2 * tx.items) },
    writeAwsFloor: r3(write - tx.write + 2 * tx.items),
    calls: r3((a.calls - b.calls) / n),
    byCommand,
  };
}

export function perMessage(before: Snapshot, after: Snapshot, n: number, method: string) {
  const functions = perProcess(before.stack, after.stack, n);
  const sessionHost = perProcess(before.sessionHost, after.sessionHost, n);
  return {
    messages: n,
    unit: 'capacity units per message (RCU read, WCU write)',
    method,
    functions,
    sessionHost,
    total: { read: r3(functions.read + sessionHost.read), write: r3(functions.write + sessionHost.write), writeAwsFloor: r3(functions.writeAwsFloor + sessionHost.writeAwsFloor) },
    windowMs: after.at - before.at,
    sweeperRunsInWindow: after.sweeperRuns - before.sweeperRuns,
  };
}

export async function capacityBench(ctx: CapacityContext, opts: { messages: number }) {
  const e = ctx.endpoints;
  const n = opts.messages;
  if (!(globalThis as { [CAPACITY]?: Units })[CAPACITY]) {
    // The counter is created with the first DynamoDB client; the stack has made calls by now.
    throw new Error('no capacity counter in this process: BALCAO_MEASURE_CAPACITY=1 was not in effect when functions/src/core/aws.ts created its client');
  }
  const t = await tenant(e, ctx.sup);
  const ws = await agentSocket(e, t.admin.token);
  const connectionId = await connectedSandbox(e, t, ws);
  const appMessage = `company-${t.companyId}-appMessage`;
  const ticketEvent = `company-${t.companyId}-ticket`;
  const customers = Array.from({ length: n }, (_, i) => `55119${String(70_000_000 + i).padStart(8, '0')}`);
  /** The ticket update that carries a new message's summary (what the lists get). */
  const carrying = (id: string) => (f: { event: string; data: any }) => f.event === ticketEvent && f.data.message?.id === id;

  /** Sends one message per customer, 10 per second, and waits for every one on the agent's socket. */
  const inbound = async (label: string) => {
    const ids: string[] = [];
    for (const [i, from] of customers.entries()) {
      const res = must(await sandbox<{ id: string }>(e, 'POST', `/connections/${connectionId}/messages`, { from, name: `Cliente ${i}`, body: `${label} ${i}` }), 'customer message');
      ids.push(res.id);
      await sleep(100);
    }
    await Promise.all(ids.map((id) => ws.waitFor(carrying(id), `inbound ${id} on the socket`, 60_000)));
    return ids;
  };

  // Idle baseline: what the stack and the session host consume with nothing happening.
  const idleMs = 10_000;
  let before = await quiet(ctx);
  await sleep(idleMs);
  let after = snapshot(ctx);
  const idle = {
    unit: 'capacity units per second',
    windowMs: idleMs,
    functions: { read: r3((after.stack.read - before.stack.read) / (idleMs / 1000)), write: r3((after.stack.write - before.stack.write) / (idleMs / 1000)) },
    sessionHost: { read: r3((after.sessionHost.read - before.sessionHost.read) / (idleMs / 1000)), write: r3((after.sessionHost.write - before.sessionHost.write) / (idleMs / 1000)) },
    sweeperRunsInWindow: after.sweeperRuns - before.sweeperRuns,
  };

  ctx.log(`capacity: ${n} first messages (new contact + ticket)`);
  before = await quiet(ctx);
  const firstIds = await inbound('Olá, primeira mensagem');
  after = await quiet(ctx);
  const inboundNewTicket = perMessage(before, after, n, `${n} customers each send their first message (10/s); creates contact + ticket + message; window from quiet to quiet after the last message's frame`);

  ctx.log(`capacity: ${n} messages to existing tickets`);
  before = await quiet(ctx);
  await inbound('Mais uma mensagem');
  after = await quiet(ctx);
  const inboundExistingTicket = perMessage(before, after, n, `the same ${n} customers send a second message each (10/s) to their open ticket`);

  // Outbound: a reply on each ticket, through the session host to the server ack (ack 2).
  const ticketIds = firstIds.map((id) => {
    const f = ws.frames.find(carrying(id));
    const ticketId = f?.data.ticket?.id;
    if (typeof ticketId !== 'number') throw new Error(`no ticket id in the ticket frame of ${id}: ${JSON.stringify(f?.data).slice(0, 300)}`);
    return ticketId;
  });
  // The agent opens the conversations (their rooms stream the replies' acks), before the window.
  for (const ticketId of ticketIds) ws.send({ action: 'joinChatBox', ticketId });
  await Promise.all(ticketIds.map((ticketId) => ws.waitFor((f) => f.event === 'joined' && f.data.room === `ticket:${ticketId}`, `joined ticket ${ticketId}`, 30_000)));
  ctx.log(`capacity: ${n} outbound replies`);
  before = await quiet(ctx);
  const replyIds: string[] = [];
  for (const ticketId of ticketIds) {
    const res = must(await t.admin.post<{ id: string }>(`/messages/${ticketId}`, { body: 'Obrigado pelo contato!' }), `reply on ticket ${ticketId}`);
    replyIds.push(res.id);
    await sleep(100);
  }
  await Promise.all(
    replyIds.map((id) => ws.waitFor((f) => f.event === appMessage && f.data.message?.id === id && f.data.message.ack >= 2, `reply ${id} with ack 2`, 60_000)),
  );
  after = await quiet(ctx);
  const outbound = perMessage(before, after, n, `POST /messages/{ticketId} on ${n} tickets (10/s) until each reply's appMessage frame shows ack >= 2 (sent by the session host, server ack ingested)`);
  ws.close();
  // The session host's own background (lease renewals, session state) runs during every window too.
  for (const r of [inboundNewTicket, inboundExistingTicket, outbound]) {
    const secs = r.windowMs / 1000;
    Object.assign(r.sessionHost, {
      readMinusIdle: r3(Math.max(0, r.sessionHost.read - (idle.sessionHost.read * secs) / n)),
      writeMinusIdle: r3(Math.max(0, r.sessionHost.write - (idle.sessionHost.write * secs) / n)),
    });
  }
  return {
    source: 'ConsumedCapacity (ReturnConsumedCapacity=INDEXES, table + GSIs) of every DynamoDB call, DynamoDB Local',
    inboundNewTicket,
    inboundExistingTicket,
    outbound,
    idle,
    notes: [
      'functions = every DynamoDB call made in the stack process (HTTP and WebSocket handlers) and the workers process (ingest, realtime fan-out, sweeper…); sessionHost = the session-host child process (auth keys, leases, connection state).',
      'realtime fan-out reads (socket connections of the audience) grow with the number of sockets connected to the company: one agent socket here.',
      'DynamoDB Local reports consumed capacity like DynamoDB on-demand (reads 4 KB / 0.5 for eventually consistent, writes 1 KB, transactions x2), but it is an emulator: verify against CloudWatch in AWS.',
    ],
  };
}

/** Calls each command kind once and checks DynamoDB Local reported units for it. */
export async function verifyCapacityReporting(table: string) {
  const { dynamo } = await import('@balcao/functions/tools');
  const lib = await import('@aws-sdk/lib-dynamodb');
  const g = globalThis as { [CAPACITY]?: Units };
  const key = { PK: 'BENCH#capacity', SK: 'probe' };
  const probes: [string, () => Promise<unknown>][] = [
    ['PutItem', () => dynamo().send(new lib.PutCommand({ TableName: table, Item: { ...key, n: 1 } }))],
    ['GetItem', () => dynamo().send(new lib.GetCommand({ TableName: table, Key: key }))],
    ['UpdateItem', () => dynamo().send(new lib.UpdateCommand({ TableName: table, Key: key, UpdateExpression: 'SET n = n + :one', ExpressionAttributeValues: { ':one': 1 } }))],
    ['Query', () => dynamo().send(new lib.QueryCommand({ TableName: table, KeyConditionExpression: 'PK = :pk', ExpressionAttributeValues: { ':pk': key.PK } }))],
    ['BatchGetItem', () => dynamo().send(new lib.BatchGetCommand({ RequestItems: { [table]: { Keys: [key] } } }))],
    ['TransactWriteItems', () => dynamo().send(new lib.TransactWriteCommand({ TransactItems: [{ Put: { TableName: table, Item: { ...key, n: 5 } } }] }))],
    [
      'TransactWriteItems x3',
      () =>
        dynamo().send(
          new lib.TransactWriteCommand({
            TransactItems: [1, 2, 3].map((i) => ({ Put: { TableName: table, Item: { PK: key.PK, SK: `probe${i}`, n: i } } })),
          }),
        ),
    ],
    ['PutItem x3 (one call each)', async () => {
      for (const i of [1, 2, 3]) await dynamo().send(new lib.PutCommand({ TableName: table, Item: { PK: key.PK, SK: `probe${i}`, n: i } }));
    }],
    ['DeleteItem', () => dynamo().send(new lib.DeleteCommand({ TableName: table, Key: key }))],
  ];
  const out: Record<string, { read: number; write: number }> = {};
  for (const [name, run] of probes) {
    const b = { ...g[CAPACITY]! };
    await run();
    const a = g[CAPACITY]!;
    out[name] = { read: a.read - b.read, write: a.write - b.write };
  }
  const missing = Object.entries(out).filter(([, v]) => v.read + v.write === 0).map(([k]) => k);
  for (const i of [1, 2, 3]) await dynamo().send(new lib.DeleteCommand({ TableName: table, Key: { PK: key.PK, SK: `probe${i}` } }));
  const tx1 = out.TransactWriteItems.write;
  const tx3 = out['TransactWriteItems x3'].write;
  return {
    method: 'one call of each kind on small items (< 1 KB, no index keys); units added to the counter',
    units: out,
    missing,
    transactionQuirk:
      tx1 === tx3
        ? `DynamoDB Local reports ${tx1} WCU for a TransactWriteItems of 1 small item and ${tx3} for 3 (DynamoDB: 2 and 6); its transactional units do not follow the item count`
        : undefined,
  };
}
