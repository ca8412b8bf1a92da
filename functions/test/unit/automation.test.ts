import http from 'node:http';
import { generateKeyPairSync } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AI_TRANSFER_PHRASE, inboundEventSchema } from '@balcao/shared';
import { memoryAgent, memoryWorld, run, refusal } from '../fakes/world.js';

// The receivers these tests start listen on loopback, which outside calls refuse otherwise.
process.env.OUTSIDE_ALLOW_PRIVATE = '1';

/**
 * Issue 19 on in-memory ports: the integration and prompt routes' rules (validation, masks, secrets
 * sealed at rest, references, in-use deletes) and the automation runtime's guarantees with a local
 * webhook receiver (exactly once per customer message, a crash between deciding and sending, retries
 * then the fall back to an agent, the plan flag, an agent taking over). Each outside service's real
 * shapes are proved on the local stack (integration/automation.test.ts).
 */
const { receiveInbound } = await import('../../src/services/inbound.js');
const { updateConnection } = await import('../../src/services/connections.js');
const { createQueue, updateQueue } = await import('../../src/services/queues.js');
const { createIntegration, updateIntegration, listIntegrations, deleteIntegration, createPrompt, updatePrompt, getPrompt, deletePrompt } = await import('../../src/services/integrations.js');
const { runAutomationJob, RetryLater, automationMessageId, AUTOMATION_ATTEMPTS } = await import('../../src/services/automation/index.js');
const { readAnswer } = await import('../../src/services/automation/ai.js');
const { richTextToWhatsApp, parseCommand } = await import('../../src/services/automation/typebot.js');
const { sendFromConsole } = await import('../../src/services/message-actions.js');
const { updatePlan } = await import('../../src/services/plans.js');
const { invalidateCompanyCache } = await import('../../src/core/identity.js');
const { updateTicket } = await import('../../src/services/ticket-lifecycle.js');
const { callOutside } = await import('../../src/services/automation/outside.js');

type World = Awaited<ReturnType<typeof memoryWorld>>;
let seq = 0;
let colours = 0;
const CUSTOMER = { number: '5511977665544', name: 'Rita Souza' };

function say(w: World, body: string) {
  const e = inboundEventSchema.parse({
    v: 1,
    eventId: `ev-${++seq}`,
    companyId: w.companyId,
    connectionId: w.connectionId,
    at: new Date(w.ports.time).toISOString(),
    type: 'message',
    waMessageId: `WA-${++seq}`,
    chat: CUSTOMER,
    fromMe: false,
    body,
    timestamp: w.ports.time,
  });
  w.ports.time += 1000;
  return w.ports.run(() => receiveInbound(e));
}
const phone = (w: World) => w.ports.sentCommands.filter((c) => c.type === 'send').map((c) => (c as { body: string }).body);
const ticket = (w: World) => w.ports.table.all().find((i) => i.entity === 'ticket') as Record<string, any>;
const jobs = (w: World) => w.ports.enqueued.filter((e) => e.queue === 'automation').map((e) => e.body as Parameters<typeof runAutomationJob>[0]);

// A webhook receiver (n8n's "Webhook" node answers what its flow returns).
type Hook = (body: any) => { status: number; body: string };
let hook: Hook = () => ({ status: 200, body: '{}' });
const received: any[] = [];
let server: http.Server;
let hookUrl = '';
beforeAll(async () => {
  server = http.createServer((req, res) => {
    let data = '';
    req.on('data', (c) => (data += c));
    req.on('end', () => {
      const body = JSON.parse(data || '{}');
      received.push(body);
      const out = hook(body);
      res.writeHead(out.status, { 'content-type': 'application/json' }).end(out.body);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  hookUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

async function admin(w: World) {
  return memoryAgent(w, 'Ana Admin', { profile: 'admin' });
}

/** A company whose one queue is run by a webhook integration. */
async function webhookWorld() {
  const w = await memoryWorld();
  const me = await admin(w);
  const integ = await run(w, () => createIntegration(me, { type: 'webhook', name: 'Pedidos', urlN8N: hookUrl }));
  const q = await run(w, () => createQueue(w.companyId, { name: 'Pedidos', color: `#00aa${String(++colours).padStart(2, '0')}`, greetingMessage: 'Fila de pedidos', type: 'INTEGRATION', integrationId: integ.id }));
  await run(w, () => updateConnection(w.companyId, w.connectionId, { queueIds: [q.id] }));
  return { w, me, integ, q };
}

const serviceAccount = (project: string) => {
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  return JSON.stringify({
    type: 'service_account',
    project_id: project,
    private_key_id: 'abcdef0123456789',
    private_key: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
    client_email: `bot@${project}.iam.gserviceaccount.com`,
    token_uri: 'http://127.0.0.1:9/token',
  });
};

describe('integration and prompt routes', () => {
  it('defaults, per-type rules, search and pages; the service account sealed at rest, answered masked and kept behind its mask', async () => {
    const w = await memoryWorld();
    const me = await admin(w);
    const typebot = await run(w, () => createIntegration(me, { name: 'Atendente Bot', urlN8N: 'https://typebot.example.com', typebotSlug: 'atendimento' }));
    expect(typebot).toMatchObject({ type: 'typebot', typebotDelayMessage: 1000, typebotExpires: 1, projectName: 'Atendente Bot' });
    expect(await refusal(run(w, () => createIntegration(me, { type: 'typebot', name: 'X', urlN8N: 'https://t.example.com' })))).toMatchObject({ status: 400, fields: expect.arrayContaining([{ field: 'name', message: 'Too Short!' }, { field: 'typebotSlug', message: 'Required' }]) });
    expect(await refusal(run(w, () => createIntegration(me, { type: 'n8n', name: 'Fluxo' })))).toMatchObject({ status: 400, fields: [{ field: 'urlN8N', message: 'Required' }] });
    expect(await refusal(run(w, () => createIntegration(me, { type: 'webhook', name: 'Fluxo', urlN8N: 'ftp://x.example.com' })))).toMatchObject({ status: 400, fields: [{ field: 'urlN8N', message: 'URL inválida: use um endereço http ou https' }] });
    expect(await refusal(run(w, () => createIntegration(me, { type: 'dialogflow', name: 'Agente', jsonContent: serviceAccount('loja') })))).toMatchObject({ status: 400, fields: [{ field: 'language', message: 'Required' }] });
    expect(await refusal(run(w, () => createIntegration(me, { type: 'dialogflow', name: 'Agente', language: 'pt-BR', jsonContent: '{"type":"user"}' })))).toMatchObject({ status: 400, fields: [{ field: 'jsonContent', message: 'JSON de conta de serviço do Google inválido' }] });

    const sa = serviceAccount('loja-123');
    const df = await run(w, () => createIntegration(me, { type: 'dialogflow', name: 'Agente', language: 'pt-BR', jsonContent: sa }));
    expect(df.jsonContent).toContain('"private_key": "…"');
    expect(df.jsonContent).toContain('bot@loja-123.iam.gserviceaccount.com');
    const stored = w.ports.table.all().find((i) => i.entity === 'queueIntegration' && i.id === df.id)!;
    expect(JSON.stringify(stored)).not.toContain('PRIVATE KEY');
    expect(String(stored.jsonContentSealed)).toMatch(/^v1\.local\./);
    // Renamed with the mask sent back: the key is the same one; a new JSON replaces it.
    const renamed = await run(w, () => updateIntegration(me, df.id, { name: 'Agente 2', jsonContent: df.jsonContent }));
    expect(renamed.name).toBe('Agente 2');
    const { openIntegration } = await import('../../src/services/integrations.js');
    expect((await run(w, () => openIntegration(w.companyId, df.id)))!.jsonContent).toBe(sa);

    for (let i = 0; i < 22; i++) await run(w, () => createIntegration(me, { type: 'n8n', name: `Fluxo ${String(i).padStart(2, '0')}`, urlN8N: 'https://n8n.example.com/webhook/x' }));
    const page1 = await run(w, () => listIntegrations(me, {}));
    expect(page1).toMatchObject({ count: 24, hasMore: true });
    expect(page1.queueIntegrations).toHaveLength(20);
    expect((await run(w, () => listIntegrations(me, { pageNumber: '2' }))).queueIntegrations).toHaveLength(4);
    expect((await run(w, () => listIntegrations(me, { searchParam: 'AGENTE' }))).queueIntegrations.map((i) => i.name)).toEqual(['Agente 2']);
  });

  it('prompts: the queue is mandatory, bounds on tokens and temperature, keys masked and kept, in-use deletes refused', async () => {
    const w = await memoryWorld();
    const me = await admin(w);
    const q = await run(w, () => createQueue(w.companyId, { name: 'Suporte', color: '#123456' }));
    const base = { name: 'Assistente', prompt: 'Você atende a Loja Teste.', apiKey: 'sk-test-1234567890abcd' };
    expect(await refusal(run(w, () => createPrompt(me, base)))).toMatchObject({ status: 400, fields: [{ field: 'queueId', message: 'Informe o setor' }] });
    expect(await refusal(run(w, () => createPrompt(me, { ...base, queueId: q.id, temperature: 3 })))).toMatchObject({ status: 400, fields: [{ field: 'temperature' }] });
    expect(await refusal(run(w, () => createPrompt(me, { ...base, queueId: q.id, maxTokens: 0 })))).toMatchObject({ status: 400, fields: [{ field: 'maxTokens' }] });
    expect(await refusal(run(w, () => createPrompt(me, { ...base, queueId: q.id, voice: 'pt-BR-FranciscaNeural' })))).toMatchObject({ status: 400, fields: [{ field: 'voiceKey' }, { field: 'voiceRegion' }] });
    const p = await run(w, () => createPrompt(me, { ...base, queueId: q.id }));
    expect(p).toMatchObject({ maxTokens: 100, temperature: 1, maxMessages: 10, voice: 'texto', baseUrl: 'https://api.openai.com/v1', apiKey: '…abcd', queue: { id: q.id, name: 'Suporte' } });
    const item = w.ports.table.all().find((i) => i.entity === 'prompt')!;
    expect(JSON.stringify(item)).not.toContain('sk-test-1234567890abcd');
    const { openPrompt } = await import('../../src/services/integrations.js');
    await run(w, () => updatePrompt(me, p.id, { ...p, maxTokens: 200 }));
    expect((await run(w, () => openPrompt(w.companyId, p.id)))!.apiKey).toBe('sk-test-1234567890abcd');
    // The stored key never goes to a new address, and a mask is never taken for a key.
    expect(await refusal(run(w, () => updatePrompt(me, p.id, { baseUrl: 'https://elsewhere.example.com/v1' })))).toMatchObject({ status: 400, fields: [{ field: 'apiKey' }] });
    expect(await refusal(run(w, () => createPrompt(me, { ...base, queueId: q.id, apiKey: p.apiKey })))).toMatchObject({ status: 400, fields: [{ field: 'apiKey' }] });
    expect(await refusal(run(w, () => updatePrompt(me, p.id, { temperature: null })))).toMatchObject({ status: 400, fields: [{ field: 'temperature' }] });
    expect(await refusal(run(w, () => updatePrompt(me, p.id, { maxTokens: '' })))).toMatchObject({ status: 400, fields: [{ field: 'maxTokens' }] });
    expect(await refusal(run(w, () => createIntegration(me, { type: 'webhook', name: 'Com senha', urlN8N: 'https://user:secret@n8n.example.com/h' })))).toMatchObject({ status: 400, fields: [{ field: 'urlN8N' }] });
    await run(w, () => updatePrompt(me, p.id, { apiKey: 'sk-new-0000000000zzzz' }));
    expect((await run(w, () => getPrompt(me, p.id))).apiKey).toBe('…zzzz');

    await run(w, () => updateConnection(w.companyId, w.connectionId, { promptId: p.id }));
    expect(await refusal(run(w, () => deletePrompt(me, p.id)))).toMatchObject({ status: 409, code: 'ERR_PROMPT_IN_USE' });
    await run(w, () => updateConnection(w.companyId, w.connectionId, { promptId: null }));
    expect(await run(w, () => deletePrompt(me, p.id))).toEqual({ message: 'Prompt deletado com sucesso!' });
    expect(await refusal(run(w, () => updateConnection(w.companyId, w.connectionId, { promptId: p.id })))).toMatchObject({ status: 400, fields: [{ field: 'promptId', message: 'ERR_NOT_FOUND' }] });
  });

  it('a plan without the feature refuses the reference; an integration in use is not deleted', async () => {
    const { w, me, integ, q } = await webhookWorld();
    expect(await refusal(run(w, () => deleteIntegration(me, integ.id)))).toMatchObject({ status: 409, code: 'ERR_INTEGRATION_IN_USE' });
    await run(w, () => updatePlan(w.plan.id, { useIntegrations: false }));
    invalidateCompanyCache(w.companyId);
    expect(await refusal(run(w, () => updateQueue(w.companyId, q.id, { integrationId: integ.id })))).toMatchObject({ status: 400, fields: [{ field: 'integrationId', message: 'ERR_PLAN_FEATURE_DISABLED' }] });
  });
});

describe('the automation runtime', () => {
  it('a webhook answers each message once: the bot hands it over, a repeated job sends nothing new', async () => {
    const { w, integ } = await webhookWorld();
    hook = (body) => ({ status: 200, body: JSON.stringify({ reply: `Recebido: ${body.message.body}` }) });
    await say(w, 'Quero pedir uma pizza');
    expect(phone(w)).toEqual(['Fila de pedidos']);
    expect(ticket(w)).toMatchObject({ useIntegration: true, integrationId: integ.id, promptId: null });
    const [job] = jobs(w);
    expect(await run(w, () => runAutomationJob(job))).toBe('answered');
    expect(await run(w, () => runAutomationJob(job))).toBe('skipped');
    expect(phone(w)).toEqual(['Fila de pedidos', 'Recebido: Quero pedir uma pizza']);
    const call = received.at(-1);
    expect(call).toMatchObject({ integrationId: integ.id, companyId: w.companyId, connectionId: w.connectionId, ticketId: ticket(w).id, message: { body: 'Quero pedir uma pizza' }, contact: { number: CUSTOMER.number } });
    const answer = w.ports.table.all().find((i) => i.entity === 'message' && i.body === 'Recebido: Quero pedir uma pizza')!;
    expect(answer).toMatchObject({ id: automationMessageId(job.messageId, 0), isBot: true, fromMe: true });

    // The next message goes straight to the integration (no bot menu in between), in order.
    await say(w, 'Calabresa');
    const second = jobs(w)[1];
    expect(second.seq).toBeGreaterThan(job.seq);
    expect(await run(w, () => runAutomationJob(second))).toBe('answered');
    // An older job arriving late does nothing.
    expect(await run(w, () => runAutomationJob(job))).toBe('skipped');
    expect(phone(w).at(-1)).toBe('Recebido: Calabresa');
  });

  it('a crash after deciding and before sending: the rerun sends the saved answer without asking the service again', async () => {
    const { w } = await webhookWorld();
    let calls = 0;
    hook = () => (calls++, { status: 200, body: JSON.stringify({ reply: 'Pedido anotado' }) });
    await say(w, 'Uma pizza');
    const [job] = jobs(w);
    // The process dies as the answer is being stored: the first write of a message fails.
    const send = w.ports.table.send.bind(w.ports.table);
    let crashed = false;
    w.ports.table.send = (async (cmd: { constructor: { name: string }; input: { TransactItems?: { Put?: { Item?: Record<string, unknown> } }[] } }) => {
      if (!crashed && cmd.input.TransactItems?.some((t) => t.Put?.Item?.entity === 'message' && t.Put.Item.body === 'Pedido anotado')) {
        crashed = true;
        throw new Error('the process died');
      }
      return send(cmd as never);
    }) as never;
    await expect(run(w, () => runAutomationJob(job))).rejects.toThrow('the process died');
    w.ports.table.send = send as never;
    expect(ticket(w).automation).toMatchObject({ handled: job.messageId, outbox: [{ kind: 'text', body: 'Pedido anotado' }] });
    expect(await run(w, () => runAutomationJob(job))).toBe('resent');
    expect(calls).toBe(1);
    expect(phone(w).filter((b) => b === 'Pedido anotado')).toHaveLength(1);
    expect(ticket(w).automation.outbox).toBeUndefined();
  });

  it('a failing service is retried later, then the ticket falls back to an agent and the bot does not hand it over again', async () => {
    const { w } = await webhookWorld();
    hook = () => ({ status: 502, body: 'Bad gateway' });
    await say(w, 'Oi');
    const [job] = jobs(w);
    for (let attempt = 1; attempt < AUTOMATION_ATTEMPTS; attempt++) {
      const err = await run(w, () => runAutomationJob(job)).catch((e) => e);
      expect(err).toBeInstanceOf(RetryLater);
    }
    expect(await run(w, () => runAutomationJob(job))).toBe('fellBack');
    expect(ticket(w)).toMatchObject({ status: 'pending', useIntegration: false, integrationId: null, bot: { automationOff: true } });
    await say(w, 'Tem alguém aí?');
    expect(jobs(w)).toHaveLength(1);
    // Garbage (a 2xx that is not JSON) is a failure too.
    const v = await webhookWorld();
    hook = () => ({ status: 200, body: '<html>oops</html>' });
    await say(v.w, 'Oi');
    expect(await run(v.w, () => runAutomationJob(jobs(v.w)[0])).catch((e) => e)).toBeInstanceOf(RetryLater);
  });

  it('without the plan flag the ticket falls back at once; once an agent writes, queued messages are not answered', async () => {
    const { w } = await webhookWorld();
    hook = () => ({ status: 200, body: JSON.stringify({ reply: 'Olá' }) });
    await say(w, 'Oi');
    await run(w, () => updatePlan(w.plan.id, { useIntegrations: false }));
    invalidateCompanyCache(w.companyId);
    expect(await run(w, () => runAutomationJob(jobs(w)[0]))).toBe('fellBack');

    const v = await webhookWorld();
    await say(v.w, 'Oi');
    const agent = await memoryAgent(v.w, 'Bruno', { profile: 'admin' });
    await run(v.w, () => sendFromConsole(agent, ticket(v.w) as never, { body: 'Oi, sou o Bruno' }, []));
    expect(await run(v.w, () => runAutomationJob(jobs(v.w)[0]))).toBe('skipped');
  });
});

describe('the automation runtime: review findings', () => {
  it('a job of the previous cycle is not answered after the ticket reopens and the automation takes over again', async () => {
    const { w, me } = await webhookWorld();
    hook = (body) => ({ status: 200, body: JSON.stringify({ reply: `Recebido: ${body.message.body}` }) });
    await say(w, 'mensagem antiga');
    const old = jobs(w)[0];
    // Closed by an agent before the job ran, then the customer writes again within two hours.
    await run(w, () => updateTicket(me, ticket(w).id, { status: 'closed' }));
    await say(w, 'mensagem nova');
    expect(ticket(w)).toMatchObject({ status: 'pending', useIntegration: true, automation: { since: expect.any(Number) } });
    expect(await run(w, () => runAutomationJob(old))).toBe('skipped');
    expect(await run(w, () => runAutomationJob(jobs(w).at(-1)!))).toBe('answered');
    expect(phone(w).filter((b) => b.startsWith('Recebido'))).toEqual(['Recebido: mensagem nova']);
  });

  it('an agent writing while an answer of several parts goes out: the parts left are not sent', async () => {
    const { w } = await webhookWorld();
    hook = () => ({ status: 200, body: JSON.stringify({ reply: 'Parte única' }) });
    await say(w, 'oi');
    const [job] = jobs(w);
    // Three parts saved as the answer (as a Typebot's bubbles would be), then the agent writes after the first.
    const agent = await memoryAgent(w, 'Bruno', { profile: 'admin' });
    const original = w.ports.commands.send;
    let sends = 0;
    w.ports.commands.send = async (c) => {
      await original(c);
      if (c.type === 'send' && ++sends === 1) await sendFromConsole(agent, ticket(w) as never, { body: 'Oi, é o Bruno' }, []);
    };
    const { commit } = await import('../../src/services/ticket-lifecycle.js');
    await run(w, async () => {
      const t = ticket(w) as never as import('../../src/table/items.js').TicketItem;
      await commit(t, { ...t, automation: { ...t.automation, handled: job.messageId, handledSeq: job.seq, outbox: [1, 2, 3].map((n) => ({ kind: 'text' as const, body: `Parte ${n}` })), pace: 0 } });
    });
    expect(await run(w, () => runAutomationJob(job))).toBe('resent');
    expect(phone(w)).toEqual(['Fila de pedidos', 'Parte 1', 'Oi, é o Bruno']);
    expect(ticket(w).automation.outbox).toBeUndefined();
  });

  it('a private address is refused unless the tests allow it', async () => {
    delete process.env.OUTSIDE_ALLOW_PRIVATE;
    try {
      for (const url of ['http://127.0.0.1:8099/x', 'http://[::1]:8099/x', 'http://169.254.169.254/latest/meta-data', 'http://localhost:8099/x', 'http://10.0.0.8/hook']) {
        expect(await callOutside('webhook', url, { method: 'POST', body: '{}', timeoutMs: 2000 }).catch((e) => e), url).toMatchObject({ reason: 'blocked' });
      }
    } finally {
      process.env.OUTSIDE_ALLOW_PRIVATE = '1';
    }
  });
});

describe('the runtimes’ text rules', () => {
  it('Typebot rich text becomes WhatsApp marks; commands are recognised; the AI transfer phrase is taken out', () => {
    expect(richTextToWhatsApp([{ type: 'p', children: [{ text: 'Olá, ' }, { text: 'Rita', bold: true }, { text: '!' }] }, { type: 'p', children: [{ text: 'Tudo bem?', italic: true }] }])).toBe('Olá, *Rita*!\n_Tudo bem?_');
    expect(parseCommand('#{"queueId":3}')).toEqual({ queueId: 3 });
    expect(parseCommand('#{"queueId":3,"userId":7}')).toEqual({ queueId: 3, userId: 7 });
    expect(parseCommand('#{"stopBot":true}')).toEqual({ stopBot: true });
    expect(parseCommand('#promoção de hoje')).toBeUndefined();
    expect(readAnswer(`${AI_TRANSFER_PHRASE}. Vou chamar um atendente.`)).toEqual({ text: 'Vou chamar um atendente.', transfer: true });
    expect(readAnswer('Claro, Rita!')).toEqual({ text: 'Claro, Rita!', transfer: false });
  });
});
