import { afterAll, describe, expect, it } from 'vitest';
import { killableStack, sleep } from './kill-helpers.js';

/**
 * Issue 16 §1: the one-machine product (`npm start`) killed outright, three times, while 20
 * customers write 200 messages and an agent replies to each of them. Every message the simulated
 * WhatsApp accepted reaches its ticket exactly once and in order, and every reply the API accepted
 * reaches the customer exactly once, within 15 s of the next start. It runs its own stack (its own
 * ports and data directory) as a process group, killed with SIGKILL like a power button would.
 */
const CUSTOMERS = 20;
const PER_CUSTOMER = 10;
const KILLS = 3;
const ADMIN = { email: 'admin@kill.test', password: 'Balcao123' };

describe('the whole stack killed mid-burst', () => {
  const stack = killableStack('kill', ADMIN);
  afterAll(() => stack.dispose());

  it('loses and duplicates nothing, keeps each chat in order and delivers every accepted reply within 15 s of the restart', async () => {
    const customers = Array.from({ length: CUSTOMERS }, (_, c) => `55119${String(80000000 + c)}`);
    const msgId = (c: number, i: number) => `KILL${c}x${i}`;
    const body = (c: number, i: number) => `cliente ${c} mensagem ${i}`;
    /** The next message each customer's phone sends (a phone resends what the server did not acknowledge). */
    const next = customers.map(() => 0);
    const replyOf = (c: number) => `Resposta ao cliente ${c}`;
    const replyState = customers.map(() => 'none' as 'none' | 'unknown' | 'accepted');
    let acceptedReplies: number[] = [];
    const lateness: number[] = [];

    let connectionId = 0;
    const { api, sandbox } = stack;
    /** Replies fired mid-burst, still running. */
    const inflight: Promise<void>[] = [];
    const ticketOf = async (c: number): Promise<{ id: number } | undefined> => {
      const r = await api('GET', `/tickets?searchParam=${customers[c]}&showAll=true&status=pending`);
      const open = r.status === 200 ? r.body.tickets.find((t: any) => t.contact?.number === customers[c]) : undefined;
      if (open) return open;
      const r2 = await api('GET', `/tickets?searchParam=${customers[c]}&showAll=true&status=open`);
      return r2.status === 200 ? r2.body.tickets.find((t: any) => t.contact?.number === customers[c]) : undefined;
    };
    const delivered = async (c: number) => {
      const r = await sandbox('GET', `/connections/${connectionId}/messages?peer=${customers[c]}`);
      return r.status === 200 ? (r.body as { fromMe: boolean; body: string }[]).filter((m) => m.fromMe && m.body === replyOf(c)).length : 0;
    };

    /** A reply through the API, as an agent sends it; `unknown` when the stack died before answering. */
    const reply = async (c: number) => {
      let t: { id: number } | undefined;
      // The customer's first messages may still be on their way to the ticket.
      for (let tries = 0; !t && tries < 40; tries++) {
        t = await ticketOf(c).catch(() => undefined);
        if (!t) await sleep(250);
      }
      if (!t) return;
      replyState[c] = 'unknown';
      try {
        const r = await api('POST', `/messages/${t.id}`, { body: replyOf(c) });
        replyState[c] = r.status < 300 ? 'accepted' : 'none';
      } catch {
        /* the stack died: whether it was stored is looked up after the restart */
      }
    };

    /** The customers write (each in order, all at once) until `stopAfter` messages were accepted; replies go out mid-burst. */
    const burst = async (stopAfter: number, replies: number, onLimit: () => void) => {
      let accepted = 0;
      let repliesFired = false;
      const writers = customers.map(async (from, c) => {
        while (next[c]! < PER_CUSTOMER) {
          const i = next[c]!;
          try {
            const r = await sandbox('POST', `/connections/${connectionId}/messages`, { from, name: `Cliente ${c}`, body: body(c, i), id: msgId(c, i) });
            if (r.status !== 200) throw new Error(`sandbox answered ${r.status}`);
          } catch {
            return; // the stack is gone: the phone sends it again once the server is back
          }
          next[c] = i + 1;
          accepted++;
          if (!repliesFired && accepted >= stopAfter / 2) {
            repliesFired = true;
            const todo = customers.map((_, k) => k).filter((k) => replyState[k] === 'none').slice(0, replies);
            inflight.push(Promise.all(todo.map(reply)).then(() => undefined));
          }
          if (accepted >= stopAfter) onLimit();
        }
      });
      await Promise.all(writers);
    };

    /** After a restart: a reply whose request died is looked up; accepted ones must reach the phone within 15 s. */
    const afterRestart = async (readyAt: number) => {
      for (let c = 0; c < CUSTOMERS; c++) {
        if (replyState[c] !== 'unknown') continue;
        const t = await ticketOf(c);
        const page = t ? await api('GET', `/messages/${t.id}`) : undefined;
        const stored = page?.body.messages.some((m: any) => m.fromMe && m.body === replyOf(c));
        replyState[c] = stored ? 'accepted' : 'none';
      }
      acceptedReplies = customers.map((_, c) => c).filter((c) => replyState[c] === 'accepted');
      const pending = new Set(acceptedReplies);
      while (pending.size) {
        for (const c of [...pending]) if ((await delivered(c)) > 0) pending.delete(c);
        if (Date.now() - readyAt > 30_000) break;
        if (pending.size) await sleep(250);
      }
      lateness.push(Date.now() - readyAt);
      expect([...pending], 'accepted replies not delivered 30 s after the restart').toEqual([]);
    };

    for (let round = 0; round <= KILLS; round++) {
      const started = await stack.start();
      await stack.signIn();
      // The demo connection comes back by itself after the restart.
      connectionId = await stack.connectedDemo(connectionId || undefined);
      await afterRestart(started.readyAt);
      if (round === KILLS) {
        await burst(Infinity, CUSTOMERS, () => {});
        for (let c = 0; c < CUSTOMERS; c++) if (replyState[c] === 'none') await reply(c);
        break;
      }
      let killing: Promise<void> | undefined;
      await burst(45, 7, () => {
        killing ??= stack.kill();
      });
      await (killing ?? stack.kill());
      // Replies still looking for their ticket give up against the dead stack (or were cut mid-request,
      // which the next start looks up): none may post after the restart as well as the final round.
      await Promise.all(inflight.splice(0));
    }

    // Every customer's ten messages, once each and in order, in their ticket; every reply once on the phone.
    expect(next).toEqual(customers.map(() => PER_CUSTOMER));
    for (let c = 0; c < CUSTOMERS; c++) {
      let bodies: string[] = [];
      const deadline = Date.now() + 60_000;
      for (;;) {
        const t = await ticketOf(c);
        const page = t ? await api('GET', `/messages/${t.id}`) : undefined;
        bodies = (page?.body.messages ?? []).filter((m: any) => !m.fromMe).map((m: any) => m.body);
        if (bodies.length >= PER_CUSTOMER || Date.now() > deadline) break;
        await sleep(500);
      }
      expect(bodies, `messages of customer ${c}`).toEqual(Array.from({ length: PER_CUSTOMER }, (_, i) => body(c, i)));
    }
    for (let c = 0; c < CUSTOMERS; c++) {
      expect(replyState[c], `reply to customer ${c}`).toBe('accepted');
      const deadline = Date.now() + 30_000;
      while ((await delivered(c)) < 1 && Date.now() < deadline) await sleep(250);
      expect(await delivered(c), `copies of the reply to customer ${c}`).toBe(1);
    }
    // Replies accepted before a kill reached the phone within 15 s of the next start.
    expect(Math.max(...lateness.slice(1))).toBeLessThanOrEqual(15_000);
    process.stderr.write(`[stack-kill] replies delivered ${lateness.map((ms) => `${(ms / 1000).toFixed(1)} s`).join(', ')} after each start\n`);
  }, 600_000);
});
