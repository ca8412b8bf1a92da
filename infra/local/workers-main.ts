/**
 * The local stack's workers in their own process (issue 23), as Lambda runs them apart from the
 * API: the SQS pollers feeding each queue's worker, and the minute sweeper. The stack's process
 * keeps the gateway, the WebSocket gateway and the sandbox, so a burst being ingested and fanned out
 * does not hold up the HTTP API on a two-core machine.
 *
 * Run by infra/local/workers.ts with the stack's environment plus LOCAL_QUEUES (the polled queues'
 * names, URLs and ARNs as JSON), PORT (its health answer) and LOCAL_WORKER_LOOPS (receive loops per
 * queue). Output lines are `[part] text`, relayed to the stack log.
 */
import http from 'node:http';
import { queues as manifestQueues, SWEEPER } from '@balcao/functions/manifest';
import { emulateLambdaConcurrency } from './functions-loader.js';
import { startPollers, startSweeper, type PolledQueue } from './pollers.js';
import type { Log } from './http-util.js';

const log: Log = (part, line) => process.stdout.write(`[${part}] ${line}\n`);

async function main() {
  await emulateLambdaConcurrency();
  const located = JSON.parse(process.env.LOCAL_QUEUES ?? '[]') as { name: string; url: string; arn: string }[];
  const queues: PolledQueue[] = manifestQueues
    .filter((def): def is typeof def & { worker: string } => def.worker !== null)
    .map((def) => {
      const q = located.find((x) => x.name === def.name);
      if (!q) throw new Error(`LOCAL_QUEUES names no queue "${def.name}"`);
      return { def, url: q.url, arn: q.arn };
    });
  const pollers = startPollers({
    sqsEndpoint: process.env.SQS_ENDPOINT!,
    queues,
    waitTimeSeconds: 1,
    concurrency: Number(process.env.LOCAL_WORKER_LOOPS) || 2,
    log,
  });
  const sweeper = startSweeper({ rateMinutes: SWEEPER.rateMinutes, worker: SWEEPER.worker, log });
  const health = http.createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ ok: true, pid: process.pid }));
  });
  await new Promise<void>((resolve) => health.listen(Number(process.env.PORT), '127.0.0.1', resolve));

  let stopping: Promise<void> | undefined;
  const shutdown = (why: string) =>
    (stopping ??= (async () => {
      log('workers', `stopping (${why}): finishing the batches in hand`);
      await Promise.allSettled([pollers.stop(), sweeper.stop()]);
      health.close();
      process.exit(0);
    })());
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));
  if (process.env.EXIT_WITH_STDIN === '1') {
    process.stdin.on('end', () => void shutdown('parent exited'));
    process.stdin.on('error', () => void shutdown('parent exited'));
    process.stdin.resume();
  }
}

main().catch((err: unknown) => {
  log('workers', `!!! could not start: ${(err as Error).stack ?? err}`);
  process.exit(1);
});
