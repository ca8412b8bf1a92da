import { describe, expect, it } from 'vitest';
import { emit, msg, setup, ticketsOf, until, type Ev } from './ingest-helpers.js';

/**
 * A burst of 200 messages keeps the single local DynamoDB busy for a while: it runs in the
 * `stack-disruptive` project, alone and last, so other tests are not starved meanwhile.
 */
describe('ingest order under a burst', () => {
  it('keeps each customer in order: 200 messages from 20 customers', async () => {
    const t = await setup();
    const events: Ev[] = [];
    for (let i = 0; i < 10; i++) for (let c = 0; c < 20; c++) events.push(msg(t.companyId, t.connectionId, `55119800${String(c).padStart(5, '0')}`, `msg ${i}`));
    await emit(events);
    const tickets = await until(async () => {
      const list = await ticketsOf(t.companyId);
      return list.length === 20 && list.every((x) => x.lastSeq === 10) ? list : undefined;
    }, '20 tickets with 10 messages', 110_000);
    for (const ticket of tickets) {
      const page = await t.admin.get(`/messages/${ticket.id}`);
      expect(page.body.messages.map((m: { body: string }) => m.body)).toEqual(Array.from({ length: 10 }, (_, i) => `msg ${i}`));
    }
  }, 120_000);
});
