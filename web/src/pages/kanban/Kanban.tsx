import { memo, useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router-dom';
import { Flex, Heading, Loader, SelectField, Text } from '@aws-amplify/ui-react';
import {
  DndContext,
  DragOverlay,
  KeyboardSensor,
  PointerSensor,
  pointerWithin,
  rectIntersection,
  useDraggable,
  useDroppable,
  useSensor,
  useSensors,
  type Announcements,
  type CollisionDetection,
  type DragEndEvent,
  type DragStartEvent,
  type KeyboardCoordinateGetter,
} from '@dnd-kit/core';
import { useVirtualizer } from '@tanstack/react-virtual';
import { companyEvent, type ApiTicket } from '@balcao/shared';
import { kanbanApi } from '../../api/kanban';
import { toastError } from '../../api/errors';
import { ApiError, api } from '../../api/http';
import { realtime } from '../../api/realtime';
import { useAuth } from '../../auth/AuthContext';
import { usePlanGate } from '../../auth/usePlanGate';
import { preview } from '../tickets/lists';
import { toast } from '../../ui/toast';
import { OPEN_LANE, appendPage, buildLanes, findCard, placeCard, removeCard, type BoardType, type Card, type Lane } from './board';
import './kanban.css';

/** A card's height in a lane's virtual list (name, number line, two lines of the last message). */
const CARD_HEIGHT = 118;
/** Load a lane's next page when its end is this close. */
const LANE_MORE_PX = 300;

const laneKey = (id: number) => `lane-${id}`;
/** A lane's width with its gap (kanban.css: 17.5rem + 0.75rem), in CSS pixels at the default font size. */
const LANE_STEP_PX = 292;
/** How many lanes the first load asks for: those the page's width shows, and one more. */
const lanesInView = () => Math.max(3, Math.ceil((document.querySelector('.kanban-page')?.clientWidth ?? window.innerWidth) / LANE_STEP_PX) + 1);

/** Kanban board (spec 002 §2; decision 56): plan flag useKanban. */
export default function Kanban() {
  const allowed = usePlanGate('useKanban');
  // Without the plan the routes answer 403: nothing is asked while the redirect runs.
  return allowed ? <Board /> : null;
}

function Board() {
  const { t } = useTranslation();
  const { user } = useAuth();
  const companyId = user!.companyId;
  const [type, setType] = useState<BoardType>('ticket');
  const [lanes, setLanes] = useState<Lane[] | null>(null);
  const [failed, setFailed] = useState(false);
  const [reloadKey, setReloadKey] = useState(0);
  const lanesRef = useRef<Lane[] | null>(null);
  lanesRef.current = lanes;
  const typeRef = useRef(type);
  typeRef.current = type;
  const paging = useRef(new Set<number>());
  const viewerRef = useRef(user);
  viewerRef.current = user;

  useEffect(() => {
    let live = true;
    setFailed(false);
    (async () => {
      const tags = await kanbanApi.lanes(type);
      // The first load asks only for the lanes in view; the others load as they scroll in.
      const inView = [OPEN_LANE, ...tags.lista.slice(0, lanesInView() - 1).map((x) => x.id)];
      const board = await kanbanApi.board({ type, lanes: JSON.stringify(inView) });
      if (live) setLanes(buildLanes(tags.lista, board));
    })().catch(() => {
      // Spec 002 §8: a board that cannot load shows empty lanes (and says so, quietly).
      if (!live) return;
      setLanes((l) => l ?? []);
      setFailed(true);
    });
    return () => {
      live = false;
    };
  }, [type, reloadKey]);

  /** A lane's next page, or its first when it comes into view. */
  const more = useCallback((laneId: number) => {
    const lane = lanesRef.current?.find((l) => l.id === laneId);
    if (!lane || (lane.loaded && (!lane.hasMore || !lane.cursor)) || paging.current.has(laneId)) return;
    paging.current.add(laneId);
    const asked = typeRef.current;
    kanbanApi
      .board({ type: asked, lane: laneId, ...(lane.loaded && lane.cursor ? { cursor: lane.cursor } : {}) })
      .then((page) => asked === typeRef.current && setLanes((l) => (l ? appendPage(l, page) : l)))
      .catch(() => {})
      .finally(() => paging.current.delete(laneId));
  }, []);

  // Live: tickets move between lanes as their tags, status or queue change anywhere; the lanes
  // themselves follow the tags page (a new lane, a renamed one, one no longer kanban).
  useEffect(() => {
    const pending = new Set<number>();
    const place = (ticket: Card) => setLanes((l) => (l ? placeCard(l, ticket, typeRef.current, { viewer: viewerRef.current ?? undefined }) : l));
    const fetchOne = (id: number) => {
      if (pending.has(id)) return;
      pending.add(id);
      api
        .get<ApiTicket>(`/tickets/${id}`)
        .then(place)
        .catch((e) => e instanceof ApiError && (e.status === 404 || e.status === 403) && setLanes((l) => (l ? removeCard(l, id) : l)))
        .finally(() => pending.delete(id));
    };
    const offTicket = realtime.on(companyEvent(companyId, 'ticket'), (data) => {
      if (data?.action === 'delete') return setLanes((l) => (l ? removeCard(l, data.ticketId) : l));
      const incoming = data?.ticket as (Partial<ApiTicket> & { id: number }) | undefined;
      if (!incoming?.id) return;
      const known = lanesRef.current && findCard(lanesRef.current, incoming.id)?.card;
      // Out-of-order delivery: an older state never replaces a newer one.
      if (known && incoming.updatedAt && known.updatedAt > incoming.updatedAt) return;
      // The lane comes from the ticket's tags (every ticket event has them) or its contact's (events
      // of a contact's tag change carry the contact); a ticket new to the board without its contact
      // is read whole.
      const contact = incoming.contact ?? known?.contact;
      if (!contact || (incoming.tagIds === undefined && !known)) return fetchOne(incoming.id);
      place({ ...known, ...incoming, contact } as Card);
    });
    const offTag = realtime.on(companyEvent(companyId, 'tag'), (data) => {
      if (data?.action && data.action !== 'counts') setReloadKey((k) => k + 1);
    });
    const offReconnect = realtime.onReconnect(() => setReloadKey((k) => k + 1));
    return () => {
      offTicket();
      offTag();
      offReconnect();
    };
  }, [companyId]);

  const laneName = useCallback((lane: Lane | undefined) => (lane?.tag ? lane.tag.name : t('kanban.openLane')), [t]);

  const move = useCallback(
    async (ticketId: number, toLane: number) => {
      const current = lanesRef.current;
      const found = current && findCard(current, ticketId);
      if (!current || !found || found.lane.id === toLane) return;
      const asked = typeRef.current;
      // The card moves at once; the answer (or the live event) settles it, a refusal puts it back.
      const moved: Card = asked === 'ticket' ? { ...found.card, tagIds: movedTags(found.card.tagIds, current, toLane) } : { ...found.card, contact: found.card.contact && { ...found.card.contact, tagIds: movedTags(found.card.contact.tagIds, current, toLane) } };
      setLanes((l) => (l ? placeCard(l, moved, asked, { always: true }) : l));
      try {
        if (toLane === OPEN_LANE) {
          await kanbanApi.clear(ticketId, asked);
          toast.success(t('kanban.tagRemoved'));
        } else {
          const answer = await kanbanApi.move(ticketId, toLane);
          if (asked === typeRef.current) setLanes((l) => (l ? placeCard(l, answer, asked, { always: true }) : l));
          toast.success(t('kanban.tagAdded'));
        }
      } catch (e) {
        toastError(e);
        setLanes((l) => (l ? placeCard(l, found.card, asked, { always: true }) : l));
      }
    },
    [t],
  );

  if (!lanes) {
    return (
      <Flex direction="column" gap="1rem" className="page kanban-page">
        <Heading level={3}>{t('kanban.title')}</Heading>
        <Loader variation="linear" />
      </Flex>
    );
  }
  return (
    <Flex direction="column" gap="0.75rem" className="page kanban-page" data-testid="kanban">
      <Flex className="page-header" alignItems="center" justifyContent="space-between" wrap="wrap" gap="0.75rem">
        <Heading level={3}>{t('kanban.title')}</Heading>
        <SelectField label={t('kanban.tagType')} size="small" value={type} onChange={(e) => { setLanes(null); setType(e.target.value as BoardType); }} data-testid="kanban-type">
          <option value="ticket">{t('kanban.types.ticket')}</option>
          <option value="contact">{t('kanban.types.contact')}</option>
        </SelectField>
      </Flex>
      {failed && <Text className="muted" role="status">{t('kanban.loadError')}</Text>}
      {!failed && lanes.length === 1 && <Text className="muted" data-testid="kanban-no-lanes">{t('kanban.noLanes')}</Text>}
      <BoardLanes lanes={lanes} laneName={laneName} onMore={more} onMove={move} />
    </Flex>
  );
}

/** The tags a card keeps when it moves to `toLane` (the server's rule, for the moment before it answers). */
function movedTags(tagIds: number[], lanes: Lane[], toLane: number) {
  const laneIds = new Set(lanes.map((l) => l.id));
  const kept = tagIds.filter((x) => !laneIds.has(x));
  return toLane === OPEN_LANE ? kept : [...kept, toLane];
}

interface BoardLanesProps {
  lanes: Lane[];
  laneName: (lane: Lane | undefined) => string;
  onMore: (laneId: number) => void;
  onMove: (ticketId: number, toLane: number) => void;
}

function BoardLanes({ lanes, laneName, onMore, onMove }: BoardLanesProps) {
  const { t } = useTranslation();
  const [dragging, setDragging] = useState<Card | null>(null);
  const order = useRef<string[]>([]);
  order.current = lanes.map((l) => laneKey(l.id));

  // Keyboard moves (issue 21 §1): Space or Enter picks a card up, the left and right arrows take it
  // to the neighbouring lane, Space or Enter drops it, Escape cancels.
  const laneKeys = useCallback<KeyboardCoordinateGetter>((event, { context }) => {
    if (event.code !== 'ArrowRight' && event.code !== 'ArrowLeft') return undefined;
    event.preventDefault();
    const { collisionRect, droppableRects, over } = context;
    const fromLane = (context.active?.data.current as { laneId?: number } | undefined)?.laneId ?? OPEN_LANE;
    const current = over?.id ? String(over.id) : laneKey(fromLane);
    const next = order.current[order.current.indexOf(current) + (event.code === 'ArrowRight' ? 1 : -1)];
    const target = next ? droppableRects.get(next) : undefined;
    if (!target || !collisionRect) return undefined;
    document.querySelector(`[data-lane-key="${next}"]`)?.scrollIntoView({ block: 'nearest', inline: 'nearest' });
    return { x: target.left + Math.max(0, (target.width - collisionRect.width) / 2), y: Math.max(target.top, Math.min(collisionRect.top, target.bottom - collisionRect.height)) };
  }, []);
  const sensors = useSensors(useSensor(PointerSensor, { activationConstraint: { distance: 6 } }), useSensor(KeyboardSensor, { coordinateGetter: laneKeys }));
  const collision = useCallback<CollisionDetection>((args) => {
    const within = pointerWithin(args);
    return within.length ? within : rectIntersection(args);
  }, []);

  const byKey = useMemo(() => new Map(lanes.map((l) => [laneKey(l.id), l])), [lanes]);
  const nameOfCard = (id: string | number) => dragging?.contact?.name ?? String(id);
  const announcements: Announcements = {
    onDragStart: ({ active }) => t('kanban.announce.picked', { name: nameOfCard(active.id), lane: laneName(byKey.get(laneKey((active.data.current as { laneId: number }).laneId))) }),
    onDragOver: ({ over }) => (over ? t('kanban.announce.over', { lane: laneName(byKey.get(String(over.id))) }) : t('kanban.announce.outside')),
    onDragEnd: ({ active, over }) => (over ? t('kanban.announce.dropped', { name: nameOfCard(active.id), lane: laneName(byKey.get(String(over.id))) }) : t('kanban.announce.cancelled')),
    onDragCancel: () => t('kanban.announce.cancelled'),
  };

  const onDragStart = (e: DragStartEvent) => {
    const id = Number(String(e.active.id).replace('card-', ''));
    setDragging(findCard(lanes, id)?.card ?? null);
  };
  const onDragEnd = (e: DragEndEvent) => {
    setDragging(null);
    const to = e.over ? byKey.get(String(e.over.id)) : undefined;
    const from = (e.active.data.current as { laneId: number } | undefined)?.laneId;
    if (!to || to.id === from) return;
    onMove(Number(String(e.active.id).replace('card-', '')), to.id);
  };

  return (
    <DndContext
      sensors={sensors}
      collisionDetection={collision}
      onDragStart={onDragStart}
      onDragEnd={onDragEnd}
      onDragCancel={() => setDragging(null)}
      accessibility={{ announcements, screenReaderInstructions: { draggable: t('kanban.announce.instructions') } }}
    >
      <div className="kb-lanes" role="list" aria-label={t('kanban.title')}>
        {lanes.map((lane) => (
          <LaneColumn key={lane.id} lane={lane} name={laneName(lane)} onMore={onMore} />
        ))}
      </div>
      <DragOverlay dropAnimation={null}>
        {dragging ? (
          <div className="kb-card kb-overlay" style={{ height: CARD_HEIGHT - 8 }}>
            <CardBody ticket={dragging} />
          </div>
        ) : null}
      </DragOverlay>
    </DndContext>
  );
}

function LaneColumn({ lane, name, onMore }: { lane: Lane; name: string; onMore: (laneId: number) => void }) {
  const { t } = useTranslation();
  const { setNodeRef, isOver } = useDroppable({ id: laneKey(lane.id) });
  const scroller = useRef<HTMLDivElement | null>(null);
  const virtualizer = useVirtualizer({
    count: lane.cards.length,
    getScrollElement: () => scroller.current,
    estimateSize: () => CARD_HEIGHT,
    overscan: 4,
    getItemKey: (i) => lane.cards[i]?.id ?? i,
  });
  const onScroll = () => {
    const el = scroller.current;
    if (el && el.scrollHeight - el.scrollTop - el.clientHeight < LANE_MORE_PX) onMore(lane.id);
  };
  // A first page shorter than the lane never scrolls: keep loading while there is room.
  useEffect(() => {
    const el = scroller.current;
    if (el && lane.loaded && lane.hasMore && el.scrollHeight <= el.clientHeight + LANE_MORE_PX) onMore(lane.id);
  }, [lane.cards.length, lane.hasMore, lane.loaded, lane.id, onMore]);
  // A lane out of view at the first load brings its first page when it scrolls in.
  const section = useRef<HTMLElement | null>(null);
  useEffect(() => {
    const el = section.current;
    if (lane.loaded || !el) return;
    const seen = new IntersectionObserver((entries) => entries.some((e) => e.isIntersecting) && onMore(lane.id));
    seen.observe(el);
    return () => seen.disconnect();
  }, [lane.loaded, lane.id, onMore]);

  const colour = lane.tag?.color;
  return (
    <section
      ref={(el) => {
        setNodeRef(el);
        section.current = el;
      }}
      role="listitem"
      aria-label={name}
      className={`kb-lane${isOver ? ' kb-over' : ''}`}
      data-lane-key={laneKey(lane.id)}
      data-testid={`kanban-lane-${lane.id}`}
      data-loaded={lane.loaded ? lane.cards.length : 'no'}
      data-has-more={lane.hasMore ? 'true' : 'false'}
    >
      <header className="kb-lane-head" style={colour ? { borderTopColor: colour } : undefined}>
        {colour && <span className="kb-dot" style={{ background: colour }} aria-hidden="true" />}
        <strong className="kb-lane-name">{name}</strong>
        <span className="kb-count" aria-label={t('kanban.cardsCount', { count: lane.cards.length })}>
          {lane.loaded ? `${lane.cards.length}${lane.hasMore ? '+' : ''}` : '…'}
        </span>
      </header>
      <div className="kb-lane-body" ref={scroller} onScroll={onScroll}>
        {!lane.loaded && <Loader variation="linear" />}
        {lane.loaded && lane.cards.length === 0 && <p className="kb-empty muted">{t('kanban.empty')}</p>}
        <div style={{ height: virtualizer.getTotalSize(), position: 'relative' }}>
          {virtualizer.getVirtualItems().map((v) => {
            const ticket = lane.cards[v.index]!;
            return (
              <div key={v.key} className="kb-slot" style={{ transform: `translateY(${v.start}px)`, height: CARD_HEIGHT }}>
                <CardItem ticket={ticket} laneId={lane.id} />
              </div>
            );
          })}
        </div>
      </div>
    </section>
  );
}

const CardItem = memo(function CardItem({ ticket, laneId }: { ticket: Card; laneId: number }) {
  const { attributes, listeners, setNodeRef, isDragging } = useDraggable({ id: `card-${ticket.id}`, data: { laneId } });
  return (
    <article ref={setNodeRef} {...attributes} {...listeners} className={`kb-card${isDragging ? ' kb-dragging' : ''}`} data-testid={`kanban-card-${ticket.id}`}>
      <CardBody ticket={ticket} />
    </article>
  );
});

function CardBody({ ticket }: { ticket: Card }) {
  const { t } = useTranslation();
  return (
    <div className="kb-card-body">
      <strong className="kb-card-title">{ticket.contact?.name ?? t('kanban.noContact')}</strong>
      <div className="kb-card-line">
        {/* The ticket number opens the conversation (spec 002 §2); a click is not a drag. */}
        <Link to={`/tickets/${ticket.uuid}`} onPointerDown={(e) => e.stopPropagation()} onKeyDown={(e) => e.stopPropagation()}>
          {t('kanban.ticketNumber', { id: ticket.id })}
        </Link>
        <span className="kb-number">{ticket.contact?.number}</span>
      </div>
      <p className="kb-last">{ticket.lastMessage ? preview(ticket.lastMessage) : <span className="muted">{t('kanban.noMessage')}</span>}</p>
    </div>
  );
}
