import { expect } from 'vitest';
import { applyStackEnv } from './client.js';
import { connected, sandbox, ticketOf, until } from './pipeline-helpers.js';

/** A 1×1 PNG (real bytes, so the server's format check has something true to read). */
export const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==', 'base64');
export const PDF = Buffer.from('%PDF-1.4\n1 0 obj << /Type /Catalog >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF\n', 'latin1');

/** Half a second of a 440 Hz tone as 16-bit mono WAV: audio ffmpeg can turn into a voice note. */
export function wav(seconds = 0.5, rate = 8000): Buffer {
  const samples = Math.round(seconds * rate);
  const data = Buffer.alloc(samples * 2);
  for (let i = 0; i < samples; i++) data.writeInt16LE(Math.round(Math.sin((2 * Math.PI * 440 * i) / rate) * 12000), i * 2);
  const h = Buffer.alloc(44);
  h.write('RIFF', 0, 'latin1');
  h.writeUInt32LE(36 + data.length, 4);
  h.write('WAVEfmt ', 8, 'latin1');
  h.writeUInt32LE(16, 16);
  h.writeUInt16LE(1, 20);
  h.writeUInt16LE(1, 22);
  h.writeUInt32LE(rate, 24);
  h.writeUInt32LE(rate * 2, 28);
  h.writeUInt16LE(2, 32);
  h.writeUInt16LE(16, 34);
  h.write('data', 36, 'latin1');
  h.writeUInt32LE(data.length, 40);
  return Buffer.concat([h, data]);
}

export type Api = { post: (p: string, b?: unknown) => Promise<{ status: number; body: any }> };

/** The presigned flow the console uses: ask for an upload, PUT the bytes with the given headers. */
export async function upload(api: Api, ticketId: number, fileName: string, contentType: string, data: Buffer) {
  const res = await api.post(`/messages/${ticketId}/media-upload`, { fileName, contentType, size: data.length });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  expect(res.body).toMatchObject({ key: expect.any(String), uploadUrl: expect.any(String), headers: { 'Content-Type': expect.any(String) }, expiresIn: expect.any(Number) });
  const put = await fetch(res.body.uploadUrl, { method: 'PUT', headers: res.body.headers, body: new Uint8Array(data) });
  expect(put.status, await put.clone().text()).toBeLessThan(300);
  return res.body.key as string;
}

/** A connected tenant whose customer wrote first; the admin accepted the ticket. */
export async function conversation(customer: string, name = 'Cliente Teste') {
  const t = await connected();
  const sent = await sandbox('POST', `/connections/${t.connectionId}/messages`, { from: customer, name, body: 'Olá, bom dia' });
  expect(sent.status).toBeLessThan(300);
  const ticket = await ticketOf(t, customer);
  const accepted = await t.admin.put(`/tickets/${ticket.id}`, { status: 'open' });
  expect(accepted.status).toBe(200);
  // The agent has the conversation open: its messages come to the ticket's room.
  await t.ws.join(ticket.id);
  const phone = async () => (await sandbox<any[]>('GET', `/connections/${t.connectionId}/messages?peer=${customer}`)).body;
  const onPhone = (pred: (m: any) => boolean, what: string) => until(async () => (await phone()).find(pred), what);
  return { ...t, ticketId: ticket.id, customer, customerMessageId: (sent.body as { id: string }).id, phone, onPhone };
}

export async function sandboxBytes(path: string): Promise<Buffer> {
  const { endpoints } = await import('./client.js');
  const r = await fetch(`${endpoints().sandboxUrl}${path}`);
  expect(r.status).toBe(200);
  return Buffer.from(await r.arrayBuffer());
}

/** Rewrites a stored message (tests of time rules: the edit window). */
export async function setMessageFields(companyId: number, waMessageId: string, set: Record<string, unknown>) {
  applyStackEnv();
  const { findMessageById } = await import('../../src/services/message-lookup.js');
  const { updateItem } = await import('../../src/core/db.js');
  const m = await findMessageById(companyId, waMessageId);
  if (!m) throw new Error(`no message ${waMessageId}`);
  await updateItem({ PK: m.PK, SK: m.SK }, set);
}

export async function messagesOf(api: { get: (p: string) => Promise<{ status: number; body: any }> }, ticketId: number): Promise<any[]> {
  const res = await api.get(`/messages/${ticketId}`);
  expect(res.status).toBe(200);
  return res.body.messages;
}
