import type { Logger } from '../provider.js';
import type { LeaseStore } from './backend.js';
import { errorText } from './log.js';

export interface LeaseKeeperOptions {
  store: LeaseStore;
  taskId: string;
  shards: number;
  leaseMs: number;
  /** How often leases are looked at; renewals happen every ~leaseMs/3. */
  tickMs: number;
  log: Logger;
  /** The shard is ours: start its sessions. */
  onAcquired(shard: number, epoch: number): Promise<void>;
  /** The shard is no longer ours (or is being given up): stop its sessions, never logging out. */
  onLost(shard: number, why: 'taken' | 'unconfirmed' | 'rebalance' | 'shutdown'): Promise<void>;
  now?: () => number;
}

/**
 * Holds shard leases (DESIGN §6): takes free or expired shards up to this task's fair share,
 * renews them, gives one up when another live task has fewer than its share, and stops a shard's
 * sessions as soon as its lease can no longer be confirmed, so two tasks never run one connection.
 */
export class LeaseKeeper {
  private owned = new Map<number, { expiresAt: number; renewedAt: number }>();
  /** Consecutive scans each shard was seen without a live owner. */
  private freeScans = new Map<number, number>();
  private timer?: NodeJS.Timeout;
  private ticking?: Promise<void>;
  /** Shards lost (not given up) whose sessions are still stopping. */
  private readonly losing = new Set<Promise<void>>();
  private stopped = false;
  /** The shard last handed over, until another task is seen holding it. */
  private handover?: { shard: number; at: number };
  /** No more handovers before this time (one was not taken up: the other task may be unable to). */
  private rebalanceAfter = 0;
  private readonly now: () => number;

  constructor(private readonly o: LeaseKeeperOptions) {
    this.now = o.now ?? Date.now;
  }

  ownedShards(): number[] {
    return [...this.owned.keys()].sort((a, b) => a - b);
  }

  /** Runs the first scan (so a lone task owns its shards when this resolves) and schedules the next. */
  async start(): Promise<void> {
    await this.tick();
  }

  /** One scan: announce, renew, take, rebalance. Never throws; errors are logged and retried next time. */
  tick(): Promise<void> {
    if (this.stopped) return Promise.resolve();
    this.ticking ??= this.scan()
      .catch((err) => this.o.log.warn({ err: errorText(err) }, 'lease scan failed'))
      .finally(() => {
        this.ticking = undefined;
        if (!this.stopped) {
          clearTimeout(this.timer);
          this.timer = setTimeout(() => void this.tick(), this.o.tickMs);
        }
      });
    return this.ticking;
  }

  private async scan(): Promise<void> {
    const { store, taskId, shards, leaseMs, log } = this.o;
    await store.heartbeat(taskId, this.now() + leaseMs).catch((err) => log.warn({ err: errorText(err) }, 'task heartbeat failed'));
    await this.renewAll();
    if (this.stopped) return;

    const now = this.now();
    const all = Array.from({ length: shards }, (_, i) => i);
    const [leases, live] = await Promise.all([store.read(all), store.liveTasks(now)]);
    const tasks = new Set([...live, taskId]);
    const held = new Map<string, number>();
    const taken = new Set<number>();
    for (const l of leases) {
      if (l.expiresAt <= now || l.owner === taskId) continue;
      taken.add(l.shard);
      held.set(l.owner, (held.get(l.owner) ?? 0) + 1);
      tasks.add(l.owner); // an owner with a valid lease is alive even if its announcement lapsed
    }
    const fair = Math.ceil(shards / tasks.size);
    if (this.handover) {
      const l = leases.find((x) => x.shard === this.handover!.shard);
      if (l && l.owner !== taskId && l.expiresAt > now) this.handover = undefined;
      else if (now - this.handover.at > this.o.tickMs * 2.5) {
        // Nobody took it (and it is about to be taken back): a task that announces itself but does
        // not take shards must not make this one drop sessions over and over.
        log.warn({ shard: this.handover.shard }, 'handed-over shard not taken; pausing handovers');
        this.rebalanceAfter = now + leaseMs * 4;
        this.handover = undefined;
      }
    }
    const free = all.filter((s) => !taken.has(s) && !this.owned.has(s));
    for (const s of all) this.freeScans.set(s, free.includes(s) ? (this.freeScans.get(s) ?? 0) + 1 : 0);

    // Up to the fair share; beyond it only shards nobody has picked up for a few scans (a task that
    // announced itself but does not take them must not leave connections down).
    const wanted = free.filter((s, i) => this.owned.size + i < fair || (this.freeScans.get(s) ?? 0) >= 3);
    for (const shard of wanted) {
      if (this.stopped) return;
      const expiresAt = this.now() + leaseMs;
      const taken = await store.acquire(shard, taskId, expiresAt, this.now());
      if (!taken) continue;
      this.owned.set(shard, { expiresAt, renewedAt: this.now() });
      this.freeScans.set(shard, 0);
      log.info({ shard, expiresAt, epoch: taken.epoch }, 'lease taken');
      await this.o.onAcquired(shard, taken.epoch).catch((err) => log.error({ shard, err: errorText(err) }, 'starting the shard failed'));
    }

    // Hand one shard over when another live task is below its share (one per scan: no stampede).
    const starving = [...tasks].some((t) => t !== taskId && (held.get(t) ?? 0) < fair);
    if (this.owned.size > fair && starving && !this.handover && now >= this.rebalanceAfter) {
      const shard = Math.max(...this.owned.keys());
      this.handover = { shard, at: now };
      log.info({ shard, fair, owned: this.owned.size }, 'giving a shard to another task');
      await this.giveUp(shard, 'rebalance');
    }
  }

  private async renewAll(): Promise<void> {
    const { store, taskId, leaseMs, tickMs, log } = this.o;
    await Promise.all(
      [...this.owned].map(async ([shard, lease]) => {
        const now = this.now();
        // Renew about every leaseMs/3 (ticks are more frequent so takeovers are quick).
        if (now - lease.renewedAt < leaseMs / 3 - tickMs / 2) return;
        const expiresAt = now + leaseMs;
        let ok: boolean | undefined;
        try {
          ok = await store.renew(shard, taskId, expiresAt);
        } catch (err) {
          log.warn({ shard, err: errorText(err) }, 'lease renewal failed');
        }
        if (ok === true) {
          this.owned.set(shard, { expiresAt, renewedAt: now });
          return;
        }
        if (ok === false) {
          log.warn({ shard }, 'lease lost to another task');
          this.lose(shard, 'taken');
          return;
        }
        // Could not reach the table: before the lease can expire, stop, since another task may take it.
        if (this.now() >= lease.expiresAt - tickMs * 2) {
          log.warn({ shard }, 'lease could not be renewed in time');
          this.lose(shard, 'unconfirmed');
        }
      }),
    );
  }

  /**
   * Not awaited by the scan: stopping a shard's sessions can take seconds, and the other shards'
   * renewals must not wait for it (their leases would lapse too).
   */
  private lose(shard: number, why: 'taken' | 'unconfirmed'): void {
    this.owned.delete(shard);
    const stopping: Promise<void> = this.o
      .onLost(shard, why)
      .catch((err) => this.o.log.error({ shard, err: errorText(err) }, 'stopping the shard failed'))
      .finally(() => this.losing.delete(stopping));
    this.losing.add(stopping);
  }

  /** Stops the shard's sessions first, then deletes the lease so the next owner starts at once. */
  private async giveUp(shard: number, why: 'rebalance' | 'shutdown'): Promise<void> {
    await this.o.onLost(shard, why).catch((err) => this.o.log.error({ shard, err: errorText(err) }, 'stopping the shard failed'));
    this.owned.delete(shard);
    await this.o.store.release(shard, this.o.taskId).catch((err) => this.o.log.warn({ shard, err: errorText(err) }, 'lease release failed'));
    this.o.log.info({ shard, why }, 'lease released');
  }

  /** Shutdown: no more scans; the task withdraws, stops every shard and releases its leases. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.ticking;
    await this.o.store.leave(this.o.taskId).catch((err) => this.o.log.warn({ err: errorText(err) }, 'task withdrawal failed'));
    await Promise.all(this.ownedShards().map((s) => this.giveUp(s, 'shutdown')));
    await Promise.all(this.losing);
  }

  /** Test hook: stop renewing and scanning as if the process had died (leases simply expire). */
  freeze(): void {
    this.stopped = true;
    clearTimeout(this.timer);
  }
}
