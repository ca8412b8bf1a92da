import fs from 'node:fs';
import { WebSocket } from 'ws';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { inboundEventSchema, newWaMessageId, type StoredMedia } from '@balcao/shared';
import type { ProviderEvent, SendCommand } from '../src/provider.js';
import { AUTH_TOKEN, AUTH_UNCONFIRMED } from '../src/providers/sandbox.js';
import { api, linked, memoryContext, ofType, session, sessions, startNetwork, tempDir, waitFor } from './sandbox-helpers.js';

const CUSTOMER = '5511987654321';

function sendCmd(connectionId: number, to: string, body: string, extra: Partial<SendCommand> = {}): SendCommand {
  return { v: 1, type: 'send', commandId: `c-${Math.random()}`, companyId: 1, connectionId, ticketId: 1, waMessageId: newWaMessageId(), to: { number: to }, body, ...extra };
}

describe('sandbox network and provider', () => {
  let dir: string;
  let net: Awaited<ReturnType<typeof startNetwork>>;
  const stops: (() => Promise<void>)[] = [];

  beforeEach(async () => {
    dir = tempDir();
    net = await startNetwork(dir, { qrIntervalMs: 60_000 });
  });
  afterEach(async () => {
    for (const s of stops.splice(0).reverse()) await s();
    await net.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  async function link(id: number, scanBody: object = {}, opts = {}) {
    const l = await linked(net.url, id, scanBody, opts);
    stops.push(() => l.s.stop());
    return l;
  }

  it('shows a QR, links on scan with the default number, and answers 409 to a scan without a QR', async () => {
    const early = await api(net.url, 'POST', '/connections/7/scan');
    expect(early.status).toBe(409);
    expect(early.json.message).toMatch(/no QR code/);

    const mem = memoryContext(7);
    const s = session(net.url, mem.ctx);
    stops.push(() => s.stop());
    await s.start();
    const qr = await waitFor(() => sessions(mem.events).find((e) => e.status === 'qrcode'), 'qrcode');
    expect(sessions(mem.events)[0].status).toBe('OPENING');
    const view = await api(net.url, 'GET', '/connections/7');
    expect(view.json).toMatchObject({ id: 7, status: 'qr', online: true, qr: qr.qrcode });
    const svg = await fetch(`${net.url}/connections/7/qr.svg`);
    expect(svg.headers.get('content-type')).toBe('image/svg+xml');
    expect(await svg.text()).toContain('<svg');

    expect((await api(net.url, 'POST', '/connections/7/scan')).json).toEqual({ number: '5511900000007' });
    const connected = await waitFor(() => sessions(mem.events).find((e) => e.status === 'CONNECTED'), 'CONNECTED');
    expect(connected.number).toBe('5511900000007');
    expect(mem.auth.get(AUTH_TOKEN)).toBeTruthy();
    expect(s.connected).toBe(true);
    expect((await api(net.url, 'GET', '/connections/7')).json).toMatchObject({ status: 'linked', online: true, qr: null, number: '5511900000007' });
    expect((await api(net.url, 'GET', '/connections')).json.map((c: { id: number }) => c.id)).toContain(7);
    // Linked: no QR showing any more.
    expect((await api(net.url, 'POST', '/connections/7/scan')).status).toBe(409);
  });

  it('a scan links only once the device kept its credentials: a device restarted mid-scan leaves the phone unlinked, and the next QR links', async () => {
    const mem = memoryContext(21);
    // The device is storing the credentials (slow table) when its session is restarted.
    let storing!: () => void;
    const stored = new Promise<void>((r) => (storing = r));
    const keep = mem.ctx.auth.set;
    mem.ctx.auth.set = async (entries) => {
      storing();
      await new Promise((r) => setTimeout(r, 300));
      await keep(entries);
    };
    const s = session(net.url, mem.ctx);
    await s.start();
    await waitFor(() => sessions(mem.events).some((e) => e.status === 'qrcode'), 'a QR code');
    const scan = api(net.url, 'POST', '/connections/21/scan');
    await stored;
    await s.stop();
    const refused = await scan;
    expect(refused.status).toBe(409);
    expect(refused.json.message).toMatch(/did not complete the link/);
    expect((await api(net.url, 'GET', '/connections/21')).json).toMatchObject({ status: 'none', number: null });
    expect(sessions(mem.events).some((e) => e.status === 'CONNECTED')).toBe(false);

    // The restarted session (same credentials store) shows a new QR; scanning it links, and the
    // link survives another restart.
    mem.ctx.auth.set = keep;
    expect(mem.auth.get(AUTH_TOKEN)).toBeUndefined();
    const again = { ...mem, events: [] as typeof mem.events };
    again.ctx = { ...mem.ctx, emit: async (e) => void again.events.push(e) };
    const s2 = session(net.url, again.ctx);
    stops.push(() => s2.stop());
    await s2.start();
    await waitFor(() => sessions(again.events).some((e) => e.status === 'qrcode'), 'a new QR code');
    expect((await api(net.url, 'POST', '/connections/21/scan')).status).toBe(200);
    await waitFor(() => s2.connected, 'CONNECTED');
    expect((await api(net.url, 'GET', '/connections/21')).json).toMatchObject({ status: 'linked', number: '5511900000021' });
    await s2.stop();
    await s2.start();
    await waitFor(() => s2.connected, 'CONNECTED again without a scan');
  });

  it('a token kept from a scan the network never confirmed asks for a QR, not a logout', async () => {
    const mem = memoryContext(23);
    mem.auth.set(AUTH_TOKEN, 'never-confirmed');
    mem.auth.set(AUTH_UNCONFIRMED, '1');
    const s = session(net.url, mem.ctx);
    stops.push(() => s.stop());
    await s.start();
    await waitFor(() => sessions(mem.events).some((e) => e.status === 'qrcode'), 'a QR instead of a logout');
    expect(sessions(mem.events).some((e) => e.status === 'DISCONNECTED')).toBe(false);
    expect(mem.auth.has(AUTH_TOKEN)).toBe(false);
    expect((await api(net.url, 'POST', '/connections/23/scan')).status).toBe(200);
    await waitFor(() => s.connected, 'CONNECTED');
    expect(mem.auth.has(AUTH_UNCONFIRMED)).toBe(false);
  });

  it('a device that never confirms the link (silent) does not link the phone', async () => {
    const quickDir = tempDir();
    const quick = await startNetwork(quickDir, { qrIntervalMs: 60_000, linkTimeoutMs: 200 });
    stops.push(async () => {
      await quick.stop();
      fs.rmSync(quickDir, { recursive: true, force: true });
    });
    const ws = new WebSocket(`${quick.url.replace(/^http/, 'ws')}/device?connectionId=22`);
    await new Promise((r) => ws.once('message', r));
    const scan = await api(quick.url, 'POST', '/connections/22/scan');
    expect(scan.status).toBe(409);
    expect((await api(quick.url, 'GET', '/connections/22')).json).toMatchObject({ number: null });
    expect((await api(quick.url, 'GET', '/connections/22')).json.status).not.toBe('linked');
    ws.terminate();
  });

  it('scans with a chosen number, and pairs with a code instead of a QR', async () => {
    const a = await link(8, { number: '+55 21 99999-0000' });
    expect(sessions(a.events).find((e) => e.status === 'CONNECTED')?.number).toBe('5521999990000');

    const mem = memoryContext(9, { pairingNumber: '5531988887777' });
    const s = session(net.url, mem.ctx);
    stops.push(() => s.stop());
    await s.start();
    const pairing = await waitFor(() => sessions(mem.events).find((e) => e.status === 'PAIRING'), 'PAIRING');
    expect(pairing.qrcode).toMatch(/^[A-Z0-9]{8}$/);
    expect((await api(net.url, 'GET', '/connections/9')).json).toMatchObject({ status: 'pairing', pairingCode: pairing.qrcode });
    expect((await api(net.url, 'POST', '/connections/9/scan', { code: 'WRONG123' })).status).toBe(400);
    expect((await api(net.url, 'POST', '/connections/9/scan', { code: pairing.qrcode })).json).toEqual({ number: '5531988887777' });
    await waitFor(() => s.connected, 'CONNECTED');
  });

  it('delivers customer messages (media stored before the event) and redelivers the same id as the same WhatsApp message', async () => {
    const { events, media } = await link(10);
    const storedAtEmit: boolean[] = [];
    const png = Buffer.from('89504e470d0a1a0a0000000d4948445200000001', 'hex');

    const first = await api(net.url, 'POST', '/connections/10/messages', { from: CUSTOMER, name: 'Maria', body: 'Olá' });
    expect(first.status).toBe(200);
    const withMedia = await api(net.url, 'POST', '/connections/10/messages', {
      from: CUSTOMER,
      media: { fileName: 'foto.png', mimetype: 'image/png', dataBase64: png.toString('base64') },
      quotedId: first.json.id,
    });
    const msgs = await waitFor(() => ofType(events, 'message').length === 2 && ofType(events, 'message'), 'two messages');
    expect(msgs[0]).toMatchObject({ waMessageId: first.json.id, chat: { number: CUSTOMER, name: 'Maria' }, fromMe: false, body: 'Olá' });
    expect(msgs[1]).toMatchObject({ waMessageId: withMedia.json.id, mediaType: 'image', body: '', quotedWaId: first.json.id });
    const stored = msgs[1].media as StoredMedia;
    expect(stored).toMatchObject({ mimetype: 'image/png', fileName: 'foto.png', size: png.length });
    // The media was in the store when the event was emitted (the store is written before emit).
    storedAtEmit.push(media.has(stored.key));
    expect(storedAtEmit).toEqual([true]);
    expect(media.get(stored.key)!.data.equals(png)).toBe(true);

    const again = await api(net.url, 'POST', '/connections/10/messages', { from: CUSTOMER, id: first.json.id, body: 'ignored: same event' });
    expect(again.json.id).toBe(first.json.id);
    const all = await waitFor(() => ofType(events, 'message').length === 3 && ofType(events, 'message'), 'the redelivery');
    expect(all[2]).toMatchObject({ waMessageId: first.json.id, body: 'Olá' });
    expect(all[2].eventId).not.toBe(all[0].eventId);

    // Typed on the linked phone: our own message, seen by the device as fromMe.
    const typed = await api(net.url, 'POST', '/connections/10/phone-messages', { to: CUSTOMER, body: 'pelo celular' });
    const own = await waitFor(() => ofType(events, 'message').find((e) => e.waMessageId === typed.json.id), 'the phone message');
    expect(own).toMatchObject({ fromMe: true, chat: { number: CUSTOMER }, body: 'pelo celular' });

    const custom = await api(net.url, 'POST', '/connections/10/messages', { from: CUSTOMER, id: 'CUSTOM-1', body: 'x' });
    expect(custom.json.id).toBe('CUSTOM-1');
    // The same id from another customer is a conflict, not a redelivery.
    expect((await api(net.url, 'POST', '/connections/10/messages', { from: '5511911112222', id: 'CUSTOM-1', body: 'x' })).status).toBe(409);
  });

  it('sends to the customer with ack 2, raises acks with receipts, and reports them as ack events', async () => {
    const { s, events, ctx } = await link(11);
    const cmd = sendCmd(11, CUSTOMER, 'Bom dia!');
    const res = await s.send(cmd);
    expect(res.timestamp).toBeGreaterThan(0);
    let conv = (await api(net.url, 'GET', `/connections/11/messages?peer=${CUSTOMER}`)).json;
    expect(conv).toEqual([
      { id: cmd.waMessageId, fromMe: true, body: 'Bom dia!', mediaType: null, fileName: null, mimetype: null, mediaUrl: null, ack: 2, edited: false, deleted: false, reactions: [], quotedId: null, ptt: false, size: null, vcard: null, timestamp: res.timestamp },
    ]);
    // A retried command does not put the message on the phone twice.
    expect(await s.send(cmd)).toEqual(res);
    expect((await api(net.url, 'GET', `/connections/11/messages?peer=${CUSTOMER}`)).json).toHaveLength(1);

    const doc = await ctx.storeMedia(Buffer.from('%PDF-1.4 test'), 'application/pdf', 'boleto.pdf');
    const mediaCmd = sendCmd(11, CUSTOMER, 'segue o boleto', { media: { ...doc, mediaType: 'document' } });
    await s.send(mediaCmd);
    conv = (await api(net.url, 'GET', `/connections/11/messages?peer=${CUSTOMER}`)).json;
    expect(conv[1]).toMatchObject({ id: mediaCmd.waMessageId, mediaType: 'document', fileName: 'boleto.pdf', body: 'segue o boleto', ack: 2 });
    const file = await fetch(`${net.url}${conv[1].mediaUrl}`);
    expect(file.headers.get('content-type')).toBe('application/pdf');
    expect(await file.text()).toBe('%PDF-1.4 test');

    await api(net.url, 'POST', '/connections/11/receipts', { peer: CUSTOMER, ids: [cmd.waMessageId, mediaCmd.waMessageId], status: 'delivered' });
    await api(net.url, 'POST', '/connections/11/receipts', { peer: CUSTOMER, ids: [cmd.waMessageId], status: 'read' });
    // Late "delivered": nothing lowers, nothing reported.
    expect((await api(net.url, 'POST', '/connections/11/receipts', { peer: CUSTOMER, ids: [cmd.waMessageId], status: 'delivered' })).json).toEqual({ raised: [] });
    const acks = await waitFor(() => ofType(events, 'ack').length === 2 && ofType(events, 'ack'), 'two ack events');
    expect(acks[0]).toMatchObject({ chat: { number: CUSTOMER }, waMessageIds: [cmd.waMessageId, mediaCmd.waMessageId], ack: 3 });
    expect(acks[1]).toMatchObject({ waMessageIds: [cmd.waMessageId], ack: 4 });
    conv = (await api(net.url, 'GET', `/connections/11/messages?peer=${CUSTOMER}`)).json;
    expect(conv.map((m: { ack: number }) => m.ack)).toEqual([4, 3]);

    const bad = await api(net.url, 'POST', '/connections/11/receipts', { peer: CUSTOMER, ids: ['NOPE'], status: 'read' });
    expect(bad.status).toBe(404);
    expect((await api(net.url, 'POST', '/connections/11/receipts', { peer: CUSTOMER, ids: [cmd.waMessageId], status: 'seen' })).status).toBe(400);
  });

  it('reports customer edits, deletes, reactions and calls, and applies ours to the phone', async () => {
    const { s, events } = await link(12);
    const m1 = (await api(net.url, 'POST', '/connections/12/messages', { from: CUSTOMER, body: 'errado' })).json.id;
    const m2 = (await api(net.url, 'POST', '/connections/12/messages', { from: CUSTOMER, body: 'apagar' })).json.id;
    const ours = sendCmd(12, CUSTOMER, 'resposta');
    await waitFor(() => ofType(events, 'message').length === 2, 'messages');
    await s.send(ours);

    expect((await api(net.url, 'POST', '/connections/12/events', { type: 'edit', from: CUSTOMER, targetId: m1, body: 'certo' })).status).toBe(200);
    expect((await api(net.url, 'POST', '/connections/12/events', { type: 'delete', from: CUSTOMER, targetId: m2 })).status).toBe(200);
    expect((await api(net.url, 'POST', '/connections/12/events', { type: 'reaction', from: CUSTOMER, targetId: ours.waMessageId, emoji: '👍' })).status).toBe(200);
    const call = await api(net.url, 'POST', '/connections/12/events', { type: 'call', from: CUSTOMER });
    expect(call.json.id).toBeTruthy();
    // The customer cannot edit the connection's message; unknown targets are 404; bad types 400.
    expect((await api(net.url, 'POST', '/connections/12/events', { type: 'edit', from: CUSTOMER, targetId: ours.waMessageId, body: 'x' })).status).toBe(400);
    expect((await api(net.url, 'POST', '/connections/12/events', { type: 'delete', from: CUSTOMER, targetId: 'NOPE' })).status).toBe(404);
    expect((await api(net.url, 'POST', '/connections/12/events', { type: 'poke', from: CUSTOMER })).status).toBe(400);

    await waitFor(() => ofType(events, 'call').length === 1, 'the call');
    expect(ofType(events, 'edit')[0]).toMatchObject({ chat: { number: CUSTOMER }, waMessageId: m1, body: 'certo' });
    expect(ofType(events, 'delete')[0]).toMatchObject({ chat: { number: CUSTOMER }, waMessageId: m2 });
    expect(ofType(events, 'reaction')[0]).toMatchObject({ chat: { number: CUSTOMER }, sender: { number: CUSTOMER }, fromMe: false, waMessageId: ours.waMessageId, emoji: '👍' });
    const callEvent = ofType(events, 'call')[0];
    expect(callEvent).toMatchObject({ chat: { number: CUSTOMER }, callId: call.json.id, isVideo: false });

    await s.edit({ number: CUSTOMER }, ours.waMessageId, 'resposta corrigida');
    await s.react({ number: CUSTOMER }, m1, '❤️');
    await s.markRead({ number: CUSTOMER }, [m1]);
    await s.rejectCall(callEvent.callId, { number: CUSTOMER });
    let conv = (await api(net.url, 'GET', `/connections/12/messages?peer=${CUSTOMER}`)).json;
    const byId = (id: string) => conv.find((m: { id: string }) => m.id === id);
    expect(byId(m1)).toMatchObject({ body: 'certo', edited: true, ack: 4, reactions: [{ emoji: '❤️', fromMe: true }] });
    expect(byId(m2)).toMatchObject({ deleted: true, body: '' });
    expect(byId(ours.waMessageId)).toMatchObject({ body: 'resposta corrigida', edited: true, reactions: [{ emoji: '👍', fromMe: false }] });
    expect((await api(net.url, 'GET', '/connections/12/calls')).json[0]).toMatchObject({ id: call.json.id, status: 'rejected' });

    await s.delete({ number: CUSTOMER }, ours.waMessageId);
    conv = (await api(net.url, 'GET', `/connections/12/messages?peer=${CUSTOMER}`)).json;
    expect(byId(ours.waMessageId)).toMatchObject({ deleted: true });
    await expect(s.edit({ number: CUSTOMER }, m1, 'not mine')).rejects.toThrow(/own messages/);
  });

  it('keeps messages while the device is away and delivers them in order, once, on reconnect without a scan', async () => {
    const first = await link(13);
    await first.s.stop();
    expect((await api(net.url, 'GET', '/connections/13')).json).toMatchObject({ status: 'linked', online: false });
    const ids: string[] = [];
    for (let i = 0; i < 12; i++) {
      const from = i % 2 ? CUSTOMER : '5511955554444';
      ids.push((await api(net.url, 'POST', '/connections/13/messages', { from, body: `m${i}` })).json.id);
    }
    expect((await api(net.url, 'GET', '/connections/13')).json.pending).toBe(12);

    // A new process: same credentials (the table), new context.
    const again = memoryContext(13);
    for (const [k, v] of first.auth) again.auth.set(k, v);
    const s2 = session(net.url, again.ctx);
    stops.push(() => s2.stop());
    await s2.start();
    await waitFor(() => ofType(again.events, 'message').length === 12, 'twelve messages');
    await waitFor(async () => (await api(net.url, 'GET', '/connections/13')).json.pending === 0, 'acknowledged');
    expect(ofType(again.events, 'message').map((e) => e.waMessageId)).toEqual(ids);
    expect(sessions(again.events).map((e) => e.status)).toEqual(['OPENING', 'CONNECTED']);

    // A dropped link replays nothing already acknowledged; the provider reconnects by itself.
    expect((await api(net.url, 'POST', '/connections/13/disconnect', { reason: 'connectionLost' })).status).toBe(200);
    await waitFor(() => sessions(again.events).filter((e) => e.status === 'CONNECTED').length === 2, 'reconnected');
    expect(sessions(again.events).map((e) => e.status)).toEqual(['OPENING', 'CONNECTED', 'OPENING', 'CONNECTED']);
    await api(net.url, 'POST', '/connections/13/messages', { from: CUSTOMER, body: 'depois' });
    await waitFor(() => ofType(again.events, 'message').length === 13, 'the next message');
    expect(new Set(ofType(again.events, 'message').map((e) => e.eventId)).size).toBe(13);
  });

  it('replays an event whose publishing failed, in order', async () => {
    const { s, ctx, events } = await link(14);
    let fail = 1;
    const emit = ctx.emit;
    ctx.emit = async (e: ProviderEvent) => {
      if (e.type === 'message' && fail-- > 0) throw new Error('SQS is down');
      return emit(e);
    };
    await s.stop();
    // Both wait on the network, so they reach the device back to back: the failure of the first
    // must not let the second acknowledge past it.
    await api(net.url, 'POST', '/connections/14/messages', { from: CUSTOMER, body: 'a' });
    await api(net.url, 'POST', '/connections/14/messages', { from: CUSTOMER, body: 'b' });
    await s.start();
    await waitFor(() => ofType(events, 'message').length === 2, 'both after the retry');
    expect(ofType(events, 'message').map((e) => e.body)).toEqual(['a', 'b']);
    await waitFor(() => s.connected, 'connected again');
  });

  it('drops an event the host always rejects so the ones after it still arrive', async () => {
    const { ctx, events } = await link(23);
    const emit = ctx.emit;
    let attempts = 0;
    ctx.emit = async (e: ProviderEvent) => {
      // The host validates with the inbound schema: a ZodError is a rejection replays cannot fix.
      if (e.type === 'message' && e.body === 'veneno') {
        attempts++;
        inboundEventSchema.parse({ ...e, v: 2 });
      }
      return emit(e);
    };
    await api(net.url, 'POST', '/connections/23/messages', { from: CUSTOMER, body: 'veneno' });
    await api(net.url, 'POST', '/connections/23/messages', { from: CUSTOMER, body: 'depois' });
    const after = await waitFor(() => ofType(events, 'message')[0], 'the next message', 10_000);
    expect(after.body).toBe('depois');
    await waitFor(async () => (await api(net.url, 'GET', '/connections/23')).json.pending === 0, 'queue drained');
    expect(attempts).toBe(3);
  });

  it('logged out on the phone: DISCONNECTED, credentials cleared, no reconnect; a new QR links again', async () => {
    const { s, events, auth } = await link(15);
    expect((await api(net.url, 'POST', '/connections/15/disconnect', { reason: 'loggedOut' })).status).toBe(200);
    const d = await waitFor(() => sessions(events).find((e) => e.status === 'DISCONNECTED'), 'DISCONNECTED');
    expect(d.reason).toBe('loggedOut');
    expect(auth.size).toBe(0);
    expect(s.connected).toBe(false);
    await expect(s.send(sendCmd(15, CUSTOMER, 'x'))).rejects.toThrow(/not connected/);
    await new Promise((r) => setTimeout(r, 200));
    expect((await api(net.url, 'GET', '/connections/15')).json).toMatchObject({ status: 'none', online: false });
    expect((await api(net.url, 'POST', '/connections/15/messages', { from: CUSTOMER, body: 'x' })).status).toBe(409);

    await s.newQr();
    await waitFor(() => sessions(events).filter((e) => e.status === 'qrcode').length === 2, 'a new QR');
    await api(net.url, 'POST', '/connections/15/scan');
    await waitFor(() => s.connected, 'linked again');
    expect(auth.get(AUTH_TOKEN)).toBeTruthy();
  });

  it('logout from our side revokes the token', async () => {
    const { s, events, auth } = await link(16);
    const token = auth.get(AUTH_TOKEN)!;
    await s.logout();
    expect(sessions(events).at(-1)).toMatchObject({ status: 'DISCONNECTED', reason: 'loggedOut' });
    expect(auth.size).toBe(0);
    await waitFor(async () => (await api(net.url, 'GET', '/connections/16')).json.status === 'none', 'unlinked');
    // The old token no longer opens the account.
    const old = memoryContext(16);
    old.auth.set(AUTH_TOKEN, token);
    const s2 = session(net.url, old.ctx);
    stops.push(() => s2.stop());
    await s2.start();
    await waitFor(() => sessions(old.events).find((e) => e.status === 'DISCONNECTED'), 'rejected token');
    expect(old.auth.size).toBe(0);
  });

  it('logout while offline unlinks the phone too, but never a newer link', async () => {
    const { s, auth } = await link(22);
    await s.stop();
    const token = auth.get(AUTH_TOKEN);
    await s.logout();
    expect(auth.size).toBe(0);
    expect((await api(net.url, 'GET', '/connections/22')).json.status).toBe('none');
    // A stale token does not unlink the account's current link.
    await link(22);
    expect((await api(net.url, 'POST', '/connections/22/disconnect', { reason: 'loggedOut', token })).json).toEqual({ ok: true, revoked: false });
    expect((await api(net.url, 'GET', '/connections/22')).json.status).toBe('linked');
  });

  it('replaced: stops without a reconnect loop; a second device with the token replaces the first', async () => {
    const { s, events, auth } = await link(17);
    expect((await api(net.url, 'POST', '/connections/17/disconnect', { reason: 'replaced' })).status).toBe(200);
    await waitFor(() => sessions(events).find((e) => e.status === 'DISCONNECTED' && e.reason === 'replaced'), 'replaced');
    await new Promise((r) => setTimeout(r, 300));
    expect(s.connected).toBe(false);
    expect((await api(net.url, 'GET', '/connections/17')).json).toMatchObject({ status: 'linked', online: false });
    expect(sessions(events).filter((e) => e.status === 'OPENING')).toHaveLength(1);
    expect((await api(net.url, 'POST', '/connections/17/disconnect', { reason: 'replaced' })).status).toBe(409);

    // Start again (the user's "try again"), then another task with the same credentials takes over.
    await s.start();
    await waitFor(() => s.connected, 'connected again');
    const other = memoryContext(17);
    for (const [k, v] of auth) other.auth.set(k, v);
    const s2 = session(net.url, other.ctx);
    stops.push(() => s2.stop());
    await s2.start();
    await waitFor(() => s2.connected, 'second device');
    await waitFor(() => sessions(events).filter((e) => e.reason === 'replaced').length === 2, 'first replaced');
    await new Promise((r) => setTimeout(r, 300));
    expect(s2.connected).toBe(true);
    expect(s.connected).toBe(false);
  });

  it('reports TIMEOUT after the QR limit and waits for the user', async () => {
    await net.stop();
    net = await startNetwork(dir, { qrIntervalMs: 40 });
    const mem = memoryContext(18);
    const s = session(net.url, mem.ctx, { qrLimit: 3 });
    stops.push(() => s.stop());
    await s.start();
    const timeout = await waitFor(() => sessions(mem.events).find((e) => e.status === 'TIMEOUT'), 'TIMEOUT');
    expect(timeout.retries).toBe(3);
    expect(sessions(mem.events).filter((e) => e.status === 'qrcode')).toHaveLength(3);
    await new Promise((r) => setTimeout(r, 200));
    expect(sessions(mem.events).filter((e) => e.status === 'qrcode')).toHaveLength(3);
    expect((await api(net.url, 'POST', '/connections/18/scan')).status).toBe(409);
    await s.newQr();
    await waitFor(() => sessions(mem.events).filter((e) => e.status === 'qrcode').length === 4, 'a QR after "new QR"');
    await api(net.url, 'POST', '/connections/18/scan');
    await waitFor(() => s.connected, 'CONNECTED');
  });

  it('checks numbers and reads the address book', async () => {
    const { s } = await link(19);
    expect(await s.checkNumber('5511933332222')).toEqual({ exists: true, number: '5511933332222' });
    expect((await api(net.url, 'PUT', '/phones/5511933332222', { onWhatsApp: false })).json).toEqual({ number: '5511933332222', onWhatsApp: false });
    expect(await s.checkNumber('5511933332222')).toEqual({ exists: false });
    expect(await s.checkNumber('123')).toEqual({ exists: false });
    expect(await s.checkNumbers(['5511933332222', '5511944445555'])).toEqual([
      { number: '5511933332222', exists: false },
      { number: '5511944445555', exists: true },
    ]);
    await expect(s.send(sendCmd(19, '5511933332222', 'oi'))).rejects.toThrow(/not on WhatsApp/);
    expect((await api(net.url, 'POST', '/connections/19/messages', { from: '5511933332222', body: 'oi' })).status).toBe(400);

    expect(await s.addressBook()).toEqual([]);
    const book = [
      { number: '5511944443333', name: 'Ana' },
      { number: '5521955554444', name: 'Bruno' },
    ];
    expect((await api(net.url, 'PUT', '/connections/19/contacts', book)).json).toEqual(book);
    expect((await api(net.url, 'GET', '/connections/19/contacts')).json).toEqual(book);
    expect(await s.addressBook()).toEqual(book);
    expect((await api(net.url, 'PUT', '/connections/19/contacts', [{ number: '12', name: 'x' }])).status).toBe(400);
  });

  it('answers bad input with clear 400/404/409 errors', async () => {
    expect((await api(net.url, 'GET', '/connections/abc')).status).toBe(400);
    expect((await api(net.url, 'POST', '/connections/20/messages', { from: CUSTOMER, body: 'x' })).status).toBe(409);
    await link(20);
    const bad = await api(net.url, 'POST', '/connections/20/messages', '{not json');
    expect(bad).toMatchObject({ status: 400, json: { message: 'the body is not valid JSON' } });
    expect((await api(net.url, 'POST', '/connections/20/messages', { from: '12', body: 'x' })).json.message).toMatch(/10 to 15 digits/);
    expect((await api(net.url, 'POST', '/connections/20/messages', { from: CUSTOMER })).json.message).toMatch(/body or media/);
    expect((await api(net.url, 'POST', '/connections/20/messages', { from: CUSTOMER, media: { mimetype: 'image/png' } })).status).toBe(400);
    expect((await api(net.url, 'POST', '/connections/20/messages', { from: CUSTOMER, body: 'x', quotedId: 'NOPE' })).status).toBe(404);
    expect((await api(net.url, 'POST', '/connections/20/disconnect', { reason: 'bored' })).status).toBe(400);
    expect((await api(net.url, 'GET', '/connections/20/messages')).status).toBe(400);
    expect((await api(net.url, 'GET', '/media/20/0123456789abcdef01234567.png')).status).toBe(404);
    const page = await fetch(`${net.url}/`);
    expect(page.headers.get('content-type')).toMatch(/text\/html/);
    expect(await page.text()).toContain('Simulador');
  });

  it('keeps links, conversations and pending events across a network restart', async () => {
    const { s, events, auth } = await link(21);
    const sent = sendCmd(21, CUSTOMER, 'antes');
    await s.send(sent);
    await s.stop();
    const img = Buffer.from('GIF89a-test');
    const pendingId = (await api(net.url, 'POST', '/connections/21/messages', { from: CUSTOMER, media: { fileName: 'a.gif', mimetype: 'image/gif', dataBase64: img.toString('base64') } })).json.id;
    await net.stop();

    net = await startNetwork(dir, { qrIntervalMs: 60_000 });
    expect((await api(net.url, 'GET', '/connections/21')).json).toMatchObject({ status: 'linked', online: false, number: '5511900000021', pending: 1 });
    const conv = (await api(net.url, 'GET', `/connections/21/messages?peer=${CUSTOMER}`)).json;
    expect(conv.map((m: { id: string }) => m.id)).toEqual([sent.waMessageId, pendingId]);

    const again = memoryContext(21);
    for (const [k, v] of auth) again.auth.set(k, v);
    const s2 = session(net.url, again.ctx);
    stops.push(() => s2.stop());
    await s2.start();
    const msg = await waitFor(() => ofType(again.events, 'message')[0], 'the pending message');
    expect(msg.waMessageId).toBe(pendingId);
    expect(again.media.get(msg.media!.key)!.data.equals(img)).toBe(true);
    expect(sessions(again.events).some((e) => e.status === 'qrcode')).toBe(false);
    expect(events.length).toBeGreaterThan(0);
  });
});
