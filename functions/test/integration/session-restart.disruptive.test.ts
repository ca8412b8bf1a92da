import { describe, expect, it } from 'vitest';
import { connected, sandbox, until } from './pipeline-helpers.js';

/**
 * Stops the stack's session host while customers keep writing: it runs in the `stack-disruptive`
 * project, alone and after the other stack tests, so no other test loses its sessions meanwhile.
 */
describe('session host restart', () => {
  it('loses nothing when the session host stops while customers keep writing', async () => {
    const t = await connected();
    const customers = ['5511976540010', '5511976540011', '5511976540012'];
    expect((await sandbox('POST', '/_local/session-host/stop')).status).toBeLessThan(300);
    for (let i = 0; i < 5; i++) {
      for (const c of customers) await sandbox('POST', `/connections/${t.connectionId}/messages`, { from: c, body: `mensagem ${i}` });
    }
    expect((await sandbox('POST', '/_local/session-host/start')).status).toBeLessThan(300);
    for (const c of customers) {
      const ticket = await until(async () => {
        // Realtime events may arrive out of order (a standard queue): take the newest state seen.
        const tickets = t.ws.frames.filter((f) => f.event === `company-${t.companyId}-ticket` && f.data.ticket.contact?.number === c).map((f) => f.data.ticket);
        return tickets.find((x) => x.lastSeq === 5);
      }, `five messages of ${c}`, 60_000);
      const page = await t.admin.get(`/messages/${ticket.id}`);
      expect(page.body.messages.map((m: { body: string }) => m.body)).toEqual(['mensagem 0', 'mensagem 1', 'mensagem 2', 'mensagem 3', 'mensagem 4']);
    }
    t.ws.close();
  }, 120_000);

});
