import { expect } from 'vitest';
import { endpoints, socket, tenant, uniq } from './client.js';

/** The simulated phones (issue 3 §3), as a test or a person drives them. */
export const sandbox = async <T = any>(method: string, path: string, body?: unknown): Promise<{ status: number; body: T }> => {
  const res = await fetch(`${endpoints().sandboxUrl}${path}`, {
    method,
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: (text ? JSON.parse(text) : undefined) as T };
};

export async function until<T>(fn: () => Promise<T | undefined | false>, what: string, ms = 20_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (v !== undefined && v !== false) return v as T;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** A tenant with a sandbox connection scanned and CONNECTED. */
export async function connected(planOverrides: Record<string, unknown> = {}) {
  const t = await tenant(planOverrides);
  const ws = await socket(t.adminToken);
  const created = await t.admin.post('/whatsapp', { name: uniq('Loja '), provider: 'sandbox' });
  expect(created.status).toBe(201);
  const id = created.body.id as number;
  const qr = await ws.waitFor(`company-${t.companyId}-whatsappSession`, (d) => d.session.id === id && d.session.status === 'qrcode' && d.session.qrcode, 20_000);
  expect(qr.data.session.qrcode.length).toBeGreaterThan(10);
  expect((await sandbox('POST', `/connections/${id}/scan`)).status).toBeLessThan(300);
  const up = await ws.waitFor(`company-${t.companyId}-whatsappSession`, (d) => d.session.id === id && d.session.status === 'CONNECTED', 20_000);
  expect(up.data.session.number).toMatch(/^\d{10,15}$/);
  return { ...t, ws, connectionId: id, number: up.data.session.number as string };
}

export async function ticketOf(t: Awaited<ReturnType<typeof connected>>, number: string) {
  const frame = await t.ws.waitFor(`company-${t.companyId}-ticket`, (d) => d.ticket.contact?.number === number, 20_000);
  return frame.data.ticket as { id: number; status: string; unreadMessages: number };
}

