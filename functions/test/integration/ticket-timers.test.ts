import { randomUUID } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { expectCountersMatchTickets, watchCounters } from './tickets-helpers.js';
import { applyStackEnv } from './client.js';
import { connected, sandbox, ticketOf, until } from './pipeline-helpers.js';

/*
 * Auto-transfer and inactivity close (server-behaviour §6) through the real path: the sweep reads
 * the timer index, the ticket-timers worker of the stack runs the jobs, the phone receives the
 * texts. Time is moved by backdating a ticket's last activity in the table (the same write a real
 * ticket change makes), never by waiting. The connections use 30 minutes, so the stack's own
 * one-minute sweeper never finds a ticket due that the test did not backdate past 30 minutes.
 */

const MIN = 60_000;

async function services() {
  applyStackEnv();
  const timers = await import('../../src/services/ticket-timers.js');
  const db = await import('../../src/core/db.js');
  const tickets = await import('../../src/services/tickets.js');
  const table = await import('../../src/table/keys.js');
  const items = await import('../../src/table/items.js');
  return { ...timers, ...db, ...tickets, ...table, ...items };
}

/** Moves a ticket's last activity `minutes` back: a whole-item write guarded like every ticket write. */
async function backdate(companyId: number, ticketId: number, minutes: number) {
  const { getItem, transact, tx, ticketKey, ticketGuard, ticketIndexKeys } = await services();
  for (let attempt = 0; attempt < 5; attempt++) {
    const t = await getItem<any>(ticketKey(companyId, ticketId), true);
    const guard = ticketGuard(t);
    const next = { ...t, updatedAt: new Date(Date.now() - minutes * MIN).toISOString(), wv: guard.wv };
    Object.assign(next, ticketIndexKeys(next));
    try {
      await transact([tx.put(next, guard.condition, guard.values)]);
      return next;
    } catch {
      // The pipeline wrote the ticket meanwhile (a late automated message): read it again.
    }
  }
  throw new Error('backdate kept racing');
}

let n = 0;
const customerNumber = () => `5521${String(Date.now() % 1e5).padStart(5, '0')}${String(++n).padStart(4, '0')}`;

async function world() {
  const t = await connected();
  watchCounters(t.companyId);
  const queue = await t.admin.post('/queue', { name: 'Retenção', color: `#${randomUUID().slice(0, 6)}`, greetingMessage: '' });
  expect(queue.status).toBe(201);
  const phone = async (peer: string) => (await sandbox<any[]>('GET', `/connections/${t.connectionId}/messages?peer=${peer}`)).body;
  const write = async (from: string, body: string, name?: string) => {
    expect((await sandbox('POST', `/connections/${t.connectionId}/messages`, { from, body, name })).status).toBeLessThan(300);
  };
  return { ...t, queueId: queue.body.id as number, phone, write };
}

const mine = (jobs: { companyId: number; ticketId: number; kind: string }[], companyId: number) =>
  jobs.filter((j) => j.companyId === companyId).map((j) => `${j.kind}:${j.ticketId}`).sort();

describe('ticket timers (server-behaviour §6)', () => {
  it('auto-transfer: a pending ticket without a queue moves to the transfer queue after the minutes without activity, once', async () => {
    const t = await world();
    expect((await t.admin.put('/settings/sendMsgTransfTicket', { value: 'enabled' })).status).toBe(200);
    expect((await t.admin.put(`/whatsapp/${t.connectionId}`, { timeToTransfer: 30, transferQueueId: t.queueId })).status).toBe(200);
    const { sweepTicketTimers, runTimerJob } = await services();

    const due = customerNumber();
    const fresh = customerNumber();
    const taken = customerNumber();
    await t.write(due, 'Oi', 'Bruna Alves');
    const dueTicket = await ticketOf(t, due);
    await t.write(fresh, 'Olá');
    const freshTicket = await ticketOf(t, fresh);
    await t.write(taken, 'Bom dia');
    const takenTicket = await ticketOf(t, taken);
    // Let the inbound pipeline settle (no automated reply is configured) before moving the clock.
    await until(async () => ((await t.admin.get(`/tickets/${takenTicket.id}`)).body.lastMessage === 'Bom dia' ? true : undefined), 'the last message');

    await backdate(t.companyId, dueTicket.id, 31);
    await backdate(t.companyId, freshTicket.id, 20);
    const before = await backdate(t.companyId, takenTicket.id, 31);
    // An agent takes this one before the job runs: the job must leave it alone.
    expect((await t.admin.put(`/tickets/${takenTicket.id}`, { status: 'open' })).status).toBe(200);

    const now = Date.now();
    const jobs = await sweepTicketTimers(now);
    expect(mine(jobs, t.companyId)).toContain(`transfer:${dueTicket.id}`);
    expect(mine(jobs, t.companyId)).not.toContain(`transfer:${freshTicket.id}`);
    expect(mine(jobs, t.companyId)).not.toContain(`transfer:${takenTicket.id}`);

    const moved = await until(async () => {
      const res = await t.admin.get(`/tickets/${dueTicket.id}`);
      return res.body.queueId === t.queueId ? res.body : undefined;
    }, 'the ticket in the transfer queue');
    expect(moved).toMatchObject({ status: 'pending', userId: null, queueId: t.queueId });
    // Realtime: the ticket update carries the new queue.
    await t.ws.waitFor(`company-${t.companyId}-ticket`, (d) => d.ticket?.id === dueTicket.id && d.ticket.queueId === t.queueId);
    const notice = /^Boa (madrugada|noite|tarde)?|^Bom dia/;
    const notices = async () => (await t.phone(due)).filter((m) => m.fromMe && m.body.includes('seu atendimento foi transferido. Departamento: Retenção.'));
    const [first] = await until(async () => ((await notices()).length ? await notices() : undefined), 'the transfer notice on the phone');
    expect(first.body).toMatch(notice);
    expect(first.body).toContain('Bruna Alves');

    // Idempotent: the same job again (a redelivery or the next sweep) changes nothing.
    expect(await runTimerJob({ v: 1, kind: 'transfer', companyId: t.companyId, ticketId: dueTicket.id, now })).toBe('skipped');
    // A job from a sweep before the ticket was due does nothing either.
    expect(await runTimerJob({ v: 1, kind: 'transfer', companyId: t.companyId, ticketId: freshTicket.id, now })).toBe('skipped');
    // The ticket an agent took stays theirs, even for a job of the instant it was still due.
    expect(await runTimerJob({ v: 1, kind: 'transfer', companyId: t.companyId, ticketId: takenTicket.id, now: Date.parse(before.updatedAt) + 31 * MIN })).toBe('skipped');
    expect((await t.admin.get(`/tickets/${takenTicket.id}`)).body).toMatchObject({ status: 'open', userId: t.adminUser.id });
    expect((await t.admin.get(`/tickets/${freshTicket.id}`)).body).toMatchObject({ status: 'pending', queueId: null });
    await new Promise((r) => setTimeout(r, 1500));
    expect(await notices()).toHaveLength(1);

    // Without the setting the sweep no longer reads this connection.
    expect((await t.admin.put(`/whatsapp/${t.connectionId}`, { timeToTransfer: 0 })).status).toBe(200);
    await backdate(t.companyId, freshTicket.id, 60);
    expect(mine(await sweepTicketTimers(Date.now()), t.companyId)).toEqual([]);
    t.ws.close();
  });

  it('inactivity close: an open ticket whose last message was ours closes after the minutes, with the message; others stay open', async () => {
    const t = await world();
    expect(
      (await t.admin.put(`/whatsapp/${t.connectionId}`, { expiresTicket: 30, expiresInactiveMessage: 'Encerramos por falta de resposta, {{name}}.' })).status,
    ).toBe(200);
    const { sweepTicketTimers, runTimerJob } = await services();

    const quiet = customerNumber();
    const waiting = customerNumber();
    const recent = customerNumber();
    const open = async (number: string, name: string, agentLast: boolean) => {
      await t.write(number, 'Preciso de ajuda', name);
      const ticket = await ticketOf(t, number);
      expect((await t.admin.put(`/tickets/${ticket.id}`, { status: 'open' })).status).toBe(200);
      expect((await t.admin.post(`/messages/${ticket.id}`, { body: 'Pode me enviar o pedido?' })).status).toBeLessThan(300);
      if (!agentLast) {
        await t.write(number, 'Um momento');
        await until(async () => ((await t.admin.get(`/tickets/${ticket.id}`)).body.lastMessage === 'Um momento' ? true : undefined), 'the reply stored');
      }
      return ticket;
    };
    const quietTicket = await open(quiet, 'Caio Prado', true);
    const waitingTicket = await open(waiting, 'Dora Lima', false);
    const recentTicket = await open(recent, 'Eva Reis', true);

    await backdate(t.companyId, quietTicket.id, 31);
    await backdate(t.companyId, waitingTicket.id, 45);
    await backdate(t.companyId, recentTicket.id, 20);
    const now = Date.now();
    const jobs = mine(await sweepTicketTimers(now), t.companyId);
    expect(jobs).toContain(`expire:${quietTicket.id}`);
    // The customer spoke last: the ticket waits for the agent, it is not in the timer index at all.
    expect(jobs).not.toContain(`expire:${waitingTicket.id}`);
    expect(jobs).not.toContain(`expire:${recentTicket.id}`);

    const closed = await until(async () => {
      const res = await t.admin.get(`/tickets/${quietTicket.id}`);
      return res.body.status === 'closed' ? res.body : undefined;
    }, 'the inactive ticket closed');
    expect(closed.finishedAt).toBeTruthy();
    expect(closed.startedAt).toBeTruthy();
    await t.ws.waitFor(`company-${t.companyId}-ticket`, (d) => d.ticket?.id === quietTicket.id && d.ticket.status === 'closed');
    await until(async () => (await t.phone(quiet)).find((m) => m.fromMe && m.body === 'Encerramos por falta de resposta, Caio Prado.'), 'the inactivity message on the phone');
    // It left the open lists.
    const openList = await t.admin.get('/tickets?status=open&showAll=true');
    expect(openList.body.tickets.map((x: { id: number }) => x.id)).not.toContain(quietTicket.id);

    expect(await runTimerJob({ v: 1, kind: 'expire', companyId: t.companyId, ticketId: quietTicket.id, now })).toBe('skipped');
    expect(await runTimerJob({ v: 1, kind: 'expire', companyId: t.companyId, ticketId: waitingTicket.id, now })).toBe('skipped');
    for (const id of [waitingTicket.id, recentTicket.id]) expect((await t.admin.get(`/tickets/${id}`)).body.status).toBe('open');

    // The chat's marker remembers the close: the customer's next message within 2 hours reopens it.
    await t.write(quiet, 'Voltei');
    await until(async () => {
      const res = await t.admin.get(`/tickets/${quietTicket.id}`);
      return res.body.status === 'pending' ? res.body : undefined;
    }, 'the ticket reopened as pending');
    t.ws.close();
  });
});

// Every write path these tests went through kept the tab-badge counters exact.
afterAll(expectCountersMatchTickets, 60_000);
