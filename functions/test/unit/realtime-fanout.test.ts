import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { companyEvent, eventsOf, room, type RealtimeMessage } from '@balcao/shared';
import { memoryAgent, memoryWorld } from '../fakes/world.js';

/**
 * The fan-out of one batch (issue 23), on the in-memory table with a local @connections endpoint
 * that records every post: one frame per socket per batch, the room's audience, visibility.
 */
const posts: { connectionId: string; body: string }[] = [];
let server: http.Server;

beforeAll(async () => {
  server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const id = decodeURIComponent(/@connections\/([^/?]+)/.exec(req.url ?? '')?.[1] ?? '');
      posts.push({ connectionId: id, body: Buffer.concat(chunks).toString('utf8') });
      res.writeHead(200, { 'content-length': '0' });
      res.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  process.env.WS_CALLBACK_URL = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  Object.assign(process.env, { AWS_REGION: 'us-east-1', AWS_ACCESS_KEY_ID: 'unit', AWS_SECRET_ACCESS_KEY: 'unit' });
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

async function setup() {
  const w = await memoryWorld();
  const { registerConnection, getConnection, joinRoom } = await import('../../src/services/presence.js');
  const { getItem, updateItem } = await import('../../src/core/db.js');
  const { keys } = await import('../../src/table/keys.js');
  const admin = await memoryAgent(w, 'Ana Admin', { profile: 'admin' });
  // A Nível 1 agent without queues or allTicket may not see a ticket without a queue.
  const blind = await memoryAgent(w, 'Beto Sem Fila', { allTicket: false });
  const socketOf = async (userId: number, connectionId: string) =>
    w.ports.run(async () => {
      await updateItem(keys.user(w.companyId, userId), { session: { id: `s-${userId}` } });
      const user = (await getItem<import('../../src/table/items.js').UserItem>(keys.user(w.companyId, userId)))!;
      await registerConnection(connectionId, user, `s-${userId}`);
      return connectionId;
    });
  const watching = await socketOf(admin.user.id, 'watching');
  const listing = await socketOf(admin.user.id, 'listing');
  const blindSocket = await socketOf(blind.user.id, 'blind');
  await w.ports.run(async () => {
    for (const id of [watching, blindSocket]) await joinRoom((await getConnection(id))!, room.chatBox(7));
  });
  const ticket = { userId: null, queueId: null, status: 'pending' };
  const events: RealtimeMessage[] = [
    { companyId: w.companyId, event: companyEvent(w.companyId, 'appMessage'), data: { action: 'update', message: { id: 'M1', ticketId: 7 } as never }, audience: [{ kind: 'room', room: room.chatBox(7) }], ticket },
    { companyId: w.companyId, event: companyEvent(w.companyId, 'ticket'), data: { action: 'update', ticket: { id: 7 } as never, message: { id: 'M1', body: 'Oi', fromMe: false, mediaType: null, createdAt: '2026-11-27T12:00:00.000Z' } }, audience: [{ kind: 'company' }], ticket },
    { companyId: w.companyId, event: companyEvent(w.companyId, 'tag'), data: { action: 'counts', counts: {} } as never, audience: [{ kind: 'company' }] },
  ];
  return { w, events, admin, sockets: { watching, listing, blind: blindSocket } };
}

const framesTo = (connectionId: string) => posts.filter((p) => p.connectionId === connectionId).map((p) => JSON.parse(p.body) as unknown);

describe('realtime fan-out of a batch', () => {
  it('posts one frame per socket with its events in order, to the room only for the message, never what the user may not see', async () => {
    const { w, events, sockets } = await setup();
    const { fanOut } = await import('../../src/workers/realtime-fanout.js');
    posts.length = 0;
    const result = await w.ports.run(() => fanOut(events));
    expect(result.failed).toEqual([]);
    expect(framesTo(sockets.watching)).toHaveLength(1);
    expect(eventsOf(framesTo(sockets.watching)[0]).map((e) => e.event)).toEqual(events.map((e) => e.event));
    expect(eventsOf(framesTo(sockets.listing)[0]).map((e) => e.event)).toEqual([events[1].event, events[2].event]);
    // The blind agent is in the room but may not see the ticket: only the company's tag counts.
    expect(framesTo(sockets.blind)).toEqual([{ event: events[2].event, data: events[2].data }]);
    expect(result).toMatchObject({ posts: 3, deliveries: 6 });
  });

  it("keeps a large company's socket directory while its version stays put, and reads it again when a socket connects", async () => {
    const { w, events, admin } = await setup();
    const { fanOut, DIRECTORY_CACHE_MIN_ROWS } = await import('../../src/workers/realtime-fanout.js');
    const { registerConnection } = await import('../../src/services/presence.js');
    const { getItem, putItem } = await import('../../src/core/db.js');
    const { keys } = await import('../../src/table/keys.js');
    const user = () => w.ports.run(async () => (await getItem<import('../../src/table/items.js').UserItem>(keys.user(w.companyId, admin.user.id)))!);
    for (let i = 0; i < DIRECTORY_CACHE_MIN_ROWS; i++) await w.ports.run(async () => registerConnection(`tab-${i}`, await user(), `s-${admin.user.id}`));
    const receivers = async () => {
      posts.length = 0;
      await w.ports.run(() => fanOut([events[2]]));
      return new Set(posts.map((p) => p.connectionId));
    };
    await receivers(); // learns the partition is large
    await receivers(); // kept with its version
    // A socket row written without moving the version is not seen: the kept directory is used.
    await w.ports.run(async () => {
      const conn = { connectionId: 'unannounced', companyId: w.companyId, userId: admin.user.id, ttl: Math.floor(w.ports.time / 1000) + 3600 };
      await putItem({ ...keys.wsConnection('unannounced'), ...conn, entity: 'wsConnection', sessionId: `s-${admin.user.id}`, rooms: [], connectedAt: new Date(w.ports.time).toISOString() });
      await putItem({ ...keys.wsCompany(w.companyId, 'unannounced'), ...conn, entity: 'wsCompany' });
    });
    expect((await receivers()).has('unannounced')).toBe(false);
    // A real connect moves the version: both new sockets are read.
    await w.ports.run(async () => registerConnection('late', await user(), `s-${admin.user.id}`));
    const after = await receivers();
    expect(after.has('late') && after.has('unannounced') && after.has('tab-0')).toBe(true);
  });
});

describe('frames for one socket', () => {
  it('groups events under the size limit, keeps their order, and sends a lone event as itself', async () => {
    const { planFrames } = await import('../../src/workers/realtime-fanout.js');
    const ev = (i: number, size: number) => JSON.stringify({ event: `e${i}`, data: 'x'.repeat(size) });
    expect(planFrames([ev(1, 10)])).toEqual([ev(1, 10)]);
    const events = [ev(1, 400), ev(2, 400), ev(3, 400), ev(4, 2000), ev(5, 10)];
    const frames = planFrames(events, 1000);
    for (const f of frames) expect(Buffer.byteLength(f) <= 1000 || eventsOf(JSON.parse(f)).length === 1).toBe(true);
    expect(frames.flatMap((f) => eventsOf(JSON.parse(f)).map((e) => e.event))).toEqual(['e1', 'e2', 'e3', 'e4', 'e5']);
    expect(frames).toHaveLength(4);
  });
});
