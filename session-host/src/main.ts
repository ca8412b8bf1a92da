/**
 * The session-host process (DESIGN §6): an ECS task in AWS, a child process of the local stack.
 * Configuration is the functions' environment contract (TABLE_NAME, INBOUND_QUEUE_URL,
 * OUTBOUND_QUEUE_URL_<n>, MEDIA_BUCKET, the *_ENDPOINT overrides locally) plus PORT for health
 * (default 8080) and SANDBOX_URL for the sandbox provider. Optional: SESSION_HOST_TASK_ID (default
 * hostname + random; the local stack keeps one so a restart takes its leases back at once),
 * SESSION_HOST_LEASE_MS (default 30 000) and SESSION_HOST_EXIT_WITH_STDIN=1 (stop when the parent
 * process closes our stdin). Inbound WhatsApp media (providers/baileys/media.ts): MEDIA_MAX_BYTES
 * (default 100 MiB, the console's document limit), MEDIA_TIMEOUT_MS (floor of a file's time limit,
 * default 60 000), MEDIA_MIN_BYTES_PER_SECOND (default 256 KiB/s: larger files get longer) and
 * MEDIA_CONCURRENCY (files transferred at once per process, default 8).
 */
import { SHARDS } from '@balcao/functions/manifest';
import { log } from './log.js';
import { startSessionHost } from './host/index.js';
import { baileysProvider } from './providers/baileys/index.js';
import { sandboxProvider } from './providers/sandbox.js';

function requireEnv(names: string[]) {
  const missing = names.filter((n) => !process.env[n]);
  if (missing.length) throw new Error(`Missing environment variable(s): ${missing.join(', ')}`);
}

async function main() {
  requireEnv(['TABLE_NAME', 'INBOUND_QUEUE_URL', 'MEDIA_BUCKET', ...Array.from({ length: SHARDS }, (_, n) => `OUTBOUND_QUEUE_URL_${n}`)]);
  const leaseMs = Number(process.env.SESSION_HOST_LEASE_MS) || undefined;
  const host = await startSessionHost({
    taskId: process.env.SESSION_HOST_TASK_ID || undefined,
    providers: { beta: baileysProvider, sandbox: sandboxProvider },
    port: process.env.PORT ? Number(process.env.PORT) : 8080,
    healthHost: process.env.HEALTH_HOST || undefined,
    leaseMs,
    log,
  });

  let exiting = false;
  const shutdown = (signal: string) => {
    if (exiting) return;
    exiting = true;
    log.info({ signal }, 'shutting down');
    // ECS waits stopTimeout (60 s in the sessions stack) before SIGKILL; a stop normally takes a
    // few seconds (the last long poll), at worst the host's own bounded waits.
    const force = setTimeout(() => {
      log.error('shutdown took too long; exiting');
      process.exit(1);
    }, 45_000);
    force.unref();
    host.stop().then(
      () => process.exit(0),
      (err: unknown) => {
        log.error({ err: String(err) }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  // One connection's bug must not take every other session down with the process.
  process.on('unhandledRejection', (err) => log.error({ err: err instanceof Error ? err.stack : String(err) }, 'unhandled rejection'));
  process.on('SIGTERM', () => shutdown('SIGTERM'));
  process.on('SIGINT', () => shutdown('SIGINT'));
  if (process.env.SESSION_HOST_EXIT_WITH_STDIN === '1') {
    // Run by the local stack: its death closes our stdin, and we stop instead of lingering.
    process.stdin.on('end', () => shutdown('parent exited'));
    process.stdin.on('error', () => shutdown('parent exited'));
    process.stdin.resume();
  }
}

main().catch((err: unknown) => {
  log.error({ err: err instanceof Error ? err.stack : String(err) }, 'session host failed to start');
  process.exit(1);
});
