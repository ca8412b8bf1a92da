import { afterEach, describe, expect, it } from 'vitest';
import { startSessionHost, type SessionHost } from '../src/host/index.js';
import { MemoryBackend, TestProvider, quietLog, waitFor } from './host-fakes.js';

/**
 * Shards and leases (DESIGN §6) against in-memory fakes: taken, renewed, released, spread between
 * tasks, taken over after a task dies, and sockets closed without logging out.
 */
const LEASE_MS = 600;
const hosts: SessionHost[] = [];

function setup(shards = 4) {
  const backend = new MemoryBackend(shards);
  const providers = { beta: new TestProvider('beta'), sandbox: new TestProvider('sandbox') };
  // Connections 1-4 fall on shards 0-3 (shardOf with 4 shards); 5 on shard 0.
  for (const id of [1, 2, 3, 4]) backend.addConnection({ id, companyId: 7, provider: id % 2 ? 'sandbox' : 'beta', status: 'CONNECTED' });
  backend.addConnection({ id: 5, companyId: 7, provider: 'sandbox', status: 'DISCONNECTED' });
  const start = async (taskId: string) => {
    const h = await startSessionHost({ taskId, providers, shards, leaseMs: LEASE_MS, scanMs: 100, port: 0, log: quietLog, backend });
    hosts.push(h);
    return h;
  };
  return { backend, providers, start };
}

afterEach(async () => {
  await Promise.all(hosts.splice(0).map((h) => h.stop()));
});

describe('session host leases', () => {
  it('a lone task takes every shard, starts each connection with its provider and skips deliberately disconnected ones', async () => {
    const { backend, providers, start } = setup();
    const a = await start('a');
    expect(a.ownedShards()).toEqual([0, 1, 2, 3]);
    for (let s = 0; s < 4; s++) expect(backend.leases.leases.get(s)).toMatchObject({ owner: 'a' });
    await waitFor(() => a.sessions() === 4, 2000, 'four sessions');
    expect(providers.sandbox.of(1)?.calls).toEqual(['start']);
    expect(providers.beta.of(2)?.calls).toEqual(['start']);
    expect(providers.sandbox.of(5)).toBeUndefined();
    // Health answers with what the task runs.
    const res = await fetch(`http://127.0.0.1:${a.port}/health`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ ok: true, taskId: 'a', shards: [0, 1, 2, 3], sessions: 4 });
  });

  it('keeps trying to load a shard it holds when the table fails', async () => {
    const { backend, start } = setup();
    backend.failLoads = 3;
    const a = await start('a');
    await waitFor(() => a.sessions() === 4, 4000, 'every session after the retries');
    expect(backend.failLoads).toBe(0);
  });

  it('renews its leases before they expire', async () => {
    const { backend, start } = setup();
    await start('a');
    const first = backend.leases.leases.get(0)!.expiresAt;
    await new Promise((r) => setTimeout(r, LEASE_MS * 1.5));
    const later = backend.leases.leases.get(0)!;
    expect(later.owner).toBe('a');
    expect(later.expiresAt).toBeGreaterThan(first);
    expect(later.expiresAt).toBeGreaterThan(Date.now());
  });

  it('a graceful stop closes every socket without logging out, releases the leases and answers 503 meanwhile', async () => {
    const { backend, providers, start } = setup();
    const a = await start('a');
    await waitFor(() => a.sessions() === 4);
    const stopping = a.stop();
    const health = await fetch(`http://127.0.0.1:${a.port}/health`).catch(() => undefined);
    if (health) expect(health.status).toBe(503);
    await stopping;
    expect(backend.leases.leases.size).toBe(0);
    expect(backend.leases.tasks.size).toBe(0);
    const all = [...providers.beta.sessions, ...providers.sandbox.sessions];
    expect(all).toHaveLength(4);
    for (const s of all) expect(s.calls).toEqual(['start', 'stop']);
    // The closing sockets' DISCONNECTED is not the connections' state: nothing was published.
    for (const id of [1, 2, 3, 4]) expect(backend.sessionEvents(id).map((e) => e.status)).toEqual(['OPENING', 'CONNECTED']);
    await expect(fetch(`http://127.0.0.1:${a.port}/health`)).rejects.toThrow();
  });

  it('a second task gets its share: the first hands shards over, stopping them before releasing', async () => {
    const { backend, providers, start } = setup();
    const a = await start('a');
    await waitFor(() => a.sessions() === 4);
    const b = await start('b');
    await waitFor(() => a.ownedShards().length === 2 && b.ownedShards().length === 2, 4000, 'two shards each');
    expect([...a.ownedShards(), ...b.ownedShards()].sort()).toEqual([0, 1, 2, 3]);
    await waitFor(() => b.sessions() === 2, 2000, 'b runs its two sessions');
    expect(a.sessions()).toBe(2);
    // Each connection runs exactly once, and nothing was logged out.
    const live = [...providers.beta.live(), ...providers.sandbox.live()].map((s) => s.ctx.connectionId).sort();
    expect(live).toEqual([1, 2, 3, 4]);
    expect([...providers.beta.sessions, ...providers.sandbox.sessions].some((s) => s.calls.includes('logout'))).toBe(false);
    for (const shard of b.ownedShards()) expect(backend.leases.leases.get(shard)?.owner).toBe('b');
  });

  it('each status carries its owner\'s lease epoch: an old owner\'s late report is older than the new owner\'s (issue 17 §9)', async () => {
    const { backend, providers, start } = setup();
    const a = await start('a');
    await waitFor(() => a.sessions() === 4);
    const b = await start('b');
    await waitFor(() => b.sessions() === 2, 4000, 'b runs two sessions');
    const moved = b.ownedShards()[0]!;
    const connectionId = [1, 2, 3, 4].find((id) => (id - 1) % 4 === moved)!;
    const reports = backend.sessionEvents(connectionId);
    const epochs = [...new Set(reports.map((e) => e.epoch))];
    expect(epochs).toHaveLength(2);
    // The new owner's reports are newer: the ingest keeps them over any late one of the old owner
    // (functions/test/unit/inbound.test.ts, "stale owner").
    expect(epochs[1]).toBeGreaterThan(epochs[0]!);
    expect(reports.at(-1)).toMatchObject({ status: 'CONNECTED', epoch: epochs[1] });
    expect(providers.beta.sessions.length + providers.sandbox.sessions.length).toBeGreaterThan(4);
  });

  it('after a SIGTERM-style stop another task takes the shards over at once', async () => {
    const { providers, start } = setup();
    const a = await start('a');
    const b = await start('b');
    await waitFor(() => a.ownedShards().length === 2 && b.ownedShards().length === 2, 4000);
    await a.stop();
    const t0 = Date.now();
    await waitFor(() => b.ownedShards().length === 4, 2000, 'b takes every shard');
    // Released leases need no expiry: picked up within a scan or two, well inside the lease time.
    expect(Date.now() - t0).toBeLessThan(LEASE_MS);
    await waitFor(() => b.sessions() === 4);
    expect([...providers.beta.live(), ...providers.sandbox.live()]).toHaveLength(4);
  });

  it('does not keep handing shards to a task that announces itself but never takes them', async () => {
    const { backend, start } = setup(2);
    const a = await start('a');
    await waitFor(() => a.ownedShards().length === 2);
    // A live-looking task that takes nothing.
    backend.leases.tasks.set('ghost', Date.now() + 60_000);
    const released: number[] = [];
    const release = backend.leases.release.bind(backend.leases);
    backend.leases.release = async (shard, owner) => (released.push(shard), release(shard, owner));
    await new Promise((r) => setTimeout(r, LEASE_MS * 2.5));
    // One handover, taken back after a few scans, then a pause instead of a loop.
    expect(released).toEqual([1]);
    expect(a.ownedShards()).toEqual([0, 1]);
  });

  it('a task that dies (no renewal, no release) loses its shards after the lease time', async () => {
    const { backend, start } = setup();
    const a = await start('a');
    const b = await start('b');
    await waitFor(() => a.ownedShards().length === 2 && b.ownedShards().length === 2, 4000);
    const lost = a.ownedShards();
    const expiries = lost.map((s) => backend.leases.leases.get(s)!.expiresAt);
    await a.crash();
    // The dead task's leases are still there, untouched…
    for (const s of lost) expect(backend.leases.leases.get(s)?.owner).toBe('a');
    await waitFor(() => b.ownedShards().length === 4, LEASE_MS * 3, 'takeover');
    // …until they expire: taken after the last renewal's expiry, and within about the lease time of it.
    const expired = Math.max(...expiries);
    expect(Date.now()).toBeGreaterThanOrEqual(expired);
    expect(Date.now() - expired).toBeLessThan(LEASE_MS);
    await waitFor(() => b.sessions() === 4);
  });

  it('a task that cannot reach the table stops its sessions before its leases can expire; another takes over', async () => {
    const { backend, providers, start } = setup(2);
    const a = await start('a');
    await waitFor(() => a.sessions() === 4);
    backend.leases.unreachable.add('a');
    const aSessions = [...providers.beta.sessions, ...providers.sandbox.sessions];
    await waitFor(() => a.ownedShards().length === 0 && aSessions.every((s) => s.calls.includes('stop')), LEASE_MS * 2, 'a gives up');
    // Stopped before its leases' end, so two tasks never hold one WhatsApp socket.
    const latestExpiry = Math.min(...[...backend.leases.leases.values()].map((l) => l.expiresAt));
    expect(Date.now()).toBeLessThan(latestExpiry);
    for (const s of aSessions) expect(s.calls).toEqual(['start', 'stop']);
    const b = await start('b');
    await waitFor(() => b.ownedShards().length === 2, LEASE_MS * 3, 'b takes over');
    await waitFor(() => b.sessions() === 4);
    backend.leases.unreachable.delete('a');
  });

  it('a task whose lease was taken by another stops that shard without logging out', async () => {
    const { backend, providers, start } = setup(2);
    const a = await start('a');
    await waitFor(() => a.sessions() === 4);
    backend.leases.leases.set(0, { shard: 0, owner: 'intruder', expiresAt: Date.now() + 60_000 });
    await waitFor(() => !a.ownedShards().includes(0), LEASE_MS, 'shard 0 dropped');
    expect(a.ownedShards()).toEqual([1]);
    const shard0 = [1, 3].map((id) => providers.sandbox.of(id)!);
    await waitFor(() => shard0.every((s) => s.calls.includes('stop')), 1000, 'shard 0 stopped');
    for (const s of shard0) expect(s.calls).toEqual(['start', 'stop']);
    expect(providers.beta.of(2)!.calls).toEqual(['start']);
  });

  it("a lost shard whose sessions take long to stop does not hold up the other shards' renewals", async () => {
    const { backend, providers, start } = setup(2);
    const a = await start('a');
    await waitFor(() => a.sessions() === 4);
    // Shard 0's sessions (1 and 3) drain for far longer than a lease.
    for (const id of [1, 3]) providers.sandbox.of(id)!.stopDrainMs = LEASE_MS * 4;
    backend.leases.leases.set(0, { shard: 0, owner: 'intruder', expiresAt: Date.now() + 60_000 });
    await waitFor(() => !a.ownedShards().includes(0), LEASE_MS, 'shard 0 dropped');
    const renewed = backend.leases.leases.get(1)!.expiresAt;
    await waitFor(() => backend.leases.leases.get(1)!.expiresAt > renewed, LEASE_MS, 'shard 1 renewed while shard 0 stops');
    expect(a.ownedShards()).toEqual([1]);
    expect(providers.beta.of(2)!.calls).toEqual(['start']);
  });
});
