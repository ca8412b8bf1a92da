import type { Logger } from '../../provider.js';

/**
 * The session's inbound work, one chain per chat: a chat's events are handled in order, while a
 * slow one (a large download, a queue that refuses events) holds only its own chat, never the
 * others' messages and acks.
 *
 * It also measures the backlog. Baileys acknowledges messages to WhatsApp before we see them, so
 * what waits here exists only in memory: past `high` waiting events the socket stops reading
 * (WhatsApp keeps what it could not deliver), and reads again once the backlog is down to `low`.
 */
export class InboundPipeline {
  private chains = new Map<string, Promise<void>>();
  private waiting = 0;
  private pressed = false;

  constructor(
    private readonly o: {
      high: number;
      low: number;
      log: Logger;
      /** Called with true when the backlog reaches `high`, false when it is back to `low`. */
      onPressure(pressed: boolean): void;
    },
  ) {}

  /** Events waiting or being handled. */
  get size(): number {
    return this.waiting;
  }

  /** Chats with work under way. */
  get chats(): number {
    return this.chains.size;
  }

  get pressure(): boolean {
    return this.pressed;
  }

  push(chat: string, event: string, fn: () => Promise<void>): void {
    this.waiting++;
    if (!this.pressed && this.waiting >= this.o.high) {
      this.pressed = true;
      this.o.onPressure(true);
    }
    const previous = this.chains.get(chat) ?? Promise.resolve();
    const next: Promise<void> = previous
      .then(fn)
      .catch((err) => this.o.log.error({ err, event }, 'baileys: inbound event lost'))
      .finally(() => {
        this.waiting--;
        // The last link of a chat ends its chain: the map holds only chats with work.
        if (this.chains.get(chat) === next) this.chains.delete(chat);
        if (this.pressed && this.waiting <= this.o.low) {
          this.pressed = false;
          this.o.onPressure(false);
        }
      });
    this.chains.set(chat, next);
  }

  /** Resolves once everything pushed so far (and what it pushed meanwhile) is done. */
  async drain(): Promise<void> {
    while (this.chains.size) await Promise.all([...this.chains.values()]);
  }
}
