import { describe, expect, it } from 'vitest';
import { connected, sandbox, ticketOf, until } from './pipeline-helpers.js';

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

  it('replies taken by a session host that crashes go out exactly once, within 15 s of its restart (issue 16 §1)', async () => {
    const t = await connected();
    const customer = '5511976540030';
    await sandbox('POST', `/connections/${t.connectionId}/messages`, { from: customer, body: 'Oi, tem alguém aí?' });
    const ticket = await ticketOf(t, customer);
    expect((await t.admin.put(`/tickets/${ticket.id}`, { status: 'open', userId: t.adminUser.id })).status).toBe(200);
    const replies = Array.from({ length: 20 }, (_, i) => `Resposta ${i}`);
    // The agent keeps replying; the host dies (SIGKILL: nothing settled) in the middle, while it
    // holds the command it was carrying out.
    let killed: Promise<{ status: number }> | undefined;
    for (const [i, body] of replies.entries()) {
      const r = await t.admin.post(`/messages/${ticket.id}`, { body });
      expect(r.status, JSON.stringify(r.body)).toBeLessThan(300);
      if (i === 5) killed = sandbox('POST', '/_local/session-host/kill');
    }
    expect((await killed!).status).toBeLessThan(300);
    expect((await sandbox('POST', '/_local/session-host/start')).status).toBeLessThan(300);
    const restarted = Date.now();
    const delivered = await until(async () => {
      const chat = (await sandbox<{ fromMe: boolean; body: string }[]>('GET', `/connections/${t.connectionId}/messages?peer=${customer}`)).body;
      const bodies = chat.filter((m) => m.fromMe).map((m) => m.body);
      return replies.every((r) => bodies.includes(r)) && bodies;
    }, 'every reply on the phone', 60_000);
    expect(Date.now() - restarted).toBeLessThanOrEqual(15_000);
    // Once each, in the order they were sent.
    expect(delivered.filter((b) => b.startsWith('Resposta '))).toEqual(replies);
    t.ws.close();
  }, 120_000);

});
