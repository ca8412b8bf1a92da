import type { RealtimeMessage } from '@balcao/shared';
import { log } from './observability.js';
import { ports } from './ports.js';

/**
 * Domain code publishes events here; the fan-out worker delivers them to the sockets that may see
 * them (DESIGN §5). A failed publish is logged, never fails the request that already committed:
 * clients reload what they show after a reconnect, so a lost event is not a lost message.
 */
export async function publish(messages: RealtimeMessage | RealtimeMessage[]): Promise<void> {
  const list = Array.isArray(messages) ? messages : [messages];
  if (!list.length) return;
  try {
    await ports().publisher.publish(list);
  } catch (err) {
    log.warn('realtime publish failed', { err, events: list.map((m) => m.event) });
  }
}
