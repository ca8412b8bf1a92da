import { randomUUID } from 'node:crypto';
import { expect } from 'vitest';
import { applyStackEnv, tenant } from './client.js';

/** A tenant with a sandbox connection and two queues. */
export async function world() {
  const t = await tenant({ users: 10 });
  const conn = await t.admin.post('/whatsapp', { name: 'Loja', provider: 'sandbox' });
  expect(conn.status).toBe(201);
  const colour = () => `#${randomUUID().slice(0, 6)}`;
  const q1 = await t.admin.post('/queue', { name: 'Vendas', color: colour(), greetingMessage: 'Bem-vindo' });
  const q2 = await t.admin.post('/queue', { name: 'Suporte', color: colour(), greetingMessage: 'Bem-vindo' });
  expect(q1.status).toBe(201);
  expect(q2.status).toBe(201);
  return { ...t, connectionId: conn.body.id as number, q1: q1.body.id as number, q2: q2.body.id as number };
}

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
    await storeMessage(ticket, { id: `W${randomUUID().replace(/-/g, '').slice(0, 18).toUpperCase()}`, body: text, fromMe: false, ack: 3, createdAt: new Date().toISOString(), unread: true });
  }
  return { contactId: contact.id, ticketId: ticket.id, number };
}

export async function ticketItem(companyId: number, id: number) {
  applyStackEnv();
  const { getItem } = await import('../../src/core/db.js');
  const { ticketKey } = await import('../../src/services/tickets.js');
  return getItem<Record<string, any>>(ticketKey(companyId, id), true);
}

export async function setSetting(admin: { put: (p: string, b: unknown) => Promise<{ status: number }> }, key: string, value: string) {
  expect((await admin.put(`/settings/${key}`, { value })).status).toBe(200);
}

export async function patchConnection(companyId: number, id: number, set: Record<string, unknown>) {
  applyStackEnv();
  const { updateItem } = await import('../../src/core/db.js');
  const { connectionKey } = await import('../../src/services/connections.js');
  await updateItem(connectionKey(companyId, id), set);
}

export const ids = (list: { id: number }[]) => list.map((x) => x.id).sort((a, b) => a - b);
