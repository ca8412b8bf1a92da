import { afterAll, describe, expect, it } from 'vitest';
import { killableStack, sleep } from './kill-helpers.js';

/**
 * Issue 20 §4: a campaign sending when the whole one-machine product (`npm start`) is killed
 * outright, twice. After each start the campaign goes on by itself (the sweeper restarts its lane,
 * a claim left without its record is redone without sending again), and in the end every
 * recipient's phone has the campaign's message exactly once.
 */
const RECIPIENTS = 40;
const ADMIN = { email: 'admin@campaign-kill.test', password: 'Balcao123' };

describe('a campaign while the whole stack is killed', () => {
  const stack = killableStack('campaign-kill', ADMIN);
  afterAll(() => stack.dispose());

  it('sends every recipient its message exactly once across two kills', async () => {
    const numbers = Array.from({ length: RECIPIENTS }, (_, i) => `55319${String(70_000_000 + i)}`);
    const copies = async (connectionId: number, number: string) => {
      const r = await stack.sandbox('GET', `/connections/${connectionId}/messages?peer=${number}`);
      return r.status === 200 ? (r.body as { fromMe: boolean; body: string }[]).filter((m) => m.fromMe && m.body.startsWith('Oferta para')).length : 0;
    };
    const campaignOf = async (id: number) => (await stack.api('GET', `/campaigns/${id}`)).body as { status: string; counts: { delivered: number; failed: number; recipients: number } };

    await stack.start();
    await stack.signIn();
    const connectionId = await stack.connectedDemo();
    // No pacing: the kills land among messages going out back to back.
    expect((await stack.api('POST', '/campaign-settings', { messageInterval: 0, longerIntervalAfter: 0, greaterInterval: 0, variables: [] })).status).toBeLessThan(300);
    const list = await stack.api('POST', '/contact-lists', { name: 'Clientes' });
    expect(list.status).toBe(201);
    for (const [i, number] of numbers.entries()) {
      const item = await stack.api('POST', '/contact-list-items', { name: `Cliente ${i}`, number, contactListId: list.body.id });
      expect(item.status, JSON.stringify(item.body)).toBe(201);
    }
    const scheduledAt = new Date(Math.ceil((Date.now() + 4_000) / 1000) * 1000).toISOString();
    const made = await stack.api('POST', '/campaigns', { name: 'Queima', contactListId: list.body.id, whatsappId: connectionId, scheduledAt, message1: 'Oferta para {nome}' });
    expect(made.status, JSON.stringify(made.body)).toBe(201);

    const atKills: number[] = [];
    for (const after of [8, 20]) {
      // After the first kill the campaign may wait for the sweeper (every minute) and for a claim the
      // kill cut (redone after 2 minutes, decision 55) before it reaches the next mark.
      let delivered = 0;
      for (const deadline = Date.now() + 240_000; (delivered = (await campaignOf(made.body.id)).counts.delivered) < after; ) {
        if (Date.now() > deadline) throw new Error(`fewer than ${after} delivered after 4 minutes`);
        await sleep(100);
      }
      await stack.kill();
      // Killed mid-campaign, not after it.
      expect(delivered).toBeLessThan(RECIPIENTS);
      atKills.push(delivered);
      await stack.start();
      await stack.signIn();
      await stack.connectedDemo(connectionId);
    }

    // The sweeper (every minute) restarts the lane; a claim cut by the kill is redone after 2 minutes.
    let c = await campaignOf(made.body.id);
    for (const deadline = Date.now() + 240_000; c.status !== 'FINALIZADA' && Date.now() < deadline; c = await campaignOf(made.body.id)) await sleep(1_000);
    expect(c).toMatchObject({ status: 'FINALIZADA', counts: { recipients: RECIPIENTS, delivered: RECIPIENTS, failed: 0 } });
    const received = await Promise.all(numbers.map((n) => copies(connectionId, n)));
    expect(received).toEqual(numbers.map(() => 1));
    process.stderr.write(`[campaign-kill] killed at ${atKills.join(' and ')} of ${RECIPIENTS} delivered\n`);
  }, 900_000);
});
