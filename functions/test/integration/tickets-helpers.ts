import { randomUUID } from 'node:crypto';
import { expect } from 'vitest';
import { applyStackEnv, tenant } from './client.js';

/** The companies `world()` made in this test file: their ticket counters are checked at its end. */
const worlds: number[] = [];
/** Adds a company made another way to the end-of-file counter check. */
export const watchCounters = (companyId: number) => void worlds.push(companyId);

/** A tenant with a sandbox connection and two queues. */
export async function world() {
  const t = await tenant({ users: 10 });
  worlds.push(t.companyId);
  const conn = await t.admin.post('/whatsapp', { name: 'Loja', provider: 'sandbox' });
  expect(conn.status).toBe(201);
  const colour = () => `#${randomUUID().slice(0, 6)}`;
  const q1 = await t.admin.post('/queue', { name: 'Vendas', color: colour(), greetingMessage: 'Bem-vindo' });
  const q2 = await t.admin.post('/queue', { name: 'Suporte', color: colour(), greetingMessage: 'Bem-vindo' });
  expect(q1.status).toBe(201);
  expect(q2.status).toBe(201);
  return { ...t, connectionId: conn.body.id as number, q1: q1.body.id as number, q2: q2.body.id as number };
}

/** A WhatsApp-like message id (`<prefix>` + 18 hex digits), unique per call. */
export const waMessageId = (prefix = 'W') => `${prefix}${randomUUID().replace(/-/g, '').slice(0, 18).toUpperCase()}`;

let n = 0;
export const phone = () => `55119${String(Date.now() % 1e4).padStart(4, '0')}${String(++n).padStart(4, '0')}`;

/** A customer writes (the ingest worker's steps, called directly): contact, ticket, unread message. */
export async function customer(companyId: number, connectionId: number, opts: { number?: string; name?: string; text?: string | null } = {}) {
  applyStackEnv();
  const { findOrCreateContact } = await import('../../src/services/contacts.js');
  const { findOrCreateTicket } = await import('../../src/services/tickets.js');
  const { storeMessage } = await import('../../src/services/messages.js');
  const number = opts.number ?? phone();
  const contact = await findOrCreateContact(companyId, { number }, { pushName: opts.name ?? `Cliente ${number.slice(-4)}`, connectionId });
  const { ticket } = await findOrCreateTicket(companyId, connectionId, contact);
  const text = opts.text === undefined ? 'Olá' : opts.text;
  if (text !== null) {
    await storeMessage(ticket, { id: waMessageId(), body: text, fromMe: false, ack: 3, createdAt: new Date().toISOString(), unread: true });
  }
  return { contactId: contact.id, ticketId: ticket.id, number };
}

export async function ticketItem(companyId: number, id: number) {
  applyStackEnv();
  const { getItem } = await import('../../src/core/db.js');
  const { ticketKey } = await import('../../src/table/keys.js');
  return getItem<Record<string, any>>(ticketKey(companyId, id), true);
}

export async function setSetting(admin: { put: (p: string, b: unknown) => Promise<{ status: number }> }, key: string, value: string) {
  expect((await admin.put(`/settings/${key}`, { value })).status).toBe(200);
}

export async function patchConnection(companyId: number, id: number, set: Record<string, unknown>) {
  applyStackEnv();
  const { updateItem } = await import('../../src/core/db.js');
  const { connectionKey } = await import('../../src/table/keys.js');
  await updateItem(connectionKey(companyId, id), set);
}

export const ids = (list: { id: number }[]) => list.map((x) => x.id).sort((a, b) => a - b);

/**
 * The working-set counters (services/ticket-counters.ts) of every company this file made say
 * exactly what its pending and open tickets are: every write path the tests went through kept
 * them in step. For an `afterAll`.
 */
export async function expectCountersMatchTickets() {
  applyStackEnv();
  const { readTicketCounters, countWorkingSet } = await import('../../src/services/ticket-counters.js');
  const key = (c: { status: string; queueId: number | null; userId: number | null; n: number }) => `${c.status}/${c.queueId}/${c.userId}=${c.n}`;
  for (const companyId of worlds) {
    // The two reads are apart: a worker still finishing (a late automated message, a timer) may
    // move a ticket in between, so a difference is read again before it counts.
    let stored: string[] = [];
    let actual: string[] = [];
    for (let attempt = 0; attempt < 10; attempt++) {
      stored = (await readTicketCounters(companyId)).map(key).sort();
      actual = [...(await countWorkingSet(companyId)).values()].map(key).sort();
      if (JSON.stringify(stored) === JSON.stringify(actual)) break;
      await new Promise((r) => setTimeout(r, 500));
    }
    expect(stored, `ticket counters of company ${companyId}`).toEqual(actual);
  }
}
