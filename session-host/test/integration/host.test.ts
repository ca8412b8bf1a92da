import { randomUUID } from 'node:crypto';
import {
  CreateQueueCommand,
  DeleteQueueCommand,
  DeleteMessageCommand,
  GetQueueAttributesCommand,
  ReceiveMessageCommand,
  SendMessageCommand,
  SQSClient,
} from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { inboundEventSchema, shardOf, type InboundEvent } from '@balcao/shared';

/**
 * The session host against the stack's real DynamoDB, SQS and S3. The hosts here run in the test
 * process beside the stack's own session host without disturbing it: their leases live under a
 * namespace, their command and inbound queues are created here, and their connections sit on a
 * shard the stack does not have (shard 2 of 3), driven by the in-memory test provider.
 */

const env = inject('env' as never) as Record<string, string>;
Object.assign(process.env, env);

// Imported after the environment is set (the clients read it on first use).
const { startSessionHost, NOT_CONNECTED } = await import('../../src/host/index.js');
const { AwsBackend } = await import('../../src/host/aws-backend.js');
const { DynamoAuthStore, readAuthItem } = await import('../../src/host/auth-store.js');
const { getItem, putItem, deleteItem } = await import('../../../functions/src/core/db.js');
const { connectionAuthPartition: authPartition, pad } = await import('../../../functions/src/table/keys.js');
const { TestProvider, quietLog, waitFor } = await import('../host-fakes.js');
type SessionHost = Awaited<ReturnType<typeof startSessionHost>>;

const SHARDS = 3;
const SHARD = 2;
const LEASE_MS = 1500;
const ns = `it-${randomUUID().slice(0, 8)}#`;
const companyId = 900_000 + Math.floor(Math.random() * 99_999);
const sqs = new SQSClient({ endpoint: env.SQS_ENDPOINT, region: env.AWS_REGION });
const queues = { inbound: '', outbound: [] as string[] };
const hosts: SessionHost[] = [];

// Connection ids on shard 2 of 3: one connected, one deliberately disconnected.
const idsOnShard = (() => {
  const out: number[] = [];
  for (let id = 8_000_000 + Math.floor(Math.random() * 100_000); out.length < 3; id++) if (shardOf(id, SHARDS) === SHARD) out.push(id);
  return out;
})();
const [live, down, spare] = idsOnShard;
const connectionKey = (id: number) => ({ PK: `C#${companyId}`, SK: `WAPP#${pad(id)}` });

const providers = {
  beta: new TestProvider('beta', (ctx) => ctx.companyId === companyId),
  sandbox: new TestProvider('sandbox', (ctx) => ctx.companyId === companyId),
};

async function putConnection(id: number, status: string) {
  await putItem({
    ...connectionKey(id),
    entity: 'connection',
    GSI1PK: `SHARD#${SHARD}`,
    GSI1SK: `${companyId}#${pad(id)}`,
    id,
    companyId,
    shard: SHARD,
    provider: 'sandbox',
    status,
    name: `it ${id}`,
  });
}

const printLog = (taskId: string) => {
  const line = (level: string) => (o: object | string, m?: string) => process.stderr.write(`[${taskId}] ${level} ${typeof o === 'string' ? o : `${m ?? ''} ${JSON.stringify(o)}`}\n`);
  return { debug: line('debug'), info: line('info'), warn: line('warn'), error: line('error') };
};

function start(taskId: string) {
  return startSessionHost({
    taskId,
    providers,
    shards: SHARDS,
    leaseMs: LEASE_MS,
    scanMs: 200,
    port: 0,
    // HOST_TEST_LOG=1 shows the hosts' log lines.
    log: process.env.HOST_TEST_LOG ? printLog(taskId) : quietLog,
    backend: new AwsBackend({ namespace: ns, queues, waitSeconds: 1 }),
  }).then((h) => (hosts.push(h), h));
}

async function command(cmd: Record<string, unknown> & { connectionId: number }) {
  const commandId = randomUUID();
  await sqs.send(
    new SendMessageCommand({
      QueueUrl: queues.outbound[SHARD],
      MessageBody: JSON.stringify({ v: 1, commandId, companyId, ...cmd }),
      MessageGroupId: `wapp-${cmd.connectionId}`,
      MessageDeduplicationId: commandId,
    }),
  );
}

/** Everything published on the test inbound queue so far, with its FIFO group. */
const inbound: { event: InboundEvent; groupId: string }[] = [];
async function drainInbound() {
  for (let empty = 0; empty < 2; ) {
    const out = await sqs.send(
      new ReceiveMessageCommand({ QueueUrl: queues.inbound, MaxNumberOfMessages: 10, WaitTimeSeconds: 0, MessageSystemAttributeNames: ['MessageGroupId'] }),
    );
    if (!out.Messages?.length) {
      empty++;
      continue;
    }
    for (const m of out.Messages) {
      inbound.push({ event: JSON.parse(m.Body!), groupId: m.Attributes!.MessageGroupId! });
      await sqs.send(new DeleteMessageCommand({ QueueUrl: queues.inbound, ReceiptHandle: m.ReceiptHandle! }));
    }
  }
  return inbound;
}

async function queueDepth(url: string) {
  const out = await sqs.send(
    new GetQueueAttributesCommand({ QueueUrl: url, AttributeNames: ['ApproximateNumberOfMessages', 'ApproximateNumberOfMessagesNotVisible'] }),
  );
  return Number(out.Attributes?.ApproximateNumberOfMessages ?? 0) + Number(out.Attributes?.ApproximateNumberOfMessagesNotVisible ?? 0);
}

const lease = (shard: number, namespace = ns) => getItem<{ owner: string; expiresAt: number; epoch: number }>({ PK: `LEASE#${namespace}${shard}`, SK: 'LEASE' }, true);

beforeAll(async () => {
  const make = async (name: string) =>
    (await sqs.send(new CreateQueueCommand({ QueueName: `balcao-${ns.slice(0, -1)}-${name}.fifo`, Attributes: { FifoQueue: 'true', VisibilityTimeout: '60' } }))).QueueUrl!;
  queues.inbound = await make('inbound');
  for (let s = 0; s < SHARDS; s++) queues.outbound.push(await make(`outbound-${s}`));
  await putConnection(live, 'CONNECTED');
  await putConnection(down, 'DISCONNECTED');
});

afterAll(async () => {
  await Promise.all(hosts.splice(0).map((h) => h.stop()));
  for (const id of idsOnShard) await deleteItem(connectionKey(id));
  for (const url of [queues.inbound, ...queues.outbound]) await sqs.send(new DeleteQueueCommand({ QueueUrl: url })).catch(() => {});
  sqs.destroy();
});

describe('session host on the local services', () => {
  it('takes, renews and releases leases in the table; health answers', async () => {
    const a = await start('it-a');
    expect(a.ownedShards()).toEqual([0, 1, 2]);
    const first = await lease(SHARD);
    expect(first).toMatchObject({ owner: 'it-a' });
    expect(first!.expiresAt).toBeGreaterThan(Date.now());
    await waitFor(async () => (await lease(SHARD))!.expiresAt > first!.expiresAt, LEASE_MS * 2, 'renewal');
    await waitFor(() => providers.sandbox.of(live)?.connected, 3000, 'the connected connection started');
    expect(providers.sandbox.of(down)).toBeUndefined();
    const health = (await (await fetch(`http://127.0.0.1:${a.port}/health`)).json()) as { sessions: number };
    expect(health).toMatchObject({ ok: true, taskId: 'it-a', shards: [0, 1, 2] });
    expect(health.sessions).toBeGreaterThanOrEqual(1);

    await a.stop();
    hosts.splice(hosts.indexOf(a), 1);
    // Released: expired at once, the item kept so its epoch only grows (issue 17 §9).
    for (let s = 0; s < SHARDS; s++) expect(await lease(s)).toMatchObject({ expiresAt: 0 });
    expect(providers.sandbox.of(live)!.calls).toEqual(['start', 'stop']);
    const b = await start('it-b');
    expect(b.ownedShards()).toEqual([0, 1, 2]);
    expect((await lease(SHARD))!.epoch).toBe(first!.epoch + 1);
    await b.stop();
    hosts.splice(hosts.indexOf(b), 1);

    // A lease item lost anyway starts its epoch again from the clock: above every earlier one.
    const before = (await lease(SHARD))!.epoch;
    await deleteItem({ PK: `LEASE#${ns}${SHARD}`, SK: 'LEASE' });
    const c = await start('it-c');
    expect((await lease(SHARD))!.epoch).toBeGreaterThan(Math.max(before, Date.now() - 60_000));
    await c.stop();
    hosts.splice(hosts.indexOf(c), 1);
  });

  it('a second task takes the shards over after the first dies (lease expiry) and at once after a SIGTERM-style stop', async () => {
    const a = await start('it-a2');
    const b = await start('it-b2');
    await waitFor(() => a.ownedShards().length + b.ownedShards().length === SHARDS && b.ownedShards().length > 0, 5000, 'shards spread');
    const [dies, survives] = a.ownedShards().includes(SHARD) ? [a, b] : [b, a];
    await dies.crash();
    const t0 = Date.now();
    await waitFor(() => survives.ownedShards().length === SHARDS, LEASE_MS * 4, 'takeover after expiry');
    expect(Date.now() - t0).toBeLessThan(LEASE_MS * 3);
    expect((await lease(SHARD))!.owner).toBe(survives.taskId);
    await waitFor(() => providers.sandbox.of(live)?.connected, 3000, 'session running on the survivor');

    const c = await start('it-c2');
    await waitFor(() => c.ownedShards().length > 0, 5000, 'c gets a share');
    await survives.stop();
    const t1 = Date.now();
    await waitFor(() => c.ownedShards().length === SHARDS, LEASE_MS * 2, 'takeover after stop');
    expect(Date.now() - t1).toBeLessThan(LEASE_MS);
    await waitFor(() => providers.sandbox.of(live)?.connected, 3000);
    // Nothing was ever logged out along the way.
    expect(providers.sandbox.sessions.some((s) => s.calls.includes('logout'))).toBe(false);
  });

  it('routes commands through the FIFO queue: sends, results per chat, a disconnected send fails once, RPC answers in the table', async () => {
    if (!hosts.length) await start('it-d');
    await waitFor(() => providers.sandbox.of(live)?.connected, 5000);
    const session = providers.sandbox.of(live)!;
    const to = { number: '5511955554444' };
    await command({ type: 'send', connectionId: live, ticketId: 1, waMessageId: '3EB0IT1', to, body: 'primeira' });
    await command({ type: 'send', connectionId: live, ticketId: 1, waMessageId: '3EB0IT2', to, body: 'segunda' });
    await command({ type: 'send', connectionId: down, ticketId: 2, waMessageId: '3EB0IT3', to, body: 'perdida' });
    const rpcId = randomUUID();
    await putItem({ PK: `RPC#${rpcId}`, SK: 'RPC', entity: 'rpc', status: 'pending' });
    await command({ type: 'rpc', connectionId: live, rpcId, call: { op: 'checkNumber', number: '5511955554444' } });
    const rpcDown = randomUUID();
    await command({ type: 'rpc', connectionId: down, rpcId: rpcDown, call: { op: 'addressBook' } });

    // Each connection's commands run in order: the live one's RPC comes after its two sends.
    const answered = async (id: string) => ['done', 'failed'].includes((await getItem<{ status: string }>({ PK: `RPC#${id}`, SK: 'RPC' }, true))?.status ?? '');
    await waitFor(async () => (await answered(rpcId)) && (await answered(rpcDown)), 5000, 'rpc answers');
    expect(await getItem({ PK: `RPC#${rpcId}`, SK: 'RPC' }, true)).toMatchObject({
      status: 'done',
      answer: { op: 'checkNumber', exists: true, number: '5511955554444' },
    });
    expect(await getItem({ PK: `RPC#${rpcDown}`, SK: 'RPC' }, true)).toMatchObject({ status: 'failed', error: NOT_CONNECTED });
    await waitFor(() => session.sent.length === 2, 5000);
    expect(session.sent.map((c) => c.body)).toEqual(['primeira', 'segunda']);

    const results = await waitFor(async () => {
      const r = (await drainInbound()).filter((e) => e.event.type === 'sendResult');
      return r.length >= 3 && r;
    }, 5000, 'send results');
    const byId = new Map(results.map((r) => [(r.event as { waMessageId: string }).waMessageId, r]));
    expect(byId.get('3EB0IT1')).toMatchObject({ groupId: `${live}:n5511955554444`, event: { ok: true, ticketId: 1 } });
    expect(byId.get('3EB0IT3')).toMatchObject({ groupId: `${down}:n5511955554444`, event: { ok: false, error: NOT_CONNECTED } });
    // Every command was deleted once handled, including the failed send: no redelivery.
    await waitFor(async () => (await queueDepth(queues.outbound[SHARD])) === 0, 3000, 'command queue empty');
  });

  it('emits valid versioned events grouped per chat; media goes to S3; credentials to the table', async () => {
    await waitFor(() => providers.sandbox.of(live)?.connected, 5000);
    const ctx = providers.sandbox.of(live)!.ctx;
    const media = await ctx.storeMedia(Buffer.from('fake jpeg'), 'image/jpeg');
    expect(media.key).toMatch(new RegExp(`^c/${companyId}/media/${live}/[0-9a-f-]+\\.jpg$`));
    expect((await ctx.readMedia(media.key)).toString()).toBe('fake jpeg');
    for (const [i, number] of ['5511911110001', '5511911110002', '5511911110001'].entries()) {
      await ctx.emit({ type: 'message', waMessageId: `IT${i}`, chat: { number }, fromMe: false, body: `m${i}`, timestamp: 1, ...(i === 1 ? { media } : {}) });
    }
    const msgs = await waitFor(async () => {
      const m = (await drainInbound()).filter((e) => e.event.type === 'message' && e.event.waMessageId.startsWith('IT'));
      return m.length === 3 && m;
    }, 5000, 'messages on the inbound queue');
    expect(msgs.map((m) => m.groupId)).toEqual([`${live}:n5511911110001`, `${live}:n5511911110002`, `${live}:n5511911110001`]);
    for (const m of msgs) {
      expect(inboundEventSchema.parse(m.event)).toEqual(m.event);
      expect(m.event).toMatchObject({ v: 1, companyId, connectionId: live });
    }
    const sessionEvents = inbound.filter((e) => e.event.type === 'session' && e.event.connectionId === live);
    expect(sessionEvents.length).toBeGreaterThan(0);
    expect(sessionEvents.every((e) => e.groupId === `${live}:session`)).toBe(true);

    // The test session wrote its credentials through the table-backed store at start.
    const pk = authPartition(companyId, live);
    expect(await readAuthItem(pk, 'creds')).toBe(JSON.stringify({ me: live }));
  });

  it('the auth store writes through, deletes single keys and clears the partition', async () => {
    const pk = authPartition(companyId, spare);
    const store = new DynamoAuthStore(pk);
    expect(await store.get('creds')).toBeUndefined();
    const many = Object.fromEntries(Array.from({ length: 40 }, (_, i) => [`key#pre-key#${i}`, JSON.stringify({ i })]));
    await store.set({ creds: '{"noiseKey":1}', ...many });
    // Durable when set resolves: a fresh store (another task after a takeover) reads it back.
    const fresh = new DynamoAuthStore(pk);
    expect(await fresh.get('creds')).toBe('{"noiseKey":1}');
    expect(await fresh.get('key#pre-key#39')).toBe('{"i":39}');
    await store.set({ 'key#pre-key#39': null });
    expect(await store.get('key#pre-key#39')).toBeUndefined();
    expect(await readAuthItem(pk, 'key#pre-key#39')).toBeUndefined();
    await store.clear();
    expect(await store.get('creds')).toBeUndefined();
    expect(await new DynamoAuthStore(pk).get('key#pre-key#0')).toBeUndefined();
  });
});
