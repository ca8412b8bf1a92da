import { describe, expect, it } from 'vitest';
import type { ApiTag } from '@balcao/shared';
import { appendPage, buildLanes, laneOf, placeCard, removeCard, OPEN_LANE, type Card } from './board';

const tag = (id: number, type: 'ticket' | 'contact' = 'ticket') => ({ id, name: `T${id}`, color: '#112233', type, kanban: 1 }) as ApiTag;
const ticket = (id: number, over: Partial<Card> = {}) =>
  ({
    id,
    uuid: `u-${id}`,
    status: 'open',
    queueId: null,
    contactId: 100 + id,
    updatedAt: `2026-11-27T10:00:${String(id).padStart(2, '0')}.000Z`,
    tagIds: [],
    contact: { id: 100 + id, name: `C${id}`, number: '5511', tagIds: [] },
    ...over,
  }) as Card;
const ids = (lanes: ReturnType<typeof buildLanes>, id: number) => lanes.find((l) => l.id === id)!.cards.map((c) => c.id);

describe('kanban board state', () => {
  const lanesTags = [tag(5), tag(7)];
  const initial = () =>
    buildLanes(lanesTags, {
      tickets: [ticket(1), ticket(2, { tagIds: [5] }), ticket(3, { tagIds: [7] })],
      lanes: [
        { id: 0, ticketIds: [1], hasMore: false, cursor: null },
        { id: 5, ticketIds: [2], hasMore: true, cursor: '2' },
        { id: 7, ticketIds: [3], hasMore: false, cursor: null },
      ],
    });

  it('places a ticket by its first lane tag (ticket tags or the contact tags), else in Em aberto', () => {
    expect(laneOf(ticket(1), [0, 5, 7], 'ticket')).toBe(OPEN_LANE);
    expect(laneOf(ticket(1, { tagIds: [9, 7] }), [0, 5, 7], 'ticket')).toBe(7);
    const viaContact = ticket(1, { contact: { id: 1, name: 'C', number: '1', tagIds: [5] } });
    expect(laneOf(viaContact, [0, 5], 'contact')).toBe(5);
    expect(laneOf(viaContact, [0, 5], 'ticket')).toBe(OPEN_LANE);
  });

  it('moves a card on an update, drops it when closed, respects a lane still paging, keeps no duplicate', () => {
    let lanes = initial();
    expect(ids(lanes, 0)).toEqual([1]);
    // Ticket 3 moves to lane 5, which pages by ticket number: 3 is newer than its last card (2).
    lanes = placeCard(lanes, ticket(3, { tagIds: [5] }), 'ticket');
    expect(ids(lanes, 5)).toEqual([3, 2]);
    expect(ids(lanes, 7)).toEqual([]);
    // Ticket 1 is older than lane 5's loaded cards and the lane has more pages: it comes with them...
    const moved = placeCard(lanes, ticket(1, { tagIds: [5] }), 'ticket');
    expect(ids(moved, 5)).toEqual([3, 2]);
    expect(ids(moved, 0)).toEqual([]);
    // ...unless the user dropped it there.
    expect(ids(placeCard(lanes, ticket(1, { tagIds: [5] }), 'ticket', { always: true }), 5)).toEqual([3, 2, 1]);
    // Closed: off the board.
    expect(ids(placeCard(lanes, ticket(3, { status: 'closed' }), 'ticket'), 5)).toEqual([2]);
    // A ticket the viewer may no longer see (moved to a queue not theirs) leaves the board.
    const agent = { id: 50, profile: 'Nível 1' as const, queues: [{ id: 3, name: 'Q', color: '#000000' }], allTicket: 'desabled' as const, super: false };
    expect(ids(placeCard(lanes, ticket(3, { tagIds: [5], status: 'pending', queueId: 3 }), 'ticket', { viewer: agent }), 5)).toEqual([3, 2]);
    expect(ids(placeCard(lanes, ticket(3, { tagIds: [5], status: 'pending', queueId: 4 }), 'ticket', { viewer: agent }), 5)).toEqual([2]);
    // Em aberto orders by last activity.
    const newer = placeCard(lanes, ticket(9, { updatedAt: '2026-11-27T11:00:00.000Z' }), 'ticket');
    expect(ids(newer, 0)).toEqual([9, 1]);
    expect(ids(removeCard(newer, 9), 0)).toEqual([1]);
  });

  it('leaves lanes not asked for unloaded until their first page comes; live cards wait for it', () => {
    const lanes = buildLanes(lanesTags, { tickets: [ticket(1)], lanes: [{ id: 0, ticketIds: [1], hasMore: false, cursor: null }] });
    expect(lanes.map((l) => l.loaded)).toEqual([true, false, false]);
    expect(ids(placeCard(lanes, ticket(4, { tagIds: [7] }), 'ticket'), 7)).toEqual([]);
    const loaded = appendPage(lanes, { tickets: [ticket(4, { tagIds: [7] })], lanes: [{ id: 7, ticketIds: [4], hasMore: false, cursor: null }] });
    expect(loaded.find((l) => l.id === 7)).toMatchObject({ loaded: true });
    expect(ids(loaded, 7)).toEqual([4]);
  });

  it('appends a further page without repeating cards', () => {
    const lanes = appendPage(initial(), { tickets: [ticket(2), ticket(0 + 1 + 0)], lanes: [{ id: 5, ticketIds: [2, 1], hasMore: false, cursor: null }] });
    expect(ids(lanes, 5)).toEqual([2, 1]);
    expect(lanes.find((l) => l.id === 5)).toMatchObject({ hasMore: false, cursor: null });
    expect(ids(lanes, 0)).toEqual([1]);
  });
});
