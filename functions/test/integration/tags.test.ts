import { describe, expect, it } from 'vitest';
import { member, socket, tenant } from './client.js';
import { customer, world } from './tickets-helpers.js';

type Api = Awaited<ReturnType<typeof tenant>>['admin'];

const tagIds = (list: { id: number }[]) => list.map((x) => x.id).sort((a, b) => a - b);
const sortedIds = (...list: number[]) => [...list].sort((a, b) => a - b);
const mkTag = async (api: Api, body: Record<string, unknown>) => {
  const res = await api.post('/tags', body);
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.id as number;
};
const counts = async (api: Api, id: number) => {
  const res = await api.get(`/tags/${id}`);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return { tickets: res.body.ticketsCount as number, contacts: res.body.contactsCount as number };
};
const ticketTags = async (api: Api, ticketId: number) => {
  const res = await api.get(`/tickets/${ticketId}`);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return tagIds(res.body.tags);
};
const listed = async (api: Api, qs: string) => {
  const res = await api.get(`/tickets?isUseStatusFilter=true&statusFilter=["pending","open"]&showAll=true&${qs}`);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return tagIds(res.body.tickets);
};
const q = (ids: number[]) => encodeURIComponent(JSON.stringify(ids));

describe('tags routes', () => {
  it('creates with the form rules, updates, pages, searches and deletes; tag events; other tenants get 404', async () => {
    const t = await tenant();
    const ws = await socket(t.adminToken);
    // Validation: the spec's messages, nothing written.
    expect((await t.admin.post('/tags', {})).body).toMatchObject({ error: 'ERR_VALIDATION', field: 'name', message: 'Obrigatório' });
    expect((await t.admin.post('/tags', { name: '   ' })).body).toMatchObject({ field: 'name', message: 'Obrigatório' });
    expect((await t.admin.post('/tags', { name: 'ab' })).body).toMatchObject({ field: 'name', message: 'Mensagem muito curta' });
    expect((await t.admin.post('/tags', { name: 'Boa', type: 'queue' })).body).toMatchObject({ error: 'ERR_VALIDATION', field: 'type' });
    expect((await t.admin.post('/tags', { name: 'Boa', color: 'red' })).body).toMatchObject({ error: 'ERR_VALIDATION', field: 'color' });
    expect((await t.admin.get('/tags')).body).toEqual({ tags: [], count: 0, hasMore: false });

    const mark = ws.mark();
    const made = await t.admin.post('/tags', { name: '  Urgente ', color: '#ff0000' });
    expect(made.status).toBe(201);
    expect(made.body).toMatchObject({ name: 'Urgente', color: '#ff0000', type: 'ticket', kanban: 0, ticketsCount: 0, contactsCount: 0, userId: t.adminUser.id });
    expect(made.body.PK).toBeUndefined();
    expect(made.body.deleting).toBeUndefined();
    const id = made.body.id as number;
    const ev = await ws.waitFor(`company-${t.companyId}-tag`, (d) => d.action === 'create' && d.tag?.id === id, 20_000, mark);
    expect(ev.data.tag).toMatchObject({ name: 'Urgente', type: 'ticket' });
    const vip = await mkTag(t.admin, { name: 'VIP', type: 'contact' });
    expect((await t.admin.get(`/tags/${vip}`)).body).toMatchObject({ id: vip, name: 'VIP', type: 'contact', color: expect.stringMatching(/^#/) });

    expect((await t.admin.put(`/tags/${id}`, { name: 'ab' })).body).toMatchObject({ field: 'name', message: 'Mensagem muito curta' });
    expect((await t.admin.put(`/tags/${id}`, { name: '' })).body).toMatchObject({ field: 'name', message: 'Obrigatório' });
    expect((await t.admin.get(`/tags/${id}`)).body.name).toBe('Urgente');
    const m2 = ws.mark();
    const upd = await t.admin.put(`/tags/${id}`, { name: 'Muito Urgênte', color: '#00ff00' });
    expect(upd.status).toBe(200);
    expect(upd.body).toMatchObject({ id, name: 'Muito Urgênte', color: '#00ff00', type: 'ticket' });
    await ws.waitFor(`company-${t.companyId}-tag`, (d) => d.action === 'update' && d.tag?.name === 'Muito Urgênte', 20_000, m2);
    // An unused tag may change its type.
    expect((await t.admin.put(`/tags/${vip}`, { type: 'ticket' })).body.type).toBe('ticket');
    expect((await t.admin.put(`/tags/${vip}`, { type: 'contact' })).body.type).toBe('contact');

    // Pages of 20 in name order; search ignores case and accents; type filter.
    for (let i = 0; i < 21; i++) await mkTag(t.admin, { name: `Etiqueta ${String(i).padStart(2, '0')}` });
    const p1 = await t.admin.get('/tags');
    expect(p1.body).toMatchObject({ count: 23, hasMore: true });
    expect(p1.body.tags).toHaveLength(20);
    expect(p1.body.tags[0].name).toBe('Etiqueta 00');
    const p2 = await t.admin.get('/tags?pageNumber=2');
    expect(p2.body).toMatchObject({ count: 23, hasMore: false });
    expect(p2.body.tags.map((x: { name: string }) => x.name)).toEqual(['Etiqueta 20', 'Muito Urgênte', 'VIP']);
    expect((await t.admin.get('/tags?searchParam=URGENTE')).body).toMatchObject({ count: 1, hasMore: false, tags: [{ id }] });
    expect((await t.admin.get(`/tags?searchParam=${encodeURIComponent('etiqueta 1')}`)).body.count).toBe(10);
    expect((await t.admin.get('/tags?type=contact')).body.tags.map((x: { id: number }) => x.id)).toEqual([vip]);
    expect((await t.admin.get('/tags?pageNumber=0')).body).toMatchObject({ error: 'ERR_VALIDATION', field: 'pageNumber' });
    const brief = await t.admin.get('/tags/list');
    expect(brief.body).toHaveLength(23);
    expect(Object.keys(brief.body[0]).sort()).toEqual(['color', 'id', 'kanban', 'name', 'type']);
    expect((await t.admin.get('/tags/list?type=contact')).body).toEqual([expect.objectContaining({ id: vip, name: 'VIP', type: 'contact' })]);
    expect((await t.admin.get('/tags/list?type=ticket')).body).toHaveLength(22);
    // Any member of the company reads them.
    const agent = await member(t.admin, { profile: 'Nível 1' });
    expect((await agent.api.get('/tags')).body.count).toBe(23);

    const stranger = await tenant();
    expect((await stranger.admin.get(`/tags/${id}`)).status).toBe(404);
    expect((await stranger.admin.put(`/tags/${id}`, { name: 'Roubada' })).status).toBe(404);
    expect((await stranger.admin.del(`/tags/${id}`)).status).toBe(404);
    expect((await stranger.admin.get('/tags')).body).toEqual({ tags: [], count: 0, hasMore: false });
    expect((await stranger.admin.get('/tags/list')).body).toEqual([]);
    expect((await t.admin.get(`/tags/${id}`)).body.name).toBe('Muito Urgênte');

    const m3 = ws.mark();
    expect((await t.admin.del(`/tags/${id}`)).status).toBe(204);
    const gone = await ws.waitFor(`company-${t.companyId}-tag`, (d) => d.action === 'delete', 20_000, m3);
    expect(gone.data.tagId).toBe(id);
    expect((await t.admin.get(`/tags/${id}`)).status).toBe(404);
    expect((await t.admin.del(`/tags/${id}`)).status).toBe(404);
    expect((await t.admin.put(`/tags/${id}`, { name: 'Voltou' })).status).toBe(404);
    expect((await t.admin.get('/tags')).body.count).toBe(22);
    ws.close();
  });

  it('kanban: only admins set it; lanes of each tag type, ticket-tags and the plan flag', async () => {
    const w = await world();
    const n3 = await member(w.admin, { profile: 'Nível 3' });
    // Spec 001: the Kanban toggle is for admin (and "supervisor") profiles; the product's profiles are
    // admin and Nível 1-3, so Nível 3 is refused and changes nothing.
    const refused = await n3.api.post('/tags', { name: 'Raia', kanban: 1 });
    expect(refused.status).toBe(403);
    expect(refused.body).toMatchObject({ error: 'ERR_NO_PERMISSION', field: 'kanban' });
    expect((await w.admin.get('/tags')).body.count).toBe(0);
    const plain = await mkTag(n3.api, { name: 'Comum', kanban: 0 });
    expect((await n3.api.put(`/tags/${plain}`, { kanban: 1 })).status).toBe(403);
    expect((await w.admin.get(`/tags/${plain}`)).body.kanban).toBe(0);
    // Contact tags may be lanes too (the board by Contato, spec 002 §2).
    const contactLane = await mkTag(w.admin, { name: 'Raia Contato', type: 'contact', kanban: 1 });
    const laneA = await mkTag(w.admin, { name: 'Raia A', kanban: true });
    const laneB = await mkTag(w.admin, { name: 'Raia B', kanban: 1 });
    expect((await w.admin.get(`/tags/${laneA}`)).body.kanban).toBe(1);
    // Others may still rename a lane (kanban unchanged), not turn it off.
    expect((await n3.api.put(`/tags/${laneB}`, { name: 'Raia Bê', kanban: 1 })).status).toBe(200);
    expect((await n3.api.put(`/tags/${laneB}`, { kanban: 0 })).status).toBe(403);
    const contactTag = await mkTag(w.admin, { name: 'Cliente', type: 'contact' });
    expect((await w.admin.put(`/tags/${plain}`, { kanban: 1 })).body.kanban).toBe(1);
    expect((await w.admin.put(`/tags/${plain}`, { kanban: 0 })).body.kanban).toBe(0);

    const board = await w.admin.get('/tags/kanban');
    expect(board.status).toBe(200);
    expect(board.body.lista.map((x: { id: number }) => x.id)).toEqual([laneA, laneB]);
    expect(board.body.lista[1]).toMatchObject({ name: 'Raia Bê', kanban: 1, ticketsCount: 0 });
    expect((await w.admin.get('/tags/kanban?type=contact')).body.lista.map((x: { id: number }) => x.id)).toEqual([contactLane]);
    expect((await w.admin.get('/tags/kanban?type=queue')).body).toMatchObject({ error: 'ERR_VALIDATION', field: 'type' });
    expect((await w.admin.get('/tags/list?kanban=1')).body.map((x: { id: number }) => x.id).sort()).toEqual(sortedIds(laneA, laneB, contactLane));

    const chat = await customer(w.companyId, w.connectionId);
    expect((await w.admin.post('/tags/sync', { ticketId: chat.ticketId, tags: [plain] })).status).toBe(200);
    const put = await w.admin.put(`/ticket-tags/${chat.ticketId}/${laneA}`);
    expect(put.status, JSON.stringify(put.body)).toBe(200);
    expect(tagIds(put.body.tags)).toEqual(sortedIds(plain, laneA));
    // A ticket sits in one lane: moving it drops the other lane, keeps the plain tag.
    expect(tagIds((await w.admin.put(`/ticket-tags/${chat.ticketId}/${laneB}`)).body.tags)).toEqual(sortedIds(plain, laneB));
    expect(await counts(w.admin, laneA)).toEqual({ tickets: 0, contacts: 0 });
    expect(await counts(w.admin, laneB)).toEqual({ tickets: 1, contacts: 0 });
    // A contact tag goes on the ticket's contact (its lane on the board by Contato); the ticket's own tags stay.
    const onContact = await w.admin.put(`/ticket-tags/${chat.ticketId}/${contactTag}`);
    expect(onContact.status, JSON.stringify(onContact.body)).toBe(200);
    expect(onContact.body.contact.tagIds).toEqual([contactTag]);
    expect(tagIds(onContact.body.tags)).toEqual(sortedIds(plain, laneB));
    expect((await w.admin.put(`/ticket-tags/${chat.ticketId}/999999`)).status).toBe(404);
    expect((await w.admin.put(`/ticket-tags/999999/${laneA}`)).status).toBe(404);
    expect((await w.admin.get('/tags/kanban')).body.lista.find((x: { id: number }) => x.id === laneB).ticketsCount).toBe(1);
    expect((await w.admin.del(`/ticket-tags/${chat.ticketId}`)).status).toBe(204);
    expect(await ticketTags(w.admin, chat.ticketId)).toEqual([plain]);
    expect(await counts(w.admin, laneB)).toEqual({ tickets: 0, contacts: 0 });
    expect(await counts(w.admin, plain)).toEqual({ tickets: 1, contacts: 0 });
    // A tag in use keeps its type.
    expect((await w.admin.put(`/tags/${plain}`, { type: 'contact' })).body).toMatchObject({ error: 'ERR_VALIDATION', field: 'type' });

    // Without the plan's kanban the board and its calls are refused; plain tags still work.
    const noKanban = await tenant({ useKanban: false });
    expect((await noKanban.admin.get('/tags/kanban')).body).toMatchObject({ error: 'ERR_PLAN_FEATURE_DISABLED' });
    expect((await noKanban.admin.get('/tags/kanban')).status).toBe(403);
    expect((await noKanban.admin.put(`/ticket-tags/1/1`)).status).toBe(403);
    expect((await noKanban.admin.del(`/ticket-tags/1`)).status).toBe(403);
    expect((await noKanban.admin.post('/tags', { name: 'Sem Kanban' })).status).toBe(201);
    // Another tenant's ticket or lane: not found.
    expect((await noKanban.admin.post('/tags/sync', { ticketId: chat.ticketId, tags: [] })).status).toBe(404);
    const other = await tenant();
    expect((await other.admin.put(`/ticket-tags/${chat.ticketId}/${laneA}`)).status).toBe(404);
    expect((await other.admin.del(`/ticket-tags/${chat.ticketId}`)).status).toBe(404);
    expect(await ticketTags(w.admin, chat.ticketId)).toEqual([plain]);
  });

  it('syncs ticket and contact tags: answers, exact counts, events, list filters, visibility, tag delete', async () => {
    const w = await world();
    const ws = await socket(w.adminToken);
    const a = await mkTag(w.admin, { name: 'Alfa', color: '#111111' });
    const b = await mkTag(w.admin, { name: 'Beta' });
    const c = await mkTag(w.admin, { name: 'Cliente Ouro', type: 'contact', color: '#222222' });
    const one = await customer(w.companyId, w.connectionId);
    const two = await customer(w.companyId, w.connectionId);

    const mark = ws.mark();
    const synced = await w.admin.post('/tags/sync', { ticketId: one.ticketId, tags: [a, b] });
    expect(synced.status, JSON.stringify(synced.body)).toBe(200);
    expect(synced.body.tags).toEqual(expect.arrayContaining([{ id: a, name: 'Alfa', color: '#111111', type: 'ticket' }, expect.objectContaining({ id: b, name: 'Beta' })]));
    expect(synced.body.tags).toHaveLength(2);
    expect(await ticketTags(w.admin, one.ticketId)).toEqual(sortedIds(a, b));
    const ev = await ws.waitFor(`company-${w.companyId}-ticket`, (d) => d.action === 'update' && d.ticket?.id === one.ticketId && d.ticket.tags?.length === 2, 20_000, mark);
    expect(tagIds(ev.data.ticket.tags)).toEqual(sortedIds(a, b));
    expect(await counts(w.admin, a)).toEqual({ tickets: 1, contacts: 0 });

    // Objects as the console sends them; the same set twice changes nothing.
    expect(tagIds((await w.admin.post('/tags/sync', { ticketId: one.ticketId, tags: [{ id: b, name: 'Beta' }], type: 'ticket' })).body.tags)).toEqual([b]);
    expect((await w.admin.post('/tags/sync', { ticketId: one.ticketId, tags: [b] })).status).toBe(200);
    expect(await counts(w.admin, a)).toEqual({ tickets: 0, contacts: 0 });
    expect(await counts(w.admin, b)).toEqual({ tickets: 1, contacts: 0 });
    expect((await w.admin.post('/tags/sync', { ticketId: two.ticketId, tags: [a, b] })).status).toBe(200);
    expect(await counts(w.admin, b)).toEqual({ tickets: 2, contacts: 0 });

    // Bad input: 400 with the field, nothing changed.
    expect((await w.admin.post('/tags/sync', { ticketId: one.ticketId, tags: [c] })).body).toMatchObject({ error: 'ERR_VALIDATION', field: 'tags' });
    expect((await w.admin.post('/tags/sync', { ticketId: one.ticketId, tags: [999999] })).body).toMatchObject({ error: 'ERR_VALIDATION', field: 'tags' });
    expect((await w.admin.post('/tags/sync', { ticketId: one.ticketId, tags: ['x'] })).status).toBe(400);
    expect((await w.admin.post('/tags/sync', { tags: [a] })).body).toMatchObject({ error: 'ERR_VALIDATION', field: 'ticketId' });
    expect((await w.admin.post('/tags/sync', { ticketId: one.ticketId, tags: [a], type: 'queue' })).body).toMatchObject({ field: 'type' });
    expect((await w.admin.post('/tags/sync', { ticketId: one.ticketId, tags: [a], type: 'contact' })).body).toMatchObject({ error: 'ERR_VALIDATION', field: 'tags' });
    expect((await w.admin.post('/tags/sync', { ticketId: 999999, tags: [a] })).status).toBe(404);
    expect(await ticketTags(w.admin, one.ticketId)).toEqual([b]);
    expect(await counts(w.admin, c)).toEqual({ tickets: 0, contacts: 0 });

    // Contact tags: through the ticket, onto its contact.
    const m2 = ws.mark();
    const onContact = await w.admin.post('/tags/sync', { ticketId: one.ticketId, tags: [c], type: 'contact' });
    expect(onContact.status, JSON.stringify(onContact.body)).toBe(200);
    expect(onContact.body).toMatchObject({ ticketId: one.ticketId, contactId: one.contactId, tags: [{ id: c, name: 'Cliente Ouro', color: '#222222', type: 'contact' }] });
    expect(tagIds((await w.admin.get(`/contacts/${one.contactId}`)).body.tags)).toEqual([c]);
    const ticket = (await w.admin.get(`/tickets/${one.ticketId}`)).body;
    expect(tagIds(ticket.tags)).toEqual([b]);
    expect(tagIds(ticket.contact.tags)).toEqual([c]);
    await ws.waitFor(`company-${w.companyId}-contact`, (d) => d.action === 'update' && d.contact?.id === one.contactId && d.contact.tags?.length === 1, 20_000, m2);
    expect(await counts(w.admin, c)).toEqual({ tickets: 0, contacts: 1 });
    expect((await w.admin.post('/tags/sync', { ticketId: one.ticketId, tags: [b], type: 'contact' })).body).toMatchObject({ field: 'tags' });

    // The ticket list filters see the synced tags.
    expect(await listed(w.admin, `tags=${q([b])}`)).toEqual(sortedIds(one.ticketId, two.ticketId));
    expect(await listed(w.admin, `tags=${q([a])}`)).toEqual([two.ticketId]);
    expect(await listed(w.admin, `tagsContact=${q([c])}`)).toEqual([one.ticketId]);
    expect(await listed(w.admin, `tagsContact=${q([c])}&tags=${q([a])}`)).toEqual([]);

    // A Nível 1 agent who cannot see the ticket cannot tag it either (the ticket has no queue, no owner).
    const n1 = await member(w.admin, { profile: 'Nível 1', queueIds: [w.q1] });
    expect((await n1.api.get(`/tickets/${one.ticketId}`)).status).toBe(404);
    expect((await n1.api.post('/tags/sync', { ticketId: one.ticketId, tags: [] })).status).toBe(404);
    expect((await n1.api.post('/tags/sync', { ticketId: one.ticketId, tags: [], type: 'contact' })).status).toBe(404);
    expect((await n1.api.put(`/ticket-tags/${one.ticketId}/${a}`)).status).toBe(404);
    expect((await n1.api.del(`/ticket-tags/${one.ticketId}`)).status).toBe(404);
    expect(await ticketTags(w.admin, one.ticketId)).toEqual([b]);
    expect(tagIds((await w.admin.get(`/contacts/${one.contactId}`)).body.tags)).toEqual([c]);
    // Once it is in the agent's queue and pending, the agent sees it and may tag it.
    expect((await w.admin.put(`/tickets/${one.ticketId}`, { status: 'pending', queueId: w.q1 })).status).toBe(200);
    expect(tagIds((await n1.api.post('/tags/sync', { ticketId: one.ticketId, tags: [a, b] })).body.tags)).toEqual(sortedIds(a, b));

    // Another tenant: the ticket is not found; its tags are not ours.
    // Ids count per company: the stranger's fifth tag has no namesake here.
    const stranger = await tenant();
    let foreign = 0;
    for (let i = 0; i < 5; i++) foreign = await mkTag(stranger.admin, { name: `Estranha ${i}` });
    expect(foreign).toBeGreaterThan(c);
    expect((await stranger.admin.post('/tags/sync', { ticketId: one.ticketId, tags: [] })).status).toBe(404);
    expect((await w.admin.post('/tags/sync', { ticketId: one.ticketId, tags: [foreign] })).body).toMatchObject({ field: 'tags' });
    expect(await counts(stranger.admin, foreign)).toEqual({ tickets: 0, contacts: 0 });

    // Deleting a tag strips it from every ticket and contact carrying it.
    const m3 = ws.mark();
    expect((await w.admin.del(`/tags/${b}`)).status).toBe(204);
    expect(await ticketTags(w.admin, one.ticketId)).toEqual([a]);
    expect(await ticketTags(w.admin, two.ticketId)).toEqual([a]);
    await ws.waitFor(`company-${w.companyId}-ticket`, (d) => d.action === 'update' && d.ticket?.id === two.ticketId && tagIds(d.ticket.tags).join() === String(a), 20_000, m3);
    expect(await listed(w.admin, `tags=${q([b])}`)).toEqual([]);
    expect(await counts(w.admin, a)).toEqual({ tickets: 2, contacts: 0 });
    expect((await w.admin.del(`/tags/${c}`)).status).toBe(204);
    expect((await w.admin.get(`/contacts/${one.contactId}`)).body.tags).toEqual([]);
    expect(await listed(w.admin, `tagsContact=${q([c])}`)).toEqual([]);
    expect((await w.admin.post('/tags/sync', { ticketId: one.ticketId, tags: [b] })).body).toMatchObject({ field: 'tags' });
    ws.close();
  });

  it('many agents tagging at once keep the counts exact', async () => {
    const w = await world();
    const hot = await mkTag(w.admin, { name: 'Quente' });
    const cold = await mkTag(w.admin, { name: 'Frio' });
    const chats: Awaited<ReturnType<typeof customer>>[] = [];
    for (let i = 0; i < 8; i++) chats.push(await customer(w.companyId, w.connectionId));
    const sync = (ticketId: number, tags: number[]) => w.admin.post('/tags/sync', { ticketId, tags });

    // Eight tickets take the same tag at the same moment.
    const first = await Promise.all(chats.map((c) => sync(c.ticketId, [hot])));
    expect(first.map((r) => r.status)).toEqual(chats.map(() => 200));
    expect(await counts(w.admin, hot)).toEqual({ tickets: 8, contacts: 0 });
    // Half move to the other tag while the rest take both, all at once, some of them twice.
    const second = await Promise.all([
      ...chats.slice(0, 4).map((c) => sync(c.ticketId, [cold])),
      ...chats.slice(4).map((c) => sync(c.ticketId, [hot, cold])),
      ...chats.slice(0, 2).map((c) => sync(c.ticketId, [cold])),
    ]);
    expect(second.map((r) => r.status)).toEqual(second.map(() => 200));
    expect(await counts(w.admin, hot)).toEqual({ tickets: 4, contacts: 0 });
    expect(await counts(w.admin, cold)).toEqual({ tickets: 8, contacts: 0 });
    // The same ticket changed by several agents at once: the counts match whatever state won.
    const racing = chats[7].ticketId;
    const third = await Promise.all([sync(racing, []), sync(racing, [hot]), sync(racing, [cold]), sync(racing, [hot, cold])]);
    expect(third.map((r) => r.status)).toEqual([200, 200, 200, 200]);
    const finalTags = await Promise.all(chats.map((c) => ticketTags(w.admin, c.ticketId)));
    const carrying = (tag: number) => finalTags.filter((x) => x.includes(tag)).length;
    expect(await counts(w.admin, hot)).toEqual({ tickets: carrying(hot), contacts: 0 });
    expect(await counts(w.admin, cold)).toEqual({ tickets: carrying(cold), contacts: 0 });
    expect(await listed(w.admin, `tags=${q([hot])}`)).toEqual(sortedIds(...chats.filter((_, i) => finalTags[i].includes(hot)).map((c) => c.ticketId)));

    // Contact tags of one contact from its ticket, several at once.
    const vip = await mkTag(w.admin, { name: 'VIP', type: 'contact' });
    const gold = await mkTag(w.admin, { name: 'Ouro', type: 'contact' });
    const cRes = await Promise.all([[vip], [gold], [vip, gold], []].map((tags) => w.admin.post('/tags/sync', { ticketId: chats[0].ticketId, tags, type: 'contact' })));
    expect(cRes.map((r) => r.status)).toEqual([200, 200, 200, 200]);
    const cTags = tagIds((await w.admin.get(`/contacts/${chats[0].contactId}`)).body.tags);
    expect(await counts(w.admin, vip)).toEqual({ tickets: 0, contacts: cTags.includes(vip) ? 1 : 0 });
    expect(await counts(w.admin, gold)).toEqual({ tickets: 0, contacts: cTags.includes(gold) ? 1 : 0 });
  }, 180_000);

  it('a ticket carries as many tags as the form allows; one more is refused with the field', async () => {
    const w = await world();
    const chat = await customer(w.companyId, w.connectionId);
    const { TAGS_PER_TARGET_MAX } = await import('@balcao/shared');
    const made: number[] = [];
    for (let i = 0; i <= TAGS_PER_TARGET_MAX * 2; i++) made.push(await mkTag(w.admin, { name: `Muitas ${String(i).padStart(2, '0')}` }));
    const full = made.slice(0, TAGS_PER_TARGET_MAX);
    const res = await w.admin.post('/tags/sync', { ticketId: chat.ticketId, tags: full });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.tags).toHaveLength(TAGS_PER_TARGET_MAX);
    // Every tag swapped for another at once: the widest change there is.
    const swapped = made.slice(TAGS_PER_TARGET_MAX, TAGS_PER_TARGET_MAX * 2);
    expect((await w.admin.post('/tags/sync', { ticketId: chat.ticketId, tags: swapped })).status).toBe(200);
    expect(await ticketTags(w.admin, chat.ticketId)).toEqual(sortedIds(...swapped));
    expect(await counts(w.admin, full[0])).toEqual({ tickets: 0, contacts: 0 });
    expect(await counts(w.admin, swapped[0])).toEqual({ tickets: 1, contacts: 0 });
    const tooMany = await w.admin.post('/tags/sync', { ticketId: chat.ticketId, tags: made });
    expect(tooMany.status).toBe(400);
    expect(tooMany.body).toMatchObject({ error: 'ERR_VALIDATION', field: 'tags' });
    expect(await ticketTags(w.admin, chat.ticketId)).toEqual(sortedIds(...swapped));
  }, 180_000);

  it('tagging elsewhere sends the new counts live (counts event, company audience, newer versions win)', async () => {
    const w = await world();
    const agent = await member(w.admin, { profile: 'Nível 1' });
    const ws = await socket(agent.token);
    const other = await tenant();
    const otherWs = await socket(other.adminToken);
    const tk = await mkTag(w.admin, { name: 'Retorno' });
    const ct = await mkTag(w.admin, { name: 'Cliente Prata', type: 'contact' });
    const one = await customer(w.companyId, w.connectionId);
    const ev = `company-${w.companyId}-tag`;
    const countsOf = (d: any, id: number) => (d?.action === 'counts' ? (d.counts as any[]).find((c) => c.id === id) : undefined);

    // A ticket tagged from its tags bar.
    let mark = ws.mark();
    expect((await w.admin.post('/tags/sync', { ticketId: one.ticketId, tags: [tk] })).status).toBe(200);
    const first = countsOf((await ws.waitFor(ev, (d) => countsOf(d, tk)?.ticketsCount === 1, 20_000, mark)).data, tk);
    expect(first).toEqual({ id: tk, ticketsCount: 1, contactsCount: 0, countsVersion: expect.any(Number) });

    // The contact tagged from the tags bar, then from the contact dialog (PUT) and a new contact (POST).
    mark = ws.mark();
    expect((await w.admin.post('/tags/sync', { ticketId: one.ticketId, tags: [ct], type: 'contact' })).status).toBe(200);
    const c1 = countsOf((await ws.waitFor(ev, (d) => countsOf(d, ct)?.contactsCount === 1, 20_000, mark)).data, ct);
    const made = await w.admin.post('/contacts', { name: 'Prata Dois', number: `55219${String(Date.now()).slice(-8)}`, tags: [ct] });
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    const c2 = countsOf((await ws.waitFor(ev, (d) => countsOf(d, ct)?.contactsCount === 2, 20_000, mark)).data, ct);
    expect(c2.countsVersion).toBeGreaterThan(c1.countsVersion);
    mark = ws.mark();
    expect((await w.admin.put(`/contacts/${one.contactId}`, { tags: [] })).status).toBe(200);
    const c3 = countsOf((await ws.waitFor(ev, (d) => countsOf(d, ct)?.contactsCount === 1, 20_000, mark)).data, ct);
    expect(c3.countsVersion).toBeGreaterThan(c2.countsVersion);

    // Untagging the ticket: down to 0; the list answers the same counts and version as the last event.
    mark = ws.mark();
    expect((await w.admin.post('/tags/sync', { ticketId: one.ticketId, tags: [] })).status).toBe(200);
    const last = countsOf((await ws.waitFor(ev, (d) => countsOf(d, tk)?.ticketsCount === 0, 20_000, mark)).data, tk);
    expect(last.countsVersion).toBeGreaterThan(first.countsVersion);
    const row = (await w.admin.get('/tags?searchParam=Retorno')).body.tags.find((x: { id: number }) => x.id === tk);
    expect(row).toMatchObject({ ticketsCount: 0, countsVersion: last.countsVersion });
    expect(await counts(w.admin, ct)).toEqual({ tickets: 0, contacts: 1 });

    // Another tenant hears none of it.
    await new Promise((r) => setTimeout(r, 500));
    expect(otherWs.frames.some((f) => f.event === ev)).toBe(false);
    ws.close();
    otherWs.close();
  }, 120_000);

  it('deleting a ticket drops its tag links: the counts go down and the tag deletes cleanly', async () => {
    const w = await world();
    const tag = await mkTag(w.admin, { name: 'Apagável' });
    const other = await mkTag(w.admin, { name: 'Outra' });
    const gone = await customer(w.companyId, w.connectionId);
    const kept = await customer(w.companyId, w.connectionId);
    expect((await w.admin.post('/tags/sync', { ticketId: gone.ticketId, tags: [tag, other] })).status).toBe(200);
    expect((await w.admin.post('/tags/sync', { ticketId: kept.ticketId, tags: [tag] })).status).toBe(200);
    expect(await counts(w.admin, tag)).toEqual({ tickets: 2, contacts: 0 });
    const ws = await socket(w.adminToken);
    const mark = ws.mark();
    expect((await w.admin.del(`/tickets/${gone.ticketId}`)).status).toBe(204);
    // The tags page hears the lower counts too.
    const heard = await ws.waitFor(`company-${w.companyId}-tag`, (d: any) => d?.action === 'counts' && d.counts.some((c: any) => c.id === tag && c.ticketsCount === 1), 20_000, mark);
    expect(heard.data.counts.find((c: { id: number }) => c.id === other)).toMatchObject({ ticketsCount: 0 });
    ws.close();
    expect((await w.admin.get(`/tickets/${gone.ticketId}`)).status).toBe(404);
    expect(await counts(w.admin, tag)).toEqual({ tickets: 1, contacts: 0 });
    expect(await counts(w.admin, other)).toEqual({ tickets: 0, contacts: 0 });
    expect(await listed(w.admin, `tags=${q([tag])}`)).toEqual([kept.ticketId]);
    expect((await w.admin.del(`/tags/${other}`)).status).toBe(204);
    expect((await w.admin.del(`/tags/${tag}`)).status).toBe(204);
    expect(await ticketTags(w.admin, kept.ticketId)).toEqual([]);

    // Tagging and deleting the same tickets at the same moment: no link outlives its ticket.
    const racer = await mkTag(w.admin, { name: 'Corrida' });
    const racing: Awaited<ReturnType<typeof customer>>[] = [];
    for (let i = 0; i < 4; i++) racing.push(await customer(w.companyId, w.connectionId));
    const results = await Promise.all(
      racing.flatMap((c) => [w.admin.post('/tags/sync', { ticketId: c.ticketId, tags: [racer] }), w.admin.del(`/tickets/${c.ticketId}`)]),
    );
    for (const [i, r] of results.entries()) expect([200, 204, 404], `call ${i}: ${JSON.stringify(r.body)}`).toContain(r.status);
    for (const c of racing) expect((await w.admin.get(`/tickets/${c.ticketId}`)).status).toBe(404);
    expect(await counts(w.admin, racer)).toEqual({ tickets: 0, contacts: 0 });
    expect((await w.admin.del(`/tags/${racer}`)).status).toBe(204);
  }, 120_000);
});
