import { useCallback, useEffect, useRef, useState } from 'react';
import { companyEvent, room, WS_JOINED_EVENT } from '@balcao/shared';
import { ApiError } from '../../../api/http';
import { toastError } from '../../../api/errors';
import { realtime } from '../../../api/realtime';
import type { ApiMessage, ApiTicket } from '../types';
import { call } from '../../../api/call';

/** `/tickets/{id}` for a numeric key, `/tickets/u/{uuid}` for a uuid (the new-ticket dialog navigates by uuid). */
export function fetchTicket(key: string) {
  return /^\d+$/.test(key) ? call('GET /tickets/{id}', { params: { id: key } }) : call('GET /tickets/u/{uuid}', { params: { uuid: key } });
}

/**
 * The open ticket, kept live: ticket events of the company replace it (the fan-out already
 * filtered what this user may see); a delete, or an update that takes it out of sight, ends it.
 */
export function useTicket(ticketKey: string, companyId: number) {
  const [ticket, setTicket] = useState<ApiTicket | null>(null);
  const [missing, setMissing] = useState(false);
  const idRef = useRef<number | null>(null);

  const load = useCallback(async () => {
    try {
      const t = await fetchTicket(ticketKey);
      idRef.current = t.id;
      setTicket(t);
      setMissing(false);
      return t;
    } catch (err) {
      if (err instanceof ApiError && err.status === 404) setMissing(true);
      else toastError(err);
      return undefined;
    }
  }, [ticketKey]);

  useEffect(() => {
    setTicket(null);
    setMissing(false);
    idRef.current = null;
    void load();
  }, [load]);

  useEffect(() => {
    const offTicket = realtime.on(companyEvent(companyId, 'ticket'), (data) => {
      const id = data.action === 'delete' ? data.ticketId : data.ticket.id;
      if (!idRef.current || id !== idRef.current) return;
      if (data.action === 'delete') {
        setMissing(true);
        return;
      }
      const incoming = data.ticket as Partial<ApiTicket> | undefined;
      if (!incoming) return;
      setTicket((prev) => {
        if (!prev) return prev;
        // Older event (a slow socket): keep what we have.
        if (incoming.updatedAt && incoming.updatedAt < prev.updatedAt) return prev;
        const next = { ...prev, ...incoming } as ApiTicket;
        // Message events carry the bare ticket: keep the resolved references when the ids did not move.
        if (incoming.user === undefined) next.user = incoming.userId === prev.userId ? prev.user : null;
        if (incoming.queue === undefined) next.queue = incoming.queueId === prev.queueId ? prev.queue : null;
        if (incoming.whatsapp === undefined) next.whatsapp = prev.whatsapp;
        if (incoming.contact == null) next.contact = prev.contact;
        if (incoming.tags === undefined) next.tags = prev.tags;
        return next;
      });
      // A changed agent or queue without its names: ask for the full view.
      if (incoming.user === undefined && (incoming.userId !== undefined || incoming.queueId !== undefined)) {
        setTicket((prev) => {
          if (prev && ((prev.userId && !prev.user) || (prev.queueId && !prev.queue))) void load();
          return prev;
        });
      }
    });
    const offReconnect = realtime.onReconnect(() => void load());
    return () => {
      offTicket();
      offReconnect();
    };
  }, [companyId, load]);

  return { ticket, setTicket, missing, reload: load };
}


const bySeq = (a: ApiMessage, b: ApiMessage) => a.seq - b.seq;

/** Adds or replaces messages by id, in conversation order. */
export function mergeMessages(list: ApiMessage[], incoming: ApiMessage[]): ApiMessage[] {
  if (!incoming.length) return list;
  const byId = new Map(list.map((m) => [m.id, m]));
  for (const m of incoming) {
    const known = byId.get(m.id);
    // Acks only rise and a late event must not undo a newer one.
    if (known && known.updatedAt > m.updatedAt) continue;
    byId.set(m.id, known ? { ...known, ...m, ack: Math.max(known.ack, m.ack) } : m);
  }
  return [...byId.values()].sort(bySeq);
}

/**
 * The conversation's pages (page 1 = newest), merged by message id so that pages shifted by
 * messages arriving meanwhile only overlap, never leave a gap. Live messages of the ticket are
 * merged in; after a reconnect the newest page is read again.
 */
export function useMessages(ticketId: number | undefined, companyId: number) {
  const [messages, setMessages] = useState<ApiMessage[]>([]);
  const [hasMore, setHasMore] = useState(false);
  const [loading, setLoading] = useState(false);
  const [loaded, setLoaded] = useState(false);
  const page = useRef(0);
  const busy = useRef(false);
  const refreshAfter = useRef(false);
  const generation = useRef(0);

  const loadPage = useCallback(
    async (n: number) => {
      if (!ticketId) return;
      if (busy.current) {
        // A read of the newest page asked while another read runs happens after it (its answer
        // may predate what the caller needs, e.g. the room join).
        if (n === 1) refreshAfter.current = true;
        return;
      }
      busy.current = true;
      const gen = generation.current;
      setLoading(true);
      try {
        const r = await call('GET /messages/{ticketId}', { params: { ticketId }, query: { pageNumber: n } });
        if (gen !== generation.current) return;
        page.current = Math.max(page.current, n);
        setMessages((prev) => mergeMessages(prev, r.messages));
        if (n >= page.current) setHasMore(r.hasMore);
        setLoaded(true);
      } catch (err) {
        if (gen === generation.current) toastError(err);
      } finally {
        busy.current = false;
        if (gen === generation.current) setLoading(false);
        if (refreshAfter.current && gen === generation.current) {
          refreshAfter.current = false;
          void loadPageRef.current(1);
        }
      }
    },
    [ticketId],
  );
  const loadPageRef = useRef(loadPage);
  loadPageRef.current = loadPage;

  useEffect(() => {
    generation.current++;
    busy.current = false;
    refreshAfter.current = false;
    page.current = 0;
    setMessages([]);
    setHasMore(false);
    setLoaded(false);
    if (ticketId) void loadPage(1);
  }, [ticketId, loadPage]);

  useEffect(() => {
    if (!ticketId) return;
    // The conversation's messages come to the ticket's room (issue 23). Once the server says this
    // socket is in it, the newest page is read again: a message stored between the first read and
    // the join reached nobody here.
    realtime.send('joinChatBox', { ticketId });
    const off = realtime.on(companyEvent(companyId, 'appMessage'), (data) => {
      if (data.message.ticketId !== ticketId) return;
      setMessages((prev) => mergeMessages(prev, [data.message]));
    });
    const offJoined = realtime.on(WS_JOINED_EVENT, (data) => {
      if (data.room === room.chatBox(ticketId)) void loadPage(1);
    });
    const offReconnect = realtime.onReconnect(() => realtime.send('joinChatBox', { ticketId }));
    return () => {
      off();
      offJoined();
      offReconnect();
      realtime.send('leaveChatBox', { ticketId });
    };
  }, [ticketId, companyId, loadPage]);

  const loadOlder = useCallback(() => {
    if (hasMore && !busy.current) void loadPage(page.current + 1);
  }, [hasMore, loadPage]);

  const upsert = useCallback((m: ApiMessage) => setMessages((prev) => mergeMessages(prev, [m])), []);

  return { messages, hasMore, loading, loaded, loadOlder, upsert };
}
