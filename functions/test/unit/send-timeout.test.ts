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
const { sendInTicket, retrySend, runSendTimeout, sendTimeoutJobSchema, SEND_TIMEOUT_SECONDS } = await import('../../src/services/outbound.js');

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
const checks = (w: World) => w.ports.enqueued.filter((j) => j.queue === 'ticket-timers').map((j) => ({ ...j, job: sendTimeoutJobSchema.parse(j.body) }));

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
});
