import { randomUUID } from 'node:crypto';
import os from 'node:os';
import { SHARDS } from '@balcao/functions/manifest';
import type { Logger } from '../provider.js';
import type { HostBackend } from './backend.js';
import { startHealthServer } from './health.js';
import { LeaseKeeper } from './leases.js';
import { errorText, withFields } from './log.js';
import { ShardRunner, type Providers } from './shard.js';

export type { HostBackend } from './backend.js';
export { NOT_CONNECTED } from './shard.js';

export interface SessionHostOptions {
  taskId?: string;
  providers: Providers;
  shards?: number;
  leaseMs?: number;
  /** Lease scans; default leaseMs/6 so a released or expired shard is picked up quickly. */
  scanMs?: number;
  /** Health port; 0 picks a free one. */
  port?: number;
  /** Address the health server listens on (default every interface). */
  healthHost?: string;
  log?: Logger;
  /** Defaults to DynamoDB/SQS/S3 from the functions' environment contract. */
  backend?: HostBackend;
  /** How long a send waits for a reconnecting session (default 20 s). */
  reconnectWaitMs?: number;
}

export interface SessionHost {
  readonly port: number;
  readonly taskId: string;
  ownedShards(): number[];
  /** Open sessions on this task. */
  sessions(): number;
  /** Graceful stop (SIGTERM): no more commands, sockets closed without logout, leases released. */
  stop(): Promise<void>;
  /** As if the process died: sockets gone, nothing renewed or released (leases expire). For tests. */
  crash(): Promise<void>;
}

export async function startSessionHost(opts: SessionHostOptions): Promise<SessionHost> {
  const taskId = opts.taskId ?? `${os.hostname()}-${randomUUID().slice(0, 8)}`;
  const shards = opts.shards ?? SHARDS;
  const leaseMs = opts.leaseMs ?? 30_000;
  const baseLog = opts.log ?? (await import('../log.js')).log;
  const log = withFields(baseLog, { taskId });
  const backend: HostBackend = opts.backend ?? new (await import('./aws-backend.js')).AwsBackend();
  const runners = new Map<number, ShardRunner>();
  /** Stopped shards still finishing their last poll (the process waits for them before exiting). */
  const finishing = new Set<Promise<void>>();
  let stopping = false;

  const keeper = new LeaseKeeper({
    store: backend.leases,
    taskId,
    shards,
    leaseMs,
    tickMs: opts.scanMs ?? Math.max(50, Math.round(leaseMs / 6)),
    log,
    async onAcquired(shard, epoch) {
      const runner = new ShardRunner(shard, { backend, providers: opts.providers, log, reconnectWaitMs: opts.reconnectWaitMs, epoch });
      runners.set(shard, runner);
      // Sessions start in the background: a slow connection must not hold up the lease scan.
      runner.start().catch((err) => log.error({ shard, err: errorText(err) }, 'shard start failed'));
    },
    async onLost(shard, why) {
      const runner = runners.get(shard);
      runners.delete(shard);
      if (!runner) return;
      await runner.stop(why === 'taken' || why === 'unconfirmed');
      const done: Promise<void> = runner.finished().finally(() => finishing.delete(done));
      finishing.add(done);
    },
  });

  const health = await startHealthServer(opts.port ?? 8080, () => ({
    ok: !stopping,
    taskId,
    shards: keeper.ownedShards(),
    sessions: [...runners.values()].reduce((n, r) => n + r.sessions, 0),
  }), opts.healthHost);
  await keeper.start();
  log.info({ port: health.port, shards: keeper.ownedShards() }, 'session host started');

  let stopped: Promise<void> | undefined;
  return {
    port: health.port,
    taskId,
    ownedShards: () => keeper.ownedShards(),
    sessions: () => [...runners.values()].reduce((n, r) => n + r.sessions, 0),
    stop: () =>
      (stopped ??= (async () => {
        stopping = true;
        log.info('session host stopping');
        await keeper.stop();
        await Promise.all(finishing);
        await health.close();
        backend.close?.();
        log.info('session host stopped');
      })()),
    crash: () =>
      (stopped ??= (async () => {
        stopping = true;
        keeper.freeze();
        await Promise.all([...runners.values()].map(async (r) => (await r.stop(true), await r.finished())));
        runners.clear();
        await health.close();
      })()),
  };
}
