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

/** Adds a sandbox connection to the tenant, scans its QR and waits until it is CONNECTED. */
export async function linkSandboxConnection(
  t: { companyId: number; admin: Awaited<ReturnType<typeof tenant>>['admin'] },
  ws: Awaited<ReturnType<typeof socket>>,
  name = uniq('Loja '),
) {
  const created = await t.admin.post('/whatsapp', { name, provider: 'sandbox' });
  expect(created.status).toBe(201);
  const id = created.body.id as number;
  const qr = await ws.waitFor(`company-${t.companyId}-whatsappSession`, (d) => d.session.id === id && d.session.status === 'qrcode' && d.session.qrcode, 20_000);
  expect(qr.data.session.qrcode.length).toBeGreaterThan(10);
  expect((await sandbox('POST', `/connections/${id}/scan`)).status).toBeLessThan(300);
  const up = await ws.waitFor(`company-${t.companyId}-whatsappSession`, (d) => d.session.id === id && d.session.status === 'CONNECTED', 20_000);
  expect(up.data.session.number).toMatch(/^\d{10,15}$/);
  return { id, name, number: up.data.session.number as string };
}

/** A tenant with a sandbox connection scanned and CONNECTED. */
export async function connected(planOverrides: Record<string, unknown> = {}) {
  const t = await tenant(planOverrides);
  const ws = await socket(t.adminToken);
  const link = await linkSandboxConnection(t, ws);
  return { ...t, ws, connectionId: link.id, number: link.number };
}

export async function ticketOf(t: Awaited<ReturnType<typeof connected>>, number: string) {
  const frame = await t.ws.waitFor(`company-${t.companyId}-ticket`, (d) => d.ticket.contact?.number === number, 20_000);
  return frame.data.ticket as { id: number; status: string; unreadMessages: number };
}

