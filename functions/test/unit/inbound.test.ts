import { describe, expect, it } from 'vitest';
import { ACK, inboundEventSchema, type InboundEvent } from '@balcao/shared';
import { memoryWorld } from '../fakes/world.js';

/**
 * The inbound use case (services/inbound.ts) against in-memory ports: what a customer's message,
 * our echoes, receipts and calls do to contacts, tickets and messages, what is published and what
 * is sent back to WhatsApp. The stack tests (integration/ingest.test.ts) prove the same through
 * the real queue, table and session host.
 */
const { receiveInbound, CALLS_DISABLED_MESSAGE } = await import('../../src/services/inbound.js');
const { updateSetting } = await import('../../src/services/settings.js');

type World = Awaited<ReturnType<typeof memoryWorld>>;
let seq = 0;
function event(w: World, e: Record<string, unknown>): InboundEvent {
  return inboundEventSchema.parse({ v: 1, eventId: `ev-${++seq}`, companyId: w.companyId, connectionId: w.connectionId, at: new Date(w.ports.time).toISOString(), ...e });
}
const customer = { number: '5511988887777', name: 'Cliente Teste' };
const message = (w: World, id: string, body: string, extra: Record<string, unknown> = {}) =>
  event(w, { type: 'message', waMessageId: id, chat: customer, fromMe: false, body, timestamp: w.ports.time, ...extra });

const items = (w: World, entity: string) => w.ports.table.all().filter((i) => i.entity === entity) as Record<string, unknown>[];

describe('receiving from WhatsApp (in-memory ports)', () => {
  it('a customer message opens a pending ticket for a new contact, stores it unread and publishes it once; a redelivery changes nothing', async () => {
    const w = await memoryWorld();
    await w.ports.run(() => receiveInbound(message(w, 'WA-1', 'Olá, bom dia')));
    const [contact] = items(w, 'contact');
    expect(contact).toMatchObject({ name: 'Cliente Teste', number: '5511988887777', companyId: w.companyId });
    const [ticket] = items(w, 'ticket');
    expect(ticket).toMatchObject({ status: 'pending', contactId: contact.id, whatsappId: w.connectionId, unreadMessages: 1, lastMessage: 'Olá, bom dia', userId: null });
    const [stored] = items(w, 'message');
    expect(stored).toMatchObject({ id: 'WA-1', body: 'Olá, bom dia', fromMe: false, ack: ACK.DELIVERED, ticketId: ticket.id });
    const created = w.ports.events(`company-${w.companyId}-appMessage`).filter((d) => d.action === 'create');
    expect(created).toHaveLength(1);
    expect(created[0]).toMatchObject({ message: { id: 'WA-1', body: 'Olá, bom dia' } });
    expect(w.ports.sentCommands).toEqual([]);

    // The same event again (the queue redelivers): nothing new stored or published.
    const published = w.ports.published.length;
    const before = w.ports.table.all();
    await w.ports.run(() => receiveInbound(message(w, 'WA-1', 'Olá, bom dia')));
    expect(w.ports.table.all()).toEqual(before);
    expect(w.ports.published.length).toBe(published);
  });

  it('a second message joins the open ticket; the clock of the ports dates what is written', async () => {
    const w = await memoryWorld();
    await w.ports.run(() => receiveInbound(message(w, 'WA-1', 'Primeira')));
    w.ports.advance(60_000);
    await w.ports.run(() => receiveInbound(message(w, 'WA-2', 'Segunda')));
    expect(items(w, 'ticket')).toHaveLength(1);
    const [ticket] = items(w, 'ticket');
    expect(ticket).toMatchObject({ unreadMessages: 2, lastMessage: 'Segunda', updatedAt: new Date(w.ports.time).toISOString() });
    expect(items(w, 'message').map((m) => m.id)).toEqual(['WA-1', 'WA-2']);
  });

  it('our own message echoed back is not stored twice and raises its ack; a receipt raises it further, never lowers it', async () => {
    const w = await memoryWorld();
    await w.ports.run(() => receiveInbound(message(w, 'WA-1', 'Oi')));
    // Sent from the phone itself: stored as ours, already sent.
    await w.ports.run(() => receiveInbound(message(w, 'WA-OWN', 'Resposta do celular', { fromMe: true })));
    expect(items(w, 'message').find((m) => m.id === 'WA-OWN')).toMatchObject({ fromMe: true, ack: ACK.SENT });
    await w.ports.run(() => receiveInbound(event(w, { type: 'ack', chat: customer, waMessageIds: ['WA-OWN'], ack: ACK.READ })));
    expect(items(w, 'message').find((m) => m.id === 'WA-OWN')).toMatchObject({ ack: ACK.READ });
    // A late, lower receipt and the echo again change nothing.
    await w.ports.run(() => receiveInbound(event(w, { type: 'ack', chat: customer, waMessageIds: ['WA-OWN'], ack: ACK.DELIVERED })));
    await w.ports.run(() => receiveInbound(message(w, 'WA-OWN', 'Resposta do celular', { fromMe: true })));
    expect(items(w, 'message').filter((m) => m.id === 'WA-OWN')).toEqual([expect.objectContaining({ ack: ACK.READ })]);
  });

  it('drops status broadcasts, and group messages while the company ignores groups', async () => {
    const w = await memoryWorld();
    await w.ports.run(() => receiveInbound(message(w, 'WA-B', 'status', { broadcast: true })));
    await w.ports.run(() => updateSetting(w.companyId, 'CheckMsgIsGroup', { value: 'enabled' }));
    await w.ports.run(() => receiveInbound(message(w, 'WA-G', 'no grupo', { chat: { groupId: '120363000000000001', name: 'Grupo' }, sender: customer })));
    expect(items(w, 'message')).toEqual([]);
    expect(items(w, 'ticket')).toEqual([]);
  });

  it('a call is logged in the ticket; with calls disabled it is rejected and the customer gets the automatic message, once', async () => {
    const w = await memoryWorld();
    await w.ports.run(() => updateSetting(w.companyId, 'call', { value: 'disabled' }));
    const call = event(w, { type: 'call', chat: customer, callId: 'CALL-1', isVideo: false, timestamp: w.ports.time });
    await w.ports.run(() => receiveInbound(call));
    expect(items(w, 'message').find((m) => m.id === 'call-CALL-1')).toMatchObject({ mediaType: 'call_log', body: '📞 Chamada de voz' });
    const [reject, reply] = w.ports.sentCommands;
    expect(reject).toMatchObject({ type: 'rejectCall', callId: 'CALL-1', connectionId: w.connectionId });
    expect(reply).toMatchObject({ type: 'send', body: CALLS_DISABLED_MESSAGE, connectionId: w.connectionId });
    // Stored as ours, waiting for the session host's result (ack 0 without an error: the clock icon).
    const auto = items(w, 'message').find((m) => m.body === CALLS_DISABLED_MESSAGE);
    expect(auto).toMatchObject({ fromMe: true, ack: 0, id: reply.type === 'send' ? reply.waMessageId : '' });
    expect(auto?.error).toBeFalsy();
    // Redelivered: nothing sent again.
    await w.ports.run(() => receiveInbound(call));
    expect(w.ports.sentCommands).toHaveLength(2);
  });

  it('a session change updates the connection and is published to the company', async () => {
    const w = await memoryWorld();
    await w.ports.run(() => receiveInbound(event(w, { type: 'session', status: 'CONNECTED', number: '5511999990000' })));
    expect(items(w, 'connection')[0]).toMatchObject({ status: 'CONNECTED', number: '5511999990000' });
    expect(w.ports.events(`company-${w.companyId}-whatsappSession`).at(-1)).toMatchObject({ action: 'update', session: { status: 'CONNECTED' } });
  });

  it('a stale owner of the session (an older lease epoch) never overwrites the current owner\'s status (issue 17 §9)', async () => {
    const w = await memoryWorld();
    await w.ports.run(() => receiveInbound(event(w, { type: 'session', status: 'CONNECTED', number: '5511999990000', epoch: 8 })));
    // The previous host's socket closes late, after the handover: 440 replaced.
    await w.ports.run(() => receiveInbound(event(w, { type: 'session', status: 'DISCONNECTED', reason: 'replaced', epoch: 7 })));
    expect(items(w, 'connection')[0]).toMatchObject({ status: 'CONNECTED', statusEpoch: 8 });
    // The current owner's own later reports still land.
    await w.ports.run(() => receiveInbound(event(w, { type: 'session', status: 'OPENING', epoch: 8 })));
    expect(items(w, 'connection')[0]).toMatchObject({ status: 'OPENING' });
  });
});
