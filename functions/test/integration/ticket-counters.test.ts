import { describe, expect, it } from 'vitest';
import { applyStackEnv } from './client.js';
import { customer, expectCountersMatchTickets, world } from './tickets-helpers.js';

/**
 * The working-set counters' rebuild (the seed's migration for tickets stored before counters
 * existed, and a repair): it writes what the tickets say, zeroes combinations no ticket holds any
 * more, and running it again changes nothing. The tab badges read them.
 */
describe('ticket counters rebuild', () => {
  it('restores lost and stale counters from the tickets; idempotent', async () => {
    const w = await world();
    applyStackEnv();
    const { queryAll, deleteItem, putItem } = await import('../../src/core/db.js');
    const { rebuildTicketCounters, readTicketCounters } = await import('../../src/services/ticket-counters.js');
    const { ticketCountersPartition: ticketCountersPk } = await import('../../src/table/keys.js');
    const made = [];
    for (let i = 0; i < 3; i++) made.push(await customer(w.companyId, w.connectionId));
    expect((await w.admin.put(`/tickets/${made[0].ticketId}`, { status: 'open', queueId: w.q1 })).status).toBe(200);
    const badges = async () => (await w.admin.get('/tickets/counts')).body;
    expect(await badges()).toEqual({ me: 1, others: 0, pending: 2 });

    // As an older version left them: no counters at all, and one no ticket backs.
    for (const c of await queryAll<{ PK: string; SK: string }>(ticketCountersPk(w.companyId))) await deleteItem({ PK: c.PK, SK: c.SK });
    await putItem({ PK: ticketCountersPk(w.companyId), SK: 'open#0000000099#0000000099', entity: 'ticketCounter', status: 'open', queueId: 99, userId: 99, n: 4 });
    expect(await badges()).toEqual({ me: 0, others: 4, pending: 0 });

    expect(await rebuildTicketCounters(w.companyId)).toBe(2);
    expect(await badges()).toEqual({ me: 1, others: 0, pending: 2 });
    const once = await queryAll(ticketCountersPk(w.companyId));
    expect(await rebuildTicketCounters(w.companyId)).toBe(2);
    expect(await queryAll(ticketCountersPk(w.companyId))).toEqual(once);
    expect((await readTicketCounters(w.companyId)).map((c) => c.n).sort()).toEqual([1, 2]);
    await expectCountersMatchTickets();
  }, 120_000);
});
