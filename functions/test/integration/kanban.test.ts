import { describe, expect, it } from 'vitest';
import { member, tenant } from './client.js';
import { customer, world } from './tickets-helpers.js';

type Api = Awaited<ReturnType<typeof tenant>>['admin'];
interface Lane {
  id: number;
  ticketIds: number[];
  hasMore: boolean;
  cursor: string | null;
}

const board = async (api: Api, qs = '') => {
  const res = await api.get(`/ticket/kanban${qs ? `?${qs}` : ''}`);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  const lanes = res.body.lanes as Lane[];
  // Every lane's cards are in `tickets` (the spec's answer), with the names a card shows.
  for (const l of lanes) for (const id of l.ticketIds) expect(res.body.tickets.some((t: { id: number }) => t.id === id)).toBe(true);
  return { tickets: res.body.tickets as { id: number; contact: { name: string; number: string; tagIds: number[] }; tagIds: number[] }[], lane: (id: number) => lanes.find((l) => l.id === id)!, lanes };
};
const sorted = (ids: number[]) => [...ids].sort((a, b) => a - b);

describe('kanban board', () => {
  it('lanes by ticket tag and by contact tag, visibility, paging per lane, moves, bad input and the plan flag', async () => {
    const w = await world();
    const mk = async (body: Record<string, unknown>) => (await w.admin.post('/tags', body)).body.id as number;
    const laneA = await mk({ name: 'Proposta', kanban: 1 });
    const laneB = await mk({ name: 'Fechamento', kanban: 1 });
    const plain = await mk({ name: 'Comum' });
    const contactLane = await mk({ name: 'Cliente VIP', type: 'contact', kanban: 1 });

    const chats = [];
    for (let i = 0; i < 24; i++) chats.push(await customer(w.companyId, w.connectionId, { name: `Cliente ${i}` }));
    const [inA, inB, loose, closed, ...many] = chats;
    // 21 cards in lane A (more than a page), one in B, a loose one with a plain tag, one closed.
    for (const c of [inA, ...many]) expect((await w.admin.put(`/ticket-tags/${c.ticketId}/${laneA}`)).status).toBe(200);
    expect((await w.admin.put(`/ticket-tags/${inB.ticketId}/${laneB}`)).status).toBe(200);
    expect((await w.admin.put(`/ticket-tags/${loose.ticketId}/${plain}`)).status).toBe(200);
    expect((await w.admin.put(`/ticket-tags/${closed.ticketId}/${laneB}`)).status).toBe(200);
    expect((await w.admin.put(`/tickets/${closed.ticketId}`, { status: 'closed' })).status).toBe(200);

    const b = await board(w.admin);
    expect(b.lanes.map((l) => l.id)).toEqual([0, laneA, laneB]);
    expect(b.lane(0)).toMatchObject({ ticketIds: [loose.ticketId], hasMore: false, cursor: null });
    expect(b.lane(laneB)).toMatchObject({ ticketIds: [inB.ticketId], hasMore: false });
    // Lane A: newest ticket first, the first load's 10, then the rest from its cursor (pages of 20), nothing twice.
    const first = b.lane(laneA);
    expect(first.ticketIds).toHaveLength(10);
    expect(first.hasMore).toBe(true);
    expect(first.ticketIds).toEqual([...first.ticketIds].sort((x, y) => y - x));
    const next = await board(w.admin, `lane=${laneA}&cursor=${first.cursor}`);
    expect(next.lanes.map((l) => l.id)).toEqual([laneA]);
    expect(next.lane(laneA)).toMatchObject({ hasMore: false, cursor: null });
    expect(sorted([...first.ticketIds, ...next.lane(laneA).ticketIds])).toEqual(sorted([inA, ...many].map((c) => c.ticketId)));
    // Only the lanes asked for (the console asks for those in view); a lane id that is no lane is left out.
    const some = await board(w.admin, `lanes=${encodeURIComponent(JSON.stringify([laneB, 0, plain]))}`);
    expect(some.lanes.map((l) => l.id)).toEqual([0, laneB]);
    expect(sorted(some.tickets.map((t) => t.id))).toEqual(sorted([loose.ticketId, inB.ticketId]));
    const card = b.tickets.find((t) => t.id === inB.ticketId)!;
    expect(card.contact).toMatchObject({ name: 'Cliente 1', number: inB.number });

    // By contact tag: the loose ticket's contact gets the VIP lane; the board by ticket tag is unchanged.
    const moved = await w.admin.put(`/ticket-tags/${loose.ticketId}/${contactLane}`);
    expect(moved.status, JSON.stringify(moved.body)).toBe(200);
    const byContact = await board(w.admin, 'type=contact');
    expect(byContact.lanes.map((l) => l.id)).toEqual([0, contactLane]);
    expect(byContact.lane(contactLane).ticketIds).toEqual([loose.ticketId]);
    expect(byContact.lane(0).ticketIds).not.toContain(loose.ticketId);
    // The other 22 open tickets: 10 newest first, then the other 12 from the lane's cursor.
    expect(byContact.lane(0)).toMatchObject({ hasMore: true });
    expect(byContact.lane(0).ticketIds).toHaveLength(10);
    const rest = await board(w.admin, `type=contact&lane=0&cursor=${encodeURIComponent(byContact.lane(0).cursor!)}`);
    expect(rest.lane(0)).toMatchObject({ hasMore: false, cursor: null });
    expect(rest.lane(0).ticketIds).toHaveLength(12);
    expect(rest.lane(0).ticketIds.slice(-2)).toEqual([inB.ticketId, inA.ticketId]);
    expect((await board(w.admin)).lane(0).ticketIds).toEqual([loose.ticketId]);
    // Back to 'Em aberto' on the board by contact: the contact loses its lane tag only.
    expect((await w.admin.del(`/ticket-tags/${loose.ticketId}?type=contact`)).status).toBe(204);
    expect((await board(w.admin, 'type=contact')).lane(contactLane).ticketIds).toEqual([]);
    expect((await w.admin.get(`/tickets/${loose.ticketId}`)).body.tags.map((t: { id: number }) => t.id)).toEqual([plain]);
    // A ticket moved between ticket lanes leaves the old one.
    expect((await w.admin.put(`/ticket-tags/${inB.ticketId}/${laneA}`)).status).toBe(200);
    const after = await board(w.admin);
    expect(after.lane(laneB).ticketIds).toEqual([]);
    expect((await board(w.admin, `lane=${laneA}&cursor=${inB.ticketId + 1}`)).lane(laneA).ticketIds[0]).toBe(inB.ticketId);
    expect((await w.admin.del(`/ticket-tags/${inB.ticketId}`)).status).toBe(204);
    expect((await board(w.admin)).lane(0).ticketIds).toContain(inB.ticketId);

    // Visibility: a Nível 1 agent of queue 1 sees only the pending tickets of its queue.
    expect((await w.admin.put(`/tickets/${inA.ticketId}`, { queueId: w.q1 })).status).toBe(200);
    expect((await w.admin.put(`/tickets/${inB.ticketId}`, { queueId: w.q2 })).status).toBe(200);
    const agent = await member(w.admin, { profile: 'Nível 1', queueIds: [w.q1] });
    const seen = await board(agent.api);
    expect(seen.tickets.map((t) => t.id)).toEqual([inA.ticketId]);
    expect(seen.lane(laneA).ticketIds).toEqual([inA.ticketId]);
    // A queue filter narrows the admin's board the same way (tickets without a queue stay, as in the lists).
    const q2only = await board(w.admin, `queueIds=${encodeURIComponent(JSON.stringify([w.q2]))}`);
    expect(q2only.tickets.map((t) => t.id)).not.toContain(inA.ticketId);
    expect(q2only.lane(0).ticketIds).toContain(inB.ticketId);

    // Bad input: 400 with the field; an unknown lane 404; other tenants see none of it.
    expect((await w.admin.get('/ticket/kanban?type=queue')).body).toMatchObject({ error: 'ERR_VALIDATION', field: 'type' });
    expect((await w.admin.get(`/ticket/kanban?lane=${laneA}&cursor=abc`)).body).toMatchObject({ error: 'ERR_VALIDATION', field: 'cursor' });
    expect((await w.admin.get('/ticket/kanban?lane=0&cursor=abc')).body).toMatchObject({ error: 'ERR_VALIDATION', field: 'cursor' });
    expect((await w.admin.get('/ticket/kanban?lane=-1')).body).toMatchObject({ error: 'ERR_VALIDATION', field: 'lane' });
    expect((await w.admin.get('/ticket/kanban?lanes=[1,"x"]')).body).toMatchObject({ error: 'ERR_VALIDATION', field: 'lanes.1' });
    expect((await w.admin.get(`/ticket/kanban?lane=${plain}`)).status).toBe(404);
    expect((await w.admin.get(`/ticket/kanban?lane=${contactLane}`)).status).toBe(404);
    const other = await tenant();
    const theirs = await board(other.admin);
    expect(theirs.tickets).toEqual([]);
    expect((await other.admin.get(`/ticket/kanban?lane=${laneA}`)).status).toBe(404);
    const noKanban = await tenant({ useKanban: false });
    expect((await noKanban.admin.get('/ticket/kanban')).status).toBe(403);
  });
});
