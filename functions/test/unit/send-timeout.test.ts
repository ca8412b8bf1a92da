import { describe, expect, it } from 'vitest';
import { inboundEventSchema } from '@balcao/shared';
import { memoryWorld } from '../fakes/world.js';

/**
 * Issue 16 §1: a sent message WhatsApp never confirms does not stay a silent clock icon. Each send
 * leaves a delayed check on the ticket-timers queue; the check marks a still unconfirmed message
 * failed (the retry button), leaves a confirmed or failed one alone, and checks again a message
 * that changed meanwhile. A send the queues cannot take is shown failed at once.
 */
const { receiveInbound } = await import('../../src/services/inbound.js');
const { sendInTicket, retrySend, runSendTimeout, runSendRecovery, sendTimeoutJobSchema, sendRecoveryJobSchema, SEND_TIMEOUT_SECONDS, SEND_RECOVERY_SECONDS } =
  await import('../../src/services/outbound.js');

type World = Awaited<ReturnType<typeof memoryWorld>>;
let seq = 0;
const customer = { number: '5511977775555', name: 'Seu Jorge' };
const event = (w: World, fields: Record<string, unknown>) =>
  inboundEventSchema.parse({ v: 1, eventId: `ev-${++seq}`, companyId: w.companyId, connectionId: w.connectionId, at: new Date(w.ports.time).toISOString(), ...fields });

async function ticketOf(w: World) {
  await w.ports.run(() => receiveInbound(event(w, { type: 'message', waMessageId: `WA-${++seq}`, chat: customer, fromMe: false, body: 'Oi', timestamp: w.ports.time })));
  return w.ports.table.all().find((i) => i.entity === 'ticket') as never;
}
const messageOf = (w: World, id: string) => w.ports.table.all().find((i) => i.entity === 'message' && i.id === id) as Record<string, unknown>;
const timers = (w: World, kind: string) => w.ports.enqueued.filter((j) => j.queue === 'ticket-timers' && (j.body as { kind: string }).kind === kind);
const checks = (w: World) => timers(w, 'sendTimeout').map((j) => ({ ...j, job: sendTimeoutJobSchema.parse(j.body) }));
const recoveries = (w: World) => timers(w, 'sendRecovery').map((j) => ({ ...j, job: sendRecoveryJobSchema.parse(j.body) }));

describe('the send timeout (in-memory ports)', () => {
  it('a send leaves a delayed check; an unconfirmed message becomes a failure the agent can retry, shown live', async () => {
    const w = await memoryWorld();
    const ticket = await ticketOf(w);
    const sent = await w.ports.run(() => sendInTicket(ticket, { body: 'Já te respondo' }));
    expect(w.ports.sentCommands.filter((c) => c.type === 'send')).toHaveLength(1);
    const [check] = checks(w);
    expect(check).toMatchObject({ delaySeconds: SEND_TIMEOUT_SECONDS, job: { kind: 'sendTimeout', waMessageId: sent.id, since: sent.updatedAt } });

    w.ports.time += SEND_TIMEOUT_SECONDS * 1000;
    expect(await w.ports.run(() => runSendTimeout(check!.job))).toBe('failed');
    expect(messageOf(w, sent.id)).toMatchObject({ ack: 0, error: 'ERR_SENDING_WAPP_MSG' });
    expect(w.ports.events(`company-${w.companyId}-appMessage`).at(-1)).toMatchObject({ action: 'update', message: { id: sent.id, error: 'ERR_SENDING_WAPP_MSG' } });
    // A repeated check changes nothing.
    expect(await w.ports.run(() => runSendTimeout(check!.job))).toBe('confirmed');

    // The retry reuses the id and leaves its own check; the first check, late, does not fail it early.
    w.ports.time += 1000;
    const retried = await w.ports.run(() => retrySend(messageOf(w, sent.id) as never));
    expect(retried).toMatchObject({ id: sent.id, error: null });
    expect(checks(w)).toHaveLength(2);
    expect(await w.ports.run(() => runSendTimeout(check!.job))).toBe('rechecked');
    expect(messageOf(w, sent.id)).toMatchObject({ error: null });
  });

  it('a message WhatsApp confirmed, or whose failure was reported, is left alone', async () => {
    const w = await memoryWorld();
    const ticket = await ticketOf(w);
    const sent = await w.ports.run(() => sendInTicket(ticket, { body: 'Confirmada' }));
    w.ports.time += 500;
    await w.ports.run(() => receiveInbound(event(w, { type: 'ack', chat: customer, waMessageIds: [sent.id], ack: 2 })));
    expect(await w.ports.run(() => runSendTimeout(checks(w)[0]!.job))).toBe('confirmed');
    expect(messageOf(w, sent.id)).toMatchObject({ ack: 2, error: null });
  });

  it('a send the command queue refuses is shown failed at once, never a silent clock', async () => {
    const w = await memoryWorld();
    const ticket = await ticketOf(w);
    w.ports.commandsDown = true;
    const sent = await w.ports.run(() => sendInTicket(ticket, { body: 'Fila fora do ar' }));
    expect(sent).toMatchObject({ error: 'ERR_SENDING_WAPP_MSG' });
    expect(messageOf(w, sent.id)).toMatchObject({ error: 'ERR_SENDING_WAPP_MSG' });
    expect(w.ports.events(`company-${w.companyId}-appMessage`).at(-1)).toMatchObject({ action: 'update', message: { id: sent.id, error: 'ERR_SENDING_WAPP_MSG' } });
  });

  it('a process killed between storing a send and handing it over: the recovery check left first hands it over, under the same command id', async () => {
    const w = await memoryWorld();
    const ticket = await ticketOf(w);
    // The process dies right after the message is stored: its hand-over never completes.
    const enqueue = w.ports.jobs.enqueue;
    w.ports.jobs.enqueue = (queue, bodies, delay) => ((bodies[0] as { kind?: string }).kind === 'sendTimeout' ? new Promise(() => {}) : enqueue(queue, bodies, delay));
    void w.ports.run(() => sendInTicket(ticket, { body: 'Guardada antes da queda' }));
    for (let i = 0; i < 50 && !w.ports.table.all().some((i) => i.entity === 'message' && i.fromMe); i++) await new Promise((r) => setTimeout(r, 10));
    w.ports.jobs.enqueue = enqueue;
    const stored = w.ports.table.all().find((i) => i.entity === 'message' && i.fromMe) as { id: string };
    expect(w.ports.sentCommands).toHaveLength(0);
    const [recovery] = recoveries(w);
    expect(recovery).toMatchObject({ delaySeconds: SEND_RECOVERY_SECONDS, job: { waMessageId: stored.id } });

    expect(await w.ports.run(() => runSendRecovery(recovery!.job))).toBe('redispatched');
    expect(w.ports.sentCommands).toEqual([expect.objectContaining({ type: 'send', waMessageId: stored.id, commandId: recovery!.job.commandId, body: 'Guardada antes da queda' })]);
    expect(checks(w)).toHaveLength(1); // and its timeout check
  });

  it('after a normal send the recovery check repeats the same command id (dropped by the FIFO queue) and does nothing once confirmed or failed', async () => {
    const w = await memoryWorld();
    const ticket = await ticketOf(w);
    const sent = await w.ports.run(() => sendInTicket(ticket, { body: 'Normal' }));
    const [recovery] = recoveries(w);
    const [command] = w.ports.sentCommands;
    expect(command!.commandId).toBe(recovery!.job.commandId);
    // Still unconfirmed (a reconnecting session): handed over again with the very same id.
    expect(await w.ports.run(() => runSendRecovery(recovery!.job))).toBe('redispatched');
    expect(new Set(w.ports.sentCommands.map((c) => c.commandId))).toEqual(new Set([command!.commandId]));
    await w.ports.run(() => receiveInbound(event(w, { type: 'ack', chat: customer, waMessageIds: [sent.id], ack: 2 })));
    expect(await w.ports.run(() => runSendRecovery(recovery!.job))).toBe('settled');

    // A retry is a new attempt: its own recovery check and command id.
    const failed = await w.ports.run(() => sendInTicket(ticket, { body: 'Vai falhar' }));
    w.ports.time += SEND_TIMEOUT_SECONDS * 1000;
    expect(await w.ports.run(() => runSendTimeout(checks(w).at(-1)!.job))).toBe('failed');
    expect(await w.ports.run(() => runSendRecovery(recoveries(w).at(-1)!.job))).toBe('settled');
    await w.ports.run(() => retrySend(messageOf(w, failed.id) as never));
    const retry = recoveries(w).at(-1)!;
    expect(retry.job.commandId).not.toBe(recoveries(w).at(-2)!.job.commandId);
    expect(w.ports.sentCommands.at(-1)!.commandId).toBe(retry.job.commandId);
  });

  it('a retry made before the first attempt\'s recovery check runs: that late check stands down, the message is sent once per attempt', async () => {
    const w = await memoryWorld();
    const ticket = await ticketOf(w);
    w.ports.commandsDown = true;
    const failed = await w.ports.run(() => sendInTicket(ticket, { body: 'Falhou e foi reenviada' }));
    expect(failed).toMatchObject({ error: 'ERR_SENDING_WAPP_MSG' });
    const first = recoveries(w)[0]!;
    w.ports.commandsDown = false;
    w.ports.time += 2000; // the agent presses retry within the 10 s of the first check
    await w.ports.run(() => retrySend(messageOf(w, failed.id) as never));
    const second = recoveries(w).at(-1)!;
    expect(messageOf(w, failed.id)).toMatchObject({ error: null, sendCommandId: second.job.commandId });
    expect(w.ports.sentCommands.map((c) => c.commandId)).toEqual([second.job.commandId]);

    // The first check, late: the message is unconfirmed and not failed, but it belongs to the retry now.
    expect(await w.ports.run(() => runSendRecovery(first.job))).toBe('settled');
    expect(await w.ports.run(() => runSendRecovery(second.job))).toBe('redispatched');
    expect(new Set(w.ports.sentCommands.map((c) => c.commandId))).toEqual(new Set([second.job.commandId]));
  });
});
