import { describe, expect, it } from 'vitest';
import { RATING_REQUEST } from '@balcao/shared';
import { customerWrites as writes, memoryAgent, memoryWorld } from '../fakes/world.js';

/**
 * The ticket lifecycle (services/ticket-lifecycle.ts) against in-memory ports: accepting, the
 * loser of two accepts, closing with the rating request, the customer's rating answer, and the
 * clock deciding the rating window. The browser and stack tests prove the same end to end.
 */
const { updateTicket } = await import('../../src/services/ticket-lifecycle.js');
const { updateSetting } = await import('../../src/services/settings.js');
const { updateConnection } = await import('../../src/services/connections.js');
const { RATING_WINDOW_MS } = await import('../../src/services/ticket-lifecycle.js');

type World = Awaited<ReturnType<typeof memoryWorld>>;
const customer = { number: '5511977776666', name: 'Dona Maria' };
const customerWrites = (w: World, body: string) => writes(w, customer, body);
const tickets = (w: World) => w.ports.table.all().filter((i) => i.entity === 'ticket') as Record<string, unknown>[] & { id: number }[];

describe('the ticket lifecycle (in-memory ports)', () => {
  it('accepting opens the ticket for the agent and publishes it; a second agent with a stale screen is told who has it', async () => {
    const w = await memoryWorld();
    const ana = await memoryAgent(w, 'Ana Primeira');
    const beto = await memoryAgent(w, 'Beto Segundo');
    await customerWrites(w, 'Quem me atende?');
    const [pending] = tickets(w);
    expect(pending).toMatchObject({ status: 'pending', userId: null });

    const accepted = await w.ports.run(() => updateTicket(ana, pending.id, { status: 'open', userId: ana.userId }));
    expect(accepted).toMatchObject({ status: 'open', userId: ana.userId });
    expect(w.ports.events(`company-${w.companyId}-ticket`).at(-1)).toMatchObject({ action: 'update', ticket: { id: pending.id, status: 'open', userId: ana.userId } });

    const late = await w.ports.run(() => updateTicket(beto, pending.id, { status: 'open', userId: beto.userId })).catch((e: unknown) => e);
    expect(late).toMatchObject({ status: 409, message: 'Atendimento já atribuido ao usuário Ana Primeira' });
    expect(tickets(w)[0]).toMatchObject({ status: 'open', userId: ana.userId });
  });

  it('closing with ratings on asks the customer once; a reply 1-3 within the window is the rating and opens no ticket; a later message reopens it', async () => {
    const w = await memoryWorld();
    const ana = await memoryAgent(w, 'Ana Primeira');
    await w.ports.run(() => updateSetting(w.companyId, 'userRating', { value: 'enabled' }));
    await w.ports.run(() => updateConnection(w.companyId, w.connectionId, { name: 'Loja WhatsApp', ratingMessage: 'Obrigado pelo contato!' }));
    await customerWrites(w, 'Preciso de ajuda');
    const [t] = tickets(w);
    await w.ports.run(() => updateTicket(ana, t.id, { status: 'open', userId: ana.userId }));
    w.ports.forgetRecords();

    await w.ports.run(() => updateTicket(ana, t.id, { status: 'closed' }));
    const closed = tickets(w)[0];
    expect(closed).toMatchObject({ status: 'closed', awaitingRatingUntil: new Date(w.ports.time + RATING_WINDOW_MS).toISOString() });
    expect(w.ports.sentCommands.map((c) => (c.type === 'send' ? c.body : c.type))).toEqual(['Obrigado pelo contato!', RATING_REQUEST]);

    w.ports.advance(60_000);
    await customerWrites(w, '3');
    expect(tickets(w)).toHaveLength(1);
    expect(tickets(w)[0]).toMatchObject({ status: 'closed', rating: 3, ratingUserId: ana.userId, ratingAt: new Date(w.ports.time).toISOString(), awaitingRatingUntil: null });

    // The rating is taken: the next message, within two hours of the close, reopens the ticket
    // for the queue (server-behaviour §2 step 4), keeping its rating.
    await customerWrites(w, 'Outra dúvida');
    expect(tickets(w)).toEqual([expect.objectContaining({ id: t.id, status: 'pending', userId: null, rating: 3 })]);
  });

  it('a reply after the rating window is an ordinary message: no rating, a new ticket', async () => {
    const w = await memoryWorld();
    const ana = await memoryAgent(w, 'Ana Primeira');
    await w.ports.run(() => updateSetting(w.companyId, 'userRating', { value: 'enabled' }));
    await customerWrites(w, 'Oi');
    const [t] = tickets(w);
    await w.ports.run(() => updateTicket(ana, t.id, { status: 'open', userId: ana.userId }));
    await w.ports.run(() => updateTicket(ana, t.id, { status: 'closed' }));
    w.ports.advance(RATING_WINDOW_MS + 1);
    await customerWrites(w, '2');
    expect(tickets(w).find((x) => x.id === t.id)?.rating).toBeUndefined();
    // A day after the close: a new conversation, not a reopened one.
    expect(tickets(w).map((x) => [x.id === t.id, x.status])).toEqual([
      [true, 'closed'],
      [false, 'pending'],
    ]);
  });
});
