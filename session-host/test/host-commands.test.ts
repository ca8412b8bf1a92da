import { afterEach, describe, expect, it } from 'vitest';
import { inboundEventSchema } from '@balcao/shared';
import { NOT_CONNECTED, startSessionHost, type SessionHost } from '../src/host/index.js';
import { MemoryBackend, TestProvider, quietLog, waitFor } from './host-fakes.js';

/** Commands from the shard queues reach the right session, in order; events leave versioned and grouped per chat. */
const hosts: SessionHost[] = [];
afterEach(async () => {
  await Promise.all(hosts.splice(0).map((h) => h.stop()));
});

async function setup() {
  const backend = new MemoryBackend(2);
  const providers = { beta: new TestProvider('beta'), sandbox: new TestProvider('sandbox') };
  // Shards with 2: ids 1, 3 on shard 0; 2, 4 on shard 1.
  backend.addConnection({ id: 1, companyId: 7, provider: 'sandbox', status: 'CONNECTED' });
  backend.addConnection({ id: 2, companyId: 7, provider: 'beta', status: 'CONNECTED' });
  backend.addConnection({ id: 3, companyId: 8, provider: 'sandbox', status: 'DISCONNECTED' });
  const host = await startSessionHost({ taskId: 't', providers, shards: 2, leaseMs: 3000, scanMs: 200, port: 0, log: quietLog, backend, reconnectWaitMs: 600 });
  hosts.push(host);
  await waitFor(() => host.sessions() === 2);
  const drained = () => [...backend.queues.values()].every((q) => q.messages.length === 0);
  return { backend, providers, host, drained };
}

const to = { number: '5511988887777' };

describe('session host commands', () => {
  it('sends on the connection named by the command and reports the result on the chat group', async () => {
    const { backend, providers, drained } = await setup();
    backend.command({ type: 'send', companyId: 7, connectionId: 2, ticketId: 11, waMessageId: '3EB0AA', to, body: 'olá' });
    backend.command({ type: 'send', companyId: 7, connectionId: 1, ticketId: 12, waMessageId: '3EB0BB', to, body: 'oi' });
    await waitFor(drained, 3000, 'queues drained');
    expect(providers.beta.of(2)!.sent.map((c) => c.body)).toEqual(['olá']);
    expect(providers.sandbox.of(1)!.sent.map((c) => c.body)).toEqual(['oi']);
    const results = backend.events.filter((e) => e.event.type === 'sendResult');
    expect(results).toHaveLength(2);
    const r2 = results.find((e) => e.event.connectionId === 2)!;
    expect(r2.groupId).toBe('2:n5511988887777');
    expect(r2.event).toMatchObject({ v: 1, type: 'sendResult', companyId: 7, connectionId: 2, ticketId: 11, waMessageId: '3EB0AA', ok: true, timestamp: 1700000000 });
  });

  it('a send while the session is not connected fails visibly and is not retried; a provider error too', async () => {
    const { backend, providers, drained } = await setup();
    // Connection 3 is DISCONNECTED (no session); connection 1's socket drops.
    backend.command({ type: 'send', companyId: 8, connectionId: 3, ticketId: 1, waMessageId: '3EB001', to, body: 'a' });
    providers.sandbox.of(1)!.connected = false;
    backend.command({ type: 'send', companyId: 7, connectionId: 1, ticketId: 2, waMessageId: '3EB002', to, body: 'b' });
    providers.beta.of(2)!.failSend = 'number blocked';
    backend.command({ type: 'send', companyId: 7, connectionId: 2, ticketId: 3, waMessageId: '3EB003', to, body: 'c' });
    await waitFor(drained, 3000, 'every command settled (deleted, not waiting for a retry)');
    const byId = (id: string) => backend.events.find((e) => e.event.type === 'sendResult' && e.event.waMessageId === id)?.event;
    expect(byId('3EB001')).toMatchObject({ ok: false, error: NOT_CONNECTED, ticketId: 1 });
    expect(byId('3EB002')).toMatchObject({ ok: false, error: NOT_CONNECTED });
    expect(byId('3EB003')).toMatchObject({ ok: false, error: 'number blocked' });
    expect(providers.sandbox.of(1)!.calls).not.toContain('send:b');
  });

  it('a send waits for a session that is reconnecting and goes out once it is back (issue 16 §1)', async () => {
    const { backend, providers, drained } = await setup();
    const session = providers.sandbox.of(1)!;
    // The socket dropped: the session reports OPENING and comes back 300 ms later (the wait is 600 ms).
    session.connected = false;
    await session.ctx.emit({ type: 'session', status: 'OPENING', reason: 'connectionLost' });
    backend.command({ type: 'send', companyId: 7, connectionId: 1, ticketId: 2, waMessageId: '3EB010', to, body: 'depois' });
    setTimeout(() => (session.connected = true), 300);
    await waitFor(drained, 3000, 'the send settled');
    expect(session.sent.map((c) => c.body)).toEqual(['depois']);
    const result = backend.events.find((e) => e.event.type === 'sendResult' && e.event.waMessageId === '3EB010')?.event;
    expect(result).toMatchObject({ ok: true });
  });

  it('a session waiting for a QR scan is not waited for: the send fails at once', async () => {
    const { backend, providers, drained } = await setup();
    const session = providers.sandbox.of(1)!;
    session.connected = false;
    await session.ctx.emit({ type: 'session', status: 'qrcode', qrcode: 'QR' });
    const t0 = Date.now();
    backend.command({ type: 'send', companyId: 7, connectionId: 1, ticketId: 2, waMessageId: '3EB011', to, body: 'x' });
    await waitFor(drained, 3000, 'the send settled');
    expect(Date.now() - t0).toBeLessThan(500);
    expect(backend.events.find((e) => e.event.type === 'sendResult' && e.event.waMessageId === '3EB011')?.event).toMatchObject({ ok: false, error: NOT_CONNECTED });
  });

  it('runs one connection’s commands in order while another connection proceeds', async () => {
    const { backend, providers, drained } = await setup();
    providers.sandbox.sendDelayMs = 30;
    for (let i = 0; i < 8; i++) backend.command({ type: 'send', companyId: 7, connectionId: 1, ticketId: 1, waMessageId: `A${i}`, to, body: `m${i}` });
    backend.command({ type: 'read', companyId: 7, connectionId: 2, to, waMessageIds: ['X1'] });
    await waitFor(() => providers.beta.of(2)!.calls.includes('read:X1'), 1000, 'read on the other connection');
    // The other connection did not wait for the slow one's queue.
    expect(providers.sandbox.of(1)!.sent.length).toBeLessThan(8);
    await waitFor(drained, 3000);
    expect(providers.sandbox.of(1)!.sent.map((c) => c.body)).toEqual(['m0', 'm1', 'm2', 'm3', 'm4', 'm5', 'm6', 'm7']);
    const group = backend.events.filter((e) => e.event.type === 'sendResult').map((e) => (e.event as { waMessageId: string }).waMessageId);
    expect(group).toEqual(['A0', 'A1', 'A2', 'A3', 'A4', 'A5', 'A6', 'A7']);
  });

  it('carries read, edit, delete, react and rejectCall to the session', async () => {
    const { backend, providers, drained } = await setup();
    const base = { companyId: 7, connectionId: 2 };
    backend.command({ ...base, type: 'read', to, waMessageIds: ['W1', 'W2'] });
    backend.command({ ...base, type: 'edit', to, waMessageId: 'W3', body: 'corrigido' });
    backend.command({ ...base, type: 'delete', to, waMessageId: 'W4' });
    backend.command({ ...base, type: 'react', to, waMessageId: 'W5', emoji: '👍' });
    backend.command({ ...base, type: 'rejectCall', callId: 'CALL1', from: to });
    await waitFor(drained, 3000);
    expect(providers.beta.of(2)!.calls.slice(1)).toEqual(['read:W1,W2', 'edit:W3:corrigido', 'delete:W4', 'react:W5:👍', 'rejectCall:CALL1']);
  });

  it('answers RPCs in the table: checkNumber, checkNumbers, addressBook, failures and a disconnected session', async () => {
    const { backend, drained } = await setup();
    const rpc = (connectionId: number, rpcId: string, call: object, companyId = 7) => backend.command({ type: 'rpc', companyId, connectionId, rpcId, call });
    rpc(1, 'r1', { op: 'checkNumber', number: '5511988887777' });
    rpc(1, 'r2', { op: 'checkNumber', number: '1234567' });
    rpc(2, 'r3', { op: 'addressBook' });
    // Pages of the book in number order, after the last number of the previous page.
    rpc(2, 'r6', { op: 'addressBook', after: '5511900000000', limit: 1 });
    rpc(2, 'r7', { op: 'addressBook', after: '5511911112222', limit: 1 });
    rpc(2, 'r4', { op: 'checkNumber', number: '0000000000' });
    rpc(3, 'r5', { op: 'checkNumber', number: '5511988887777' }, 8);
    rpc(1, 'r8', { op: 'checkNumbers', numbers: ['5511988887777', '1234567'] });
    await waitFor(drained, 3000);
    expect(backend.rpc.get('r8')).toEqual({
      status: 'done',
      answer: { op: 'checkNumbers', results: [{ number: '5511988887777', exists: true }, { number: '1234567', exists: false }] },
    });
    expect(backend.rpc.get('r1')).toEqual({ status: 'done', answer: { op: 'checkNumber', exists: true, number: '5511988887777', lid: '55119888877771' } });
    expect(backend.rpc.get('r2')).toEqual({ status: 'done', answer: { op: 'checkNumber', exists: false } });
    expect(backend.rpc.get('r3')).toEqual({
      status: 'done',
      answer: { op: 'addressBook', contacts: [{ number: '5511911112222', name: 'Ana' }, { number: '5511988887777', name: 'Maria' }], total: 2, offset: 0 },
    });
    expect(backend.rpc.get('r6')).toEqual({ status: 'done', answer: { op: 'addressBook', contacts: [{ number: '5511911112222', name: 'Ana' }], total: 2, offset: 0 } });
    expect(backend.rpc.get('r7')).toEqual({ status: 'done', answer: { op: 'addressBook', contacts: [{ number: '5511988887777', name: 'Maria' }], total: 2, offset: 1 } });
    expect(backend.rpc.get('r4')).toEqual({ status: 'failed', error: 'lookup failed' });
    expect(backend.rpc.get('r5')).toEqual({ status: 'failed', error: NOT_CONNECTED });
  });

  it('session control: logout stays down (also after a restart of the host), start brings it back, newQr, restart, stop', async () => {
    const { backend, providers, host, drained } = await setup();
    const first = providers.sandbox.of(1)!;
    backend.command({ type: 'logout', companyId: 7, connectionId: 1 });
    await waitFor(drained, 3000);
    expect(first.calls).toEqual(['start', 'logout']);
    expect(backend.sessionEvents(1).at(-1)).toMatchObject({ status: 'DISCONNECTED', reason: 'loggedOut' });
    expect(backend.auth.get('C#7#WAPP#1#AUTH')!.size).toBe(0);
    expect(host.sessions()).toBe(1);

    // The ingest worker records DISCONNECTED; a new task (or a takeover) leaves it down.
    backend.connections.get(1)!.status = 'DISCONNECTED';
    await host.stop();
    const again = await startSessionHost({ taskId: 't2', providers, shards: 2, leaseMs: 3000, scanMs: 200, port: 0, log: quietLog, backend });
    hosts.push(again);
    await waitFor(() => again.sessions() === 1);
    expect(providers.sandbox.of(1)).toBe(first);

    backend.command({ type: 'start', companyId: 7, connectionId: 1, pairingNumber: '5511977776666' });
    await waitFor(() => providers.sandbox.of(1) !== first && again.sessions() === 2, 3000, 'started again');
    const second = providers.sandbox.of(1)!;
    expect(second.ctx.pairingNumber).toBe('5511977776666');

    backend.command({ type: 'newQr', companyId: 7, connectionId: 1 });
    backend.command({ type: 'restart', companyId: 7, connectionId: 1 });
    await waitFor(drained, 3000);
    expect(second.calls).toEqual(['start', 'newQr', 'stop']);
    const third = providers.sandbox.of(1)!;
    expect(third.calls).toEqual(['start']);

    backend.command({ type: 'stop', companyId: 7, connectionId: 1 });
    await waitFor(drained, 3000);
    expect(third.calls).toEqual(['start', 'stop']);
    expect(again.sessions()).toBe(1);
    // Recorded as DISCONNECTED so it stays down until started.
    expect(backend.sessionEvents(1).at(-1)).toMatchObject({ status: 'DISCONNECTED', reason: 'stopped' });
    expect(providers.sandbox.sessions.some((s) => s.calls.includes('logout') && s !== first)).toBe(false);
  });

  it('start leaves a starting, waiting or connected session as it is; a button pressed twice acts once; TIMEOUT starts again', async () => {
    const { backend, providers, drained } = await setup();
    const pause = () => new Promise((r) => setTimeout(r, 5));
    // Connected: "try again" is answered by the running session (a restart could drop the link).
    await pause();
    backend.command({ type: 'start', companyId: 7, connectionId: 1 });
    await waitFor(drained, 3000);
    expect(providers.sandbox.sessions.filter((x) => x.ctx.connectionId === 1)).toHaveLength(1);
    expect(providers.sandbox.of(1)!.calls).toEqual(['start']);

    // Waiting for the phone (a QR showing): the same.
    providers.sandbox.connectOnStart = false;
    backend.addConnection({ id: 5, companyId: 7, provider: 'sandbox', status: 'OPENING' });
    backend.command({ type: 'start', companyId: 7, connectionId: 5 });
    await waitFor(() => backend.sessionEvents(5).some((e) => e.status === 'qrcode'), 3000, 'a QR showing');
    const waiting = providers.sandbox.of(5)!;
    await pause();
    backend.command({ type: 'start', companyId: 7, connectionId: 5 });
    backend.command({ type: 'start', companyId: 7, connectionId: 5 });
    await waitFor(drained, 3000);
    expect(providers.sandbox.of(5)).toBe(waiting);
    expect(waiting.calls).toEqual(['start']);

    // Nobody scanned in time: TIMEOUT, and "try again" starts a new session.
    await waiting.ctx.emit({ type: 'session', status: 'TIMEOUT' });
    await pause();
    backend.command({ type: 'start', companyId: 7, connectionId: 5 });
    await waitFor(drained, 3000);
    const fresh = providers.sandbox.of(5)!;
    expect(fresh).not.toBe(waiting);
    expect(waiting.calls).toEqual(['start', 'stop']);

    // Reconnect and New QR pressed twice: one restart, one new QR.
    await pause();
    backend.command({ type: 'restart', companyId: 7, connectionId: 5 });
    backend.command({ type: 'restart', companyId: 7, connectionId: 5 });
    await waitFor(drained, 3000);
    const restarted = providers.sandbox.of(5)!;
    expect(providers.sandbox.sessions.filter((x) => x.ctx.connectionId === 5)).toHaveLength(3);
    expect(fresh.calls).toEqual(['start', 'stop']);
    await pause();
    backend.command({ type: 'newQr', companyId: 7, connectionId: 5 });
    backend.command({ type: 'newQr', companyId: 7, connectionId: 5 });
    await waitFor(drained, 3000);
    expect(providers.sandbox.of(5)).toBe(restarted);
    expect(restarted.calls).toEqual(['start', 'newQr']);
  });

  it('a second New QR sent after the first one’s fresh session started leaves it alone and tells its status again', async () => {
    const { backend, providers, drained } = await setup();
    providers.sandbox.connectOnStart = false;
    backend.addConnection({ id: 5, companyId: 7, provider: 'sandbox', status: 'DISCONNECTED' });
    // The first press starts a session with fresh credentials; it shows a QR.
    backend.command({ type: 'newQr', companyId: 7, connectionId: 5 });
    await waitFor(() => backend.sessionEvents(5).some((e) => e.status === 'qrcode'), 3000, 'a QR showing');
    const fresh = providers.sandbox.of(5)!;
    const reported = backend.sessionEvents(5).length;
    // The second press reaches the host later (the API read a late DISCONNECTED and wrote OPENING):
    // the QR on screen stays the one to scan, and its status is reported again over that OPENING.
    await new Promise((r) => setTimeout(r, 5));
    backend.command({ type: 'newQr', companyId: 7, connectionId: 5 });
    await waitFor(drained, 3000);
    expect(providers.sandbox.of(5)).toBe(fresh);
    expect(fresh.calls).toEqual(['start']);
    expect(backend.sessionEvents(5).slice(reported)).toEqual([expect.objectContaining({ status: 'qrcode' })]);
    // Once linked, a New QR is a real one again (the API refuses it while connected; after a drop it is new).
    await fresh.ctx.emit({ type: 'session', status: 'DISCONNECTED' });
    await new Promise((r) => setTimeout(r, 5));
    backend.command({ type: 'newQr', companyId: 7, connectionId: 5 });
    await waitFor(drained, 3000);
    expect(fresh.calls).toEqual(['start', 'newQr']);
  });

  it('a status told again never lands after a newer one (a slow re-report of the QR and then the pairing code)', async () => {
    const { backend, providers, drained } = await setup();
    providers.sandbox.connectOnStart = false;
    backend.addConnection({ id: 5, companyId: 7, provider: 'sandbox', status: 'DISCONNECTED' });
    backend.command({ type: 'newQr', companyId: 7, connectionId: 5 });
    await waitFor(() => backend.sessionEvents(5).some((e) => e.status === 'qrcode'), 3000, 'a QR showing');
    const fresh = providers.sandbox.of(5)!;
    await new Promise((r) => setTimeout(r, 5));
    // The repeated press tells the QR again, slowly; meanwhile the session moves on to a pairing code.
    backend.publishDelay = (e) => (e.type === 'session' && e.status === 'qrcode' ? 150 : 0);
    backend.command({ type: 'newQr', companyId: 7, connectionId: 5 });
    await new Promise((r) => setTimeout(r, 40));
    await fresh.ctx.emit({ type: 'session', status: 'PAIRING', qrcode: 'ABCD1234' });
    await waitFor(drained, 3000);
    expect(backend.sessionEvents(5).at(-1)).toMatchObject({ status: 'PAIRING', qrcode: 'ABCD1234' });
  });

  it('a start that failed is retried and "try again" starts it; a pairing code for another number restarts a waiting session', async () => {
    const { backend, providers, drained } = await setup();
    providers.sandbox.connectOnStart = false;
    providers.sandbox.failStarts = 1;
    backend.addConnection({ id: 5, companyId: 7, provider: 'sandbox', status: 'OPENING' });
    backend.command({ type: 'start', companyId: 7, connectionId: 5 });
    // The first start throws; the queue hands the command back and the retry starts a session.
    await waitFor(() => backend.sessionEvents(5).some((e) => e.status === 'qrcode'), 10_000, 'a QR after the retry');
    const failed = providers.sandbox.sessions.filter((x) => x.ctx.connectionId === 5);
    expect(failed).toHaveLength(2);
    expect(failed[0].calls).toEqual(['start', 'stop']);

    // A pairing code asked right away (same instant as the session's start) is not "already done".
    backend.command({ type: 'start', companyId: 7, connectionId: 5, pairingNumber: '5511977776666' });
    await waitFor(drained, 3000);
    expect(providers.sandbox.of(5)!.ctx.pairingNumber).toBe('5511977776666');
    // The same request again is: the session asked for is running.
    const pairing = providers.sandbox.of(5)!;
    backend.command({ type: 'start', companyId: 7, connectionId: 5, pairingNumber: '5511977776666' });
    await waitFor(drained, 3000);
    expect(providers.sandbox.of(5)).toBe(pairing);
  });

  it('starts a connection created after the shard was taken; newQr on a stopped one wipes credentials first', async () => {
    const { backend, providers, host, drained } = await setup();
    backend.addConnection({ id: 4, companyId: 9, provider: 'beta', status: 'OPENING' });
    backend.command({ type: 'start', companyId: 9, connectionId: 4 });
    await waitFor(() => host.sessions() === 3, 3000);
    expect(providers.beta.of(4)!.calls).toEqual(['start']);
    backend.authStore(8, 3).set({ creds: 'old' });
    backend.command({ type: 'newQr', companyId: 8, connectionId: 3 });
    await waitFor(drained, 3000);
    expect(providers.sandbox.of(3)!.calls).toEqual(['start']);
    expect(await backend.authStore(8, 3).get('creds')).toBe(JSON.stringify({ me: 3 }));
  });

  it('a start queued before the shard was taken does not restart the session the takeover started', async () => {
    const backend = new MemoryBackend(2);
    const providers = { beta: new TestProvider('beta'), sandbox: new TestProvider('sandbox') };
    backend.addConnection({ id: 1, companyId: 7, provider: 'sandbox', status: 'OPENING' });
    backend.command({ type: 'start', companyId: 7, connectionId: 1 });
    await new Promise((r) => setTimeout(r, 5));
    const host = await startSessionHost({ taskId: 't', providers, shards: 2, leaseMs: 3000, scanMs: 200, port: 0, log: quietLog, backend, reconnectWaitMs: 600 });
    hosts.push(host);
    await waitFor(() => backend.queues.get(0)!.messages.length === 0, 3000);
    expect(providers.sandbox.sessions).toHaveLength(1);
    expect(providers.sandbox.of(1)!.calls).toEqual(['start']);
  });

  it('drops commands for connections that no longer exist (and malformed ones); logout still wipes a deleted connection’s credentials', async () => {
    const { backend, providers, host, drained } = await setup();
    backend.command({ type: 'send', companyId: 7, connectionId: 4, ticketId: 1, waMessageId: 'Z', to, body: 'x' });
    backend.command({ type: 'start', companyId: 7, connectionId: 4 });
    backend.queues.get(0)!.push({ v: 1, type: 'explode' }, 'wapp-1');
    await backend.authStore(7, 6).set({ creds: 'x' });
    backend.command({ type: 'logout', companyId: 7, connectionId: 6 });
    // Deleted while running: the API deletes the item, then sends logout.
    backend.connections.delete(2);
    backend.command({ type: 'logout', companyId: 7, connectionId: 2 });
    await waitFor(drained, 3000);
    expect(backend.events.filter((e) => e.event.type === 'sendResult')).toEqual([]);
    expect(providers.beta.of(4)).toBeUndefined();
    expect(backend.auth.get('C#7#WAPP#6#AUTH')!.size).toBe(0);
    expect(providers.beta.of(2)!.calls).toEqual(['start', 'logout']);
    expect(host.sessions()).toBe(1);
  });

  it('a command whose result cannot be published is retried without sending twice', async () => {
    const { backend, providers, drained } = await setup();
    backend.failPublish = true;
    backend.command({ type: 'send', companyId: 7, connectionId: 1, ticketId: 5, waMessageId: 'R1', to, body: 'once' });
    await waitFor(() => providers.sandbox.of(1)!.sent.length === 1, 2000);
    await new Promise((r) => setTimeout(r, 100));
    backend.failPublish = false;
    await waitFor(drained, 5000, 'retried after the backoff');
    expect(providers.sandbox.of(1)!.sent).toHaveLength(1);
    expect(backend.events.filter((e) => e.event.type === 'sendResult').map((e) => e.event)).toMatchObject([{ ok: true, waMessageId: 'R1' }]);
  });
});

describe('session context', () => {
  it('emits versioned, valid events grouped per chat, session events on their own group, deduplicated by id', async () => {
    const { backend, providers } = await setup();
    const ctx = providers.sandbox.of(1)!.ctx;
    const msg = { type: 'message' as const, waMessageId: 'W1', chat: { number: '5511911112222' }, fromMe: false, body: 'oi', timestamp: 1 };
    await ctx.emit({ ...msg, eventId: 'e-1' });
    await ctx.emit({ ...msg, eventId: 'e-1' });
    await ctx.emit({ type: 'ack', chat: { lid: '12345' }, waMessageIds: ['W0'], ack: 3 });
    await ctx.emit({ type: 'message', waMessageId: 'G1', chat: { groupId: '1203630' }, sender: { number: '5511933334444' }, fromMe: false, body: 'grupo', timestamp: 2 });
    await ctx.emit({ type: 'contact', peer: { number: '5511911112222' }, name: 'Ana' });
    const mine = backend.events.filter((e) => e.event.connectionId === 1 && e.event.type !== 'session');
    expect(mine.map((e) => e.groupId)).toEqual(['1:n5511911112222', '1:l12345', '1:g1203630', '1:n5511911112222']);
    for (const { event } of backend.events) {
      expect(inboundEventSchema.parse(event)).toEqual(event);
      expect(event).toMatchObject({ v: 1, companyId: expect.any(Number), at: expect.any(String), eventId: expect.any(String) });
    }
    expect(mine[0].event.eventId).toBe('e-1');
    expect(new Set(backend.events.map((e) => e.event.eventId)).size).toBe(backend.events.length);
    expect(backend.events.filter((e) => e.event.type === 'session' && e.event.connectionId === 1).every((e) => e.groupId === '1:session')).toBe(true);
    // An invalid event is refused to the provider, never published.
    await expect(ctx.emit({ ...msg, waMessageId: '' })).rejects.toThrow();
  });

  it('stores media under the company and connection, reads it back, and looks messages up', async () => {
    const { backend, providers } = await setup();
    const ctx = providers.sandbox.of(1)!.ctx;
    const m1 = await ctx.storeMedia(Buffer.from('%PDF-1'), 'application/pdf', 'contrato.PDF');
    expect(m1).toMatchObject({ mimetype: 'application/pdf', fileName: 'contrato.PDF', size: 6 });
    expect(m1.key).toMatch(/^c\/7\/media\/1\/[0-9a-f-]{36}\.pdf$/);
    const m2 = await ctx.storeMedia(Buffer.from('ogg'), 'audio/ogg; codecs=opus');
    expect(m2.key).toMatch(/\.ogg$/);
    expect((await ctx.readMedia(m1.key)).toString()).toBe('%PDF-1');
    expect([backend.mediaTypes.get(m1.key), backend.mediaTypes.get(m2.key)]).toEqual(['application/pdf', 'audio/ogg; codecs=opus']);
    // A customer's HTML or SVG is stored inert (its link downloads it); the message keeps its type.
    const html = await ctx.storeMedia(Buffer.from('<script>alert(1)</script>'), 'text/html', 'oferta.html');
    const svg = await ctx.storeMedia(Buffer.from('<svg onload="alert(1)"/>'), 'image/svg+xml', 'logo.svg');
    expect([html.mimetype, svg.mimetype]).toEqual(['text/html', 'image/svg+xml']);
    expect([backend.mediaTypes.get(html.key), backend.mediaTypes.get(svg.key)]).toEqual(['application/octet-stream', 'application/octet-stream']);
    backend.messages.set('3EB0X', 'stored body');
    expect(await ctx.getMessage('3EB0X')).toEqual({ body: 'stored body', fromMe: false });
    expect(await ctx.getMessage('nope')).toBeUndefined();
  });
});

describe('event ids and groups', async () => {
  const { sqsId, chatKey, groupOf, ChatGroups } = await import('../src/host/events.js');
  const { mediaExtension } = await import('../src/host/context.js');

  it('keeps FIFO ids within what SQS accepts', () => {
    expect(sqsId('3EB0ABC')).toBe('3EB0ABC');
    expect(sqsId('a b\u00e7\n')).toBe('a_b__');
    expect(sqsId('x'.repeat(300))).toHaveLength(128);
  });

  it('names a chat by group, else by the LID, else by the number', () => {
    expect(chatKey({ groupId: '1203', number: '5511911112222' })).toBe('g1203');
    expect(chatKey({ number: '5511922223333', lid: '999' })).toBe('l999');
    expect(chatKey({ lid: '998' })).toBe('l998');
    expect(chatKey({ number: '5511933334444' })).toBe('n5511933334444');
    expect(chatKey({})).toBe('unknown');
    expect(groupOf(4, { type: 'session', status: 'CONNECTED' })).toBe('4:session');
    expect(groupOf(4, { type: 'contact', peer: { lid: '77' } })).toBe('4:l77');
  });

  it("keeps one chat's events in one FIFO group while the host learns its number or its LID", () => {
    const groups = new ChatGroups();
    // First known by LID alone (Baileys 7 before it learns the number), then with the number, then by either half.
    expect(groups.keyOf({ lid: '111' })).toBe('l111');
    expect(groups.keyOf({ lid: '111', number: '5511911110000' })).toBe('l111');
    expect(groups.keyOf({ number: '5511911110000' })).toBe('l111');
    // First known by number alone, the LID learned later: the chat keeps its number's group.
    expect(groups.keyOf({ number: '5511922220000' })).toBe('n5511922220000');
    expect(groups.keyOf({ number: '5511922220000', lid: '222' })).toBe('n5511922220000');
    expect(groups.keyOf({ lid: '222' })).toBe('n5511922220000');
    // Both halves seen apart before they were paired: the LID's group wins (a fresh process picks it too).
    expect(groups.keyOf({ number: '5511933330000' })).toBe('n5511933330000');
    expect(groups.keyOf({ lid: '333' })).toBe('l333');
    expect(groups.keyOf({ lid: '333', number: '5511933330000' })).toBe('l333');
    expect(groups.keyOf({ number: '5511933330000' })).toBe('l333');
    // Bounded: the least recently used name is forgotten first (here the LID, remembered before the number).
    const small = new ChatGroups(2);
    small.keyOf({ number: '5511944440000' });
    small.keyOf({ number: '5511944440000', lid: '444' });
    small.keyOf({ lid: '555' });
    expect(small.keyOf({ lid: '444' })).toBe('l444');
  });

  it('groups a send result with the inbound events of the same chat', () => {
    // An inbound event by LID alone, then the send command's recipient as functions name it (number and LID).
    expect(groupOf(4, { type: 'message', waMessageId: 'W', chat: { lid: '666' }, fromMe: false, body: 'oi', timestamp: 1 })).toBe('4:l666');
    expect(sqsId(`4:${chatKey({ number: '5511966660000', lid: '666' })}`)).toBe('4:l666');
  });

  it('picks a media extension from the file name, else the type', () => {
    expect(mediaExtension('application/octet-stream', 'nota.XLSX')).toBe('xlsx');
    expect(mediaExtension('audio/ogg; codecs=opus')).toBe('ogg');
    expect(mediaExtension('image/jpeg', 'sem-extensao')).toBe('jpg');
    expect(mediaExtension('application/x-weird')).toBe('xweird');
  });
});
