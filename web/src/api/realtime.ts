import { STATUS_HEARTBEAT_MS, eventsOf, type EventData } from '@balcao/shared';
import { config } from '../config';
import { accessToken } from './http';

/** Listeners are typed by the event's name (`EventData`, shared/src/realtime.ts); stored loosely. */
type Listener = (data: never) => void;

/**
 * One WebSocket per console. Pages subscribe to event names; each time the socket opens, every
 * onReconnect listener registered before runs, so pages reload what they show: nothing missed
 * while offline, nor between a page's first load and the console's first socket open.
 */
class Realtime {
  private ws: WebSocket | null = null;
  private listeners = new Map<string, Set<Listener>>();
  private reconnectListeners = new Set<() => void>();
  private timers: ReturnType<typeof setInterval>[] = [];
  private retry = 0;
  private stopped = true;
  private retryHandle: ReturnType<typeof setTimeout> | null = null;
  /** Bumped by stop(): callbacks of an older socket must not reconnect a newer session. */
  private generation = 0;

  start() {
    if (!this.stopped) return;
    this.stopped = false;
    void this.connect();
  }

  stop() {
    this.stopped = true;
    this.generation++;
    this.clearTimers();
    if (this.retryHandle) clearTimeout(this.retryHandle);
    this.ws?.close();
    this.ws = null;
    this.retry = 0;
  }

  on<E extends string>(event: E, fn: (data: EventData<E>) => void): () => void {
    let set = this.listeners.get(event);
    if (!set) this.listeners.set(event, (set = new Set()));
    set.add(fn as Listener);
    return () => set.delete(fn as Listener);
  }

  /**
   * Hands the listeners a state the client learned from an answer rather than an event (a 409
   * showing a ticket moved while its event is still on the way), as if the server had sent it.
   */
  deliver<E extends string>(event: E, data: EventData<E>) {
    this.listeners.get(event)?.forEach((fn) => fn(data as never));
  }

  onReconnect(fn: () => void): () => void {
    this.reconnectListeners.add(fn);
    return () => this.reconnectListeners.delete(fn);
  }

  send(action: string, extra: Record<string, unknown> = {}) {
    if (this.ws?.readyState === WebSocket.OPEN) this.ws.send(JSON.stringify({ action, ...extra }));
  }

  private clearTimers() {
    this.timers.forEach(clearInterval);
    this.timers = [];
  }

  private async connect() {
    const gen = this.generation;
    const token = await accessToken();
    if (this.stopped || gen !== this.generation) return;
    if (!token) return this.schedule();
    const url = `${config().wsUrl}${config().wsUrl.includes('?') ? '&' : '?'}token=${encodeURIComponent(token)}`;
    const ws = new WebSocket(url);
    this.ws = ws;
    let opened = false;
    ws.onopen = () => {
      opened = true;
      // Observable state (browser tests wait for it before causing events).
      document.documentElement.dataset.realtime = 'open';
      this.retry = 0;
      // Presence, and the heartbeat that keeps the socket inside the gateway's 10-minute idle limit
      // (issue 23: no other frame, so an open console costs one invocation every 5 minutes).
      this.send('userStatus');
      this.timers.push(setInterval(() => this.send('userStatus'), STATUS_HEARTBEAT_MS));
      // Also on the first open: a page that loaded before it could not hear what changed meanwhile.
      this.reconnectListeners.forEach((fn) => fn());
    };
    ws.onmessage = (e) => {
      let parsed: unknown;
      try {
        parsed = JSON.parse(String(e.data));
      } catch {
        return;
      }
      // A frame may carry several events of one fan-out batch, in order.
      for (const frame of eventsOf(parsed)) this.listeners.get(frame.event)?.forEach((fn) => fn(frame.data as never));
    };
    ws.onclose = async () => {
      this.clearTimers();
      delete document.documentElement.dataset.realtime;
      if (this.ws === ws) this.ws = null;
      if (this.stopped || gen !== this.generation) return;
      if (!opened) {
        // The browser hides the handshake status; a refused connect with a token that no longer
        // refreshes means the session is gone (spec 000 §4: the app reloads).
        const fresh = await accessToken(true);
        if (gen !== this.generation) return;
        if (!fresh) {
          window.location.reload();
          return;
        }
      }
      this.schedule();
    };
  }

  private schedule() {
    const delay = Math.min(30_000, 1000 * 2 ** this.retry++) + Math.random() * 500;
    this.retryHandle = setTimeout(() => void this.connect(), delay);
  }
}

export const realtime = new Realtime();
