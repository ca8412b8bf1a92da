import { canSeeTicket, type ApiKanbanBoard, type ApiKanbanCard, type ApiTag } from '@balcao/shared';
import { viewerFacts, type Viewer } from '../tickets/lists';

/** A card on the board: the board's answer, or a ticket event's ticket (which has these fields and more). */
export type Card = ApiKanbanCard;

/** The board by ticket tags (Atendimento) or by the contact's tags (Contato). */
export type BoardType = 'ticket' | 'contact';

/** The lane of tickets without a lane tag ('Em aberto'). */
export const OPEN_LANE = 0;

export interface Lane {
  id: number;
  /** The lane's tag; none for 'Em aberto'. */
  tag: ApiTag | null;
  cards: Card[];
  hasMore: boolean;
  cursor: string | null;
  /** Whether its first page is here: lanes out of view load when they come into view. */
  loaded: boolean;
}

/** The tags that place a ticket on the board of `type`. */
export const laneTagIds = (t: Pick<Card, 'tagIds' | 'contact'>, type: BoardType): number[] => (type === 'ticket' ? t.tagIds : t.contact?.tagIds) ?? [];

/** The lane a ticket belongs in: its first lane tag in the board's order, else 'Em aberto'. */
export function laneOf(t: Pick<Card, 'tagIds' | 'contact'>, laneIds: number[], type: BoardType): number {
  const mine = new Set(laneTagIds(t, type));
  return laneIds.find((id) => id !== OPEN_LANE && mine.has(id)) ?? OPEN_LANE;
}

/**
 * The order the server pages a lane in (decision 56): 'Em aberto' by last activity, newest first; a
 * tag lane by ticket (or contact) number, newest first.
 */
export function cardOrder(laneId: number, type: BoardType): (a: Card, b: Card) => number {
  if (laneId === OPEN_LANE) return (a, b) => (a.updatedAt === b.updatedAt ? b.id - a.id : a.updatedAt < b.updatedAt ? 1 : -1);
  if (type === 'contact') return (a, b) => b.contactId - a.contactId || b.id - a.id;
  return (a, b) => b.id - a.id;
}

/** The lanes of a first load: 'Em aberto', then one per lane tag, with the cards the server read for those it was asked for. */
export function buildLanes(tags: ApiTag[], board: ApiKanbanBoard): Lane[] {
  const byId = new Map(board.tickets.map((t) => [t.id, t]));
  const pages = new Map(board.lanes.map((l) => [l.id, l]));
  return [null, ...tags].map((tag) => {
    const id = tag?.id ?? OPEN_LANE;
    const page = pages.get(id);
    return { id, tag, cards: (page?.ticketIds ?? []).map((x) => byId.get(x)).filter((x): x is Card => !!x), hasMore: !!page?.hasMore, cursor: page?.cursor ?? null, loaded: !!page };
  });
}

/** A further page of a lane (or its first, for a lane that came into view): its cards appended (none twice), its paging moved on. */
export function appendPage(lanes: Lane[], board: ApiKanbanBoard): Lane[] {
  const byId = new Map(board.tickets.map((t) => [t.id, t]));
  return lanes.map((lane) => {
    const page = board.lanes.find((l) => l.id === lane.id);
    if (!page) return lane;
    const known = new Set(lane.cards.map((c) => c.id));
    const added = page.ticketIds.filter((id) => !known.has(id)).map((id) => byId.get(id)).filter((x): x is Card => !!x);
    return { ...lane, cards: [...lane.cards, ...added], hasMore: page.hasMore, cursor: page.cursor, loaded: true };
  });
}

/**
 * A ticket's new state on the board: it leaves every lane, and comes back into its own while it is
 * pending or open and the `viewer` may still see it (a transfer to another queue takes it away). A
 * lane with more pages takes it only where its loaded part reaches (the rest comes with the next
 * page), unless `always` (the user's own drop).
 */
export function placeCard(lanes: Lane[], t: Card, type: BoardType, opts: { always?: boolean; viewer?: Viewer } = {}): Lane[] {
  const visible = !opts.viewer || !!opts.viewer.super || canSeeTicket(viewerFacts(opts.viewer), t);
  const stays = visible && t.status !== 'closed';
  const target = stays ? laneOf(t, lanes.map((l) => l.id), type) : undefined;
  return lanes.map((lane) => {
    const without = lane.cards.filter((c) => c.id !== t.id);
    if (lane.id !== target) return without.length === lane.cards.length ? lane : { ...lane, cards: without };
    // A lane not loaded yet brings its cards when it comes into view.
    if (!lane.loaded && !opts.always) return lane;
    const order = cardOrder(lane.id, type);
    const last = without[without.length - 1];
    if (lane.hasMore && !opts.always && last && order(t, last) > 0) return { ...lane, cards: without };
    return { ...lane, cards: [...without, t].sort(order) };
  });
}

/** A ticket removed from the board (deleted). */
export const removeCard = (lanes: Lane[], ticketId: number): Lane[] =>
  lanes.map((lane) => (lane.cards.some((c) => c.id === ticketId) ? { ...lane, cards: lane.cards.filter((c) => c.id !== ticketId) } : lane));

/** The ticket a lane holds, if any. */
export const findCard = (lanes: Lane[], ticketId: number): { lane: Lane; card: Card } | undefined => {
  for (const lane of lanes) {
    const card = lane.cards.find((c) => c.id === ticketId);
    if (card) return { lane, card };
  }
  return undefined;
};
