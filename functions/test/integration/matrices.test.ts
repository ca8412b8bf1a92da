import { describe, expect, it } from 'vitest';
import { PLAN_FLAGS, apiRoutes, type ApiRoute } from '@balcao/shared';
import type { z } from 'zod';
import { routes, routeKey, type RouteDef } from '../../src/routes.js';
import { as, call, login, member, PASSWORD, superUserToken, tenant } from './client.js';
import { connected, sandbox, ticketOf } from './pipeline-helpers.js';

/**
 * Issue 16, proof: the tenancy and auth matrices over the route table itself, so a route is covered
 * the day it is added. Tenancy: every route with a path value is called by another tenant's admin
 * with the victim's ids (404, nothing changes), every list with filters naming the victim's ids
 * shows nothing of the victim, and every body that references the victim's ids changes nothing of
 * the victim. Auth: every signed-in route refuses no token, malformed and forged tokens and an
 * older session (401); admin routes refuse a Nível 1 user and super-user routes an admin (403).
 */
type Victim = Awaited<ReturnType<typeof victimWorld>>;

const paramsOf = (path: string) => [...path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]!);
const fill = (path: string, values: Record<string, string | number>) => path.replace(/\{(\w+)\}/g, (_, p: string) => encodeURIComponent(String(values[p] ?? '0')));

/** A company with one of everything, every name carrying the same mark so a leak is easy to see. */
async function victimWorld() {
  const mark = `VITIMA${Date.now().toString(36)}`;
  const t = await connected();
  const agent = await member(t.admin, { name: `${mark} Agente` });
  const queue = await t.admin.post('/queue', { name: `${mark} Fila`, color: '#2196f3' });
  const option = await t.admin.post('/queue-options', { queueId: queue.body.id, option: '1', title: `${mark} Opção`, message: `${mark} texto` });
  const tag = await t.admin.post('/tags', { name: `${mark} Etiqueta`, color: '#2196f3' });
  const quick = await t.admin.post('/quick-messages', { shortcode: `${mark.toLowerCase()}`, message: `${mark} resposta` });
  const number = `5511${String(Date.now()).slice(-9)}`;
  await sandbox('POST', `/connections/${t.connectionId}/messages`, { from: number, name: `${mark} Cliente`, body: `${mark} mensagem` });
  const ticket = await ticketOf(t, number);
  const full = (await t.admin.get(`/tickets/${ticket.id}`)).body;
  const contactId = full.contactId as number;
  const page = await t.admin.get(`/messages/${ticket.id}`);
  const messageId = page.body.messages[0].id as string;
  await t.admin.put(`/contacts/${contactId}`, { name: `${mark} Cliente`, number });
  const note = await t.admin.post('/ticket-notes', { note: `${mark} nota`, ticketId: ticket.id, contactId });
  const schedule = await t.admin.post('/schedules', { body: `${mark} agendada`, contactId, sendAt: new Date(Date.now() + 86_400_000).toISOString() });
  const integration = await t.admin.post('/queueIntegration', { type: 'webhook', name: `${mark} Fluxo`, urlN8N: 'https://n8n.example.com/webhook/vitima' });
  const prompt = await t.admin.post('/prompt', { name: `${mark} IA`, prompt: `${mark} prompt`, queueId: queue.body.id, apiKey: 'sk-vitima-000000000000' });
  const contactList = await t.admin.post('/contact-lists', { name: `${mark} Lista` });
  const listItem = await t.admin.post('/contact-list-items', { name: `${mark} Item`, number: '5511977770000', contactListId: contactList.body.id });
  const fileList = await t.admin.post('/files', { name: `${mark} Arquivos`, message: `${mark} catálogo`, options: [{ name: `${mark} Tabela` }] });
  const optionFile = new FormData();
  optionFile.append('files', new Blob([Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), Buffer.alloc(64, 1)])], { type: 'image/png' }), `${mark}.png`);
  const uploaded = await t.admin.form('POST', `/files/uploadList/${fileList.body.id}`, optionFile);
  const campaignSettings = await t.admin.post('/campaign-settings', { messageInterval: 5, variables: [{ key: 'vitima', value: `${mark} variável` }] });
  const campaign = await t.admin.post('/campaigns', { name: `${mark} Campanha`, contactListId: contactList.body.id, whatsappId: t.connectionId, fileListId: fileList.body.id, message1: `${mark} oferta` });
  for (const r of [queue, option, tag, quick, note, schedule, integration, prompt, contactList, listItem, fileList, uploaded, campaignSettings, campaign]) expect(r.status, JSON.stringify(r.body)).toBeLessThan(300);
  t.ws.close();
  const ids: Record<string, string | number> = {
    id: 0,
    ticketId: ticket.id,
    tagId: tag.body.id,
    messageId,
    uuid: full.uuid,
    key: 'userRating',
    optionId: option.body.id,
    promptId: prompt.body.id,
    listItemId: listItem.body.id,
  };
  // `{id}` means the resource of the route's own handler.
  const idOf: Record<string, number> = {
    users: agent.id,
    queues: queue.body.id,
    whatsapp: t.connectionId,
    tickets: ticket.id,
    ticketNotes: note.body.id,
    contacts: contactId,
    tags: tag.body.id,
    quickMessages: quick.body.id,
    schedules: schedule.body.id,
    companies: t.companyId,
    // `/queueIntegration/{id}`; `/prompt/{id}` (same handler) takes `promptId` below.
    integrations: integration.body.id,
    // `/contact-lists/{id}`; `/contact-list-items/{id}` (same handler) takes `listItemId` below.
    contactLists: contactList.body.id,
    // `/files/{id}` and `/files/uploadList/{id}`.
    files: fileList.body.id,
    campaigns: campaign.body.id,
  };
  /** What the victim's admin sees of its own data, to compare before and after. */
  const snapshot = async () => {
    const gets = [
      `/users/${agent.id}`,
      `/queue/${queue.body.id}`,
      `/queue-options?queueId=${queue.body.id}&parentId=-1`,
      `/queue-options/${option.body.id}`,
      `/whatsapp/${t.connectionId}`,
      `/tickets/${ticket.id}`,
      `/contacts/${contactId}`,
      `/tags/${tag.body.id}`,
      `/quick-messages/${quick.body.id}`,
      `/schedules/${schedule.body.id}`,
      `/queueIntegration/${integration.body.id}`,
      `/prompt/${prompt.body.id}`,
      `/contact-lists/${contactList.body.id}`,
      `/contact-list-items?contactListId=${contactList.body.id}`,
      `/contact-list-items/${listItem.body.id}`,
      `/files/${fileList.body.id}`,
      '/campaign-settings',
      `/campaigns/${campaign.body.id}`,
      `/messages/${ticket.id}`,
      `/ticket-notes/list?ticketId=${ticket.id}&contactId=${contactId}`,
      '/settings',
      `/companies/${t.companyId}`,
    ];
    const out: Record<string, unknown> = {};
    for (const p of gets) {
      const r = await t.admin.get(p);
      // Presence and the session host's status move by themselves: the rest must not.
      out[p] = JSON.parse(JSON.stringify(r.body), (k, v) => (['online', 'lastSeenAt', 'status', 'qrcode', 'retries', 'mediaUrl', 'profilePicUrl', 'urlPicture'].includes(k) && typeof v !== 'object' ? undefined : v));
    }
    return out;
  };
  return { ...t, mark, ids, idOf, snapshot, agent };
}

describe('the tenancy matrix over the route table', () => {
  it("another tenant's ids answer 404 on every route, its filters show nothing, its references change nothing", { timeout: 300_000 }, async () => {
    const victim: Victim = await victimWorld();
    const before = await victim.snapshot();
    const intruder = await connected();
    intruder.ws.close();
    const failures: string[] = [];
    const leaks: string[] = [];
    const send = async (route: RouteDef, path: string, body?: unknown) => {
      const res = await call(route.method, path, { token: intruder.adminToken, body });
      if (JSON.stringify(res.body ?? '').includes(victim.mark)) leaks.push(`${routeKey(route)} ${path}`);
      return res;
    };
    const mine = routes.filter((r) => r.auth === 'user' && !r.super && routeKey(r) !== 'DELETE /auth/logout' && routeKey(r) !== 'POST /auth/refresh_token');

    // 1. Path values naming the victim's resources.
    let byId = 0;
    for (const route of mine.filter((r) => paramsOf(r.path).length)) {
      const params = paramsOf(route.path);
      if (params.includes('key')) continue; // settings are addressed by key inside one's own company
      // Queue options share the queues' handler: `{id}` there is the victim's option.
      const values = {
        ...victim.ids,
        id: route.path.startsWith('/queue-options')
          ? victim.ids.optionId!
          : route.path.startsWith('/prompt')
            ? victim.ids.promptId!
            : route.path.startsWith('/contact-list-items')
              ? victim.ids.listItemId!
              : (victim.idOf[route.handler] ?? 0),
      };
      const body = route.method === 'GET' || route.method === 'DELETE' ? undefined : { name: 'Invasor', body: 'Invasor', note: 'Invasor', emoji: '👍' };
      const res = await send(route, fill(route.path, values), body);
      byId++;
      // The company's own record by id: a non-super admin may read only its own (403 or 404 both tell nothing).
      const ok = route.handler === 'companies' ? [403, 404].includes(res.status) : res.status === 404;
      if (!ok) failures.push(`${routeKey(route)} → ${res.status} ${JSON.stringify(res.body).slice(0, 120)}`);
    }

    // 2. Lists whose filters name the victim's ids.
    const v = victim.ids;
    const filters = `queueIds=[${victim.idOf.queues}]&tags=[${v.tagId}]&users=[${victim.agent.id}]&tagsContact=[${v.tagId}]&ticketId=${v.ticketId}&contactId=${victim.idOf.contacts}&companyId=${victim.companyId}&whatsappId=${victim.connectionId}&showAll=true&searchParam=${victim.mark}`;
    for (const route of mine.filter((r) => r.method === 'GET' && !paramsOf(r.path).length)) {
      const res = await send(route, `${route.path}?${filters}`);
      if (res.status >= 500) failures.push(`${routeKey(route)} with the victim's filters → ${res.status}`);
    }

    // 3. Bodies that reference the victim's ids, on every write route of the intruder's own.
    const refs = {
      ticketId: v.ticketId,
      contactId: victim.idOf.contacts,
      userId: victim.agent.id,
      queueId: victim.idOf.queues,
      queueIds: [victim.idOf.queues],
      tagId: v.tagId,
      tags: [{ id: v.tagId }],
      whatsappId: victim.connectionId,
      transferQueueId: victim.idOf.queues,
      companyId: victim.companyId,
      messageId: v.messageId,
      quotedMsgId: v.messageId,
      contactIds: [victim.idOf.contacts],
      ticketIds: [v.ticketId],
      contactListId: victim.idOf.contactLists,
      fileListId: victim.idOf.files,
      tagListId: v.tagId,
    } as Record<string, unknown>;
    for (const route of mine.filter((r) => r.method !== 'GET' && !paramsOf(r.path).length && routeKey(r) !== 'POST /auth/login')) {
      const spec = apiRoutes[routeKey(route) as ApiRoute] as { body?: z.ZodType } | undefined;
      const keys = Object.keys((spec?.body as unknown as { shape?: Record<string, unknown> } | undefined)?.shape ?? {});
      const body: Record<string, unknown> = { name: 'Invasor', body: 'Invasor', note: 'Invasor', number: '5511900001111', color: '#ff0000', message: 'Invasor', shortcode: 'invasor' };
      for (const k of keys) if (k in refs) body[k] = refs[k];
      for (const k of Object.keys(refs)) if (!keys.length) body[k] = refs[k];
      const res = await send(route, route.path, body);
      if (res.status >= 500) failures.push(`${routeKey(route)} with the victim's references → ${res.status}`);
    }

    expect(failures).toEqual([]);
    expect(leaks, 'answers that showed the victim’s data').toEqual([]);
    // Every route with a path value was tried (a shrinking count would mean routes slipped out).
    expect(byId).toBeGreaterThanOrEqual(mine.filter((r) => paramsOf(r.path).length && !paramsOf(r.path).includes('key')).length);
    expect(byId).toBeGreaterThan(40);
    expect(await victim.snapshot()).toEqual(before);
  });
});

describe('the auth matrix over the route table', () => {
  it('every signed-in route refuses no token, malformed, forged and older-session tokens; admin and super routes refuse lower profiles', { timeout: 300_000 }, async () => {
    const t = await connected();
    t.ws.close();
    const agent = await member(t.admin);
    // An older session: the same user signed in again elsewhere.
    const first = await login(agent.email, PASSWORD);
    const second = await login(agent.email, PASSWORD);
    const [head, payload, signature] = second.token.split('.');
    const forged = [
      `${head}.${Buffer.from(JSON.stringify({ ...JSON.parse(Buffer.from(payload!, 'base64url').toString()), sub: 'someone-else' })).toString('base64url')}.${signature}`,
      `${head}.${payload}.${signature!.slice(0, -4)}AAAA`,
      `${Buffer.from(JSON.stringify({ alg: 'none', typ: 'JWT' })).toString('base64url')}.${payload}.`,
    ];
    const bad: [string, string | undefined][] = [
      ['no token', undefined],
      ['malformed', 'not.a.jwt'],
      ['forged claims', forged[0]],
      ['forged signature', forged[1]],
      ['alg none', forged[2]],
      ['older session', first.token],
    ];
    const failures: string[] = [];
    const values = { id: 1, ticketId: 1, tagId: 1, messageId: 'X', uuid: '00000000-0000-4000-8000-000000000000', key: 'userRating' };
    let tried = 0;
    for (const route of routes.filter((r) => r.auth === 'user')) {
      tried++;
      const path = fill(route.path, values);
      const body = route.method === 'GET' || route.method === 'DELETE' ? undefined : {};
      const answers = await Promise.all(bad.map(([, token]) => call(route.method, path, { token, body })));
      answers.forEach((res, i) => {
        if (res.status !== 401) failures.push(`${routeKey(route)} with ${bad[i]![0]} → ${res.status}`);
      });
    }
    // Lower profiles: a Nível 1 user on admin routes, an admin on the super user's.
    const superToken = await superUserToken();
    expect((await call('GET', '/plans/all', { token: superToken })).status).toBe(200);
    for (const route of routes.filter((r) => r.auth === 'user' && (r.admin || r.super))) {
      const token = route.super ? t.adminToken : second.token;
      const path = fill(route.path, { ...values, id: route.handler === 'users' ? t.adminUser.id : route.handler === 'companies' ? t.companyId : 999_999 });
      const res = await call(route.method, path, { token, body: route.method === 'GET' || route.method === 'DELETE' ? undefined : {} });
      if (res.status !== 403) failures.push(`${routeKey(route)} as ${route.super ? 'admin' : 'Nível 1'} → ${res.status}`);
    }
    expect(failures).toEqual([]);
    expect(tried).toBeGreaterThan(85);
    // The newest session still works: the matrix refused the others, not the user.
    expect((await as(second.token).get('/auth/me')).status).toBe(200);
  });
});

describe('the plan-flag matrix over the route table', () => {
  it('every route behind a plan flag answers 403 to an admin whose plan lacks it, and changes nothing', { timeout: 120_000 }, async () => {
    const t = await tenant(Object.fromEntries(PLAN_FLAGS.map((f) => [f, false])));
    const failures: string[] = [];
    const values = { id: 1, ticketId: 1, tagId: 1, messageId: 'X', uuid: '00000000-0000-4000-8000-000000000000', key: 'userRating' };
    const flagged = routes.filter((r) => r.planFlag);
    for (const route of flagged) {
      const body = route.method === 'GET' || route.method === 'DELETE' ? undefined : { name: 'Sem plano', type: 'webhook', urlN8N: 'https://example.com/h', prompt: 'x', apiKey: 'sk-x', queueId: 1 };
      const res = await call(route.method, fill(route.path, values), { token: t.adminToken, body });
      if (res.status !== 403 || res.body?.error !== 'ERR_PLAN_FEATURE_DISABLED') failures.push(`${routeKey(route)} → ${res.status} ${JSON.stringify(res.body).slice(0, 120)}`);
    }
    expect(failures).toEqual([]);
    // The flags of issue 19 are among them.
    expect(flagged.filter((r) => r.planFlag === 'useIntegrations').length).toBeGreaterThanOrEqual(6);
    expect(flagged.filter((r) => r.planFlag === 'useOpenAi').length).toBeGreaterThanOrEqual(5);
  });
});
