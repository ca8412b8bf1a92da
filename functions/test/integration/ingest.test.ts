import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { SendMessageCommand } from '@aws-sdk/client-sqs';
import { lambdaContext } from '../../../infra/local/functions-loader.js';
import { applyStackEnv, socket } from './client.js';
import { base, emit, msg, setup, sqs, ticketsOf, until } from './ingest-helpers.js';

describe('ingest worker (through the inbound FIFO queue)', () => {
  it('a customer message creates the contact, a pending ticket (unread 1) and the message, with live events', async () => {
    const t = await setup();
    const ws = await socket(t.adminToken);
    const e = msg(t.companyId, t.connectionId, '5511987650001', 'Olá, quero um orçamento');
    await emit([e]);
    // A new ticket's first message comes as the ticket's update with the message's summary.
    const created = await ws
      .waitFor(`company-${t.companyId}-ticket`, (d) => d.message?.id === (e as { waMessageId: string }).waMessageId, 40_000)
      .catch(async (err: Error) => {
        // Say whether the ingest stored it: a stalled ingest and a lost live event fail differently.
        throw new Error(`${err.message}; tickets stored: ${JSON.stringify(await ticketsOf(t.companyId))}; frames: ${ws.frames.map((f) => f.event).join(', ')}`);
      });
    expect(created.data.message).toMatchObject({ body: 'Olá, quero um orçamento', fromMe: false });
    expect(created.data.ticket.contact).toMatchObject({ number: '5511987650001', name: 'Cliente 0001' });
    const ticketEvent = created;
    expect(ticketEvent.data.ticket).toMatchObject({ status: 'pending', unreadMessages: 1, lastMessage: 'Olá, quero um orçamento', whatsappId: t.connectionId });
    const page = await t.admin.get(`/messages/${ticketEvent.data.ticket.id}`);
    expect(page.body.messages.map((m: { body: string }) => m.body)).toEqual(['Olá, quero um orçamento']);
    ws.close();
  });

  it('creates nothing twice: redelivery of the same WhatsApp id, and two first messages at once make one ticket', async () => {
    const t = await setup();
    const first = msg(t.companyId, t.connectionId, '5511987650002', 'primeira');
    const again = { ...first, eventId: randomUUID() };
    const second = msg(t.companyId, t.connectionId, '5511987650002', 'segunda');
    // Different groups so the worker really runs them concurrently.
    const client = sqs();
    await Promise.all(
      [first, again, second].map((e, i) =>
        client.send(new SendMessageCommand({ QueueUrl: process.env.INBOUND_QUEUE_URL, MessageBody: JSON.stringify(e), MessageGroupId: `race-${i}-${randomUUID()}`, MessageDeduplicationId: e.eventId })),
      ),
    );
    const tickets = await until(async () => {
      const list = await ticketsOf(t.companyId);
      return list.length === 1 && list[0].lastSeq === 2 ? list : undefined;
    }, 'two messages in one ticket');
    expect(tickets).toHaveLength(1);
    expect(tickets[0].unreadMessages).toBe(2);
    const page = await t.admin.get(`/messages/${tickets[0].id}`);
    expect(page.body.messages.map((m: { body: string }) => m.body).sort()).toEqual(['primeira', 'segunda']);
  });

  it('acks only rise; edits, deletes and reactions update the message', async () => {
    const t = await setup();
    applyStackEnv();
    const { sendInTicket } = await import('../../src/services/outbound.js');
    const first = msg(t.companyId, t.connectionId, '5511987650003', 'oi');
    await emit([first]);
    const [ticket] = await until(async () => {
      const l = await ticketsOf(t.companyId);
      return l.length ? l : undefined;
    }, 'ticket');
    const { getTicketItem } = await import('../../src/services/tickets.js');
    const sent = await sendInTicket(await getTicketItem(t.companyId, ticket.id), { body: 'Olá! Como posso ajudar?' });
    const chat = { number: '5511987650003' };
    const b = base(t.companyId, t.connectionId);
    await emit([
      { ...b, type: 'sendResult', eventId: randomUUID(), ticketId: ticket.id, waMessageId: sent.id, ok: true },
      { ...b, type: 'ack', eventId: randomUUID(), chat, waMessageIds: [sent.id], ack: 4 },
      { ...b, type: 'ack', eventId: randomUUID(), chat, waMessageIds: [sent.id], ack: 3 },
      { ...b, type: 'edit', eventId: randomUUID(), chat, waMessageId: (first as { waMessageId: string }).waMessageId, body: 'oi, editado' },
      { ...b, type: 'reaction', eventId: randomUUID(), chat, fromMe: false, waMessageId: sent.id, emoji: '👍' },
    ]);
    let last: unknown;
    const messages = await until(async () => {
      const page = await t.admin.get(`/messages/${ticket.id}`);
      const [m1, m2] = page.body.messages;
      last = page.body.messages;
      return m1?.isEdited && m2?.reactions?.length && m2.ack === 4 ? page.body.messages : undefined;
    }, 'edit, reaction and read ack').catch((err) => {
      throw new Error(`${err.message}: ${JSON.stringify(last)}`);
    });
    expect(messages[0]).toMatchObject({ body: 'oi, editado', isEdited: true });
    expect(messages[1]).toMatchObject({ ack: 4, error: null, reactions: [{ emoji: '👍', fromMe: false }] });
    await emit([{ ...b, type: 'delete', eventId: randomUUID(), chat, waMessageId: (first as { waMessageId: string }).waMessageId }]);
    await until(async () => ((await t.admin.get(`/messages/${ticket.id}`)).body.messages[0].isDeleted ? true : undefined), 'delete');
  });

  it('marks a send on a connection that is not connected as failed, and lets the agent retry it', async () => {
    // The connection was never scanned: the session host cannot send and reports the failure.
    const t = await setup();
    await emit([msg(t.companyId, t.connectionId, '5511987650004', 'alô')]);
    const [ticket] = await until(async () => {
      const l = await ticketsOf(t.companyId);
      return l.length ? l : undefined;
    }, 'ticket');
    const sent = await t.admin.post(`/messages/${ticket.id}`, { body: 'Resposta' });
    expect(sent.status).toBe(201);
    expect(sent.body).toMatchObject({ fromMe: true, ack: 0, body: 'Resposta', error: null });
    const failed = () => until(async () => ((await t.admin.get(`/messages/${ticket.id}`)).body.messages[1].error === 'ERR_SENDING_WAPP_MSG' ? true : undefined), 'failure');
    await failed();
    const retried = await t.admin.post(`/messages/retry/${sent.body.id}`);
    expect(retried.status).toBe(200);
    expect(retried.body.error).toBeNull();
    await failed();
    const customerMessage = (await t.admin.get(`/messages/${ticket.id}`)).body.messages[0];
    expect((await t.admin.post(`/messages/retry/${customerMessage.id}`)).status).toBe(400);
    expect((await t.admin.post(`/messages/${ticket.id}`, { body: '   ' })).status).toBe(400);
  });

  it('stores a call and, with calls disabled, answers with the automatic message', async () => {
    const t = await setup();
    await emit([{ ...base(t.companyId, t.connectionId), type: 'call', eventId: randomUUID(), chat: { number: '5511987650005' }, callId: 'CALL1', timestamp: Date.now() }]);
    const [ticket] = await until(async () => {
      const l = await ticketsOf(t.companyId);
      return l.length && l[0].lastSeq === 2 ? l : undefined;
    }, 'call log and answer');
    const page = await t.admin.get(`/messages/${ticket.id}`);
    expect(page.body.messages[0]).toMatchObject({ mediaType: 'call_log', fromMe: false });
    expect(page.body.messages[1].body).toMatch(/^\*Mensagem Automática:\*/);
  });

  it('ignores broadcasts and, by default, groups', async () => {
    const t = await setup();
    await emit([
      msg(t.companyId, t.connectionId, '5511987650006', 'status', { broadcast: true }),
      msg(t.companyId, t.connectionId, '5511987650006', 'grupo', { chat: { groupId: '1203630000001', name: 'Grupo' }, sender: { number: '5511987650006' } }),
      msg(t.companyId, t.connectionId, '5511987650007', 'depois'),
    ]);
    // The ticket is listed once made, before its message is stored: wait for the message.
    await until(async () => {
      const l = await ticketsOf(t.companyId);
      return l.some((x) => x.lastMessage) ? l : undefined;
    }, 'ticket with its message');
    await new Promise((r) => setTimeout(r, 500));
    const tickets = await ticketsOf(t.companyId);
    expect(tickets).toHaveLength(1);
    expect(tickets[0].lastMessage).toBe('depois');
  });

  it('fails poisoned events (so they reach the DLQ) and the later events of their chat only', async () => {
    const t = await setup();
    applyStackEnv();
    const { handler } = await import('../../src/workers/ingest.js');
    const record = (id: string, group: string, body: unknown) => ({
      messageId: id,
      receiptHandle: id,
      body: typeof body === 'string' ? body : JSON.stringify(body),
      attributes: { MessageGroupId: group, ApproximateReceiveCount: '1' },
      messageAttributes: {},
      md5OfBody: '',
      eventSource: 'aws:sqs',
      eventSourceARN: 'arn:aws:sqs:us-east-1:000000000000:balcao-inbound.fifo',
      awsRegion: 'us-east-1',
    });
    const out = await handler({
      Records: [
        record('poison', 'chat-a', '{not json'),
        record('healthy-b', 'chat-b', msg(t.companyId, t.connectionId, '5511987650008', 'outro cliente')),
        record('later-a', 'chat-a', msg(t.companyId, t.connectionId, '5511987650009', 'depois do veneno')),
        record('invalid', 'chat-c', { v: 1, type: 'message' }),
      ],
    } as never, lambdaContext('balcao-worker-ingest', randomUUID()) as never);
    expect(out.batchItemFailures.map((f) => f.itemIdentifier).sort()).toEqual(['invalid', 'later-a', 'poison']);
    const tickets = await ticketsOf(t.companyId);
    expect(tickets.map((x) => x.lastMessage)).toEqual(['outro cliente']);
  });
});
