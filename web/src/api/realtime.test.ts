import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';

vi.mock('../config', () => ({ config: () => ({ wsUrl: 'ws://test/ws' }) }));
vi.mock('./http', () => ({ accessToken: async () => 'token' }));

/** A WebSocket the test opens, feeds and closes by hand. */
class FakeSocket {
  static all: FakeSocket[] = [];
  static OPEN = 1;
  readyState = 0;
  sent: string[] = [];
  onopen: (() => void) | null = null;
  onmessage: ((e: { data: string }) => void) | null = null;
  onclose: (() => void) | null = null;
  constructor(readonly url: string) {
    FakeSocket.all.push(this);
  }
  send(m: string) {
    this.sent.push(m);
  }
  close() {
    this.readyState = 3;
    this.onclose?.();
  }
  open() {
    this.readyState = 1;
    this.onopen?.();
  }
}

describe('realtime socket', () => {
  beforeEach(() => {
    vi.useFakeTimers();
    FakeSocket.all = [];
    vi.stubGlobal('WebSocket', FakeSocket);
    vi.stubGlobal('document', { documentElement: { dataset: {} as Record<string, string> } });
    vi.stubGlobal('window', { location: { reload: vi.fn() } });
  });
  afterEach(() => {
    vi.useRealTimers();
    vi.unstubAllGlobals();
    vi.resetModules();
  });

  it('has the pages reload on the first open too: what they loaded before it may have changed unheard', async () => {
    const { realtime } = await import('./realtime');
    const reloads: string[] = [];
    // A page mounted and loaded while the socket was still connecting.
    const off = realtime.onReconnect(() => reloads.push('list'));
    realtime.start();
    await vi.waitFor(() => expect(FakeSocket.all).toHaveLength(1));
    expect(reloads).toEqual([]);
    FakeSocket.all[0].open();
    expect(reloads).toEqual(['list']);
    expect(document.documentElement.dataset.realtime).toBe('open');

    // A page mounted after the open loads with the socket listening: nothing to reload until
    // the socket drops and opens again.
    const later: string[] = [];
    const offLater = realtime.onReconnect(() => later.push('conversation'));
    expect(later).toEqual([]);
    FakeSocket.all[0].close();
    await vi.advanceTimersByTimeAsync(2_000);
    await vi.waitFor(() => expect(FakeSocket.all).toHaveLength(2));
    FakeSocket.all[1].open();
    expect(reloads).toEqual(['list', 'list']);
    expect(later).toEqual(['conversation']);
    off();
    offLater();
    realtime.stop();
  });
});
