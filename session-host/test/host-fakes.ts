import type { Readable } from 'node:stream';
import { shardOf, type InboundEvent, type Peer } from '@balcao/shared';
import type { AuthStore, Logger, Provider, ProviderSession, SendCommand, SessionContext } from '../src/provider.js';
import type { ConnectionRecord, HostBackend, Lease, LeaseStore, ReceivedCommand, RpcOutcome } from '../src/host/backend.js';

/** In-memory stand-ins for the table, the queues and S3, shared by several hosts in one test. */

export class MemoryLeaseStore implements LeaseStore {
  leases = new Map<number, Lease>();
  /** Survive releases, as the table's lease items do. */
  epochs = new Map<number, number>();
  tasks = new Map<string, number>();
  /** Tasks whose calls fail as if the table were unreachable for them. */
  unreachable = new Set<string>();

  private check(owner: string) {
    if (this.unreachable.has(owner)) throw new Error('table unreachable');
  }
  async acquire(shard: number, owner: string, expiresAt: number, now: number) {
    this.check(owner);
    const l = this.leases.get(shard);
    if (l && l.expiresAt >= now && l.owner !== owner) return undefined;
    const epoch = (this.epochs.get(shard) ?? 0) + 1;
    this.epochs.set(shard, epoch);
    this.leases.set(shard, { shard, owner, expiresAt });
    return { epoch };
  }
  async renew(shard: number, owner: string, expiresAt: number) {
    this.check(owner);
    const l = this.leases.get(shard);
    if (!l || l.owner !== owner) return false;
    l.expiresAt = expiresAt;
    return true;
  }
  async release(shard: number, owner: string) {
    this.check(owner);
    if (this.leases.get(shard)?.owner === owner) this.leases.delete(shard);
  }
  async read(shards: number[]) {
    return shards.flatMap((s) => (this.leases.has(s) ? [{ ...this.leases.get(s)! }] : []));
  }
  async heartbeat(taskId: string, expiresAt: number) {
    this.check(taskId);
    this.tasks.set(taskId, expiresAt);
  }
  async liveTasks(now: number) {
    return [...this.tasks].filter(([, e]) => e > now).map(([t]) => t);
  }
  async leave(taskId: string) {
    this.tasks.delete(taskId);
  }
}

interface QueuedMessage {
  id: number;
  body: string;
  groupId: string;
  visibleAt: number;
  receiveCount: number;
  sentAt: number;
  receipt?: string;
}

/** A FIFO queue that, like SQS FIFO, hands out a group's next message only after the previous one is settled. */
export class MemoryFifo {
  messages: QueuedMessage[] = [];
  deleted: string[] = [];
  private seq = 0;

  push(body: unknown, groupId: string) {
    this.messages.push({ id: ++this.seq, body: JSON.stringify(body), groupId, visibleAt: 0, receiveCount: 0, sentAt: Date.now() });
  }

  receive(max = 10): ReceivedCommand[] {
    const now = Date.now();
    const busy = new Set(this.messages.filter((m) => m.visibleAt > now).map((m) => m.groupId));
    const out: ReceivedCommand[] = [];
    const seen = new Set<string>();
    for (const m of this.messages) {
      if (out.length >= max) break;
      if (busy.has(m.groupId) || seen.has(m.groupId)) continue;
      seen.add(m.groupId);
      m.visibleAt = now + 60_000;
      m.receiveCount++;
      m.receipt = `${m.id}-${m.receiveCount}`;
      out.push({ body: m.body, receipt: m.receipt, groupId: m.groupId, receiveCount: m.receiveCount, sentAt: m.sentAt });
    }
    return out;
  }

  settle(receipt: string, visibleInSeconds?: number) {
    const i = this.messages.findIndex((m) => m.receipt === receipt);
    if (i < 0) return;
    if (visibleInSeconds === undefined) {
      this.deleted.push(this.messages[i].body);
      this.messages.splice(i, 1);
    } else this.messages[i].visibleAt = Date.now() + visibleInSeconds * 1000;
  }
}

export class MemoryAuthStore implements AuthStore {
  constructor(private readonly data: Map<string, string>) {}
  async get(key: string) {
    return this.data.get(key);
  }
  async set(entries: Record<string, string | null>) {
    for (const [k, v] of Object.entries(entries)) {
      if (v === null) this.data.delete(k);
      else this.data.set(k, v);
    }
  }
  async clear() {
    this.data.clear();
  }
}

export class MemoryBackend implements HostBackend {
  leases = new MemoryLeaseStore();
  connections = new Map<number, ConnectionRecord>();
  queues = new Map<number, MemoryFifo>();
  events: { event: InboundEvent; groupId: string }[] = [];
  rpc = new Map<string, RpcOutcome>();
  media = new Map<string, Buffer>();
  auth = new Map<string, Map<string, string>>();
  messages = new Map<string, string>();
  /** Makes publishing fail (the inbound queue is down). */
  failPublish = false;
  /** Makes the next N shard loads fail (the table is briefly unreachable). */
  failLoads = 0;

  constructor(readonly shards: number) {
    for (let s = 0; s < shards; s++) this.queues.set(s, new MemoryFifo());
  }

  addConnection(c: ConnectionRecord) {
    this.connections.set(c.id, c);
    return c;
  }

  /** What the API's sendCommand does: the shard's queue, grouped by connection. */
  command(cmd: { connectionId: number } & Record<string, unknown>) {
    this.queues.get(shardOf(cmd.connectionId, this.shards))!.push({ v: 1, commandId: `c${Math.random()}`, ...cmd }, `wapp-${cmd.connectionId}`);
  }

  async connectionsOfShard(shard: number) {
    if (this.failLoads > 0 && this.failLoads--) throw new Error('table unreachable');
    return [...this.connections.values()].filter((c) => shardOf(c.id, this.shards) === shard).map((c) => ({ ...c }));
  }
  async getConnection(companyId: number, connectionId: number) {
    const c = this.connections.get(connectionId);
    return c && c.companyId === companyId ? { ...c } : undefined;
  }
  async receiveCommands(shard: number, _visibilitySeconds: number) {
    const q = this.queues.get(shard)!;
    for (let waited = 0; waited < 200; waited += 10) {
      const got = q.receive();
      if (got.length) return got;
      await new Promise((r) => setTimeout(r, 10));
    }
    return [];
  }
  async deleteCommand(shard: number, receipt: string) {
    this.queues.get(shard)!.settle(receipt);
  }
  async retryCommand(shard: number, receipt: string, seconds: number) {
    this.queues.get(shard)!.settle(receipt, seconds);
  }
  async extendCommand(shard: number, receipt: string, seconds: number) {
    this.queues.get(shard)!.settle(receipt, seconds);
  }
  /** How long each publish takes (ms), by event: sends in flight at once may land in any order. */
  publishDelay?: (event: InboundEvent) => number;
  async publishEvent(event: InboundEvent, groupId: string) {
    if (this.failPublish) throw new Error('inbound queue unreachable');
    const delay = this.publishDelay?.(event) ?? 0;
    if (delay) await new Promise((r) => setTimeout(r, delay));
    if (this.events.some((e) => e.event.eventId === event.eventId)) return; // FIFO deduplication
    this.events.push({ event, groupId });
  }
  async writeRpcAnswer(rpcId: string, outcome: RpcOutcome) {
    this.rpc.set(rpcId, outcome);
  }
  /** The content type each object was stored with. */
  mediaTypes = new Map<string, string>();
  async putMedia(key: string, data: Buffer, contentType: string) {
    this.media.set(key, data);
    this.mediaTypes.set(key, contentType);
  }
  /** Like S3: nothing is stored unless the whole stream was read. */
  async putMediaStream(key: string, body: Readable, contentType: string, signal?: AbortSignal) {
    const chunks: Buffer[] = [];
    for await (const chunk of body) {
      signal?.throwIfAborted();
      chunks.push(chunk as Buffer);
    }
    signal?.throwIfAborted();
    await this.putMedia(key, Buffer.concat(chunks), contentType);
  }
  async getMedia(key: string) {
    const b = this.media.get(key);
    if (!b) throw new Error('NoSuchKey');
    return b;
  }
  authStore(companyId: number, connectionId: number) {
    const pk = `C#${companyId}#WAPP#${connectionId}#AUTH`;
    if (!this.auth.has(pk)) this.auth.set(pk, new Map());
    return new MemoryAuthStore(this.auth.get(pk)!);
  }
  async getMessage(_companyId: number, _connectionId: number, waMessageId: string) {
    const body = this.messages.get(waMessageId);
    return body === undefined ? undefined : { body, fromMe: false };
  }
  protos = new Map<string, Uint8Array>();
  protoStore(companyId: number, connectionId: number) {
    const prefix = `${companyId}:${connectionId}:`;
    return {
      put: async (id: string, data: Uint8Array) => void this.protos.set(prefix + id, data),
      get: async (id: string) => this.protos.get(prefix + id),
    };
  }

  sessionEvents(connectionId: number) {
    return this.events.filter((e) => e.event.connectionId === connectionId && e.event.type === 'session').map((e) => e.event as Extract<InboundEvent, { type: 'session' }>);
  }
}

/** A provider session that connects at once and records what the host asks of it. */
export class TestSession implements ProviderSession {
  calls: string[] = [];
  connected = false;
  sent: SendCommand[] = [];
  /** Set to make the next sends throw. */
  failSend?: string;
  constructor(
    readonly ctx: SessionContext,
    readonly provider: TestProvider,
  ) {}

  async start() {
    this.calls.push('start');
    if (this.provider.failStarts > 0) {
      this.provider.failStarts--;
      throw new Error('credentials could not be read');
    }
    if (!this.provider.owns(this.ctx)) return;
    await this.ctx.emit({ type: 'session', status: 'OPENING' });
    if (this.provider.connectOnStart) {
      this.connected = true;
      await this.ctx.auth.set({ creds: JSON.stringify({ me: this.ctx.connectionId }) });
      await this.ctx.emit({ type: 'session', status: 'CONNECTED', number: '5511999990000' });
    } else await this.ctx.emit({ type: 'session', status: 'qrcode', qrcode: 'QR' });
  }
  /** Set to make stop() take this long after closing (a large file still draining). */
  stopDrainMs = 0;
  async stop() {
    this.calls.push('stop');
    this.connected = false;
    if (this.stopDrainMs) await new Promise((r) => setTimeout(r, this.stopDrainMs));
    if (!this.provider.owns(this.ctx)) return;
    // A closing socket reports itself down; the host decides whether that is published.
    await this.ctx.emit({ type: 'session', status: 'DISCONNECTED', reason: 'closed' });
  }
  async logout() {
    this.calls.push('logout');
    this.connected = false;
    await this.ctx.auth.clear();
    await this.ctx.emit({ type: 'session', status: 'DISCONNECTED', reason: 'loggedOut' });
  }
  async newQr() {
    this.calls.push('newQr');
    await this.ctx.auth.clear();
    await this.ctx.emit({ type: 'session', status: 'qrcode', qrcode: 'QR2' });
  }
  async send(cmd: SendCommand) {
    this.calls.push(`send:${cmd.body}`);
    if (this.provider.sendDelayMs) await new Promise((r) => setTimeout(r, this.provider.sendDelayMs));
    if (this.failSend) throw new Error(this.failSend);
    this.sent.push(cmd);
    return { timestamp: 1700000000 };
  }
  async markRead(_to: unknown, ids: string[]) {
    this.calls.push(`read:${ids.join(',')}`);
  }
  async edit(_to: unknown, id: string, body: string) {
    this.calls.push(`edit:${id}:${body}`);
  }
  async delete(_to: unknown, id: string) {
    this.calls.push(`delete:${id}`);
  }
  async react(_to: unknown, id: string, emoji: string) {
    this.calls.push(`react:${id}:${emoji}`);
  }
  async rejectCall(callId: string) {
    this.calls.push(`rejectCall:${callId}`);
  }
  async presence(to: Peer, state: string) {
    this.calls.push(`presence:${to.number ?? to.lid ?? to.groupId}:${state}`);
  }
  async checkNumber(number: string) {
    this.calls.push(`checkNumber:${number}`);
    if (number === '0000000000') throw new Error('lookup failed');
    return number.startsWith('55') ? { exists: true, number, lid: `${number}1` } : { exists: false };
  }
  async checkNumbers(numbers: string[]) {
    this.calls.push(`checkNumbers:${numbers.join(',')}`);
    return numbers.map((number) => ({ number, exists: number.startsWith('55') }));
  }
  async addressBook() {
    // Out of number order on purpose: the host answers pages sorted by number.
    return [
      { number: '5511988887777', name: 'Maria' },
      { number: '5511911112222', name: 'Ana' },
    ];
  }
}

export class TestProvider implements Provider {
  /** Every session ever created, newest last. */
  sessions: TestSession[] = [];
  connectOnStart = true;
  sendDelayMs = 0;
  /** The next this many session starts throw (a table read failing while loading credentials). */
  failStarts = 0;
  /**
   * Connections this provider really drives; sessions of others stay inert (integration tests share
   * the stack's table, whose own connections must not be touched).
   */
  constructor(
    readonly name: 'beta' | 'sandbox',
    readonly owns: (ctx: SessionContext) => boolean = () => true,
  ) {}
  create(ctx: SessionContext) {
    const s = new TestSession(ctx, this);
    this.sessions.push(s);
    return s;
  }
  /** The newest session of a connection. */
  of(connectionId: number) {
    return this.sessions.filter((s) => s.ctx.connectionId === connectionId).at(-1);
  }
  live() {
    return this.sessions.filter((s) => s.calls.includes('start') && !s.calls.includes('stop') && !s.calls.includes('logout'));
  }
}

export const quietLog: Logger = { debug() {}, info() {}, warn() {}, error() {} };

type Truthy<T> = Exclude<T, false | 0 | '' | null | undefined>;

export async function waitFor<T>(fn: () => T | Promise<T>, timeoutMs = 5000, what = 'condition'): Promise<Truthy<T>> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  while (Date.now() < deadline) {
    try {
      const v = await fn();
      if (v) return v as Truthy<T>;
    } catch (e) {
      last = e;
    }
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error(`timed out waiting for ${what}${last ? `: ${(last as Error).message}` : ''}`);
}
