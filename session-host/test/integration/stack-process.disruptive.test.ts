import { describe, expect, inject, it } from 'vitest';

/**
 * Stops and starts the stack's own session host: it runs in the `stack-disruptive` project, alone
 * and after the other stack tests, so no other test loses its sessions meanwhile.
 */
const env = inject('env' as never) as Record<string, string>;
const endpoints = inject('endpoints' as never) as { sandboxUrl: string; sessionHostUrl?: string };
Object.assign(process.env, env);

const { waitFor } = await import('../host-fakes.js');
const { getItem } = await import('../../../functions/src/core/db.js');
const lease = (shard: number) => getItem<{ owner: string; expiresAt: number; epoch: number }>({ PK: `LEASE#${shard}`, SK: 'LEASE' }, true);

describe("the stack's session host process", () => {
  it('answers health, stops with SIGTERM releasing its leases, and starts again', async () => {
    expect(endpoints.sessionHostUrl).toBeTruthy();
    const health = await (await fetch(endpoints.sessionHostUrl!)).json();
    expect(health).toMatchObject({ ok: true, taskId: 'local-session-host' });
    await waitFor(async () => (await lease(0))?.owner === 'local-session-host', 10_000, 'stack host holds shard 0');

    const stopped = await fetch(`${endpoints.sandboxUrl}/_local/session-host/stop`, { method: 'POST' });
    expect(await stopped.json()).toEqual({ pid: 0 });
    await expect(fetch(endpoints.sessionHostUrl!)).rejects.toThrow();
    // Released (expired at once; the item and its epoch stay).
    const released = await lease(0);
    expect(released).toMatchObject({ expiresAt: 0 });
    expect(await lease(1)).toMatchObject({ expiresAt: 0 });

    const started = await fetch(`${endpoints.sandboxUrl}/_local/session-host/start`, { method: 'POST' });
    expect(((await started.json()) as { pid: number }).pid).toBeGreaterThan(0);
    const shardsNow = async () => ((await (await fetch(endpoints.sessionHostUrl!)).json()) as { shards: number[] }).shards;
    await waitFor(async () => (await shardsNow()).length === 2, 10_000, 'shards taken again');
    expect((await lease(0))?.owner).toBe('local-session-host');
    expect((await lease(0))?.epoch).toBeGreaterThan(released!.epoch);
  });
});
