import { addressBookPage, LIVE_SESSION_STATUSES, outboundCommandSchema, type OutboundCommand, type Peer, type RpcAnswer, type SessionStatus } from '@balcao/shared';
import type { Logger, Provider, ProviderSession } from '../provider.js';
import type { ConnectionRecord, HostBackend, ReceivedCommand } from './backend.js';
import { createContext, inStatusOrder, publish, type SessionState } from './context.js';
import { chatKey, sqsId } from './events.js';
import { errorText, withFields } from './log.js';

export type Providers = Record<'beta' | 'sandbox', Provider>;

/** One connection's running session (if any) and the chain that runs its work one step at a time. */
class Slot {
  session?: ProviderSession;
  state?: SessionState;
  /** When the current session was started (epoch ms). */
  startedAt = 0;
  /** When the current session was started with fresh credentials (a new QR), epoch ms. */
  freshAt = 0;
  /** The number the current session pairs with by code, if it was asked to. */
  pairingNumber?: string;
  private chain: Promise<unknown> = Promise.resolve();
  constructor(
    readonly connectionId: number,
    public companyId: number,
  ) {}

  /** Runs `fn` after everything queued before it for this connection (commands keep their order). */
  run<T>(fn: () => Promise<T>): Promise<T> {
    const next = this.chain.then(fn, fn);
    this.chain = next.catch(() => {});
    return next;
  }
}

type Outcome = 'done' | 'retry' | 'requeue';

/** A session that is starting (nothing reported yet), waiting for the phone or connected: `start` leaves it as it is. */
const isLive = (status: SessionStatus | undefined) => status === undefined || LIVE_SESSION_STATUSES.includes(status);

/** Started and not linked yet: nothing reported, starting, showing a QR or a pairing code. */
const isWaitingForScan = (status: SessionStatus | undefined) => status === undefined || (status !== 'CONNECTED' && LIVE_SESSION_STATUSES.includes(status));

/** Errors the host reports on `sendResult` and RPC answers when a session cannot do the work. */
export const NOT_CONNECTED = 'A conexão não está conectada';

/** Starting, or connected once and coming back: a send waits for it (a QR waiting for a scan is not coming back soon). */
const isReconnecting = (status: SessionStatus | undefined) => status === undefined || status === 'OPENING' || status === 'CONNECTED';

const MAX_IN_FLIGHT = 50;
/**
 * SQS visibility of a taken command: short, and renewed while it is handled so it is never handed
 * out twice. Short because a host that dies holds its commands (and, FIFO, their connection's whole
 * group) for that long before another host gets them (issue 16 §1).
 */
const VISIBILITY_SECONDS = 10;
const HEARTBEAT_MS = 3_000;
/** How long a send waits for its connection to come back from a reconnect before it is reported failed. */
const RECONNECT_WAIT_MS = 20_000;

/** How long a stopping shard waits for commands already being handled. */
const DRAIN_MS = 15_000;
/** How long a session's stop waits for the connection's current work before it goes ahead. */
const STOP_WAIT_MS = 5_000;

/**
 * A shard this task holds: its connections' sessions and the consumer of its command queue.
 * Created when the lease is taken, stopped (never logging out) when the lease is lost, given up
 * or the task shuts down.
 */
export class ShardRunner {
  private slots = new Map<number, Slot>();
  private loop?: Promise<void>;
  private inFlight = new Set<Promise<void>>();
  private stopping = false;
  /** Sends already carried out, so a redelivered command only reports again (never sends twice). */
  private sent = new Map<string, { timestamp: number }>();
  private readonly log: Logger;

  constructor(
    readonly shard: number,
    private readonly o: {
      backend: HostBackend;
      providers: Providers;
      log: Logger;
      reconnectWaitMs?: number;
      /** The shard lease's epoch while this task holds it: carried by every status this shard reports. */
      epoch?: number;
    },
  ) {
    this.log = withFields(o.log, { shard });
  }

  get sessions(): number {
    let n = 0;
    for (const s of this.slots.values()) if (s.session) n++;
    return n;
  }

  /** Starts the shard's sessions and its command consumer; resolves once every session was asked to start. */
  async start(): Promise<void> {
    let connections: ConnectionRecord[] | undefined;
    // The lease is ours: a table hiccup must not leave the shard's connections down until it moves.
    for (let attempt = 0; !connections; attempt++) {
      if (this.stopping) return;
      try {
        connections = await this.o.backend.connectionsOfShard(this.shard);
      } catch (err) {
        this.log.warn({ err: errorText(err), attempt }, 'loading the shard failed; retrying');
        await new Promise((r) => setTimeout(r, Math.min(250 * 2 ** attempt, 5000)));
      }
    }
    // DISCONNECTED is a deliberate state (logout, stop command, banned): it waits for a start command.
    const wanted = connections.filter((c) => c.status !== 'DISCONNECTED');
    this.log.info({ connections: connections.length, starting: wanted.length }, 'shard taken');
    // Queued on each connection's chain before the first command is received, so commands run after the start.
    const starts = wanted.map((c) => {
      const slot = this.slot(c.id, c.companyId);
      return slot
        .run(() => (this.stopping ? Promise.resolve() : this.startSession(slot, c)))
        .catch((err) => this.log.error({ connectionId: c.id, err: errorText(err) }, 'session did not start'));
    });
    if (!this.stopping) this.loop = this.poll();
    await Promise.all(starts);
  }

  /**
   * Stops consuming, lets commands being handled finish (briefly), then closes every socket without
   * logging out. `urgent` (the lease is lost or cannot be confirmed) closes the sockets first: another
   * task may be about to open them.
   */
  async stop(urgent = false): Promise<void> {
    if (this.stopping) return;
    this.stopping = true;
    if (urgent) {
      await Promise.all(
        [...this.slots.values()].map((slot) =>
          this.stopSession(slot, 'handover').catch((err) => this.log.warn({ connectionId: slot.connectionId, err: errorText(err) }, 'stop failed')),
        ),
      );
    }
    // Commands already being carried out finish; anything received from now on is handed back.
    const drained = Promise.allSettled([...this.inFlight]);
    await Promise.race([drained, new Promise((r) => setTimeout(r, DRAIN_MS).unref())]);
    await Promise.all(
      [...this.slots.values()].map((slot) => {
        // In turn after the connection's current work, unless that work hangs: the lease must go.
        const inTurn = slot.run(() => this.stopSession(slot, 'handover'));
        const overdue = new Promise<void>((r) => setTimeout(r, STOP_WAIT_MS).unref()).then(() => this.stopSession(slot, 'handover'));
        return Promise.race([inTurn, overdue]).catch((err) => this.log.warn({ connectionId: slot.connectionId, err: errorText(err) }, 'stop failed'));
      }),
    );
    this.log.info('shard stopped');
  }

  /**
   * Resolves once the last long poll has returned and what it got was handed back to the queue.
   * The lease may be released before: a handed-back command is again the head of its group, so the
   * next owner still runs each connection's commands in order.
   */
  async finished(): Promise<void> {
    await this.loop?.catch(() => {});
    await Promise.allSettled([...this.inFlight]);
  }

  private slot(connectionId: number, companyId: number): Slot {
    let slot = this.slots.get(connectionId);
    if (!slot) this.slots.set(connectionId, (slot = new Slot(connectionId, companyId)));
    return slot;
  }

  private async startSession(slot: Slot, conn: ConnectionRecord, pairingNumber?: string, freshCredentials = false): Promise<void> {
    await this.stopSession(slot, 'handover');
    const provider = this.o.providers[conn.provider];
    if (!provider) throw new Error(`no provider ${conn.provider}`);
    const state: SessionState = { quiet: false };
    const log = withFields(this.o.log, { shard: this.shard, connectionId: conn.id, provider: conn.provider });
    const ctx = createContext({ backend: this.o.backend, companyId: conn.companyId, connectionId: conn.id, pairingNumber, log, state, epoch: this.o.epoch });
    if (freshCredentials) await ctx.auth.clear();
    slot.companyId = conn.companyId;
    slot.session = provider.create(ctx);
    slot.state = state;
    slot.startedAt = Date.now();
    slot.freshAt = freshCredentials ? slot.startedAt : 0;
    slot.pairingNumber = pairingNumber;
    log.info('session starting');
    try {
      await slot.session.start();
    } catch (err) {
      // Not a running session: the queue's retry and a later "try again" must start it anew.
      const failed = slot.session;
      if (slot.state === state) {
        state.quiet = true;
        slot.session = undefined;
        slot.state = undefined;
      }
      await failed.stop().catch(() => {});
      throw err;
    }
  }

  /**
   * A repeated command left the session as it is, but the API already wrote OPENING for it: the
   * session's last report is told again so the stored status follows the session, not the press.
   */
  private async unchanged(slot: Slot, target: { companyId: number; connectionId: number }): Promise<Outcome> {
    const state = slot.state;
    if (!state) return 'done';
    // In turn with the session's own reports, and the latest one when its turn comes.
    await inStatusOrder(state, async () => {
      const report = state.lastReport;
      if (report && !state.quiet) await publish(this.o.backend, target, this.o.epoch === undefined ? report : { ...report, epoch: this.o.epoch });
    });
    return 'done';
  }

  /** Closes the socket without logging out; `handover` keeps its closing status from being published. */
  private async stopSession(slot: Slot, why: 'handover' | 'command'): Promise<void> {
    const session = slot.session;
    if (!session) return;
    if (why === 'handover' && slot.state) slot.state.quiet = true;
    slot.session = undefined;
    slot.state = undefined;
    await session.stop();
  }

  private async poll(): Promise<void> {
    let failures = 0;
    while (!this.stopping) {
      if (this.inFlight.size >= MAX_IN_FLIGHT) {
        await Promise.race(this.inFlight);
        continue;
      }
      let batch: ReceivedCommand[];
      try {
        batch = await this.o.backend.receiveCommands(this.shard, VISIBILITY_SECONDS);
        failures = 0;
      } catch (err) {
        failures++;
        this.log.warn({ err: errorText(err) }, 'receiving commands failed');
        if (this.stopping) break;
        await new Promise((r) => setTimeout(r, Math.min(500 * 2 ** failures, 10_000)));
        continue;
      }
      for (const m of batch) {
        const p: Promise<void> = this.handle(m).finally(() => this.inFlight.delete(p));
        this.inFlight.add(p);
      }
    }
  }

  /** Handles one queued command and settles it on the queue: deleted when done, made visible again otherwise. */
  private async handle(m: ReceivedCommand): Promise<void> {
    let cmd: OutboundCommand;
    try {
      cmd = outboundCommandSchema.parse(JSON.parse(m.body));
    } catch (err) {
      this.log.error({ err: errorText(err), body: m.body.slice(0, 500) }, 'malformed command dropped');
      await this.settle(m, 'done');
      return;
    }
    const heartbeat = setInterval(() => {
      this.o.backend.extendCommand(this.shard, m.receipt, VISIBILITY_SECONDS).catch(() => {});
    }, HEARTBEAT_MS);
    heartbeat.unref();
    let outcome: Outcome;
    try {
      const slot = this.slot(cmd.connectionId, cmd.companyId);
      outcome = await slot.run(() => (this.stopping ? Promise.resolve<Outcome>('requeue') : this.execute(slot, cmd, m.sentAt)));
    } catch (err) {
      this.log.warn({ connectionId: cmd.connectionId, type: cmd.type, commandId: cmd.commandId, err: errorText(err) }, 'command failed; retrying');
      outcome = 'retry';
    } finally {
      clearInterval(heartbeat);
    }
    await this.settle(m, outcome);
  }

  private async settle(m: ReceivedCommand, outcome: Outcome): Promise<void> {
    try {
      if (outcome === 'done') await this.o.backend.deleteCommand(this.shard, m.receipt);
      // The next owner of the shard picks it up at once.
      else if (outcome === 'requeue') await this.o.backend.retryCommand(this.shard, m.receipt, 0);
      // Transient failure: back off a little instead of blocking the connection for the whole visibility timeout.
      else await this.o.backend.retryCommand(this.shard, m.receipt, Math.min(2 * m.receiveCount, 30));
    } catch (err) {
      this.log.warn({ err: errorText(err), outcome }, 'settling a command failed');
    }
  }

  /** Carries a command out. Throws for transient failures (the queue retries it). */
  private async execute(slot: Slot, cmd: OutboundCommand, sentAt: number): Promise<Outcome> {
    const log = withFields(this.log, { connectionId: cmd.connectionId, command: cmd.type, commandId: cmd.commandId });
    const target = { companyId: cmd.companyId, connectionId: cmd.connectionId };
    const exists = async () => !!(await this.o.backend.getConnection(cmd.companyId, cmd.connectionId));
    switch (cmd.type) {
      case 'start':
      case 'restart': {
        // A session started after the request (the shard was just taken, the same button pressed
        // twice) already is what it asks for. `start` also leaves alone a session that is starting,
        // waiting for a scan or connected: restarting it could drop a link the phone is making at
        // that moment. A pairing code for a number the session does not pair with switches it.
        // A pairing code for another number than the running session's is a new request.
        const samePairing = !cmd.pairingNumber || cmd.pairingNumber === slot.pairingNumber;
        if (slot.session && slot.startedAt >= sentAt && samePairing) return this.unchanged(slot, target);
        if (cmd.type === 'start' && samePairing && slot.session && isLive(slot.state?.status)) return 'done';
        const conn = await this.o.backend.getConnection(cmd.companyId, cmd.connectionId);
        if (!conn) return this.drop(log);
        await this.startSession(slot, conn, cmd.pairingNumber);
        return 'done';
      }
      case 'newQr': {
        // Pressed twice: the fresh session the first one started is the new QR asked for, also when
        // the second press was sent after it started (a late status of the logout before it let the
        // API take the second press for a new one) as long as that session still waits for its scan.
        const waitingFresh = slot.freshAt > 0 && isWaitingForScan(slot.state?.status);
        if (slot.session && (slot.freshAt >= sentAt || waitingFresh)) return this.unchanged(slot, target);
        const conn = await this.o.backend.getConnection(cmd.companyId, cmd.connectionId);
        if (!conn) return this.drop(log);
        if (slot.session) {
          await slot.session.newQr();
          slot.freshAt = Date.now();
        } else await this.startSession(slot, conn, cmd.pairingNumber, true);
        return 'done';
      }
      case 'logout': {
        // Also for a deleted connection: its device is unlinked and its credentials wiped.
        const session = slot.session;
        if (session) {
          slot.session = undefined;
          slot.state = undefined;
          await session.logout();
        } else {
          await this.o.backend.authStore(cmd.companyId, cmd.connectionId).clear();
        }
        log.info('logged out');
        return 'done';
      }
      case 'stop': {
        await this.stopSession(slot, 'command');
        // Recorded as DISCONNECTED so the connection stays down, across restarts too, until started.
        if (await exists()) await publish(this.o.backend, target, { type: 'session', status: 'DISCONNECTED', reason: 'stopped', epoch: this.o.epoch });
        log.info('stopped');
        return 'done';
      }
      case 'send':
        return this.send(slot, cmd, log);
      case 'rpc': {
        const session = slot.session;
        if (!session?.connected) {
          await this.o.backend.writeRpcAnswer(cmd.rpcId, { status: 'failed', error: NOT_CONNECTED });
          return 'done';
        }
        let answer: RpcAnswer;
        try {
          if (cmd.call.op === 'checkNumber') answer = { op: 'checkNumber', ...(await session.checkNumber(cmd.call.number)) };
          else if (cmd.call.op === 'checkNumbers') answer = { op: 'checkNumbers', results: await session.checkNumbers(cmd.call.numbers) };
          else answer = addressBookPage(await session.addressBook(), cmd.call);
        } catch (err) {
          await this.o.backend.writeRpcAnswer(cmd.rpcId, { status: 'failed', error: errorText(err) });
          return 'done';
        }
        await this.o.backend.writeRpcAnswer(cmd.rpcId, { status: 'done', answer });
        return 'done';
      }
      default: {
        const session = slot.session;
        if (!session?.connected) {
          // Receipts, edits, reactions… for a session that is down: WhatsApp cannot take them now and
          // holding the connection's queue for them would delay everything behind.
          if (!(await exists())) return this.drop(log);
          log.warn('session not connected; command dropped');
          return 'done';
        }
        try {
          if (cmd.type === 'read') await session.markRead(cmd.to, cmd.waMessageIds);
          else if (cmd.type === 'edit') await session.edit(cmd.to, cmd.waMessageId, cmd.body);
          else if (cmd.type === 'delete') await session.delete(cmd.to, cmd.waMessageId);
          else if (cmd.type === 'react') await session.react(cmd.to, cmd.waMessageId, cmd.emoji);
          else if (cmd.type === 'rejectCall') await session.rejectCall(cmd.callId, cmd.from);
          else if (cmd.type === 'presence') await session.presence(cmd.to, cmd.state);
        } catch (err) {
          log.warn({ err: errorText(err) }, 'command failed on WhatsApp');
        }
        return 'done';
      }
    }
  }

  /**
   * The slot's session once it can send. A session that is reconnecting (a dropped socket, a host
   * that just started) is waited for, up to RECONNECT_WAIT_MS: failing at once would turn a blip of
   * a few seconds into a failed reply the agent must retry (issue 16 §1).
   */
  private async connectedSession(slot: Slot): Promise<ProviderSession | undefined> {
    const deadline = Date.now() + (this.o.reconnectWaitMs ?? RECONNECT_WAIT_MS);
    for (;;) {
      const session = slot.session;
      if (session?.connected) return session;
      if (!session || !isReconnecting(slot.state?.status) || this.stopping || Date.now() >= deadline) return undefined;
      await new Promise((r) => setTimeout(r, 200));
    }
  }

  private drop(log: Logger): Outcome {
    log.info('connection no longer exists; command dropped');
    return 'done';
  }

  /**
   * Sends and reports the outcome on the recipient's chat group (so the result precedes that chat's
   * acks). A failure is reported, never retried by the queue: the agent sees it and retries.
   */
  private async send(slot: Slot, cmd: Extract<OutboundCommand, { type: 'send' }>, log: Logger): Promise<Outcome> {
    const target = { companyId: cmd.companyId, connectionId: cmd.connectionId };
    const group = sqsId(`${cmd.connectionId}:${chatKey(cmd.to as Peer)}`);
    const report = (ok: boolean, extra: { error?: string; timestamp?: number }) =>
      publish(this.o.backend, target, { type: 'sendResult', ticketId: cmd.ticketId, waMessageId: cmd.waMessageId, ok, ...extra, eventId: `send-${cmd.commandId}` }, group);
    const already = this.sent.get(cmd.commandId);
    if (already) {
      await report(true, { timestamp: already.timestamp });
      return 'done';
    }
    const session = await this.connectedSession(slot);
    // The shard is being handed over while the send waited: its next owner sends it.
    if (!session && this.stopping) return 'requeue';
    if (!session) {
      if (!slot.session && !(await this.o.backend.getConnection(cmd.companyId, cmd.connectionId))) return this.drop(log);
      log.warn({ waMessageId: cmd.waMessageId, status: slot.state?.status }, 'send while not connected');
      await report(false, { error: NOT_CONNECTED });
      return 'done';
    }
    let result: { timestamp: number };
    try {
      result = await session.send(cmd);
    } catch (err) {
      log.warn({ waMessageId: cmd.waMessageId, err: errorText(err) }, 'send failed');
      await report(false, { error: errorText(err) });
      return 'done';
    }
    this.sent.set(cmd.commandId, result);
    if (this.sent.size > 2000) this.sent.delete(this.sent.keys().next().value!);
    await report(true, { timestamp: result.timestamp });
    return 'done';
  }
}
