import { afterAll, describe, expect, it } from 'vitest';
import { member } from './client.js';
import { customer, expectCountersMatchTickets, ticketItem, world } from './tickets-helpers.js';

/*
 * The lifecycle writes keep the tracking timestamps of server-behaviour §12 and the ticket timer
 * index (GSI4) true: every whole-item write recomputes both, so the sweeper never reads a ticket
 * in the wrong timer partition.
 */

const at = (iso: string | null | undefined) => (iso ? Date.parse(iso) : NaN);

describe('lifecycle tracking and the timer index', () => {
  it('queuedAt, startedAt, finishedAt per cycle (§12); the timer partition follows status, queue and last message', async () => {
    const w = await world();
    const agent = await member(w.admin, { name: 'Nivel Um', profile: 'Nível 1', queueIds: [w.q1] });
    const { ticketId } = await customer(w.companyId, w.connectionId, { text: 'Oi' });
    const transferPartition = `C#${w.companyId}#TMR#${w.connectionId}#transfer`;
    const expirePartition = `C#${w.companyId}#TMR#${w.connectionId}#expire`;

    let item = await ticketItem(w.companyId, ticketId);
    expect(item).toMatchObject({ status: 'pending', queueId: null, startedAt: null, finishedAt: null, lastFromMe: false, GSI4PK: transferPartition });
    expect(item!.GSI4SK).toBe(`${item!.updatedAt}#${String(ticketId).padStart(10, '0')}`);
    const queuedAt = at(item!.queuedAt);

    // Accept: the wait ends; open with the customer's word last waits for the agent, not a timer.
    const accepted = (await w.admin.put(`/tickets/${ticketId}`, { status: 'open' })).body;
    expect(at(accepted.startedAt)).toBeGreaterThanOrEqual(queuedAt);
    expect(at(accepted.queuedAt)).toBe(queuedAt);
    item = await ticketItem(w.companyId, ticketId);
    expect(item!.GSI4PK).toBeUndefined();

    // Our message last: the inactivity-close partition.
    expect((await w.admin.post(`/messages/${ticketId}`, { body: 'Como posso ajudar?' })).status).toBeLessThan(300);
    item = await ticketItem(w.companyId, ticketId);
    expect(item).toMatchObject({ lastFromMe: true, GSI4PK: expirePartition });

    // Transfer to another agent and queue: the same cycle, started when it was accepted.
    const transferred = (await w.admin.put(`/tickets/${ticketId}`, { userId: agent.id, queueId: w.q1 })).body;
    expect(transferred).toMatchObject({ status: 'open', userId: agent.id, queueId: w.q1 });
    expect(transferred.startedAt).toBe(accepted.startedAt);

    // Back to pending (the agent returns it): a new wait, no start; in a queue, so no auto-transfer.
    const returned = (await agent.api.put(`/tickets/${ticketId}`, { status: 'pending' })).body;
    expect(returned).toMatchObject({ status: 'pending', userId: null, startedAt: null, queueId: w.q1 });
    expect(at(returned.queuedAt)).toBeGreaterThan(queuedAt);
    item = await ticketItem(w.companyId, ticketId);
    expect(item!.GSI4PK).toBeUndefined();

    // Taken again and closed: finishedAt, out of every timer partition.
    const taken = (await agent.api.put(`/tickets/${ticketId}`, { status: 'open' })).body;
    expect(at(taken.startedAt)).toBeGreaterThanOrEqual(at(returned.queuedAt));
    const closed = (await agent.api.put(`/tickets/${ticketId}`, { status: 'closed', isJustFinish: true })).body;
    expect(closed.status).toBe('closed');
    expect(at(closed.finishedAt)).toBeGreaterThanOrEqual(at(taken.startedAt));
    item = await ticketItem(w.companyId, ticketId);
    expect(item!.GSI4PK).toBeUndefined();

    // Reopened straight to open: a new cycle whose wait is zero, not the last cycle's wait.
    const reopened = (await agent.api.put(`/tickets/${ticketId}`, { status: 'open' })).body;
    expect(reopened).toMatchObject({ status: 'open', userId: agent.id, finishedAt: null });
    expect(at(reopened.queuedAt)).toBeGreaterThan(at(closed.finishedAt));
    expect(reopened.startedAt).toBe(reopened.queuedAt);
  });

  it('a pending ticket returned without a queue waits for the auto-transfer again', async () => {
    const w = await world();
    const { ticketId } = await customer(w.companyId, w.connectionId, { text: 'Oi' });
    await w.admin.put(`/tickets/${ticketId}`, { status: 'open' });
    const back = (await w.admin.put(`/tickets/${ticketId}`, { status: 'pending' })).body;
    expect(back).toMatchObject({ status: 'pending', queueId: null });
    const item = await ticketItem(w.companyId, ticketId);
    expect(item).toMatchObject({ GSI4PK: `C#${w.companyId}#TMR#${w.connectionId}#transfer`, GSI4SK: `${item!.updatedAt}#${String(ticketId).padStart(10, '0')}` });
    // Moving it to a queue takes it out.
    await w.admin.put(`/tickets/${ticketId}`, { queueId: w.q2 });
    expect((await ticketItem(w.companyId, ticketId))!.GSI4PK).toBeUndefined();
  });
});

// Every write path these tests went through kept the tab-badge counters exact.
afterAll(expectCountersMatchTickets, 60_000);
