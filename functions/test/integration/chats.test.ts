import { describe, expect, it } from 'vitest';
import { FILE_CONTENT_MISMATCH } from '@balcao/shared';
import { as, call, member, socket, tenant } from './client.js';
import { PDF, PNG } from './messages-helpers.js';

/*
 * Internal chat routes (issue 21 §2; spec 002 §7 "Chats"; decision 57) through the local stack:
 * every route with its tenancy, the plan flag, membership (404 for anyone else), the owner's rules
 * (403), unread counts under concurrent sends, message pages, files checked by their bytes (multipart
 * and presigned upload), and events delivered only to the chat's members.
 */

type Api = ReturnType<typeof as>;
interface Chat {
  id: number;
  uuid: string;
  title: string;
  isGroup: boolean;
  ownerId: number;
  lastMessage: string;
  users: { userId: number; unreads: number; user: { id: number; name: string; photoUrl: string | null } }[];
}

async function chat(api: Api, body: Record<string, unknown>) {
  const res = await api.post('/chats', body);
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body as Chat;
}
const unreads = (c: Chat) => Object.fromEntries(c.users.map((u) => [u.userId, u.unreads]));
const filesForm = (files: { data: Buffer; name: string; type: string }[], body?: string) => {
  const form = new FormData();
  for (const f of files) form.append('medias', new Blob([new Uint8Array(f.data)], { type: f.type }), f.name);
  if (body !== undefined) form.append('body', body);
  return form;
};

async function team() {
  const t = await tenant();
  const bia = await member(t.admin, { name: 'Bia Souza' });
  const caio = await member(t.admin, { name: 'Caio Lima' });
  return { t, ana: { id: t.adminUser.id as number, api: t.admin, token: t.adminToken }, bia, caio };
}

describe('chats routes', () => {
  it('creates, lists, edits and deletes with the dialog rules, membership, owner rules and events to members only', async () => {
    const { t, ana, bia, caio } = await team();
    const chatEvent = `company-${t.companyId}-chat`;
    const biaWs = await socket(bia.token);
    const caioWs = await socket(caio.token);

    // The spec's alerts; nothing written.
    expect((await ana.api.post('/chats', { title: '  ', users: [bia.id] })).body).toMatchObject({ error: 'ERR_VALIDATION', field: 'title', message: 'Por favor, preencha o título da conversa.' });
    expect((await ana.api.post('/chats', { title: 'Oi', users: [] })).body).toMatchObject({ field: 'users', message: 'Por favor, selecione pelo menos um usuário.' });
    expect((await ana.api.post('/chats', { title: 'Oi' })).body).toMatchObject({ field: 'users', message: 'Por favor, selecione pelo menos um usuário.' });
    expect((await ana.api.post('/chats', { title: 'Oi', users: [bia.id, caio.id], isGroup: false })).body).toMatchObject({ error: 'ERR_CHAT_ONE_TO_ONE' });
    expect((await ana.api.post('/chats', { title: 'Oi', users: ['abc'] })).status).toBe(400);
    expect((await ana.api.get('/chats')).body).toEqual({ records: [], count: 0, hasMore: false, unreadChats: 0 });

    const biaMark = biaWs.mark();
    const caioMark = caioWs.mark();
    const pair = await chat(ana.api, { title: '<img src=x onerror=alert(1)>', users: [{ id: bia.id, name: 'Bia' }] });
    expect(pair).toMatchObject({ isGroup: false, ownerId: ana.id, title: '<img src=x onerror=alert(1)>' });
    expect(pair.uuid).toMatch(/^[0-9a-f-]{36}$/);
    expect(pair.users.map((u) => [u.userId, u.unreads])).toEqual([
      [ana.id, 0],
      [bia.id, 0],
    ]);
    expect(pair.users[1].user).toMatchObject({ id: bia.id, name: 'Bia Souza' });
    await biaWs.waitFor(chatEvent, (d) => d.action === 'create' && d.chat.id === pair.id, 20_000, biaMark);

    const group = await chat(bia.api, { title: 'Equipe', users: [ana.id, caio.id] });
    expect(group.isGroup).toBe(true);
    expect((await ana.api.get('/chats')).body.records.map((c: Chat) => c.id)).toEqual([group.id, pair.id]);
    expect((await caio.api.get('/chats')).body.records.map((c: Chat) => c.id)).toEqual([group.id]);

    // Caio is not in the pair: it does not exist for him.
    expect((await caio.api.get(`/chats/${pair.id}/messages`)).status).toBe(404);
    expect((await caio.api.post(`/chats/${pair.id}/messages`, { message: 'x' })).status).toBe(404);
    expect((await caio.api.post(`/chats/${pair.id}/read`, {})).status).toBe(404);
    expect((await caio.api.post(`/chats/${pair.id}/media-upload`, { fileName: 'a.png', contentType: 'image/png', size: PNG.length })).status).toBe(404);
    expect((await caio.api.put(`/chats/${pair.id}`, { title: 'meu' })).status).toBe(404);
    expect((await caio.api.del(`/chats/${pair.id}`)).status).toBe(404);
    expect((await caio.api.get('/chats/abc/messages')).status).toBe(404);
    // Caio's socket never heard of the pair.
    expect(caioWs.frames.slice(caioMark).filter((f) => f.event.endsWith('-chat') && f.data.chat?.id === pair.id)).toEqual([]);

    // Only the owner edits or deletes.
    expect((await ana.api.put(`/chats/${group.id}`, { title: 'Minha' })).body).toMatchObject({ error: 'ERR_CHAT_OWNER_ONLY', message: 'Só quem criou a conversa pode editá-la ou excluí-la' });
    expect((await ana.api.put(`/chats/${group.id}`, { title: 'Minha' })).status).toBe(403);
    expect((await ana.api.del(`/chats/${group.id}`)).status).toBe(403);
    expect((await bia.api.put(`/chats/${group.id}`, { title: '' })).body).toMatchObject({ field: 'title', message: 'Por favor, preencha o título da conversa.' });
    const edited = await bia.api.put(`/chats/${group.id}`, { title: 'Equipe toda', users: [ana.id] });
    expect(edited.status).toBe(200);
    expect(edited.body).toMatchObject({ title: 'Equipe toda' });
    // Caio was removed: told so, and the chat is gone for him.
    await caioWs.waitFor(chatEvent, (d) => d.action === 'delete' && d.chatId === group.id, 20_000, caioMark);
    expect((await caio.api.get('/chats')).body.records).toEqual([]);
    expect((await caio.api.get(`/chats/${group.id}/messages`)).status).toBe(404);
    // A pair keeps two members.
    expect((await ana.api.put(`/chats/${pair.id}`, { users: [bia.id, caio.id] })).body).toMatchObject({ error: 'ERR_CHAT_ONE_TO_ONE' });

    expect((await bia.api.del(`/chats/${group.id}`)).status).toBe(204);
    expect((await bia.api.del(`/chats/${group.id}`)).status).toBe(404);
    expect((await ana.api.get('/chats')).body.records.map((c: Chat) => c.id)).toEqual([pair.id]);
    biaWs.close();
    caioWs.close();
  });

  it('a deleted user leaves their chats: a group they owned passes on, their one-to-one chat is deleted', async () => {
    const { ana, bia, caio } = await team();
    const group = await chat(caio.api, { title: 'Do Caio', users: [bia.id, ana.id] });
    const pair = await chat(caio.api, { title: 'Caio e Bia', users: [bia.id] });
    await caio.api.post(`/chats/${pair.id}/messages`, { message: 'oi' });
    expect((await ana.api.del(`/users/${caio.id}`)).status).toBe(204);

    // The group passes to the remaining member with the lowest id, who edits and deletes it.
    const owner = ana.id < bia.id ? ana : bia;
    const listed = (await bia.api.get('/chats')).body;
    expect(listed.records.map((c: Chat) => c.id)).toEqual([group.id]);
    expect(listed.records[0]).toMatchObject({ ownerId: owner.id });
    expect(listed.records[0].users.map((u: Chat['users'][number]) => u.userId)).not.toContain(caio.id);
    const edited = await owner.api.put(`/chats/${group.id}`, { title: 'Nosso' });
    expect(edited.status, JSON.stringify(edited.body)).toBe(200);
    expect((await owner.api.del(`/chats/${group.id}`)).status).toBe(204);
    // The one-to-one chat is gone for Bia.
    expect((await bia.api.get(`/chats/${pair.id}/messages`)).status).toBe(404);
    expect((await bia.api.get('/chats')).body).toMatchObject({ records: [], count: 0 });
  });

  it('another company, and a plan without useInternalChat, reach nothing', async () => {
    const { t, ana, bia } = await team();
    const pair = await chat(ana.api, { title: 'Par', users: [bia.id] });
    await ana.api.post(`/chats/${pair.id}/messages`, { message: 'segredo' });
    const other = await tenant();
    expect((await other.admin.get('/chats')).body.records).toEqual([]);
    expect((await other.admin.get(`/chats/${pair.id}/messages`)).status).toBe(404);
    expect((await other.admin.post(`/chats/${pair.id}/messages`, { message: 'x' })).status).toBe(404);
    expect((await other.admin.put(`/chats/${pair.id}`, { title: 'x' })).status).toBe(404);
    expect((await other.admin.del(`/chats/${pair.id}`)).status).toBe(404);
    expect((await other.admin.post(`/chats/${pair.id}/read`, {})).status).toBe(404);
    // Another company's users are not members to choose; a companyId in the body changes nothing.
    expect((await other.admin.post('/chats', { title: 'x', users: [bia.id], companyId: t.companyId })).body).toMatchObject({ error: 'ERR_NO_USER_FOUND' });

    const off = await tenant({ useInternalChat: false });
    const offMember = await member(off.admin);
    for (const [method, path, body] of [
      ['GET', '/chats', undefined],
      ['POST', '/chats', { title: 'x', users: [offMember.id] }],
      ['PUT', '/chats/1', { title: 'x' }],
      ['DELETE', '/chats/1', undefined],
      ['GET', '/chats/1/messages', undefined],
      ['POST', '/chats/1/messages', { message: 'x' }],
      ['POST', '/chats/1/media-upload', { fileName: 'a.png', contentType: 'image/png', size: 10 }],
      ['POST', '/chats/1/read', {}],
    ] as const) {
      const res = await call(method, path, { token: off.adminToken, body });
      expect(res.status, `${method} ${path}`).toBe(403);
      expect(res.body).toMatchObject({ error: 'ERR_PLAN_FEATURE_DISABLED' });
    }
  });

  it('messages: pages of 20 newest first (records, hasMore), unread counts exact under concurrent sends, cleared by a read', async () => {
    const { t, ana, bia, caio } = await team();
    const chatEvent = `company-${t.companyId}-chat`;
    const group = await chat(ana.api, { title: 'Equipe', users: [bia.id, caio.id] });
    const anaWs = await socket(ana.token);
    const mark = anaWs.mark();

    // 24 sends at once from three users: each lands once, numbered densely, every count exact.
    const senders = [ana, bia, caio];
    const sent = await Promise.all(Array.from({ length: 24 }, (_, i) => senders[i % 3].api.post(`/chats/${group.id}/messages`, { message: `m${i}` })));
    expect(sent.map((r) => r.status)).toEqual(Array(24).fill(201));
    const first = (await ana.api.get(`/chats/${group.id}/messages`)).body;
    expect(first).toMatchObject({ count: 24, hasMore: true });
    const second = (await ana.api.get(`/chats/${group.id}/messages?pageNumber=2`)).body;
    expect(second).toMatchObject({ hasMore: false });
    const all = [...second.records, ...first.records] as { id: number; senderId: number; message: string; sender: { name: string } }[];
    expect(all.map((m) => m.id)).toEqual(Array.from({ length: 24 }, (_, i) => i + 1));
    expect(new Set(all.map((m) => m.message)).size).toBe(24);
    const expected: Record<number, number> = {};
    for (const u of senders) {
      const lastOwn = Math.max(0, ...all.filter((m) => m.senderId === u.id).map((m) => m.id));
      expected[u.id] = all.filter((m) => m.id > lastOwn && m.senderId !== u.id).length;
    }
    const listed = (await ana.api.get('/chats')).body.records[0] as Chat;
    expect(unreads(listed)).toEqual(expected);
    expect(listed.lastMessage).toBe(all.at(-1)!.message);
    // Each message reached the members as `new-message`.
    await anaWs.waitFor(chatEvent, (d) => d.action === 'new-message' && d.message.id === 24, 20_000, mark);

    // A read clears one's own count only.
    await ana.api.post(`/chats/${group.id}/messages`, { message: 'mais uma' });
    expect((await bia.api.post(`/chats/${group.id}/read`, { userId: caio.id })).status).toBe(403);
    const read = await bia.api.post(`/chats/${group.id}/read`, { userId: bia.id });
    expect(read.status).toBe(200);
    expect(unreads(read.body)[bia.id]).toBe(0);
    expect(unreads(read.body)[caio.id]).toBeGreaterThan(0);
    expect((await bia.api.get('/chats')).body.unreadChats).toBe(0);
    expect((await caio.api.get('/chats')).body.unreadChats).toBe(1);

    // Bad input: 400 with the field; nothing sent.
    expect((await ana.api.post(`/chats/${group.id}/messages`, { message: '  ' })).body).toMatchObject({ field: 'message', message: 'Required' });
    expect((await ana.api.post(`/chats/${group.id}/messages`, { message: 'x'.repeat(5000) })).body).toMatchObject({ field: 'message' });
    expect((await ana.api.get(`/chats/${group.id}/messages?pageNumber=zero`)).body).toMatchObject({ field: 'pageNumber' });
    expect((await ana.api.get(`/chats/${group.id}/messages`)).body.count).toBe(25);
    anaWs.close();
  });

  it('files by multipart and by presigned upload, checked by their bytes and size; the URL only to members', async () => {
    const { ana, bia, caio } = await team();
    const pair = await chat(ana.api, { title: 'Par', users: [bia.id] });

    const fake = await ana.api.form('POST', `/chats/${pair.id}/messages`, filesForm([{ data: Buffer.from('plain text, not an image'), name: 'foto.png', type: 'image/png' }], 'veja'));
    expect(fake.status).toBe(400);
    expect(fake.body).toMatchObject({ field: 'medias.0', message: FILE_CONTENT_MISMATCH });
    const html = await ana.api.form('POST', `/chats/${pair.id}/messages`, filesForm([{ data: Buffer.from('<script>alert(1)</script>'), name: 'x.html', type: 'text/html' }]));
    expect(html.status).toBe(400);
    expect((await ana.api.get(`/chats/${pair.id}/messages`)).body.count).toBe(0);

    const sent = await ana.api.form('POST', `/chats/${pair.id}/messages`, filesForm([{ data: PNG, name: 'foto.png', type: 'image/png' }, { data: PDF, name: 'nota.pdf', type: 'application/pdf' }], 'veja'));
    expect(sent.status, JSON.stringify(sent.body)).toBe(201);
    expect(sent.body.messages.map((m: { message: string; mediaType: string; mediaName: string }) => [m.message, m.mediaType, m.mediaName])).toEqual([
      ['veja', 'image', 'foto.png'],
      ['', 'other', 'nota.pdf'],
    ]);
    const page = (await bia.api.get(`/chats/${pair.id}/messages`)).body;
    const image = await fetch(page.records[0].mediaUrl);
    expect(image.status).toBe(200);
    expect(Buffer.from(await image.arrayBuffer()).equals(PNG)).toBe(true);
    expect(unreads((await bia.api.get('/chats')).body.records[0])[bia.id]).toBe(2);

    // The presigned way: slot checked by type and size, the object by its bytes at the send.
    expect((await ana.api.post(`/chats/${pair.id}/media-upload`, { fileName: 'a.exe', contentType: 'text/html', size: 10 })).status).toBe(400);
    expect((await ana.api.post(`/chats/${pair.id}/media-upload`, { fileName: 'big.png', contentType: 'image/png', size: 6 * 1024 * 1024 })).body).toMatchObject({ field: 'size' });
    const slot = (await ana.api.post(`/chats/${pair.id}/media-upload`, { fileName: 'foto.png', contentType: 'image/png', size: PNG.length })).body;
    expect((await fetch(slot.uploadUrl, { method: 'PUT', headers: slot.headers, body: new Uint8Array(PNG) })).status).toBe(200);
    // Caio (not a member) cannot send it into the pair; the owner can.
    expect((await caio.api.post(`/chats/${pair.id}/messages`, { message: '', medias: [{ key: slot.key, name: 'foto.png' }] })).status).toBe(404);
    const viaSlot = await ana.api.post(`/chats/${pair.id}/messages`, { message: 'pelo link', medias: [{ key: slot.key, name: 'foto.png' }] });
    expect(viaSlot.status, JSON.stringify(viaSlot.body)).toBe(201);
    expect(viaSlot.body).toMatchObject({ message: 'pelo link', mediaType: 'image', mediaName: 'foto.png' });
    // A key that is not this company's upload is refused.
    expect((await ana.api.post(`/chats/${pair.id}/messages`, { message: 'x', medias: [{ key: 'c/1/media/1/x.png', name: 'x.png' }] })).body).toMatchObject({ field: 'medias.0.key' });
  });
});
