import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startOutsideServices, type OutsideServices } from '../../../infra/test/local/outside-services.js';
import { outsideClient } from '../integration/outside-helpers.js';
import type { AutomationState, QueueIntegrationItem } from '../../src/table/items.js';

// The receivers these tests start listen on loopback, which outside calls refuse otherwise.
process.env.OUTSIDE_ALLOW_PRIVATE = '1';

/**
 * Typebot's session rules (server-behaviour §9) against the fake that speaks its API: the finish
 * and restart keywords, expiry after `typebotExpires` idle minutes, a session Typebot forgot, and a
 * call that never answers (bounded by its timeout).
 */
const { typebotTurn } = await import('../../src/services/automation/typebot.js');
const { callOutside, OutsideError } = await import('../../src/services/automation/outside.js');
const { memoryAgent, memoryWorld } = await import('../fakes/world.js');
const { inboundEventSchema } = await import('@balcao/shared');
const { receiveInbound } = await import('../../src/services/inbound.js');
const { updateConnection } = await import('../../src/services/connections.js');
const { createQueue } = await import('../../src/services/queues.js');
const { createIntegration } = await import('../../src/services/integrations.js');
const { runAutomationJob } = await import('../../src/services/automation/index.js');

let fake: OutsideServices;
let client: ReturnType<typeof outsideClient>;
beforeAll(async () => {
  fake = await startOutsideServices();
  client = outsideClient(fake.url);
  process.env.GOOGLE_TOKEN_URL = `${fake.url}/token`;
  process.env.DIALOGFLOW_API_URL = fake.url;
});
afterAll(() => fake.close());

const integration = (slug: string, extra: Partial<QueueIntegrationItem> = {}): QueueIntegrationItem => ({
  PK: 'x',
  SK: 'y',
  entity: 'queueIntegration',
  id: 1,
  companyId: 1,
  type: 'typebot',
  name: 'Bot',
  projectName: 'Bot',
  jsonContentSealed: null,
  jsonContentMask: null,
  language: null,
  urlN8N: fake.url,
  typebotSlug: slug,
  typebotExpires: 1,
  typebotDelayMessage: 0,
  typebotKeywordFinish: 'sair',
  typebotKeywordRestart: 'recomeçar',
  typebotRestartMessage: 'Vamos recomeçar!',
  typebotUnknownMessage: 'Não entendi.',
  createdAt: '',
  updatedAt: '',
  ...extra,
});

const flow = {
  steps: [
    { messages: ['Oi {{pushName}}! Qual seu nome?'], input: { type: 'text input' as const } },
    { messages: ['Prazer!'], input: { type: 'text input' as const } },
  ],
};

describe('Typebot sessions', () => {
  it('starts with the customer prefilled, continues, restarts on the keyword with its message, and after the idle minutes', async () => {
    const slug = `sessoes-${Date.now()}`;
    await client.defineTypebot(slug, flow);
    const integ = integration(slug);
    const t0 = Date.parse('2026-03-02T12:00:00Z');
    const who = { number: '5511999990000', pushName: 'Rita' };
    const start = await typebotTurn(integ, { text: 'oi', ...who, state: {}, now: t0 });
    expect(start.replies).toEqual(['Oi Rita! Qual seu nome?']);
    const st: AutomationState = { ...start.state };
    const next = await typebotTurn(integ, { text: 'Rita Souza', ...who, state: st, now: t0 + 30_000 });
    expect(next.replies).toEqual(['Prazer!']);
    expect(next.state.sessionId).toBe(st.sessionId);

    const restarted = await typebotTurn(integ, { text: 'Recomeçar', ...who, state: next.state, now: t0 + 40_000 });
    expect(restarted.replies).toEqual(['Vamos recomeçar!', 'Oi Rita! Qual seu nome?']);
    expect(restarted.state.sessionId).not.toBe(st.sessionId);

    // Idle longer than typebotExpires (1 minute): a new session, without the restart message.
    const expired = await typebotTurn(integ, { text: 'voltei', ...who, state: restarted.state, now: t0 + 40_000 + 61_000 });
    expect(expired.replies).toEqual(['Oi Rita! Qual seu nome?']);
    expect(expired.state.sessionId).not.toBe(restarted.state.sessionId);
    const calls = await client.typebotCalls(slug);
    expect(calls.map((c) => c.kind)).toEqual(['startChat', 'continueChat', 'startChat', 'startChat']);
    expect(calls[0]).toMatchObject({ prefilledVariables: { number: who.number, pushName: 'Rita' } });
  });

  it('the finish keyword ends it without calling Typebot; a session Typebot forgot starts again', async () => {
    const slug = `fim-${Date.now()}`;
    await client.defineTypebot(slug, flow);
    const integ = integration(slug, { typebotExpires: 0 });
    const who = { number: '5511999990001', pushName: 'Caio' };
    const first = await typebotTurn(integ, { text: 'oi', ...who, state: {}, now: 0 });
    expect(await typebotTurn(integ, { text: ' SAIR ', ...who, state: first.state, now: 1 })).toMatchObject({ finish: true, replies: [] });
    await client.expireTypebotSessions(slug);
    const again = await typebotTurn(integ, { text: 'oi de novo', ...who, state: first.state, now: 10 * 86_400_000 });
    expect(again.replies).toEqual(['Oi Caio! Qual seu nome?']);
    // (The continueChat Typebot refused names no slug any more: the fake logs only the two starts.)
    expect((await client.typebotCalls(slug)).map((c) => c.kind)).toEqual(['startChat', 'startChat']);
  });
});

describe('Dialogflow tokens', () => {
  it('a cached token is only for the holder of the private key (not for the same e-mail and key id with another key)', async () => {
    const { detectIntent } = await import('../../src/services/automation/dialogflow.js');
    const { generateKeyPairSync } = await import('node:crypto');
    const project = `cache-${Date.now()}`;
    await client.defineDialogflow(project, { intents: [{ match: '.', displayName: 'Tudo', fulfillmentText: 'Oi!' }], fallback: 'Hã?' });
    const owner = await client.serviceAccount(project);
    const ask = (jsonContent: string) => detectIntent({ jsonContent, language: 'pt-BR', sessionId: 's1', text: 'oi' });
    expect((await ask(owner)).replies).toEqual(['Oi!']);
    const forged = JSON.stringify({ ...JSON.parse(owner), private_key: generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ type: 'pkcs8', format: 'pem' }).toString() });
    expect(await ask(forged).catch((e) => e)).toMatchObject({ service: 'google', reason: 'status', status: 400 });
  });
});

describe('outside calls', () => {
  it('a service that never answers is given up on after the timeout, as a timeout', async () => {
    const hook = `mudo-${Date.now()}`;
    await client.defineHook(hook, { mode: 'hang' });
    const started = Date.now();
    const err = await callOutside('webhook', client.hookUrl(hook), { method: 'POST', body: '{}', headers: { 'content-type': 'application/json' }, timeoutMs: 300 }).catch((e) => e);
    expect(err).toBeInstanceOf(OutsideError);
    expect(err).toMatchObject({ reason: 'timeout' });
    expect(Date.now() - started).toBeLessThan(3_000);
  });
});

describe('Typebot on a ticket', () => {
  type World = Awaited<ReturnType<typeof memoryWorld>>;
  let n = 0;
  const say = (w: World, body: string) =>
    w.ports.run(() =>
      receiveInbound(
        inboundEventSchema.parse({ v: 1, eventId: `tb-${++n}`, companyId: w.companyId, connectionId: w.connectionId, at: new Date(w.ports.time).toISOString(), type: 'message', waMessageId: `TB-${n}`, chat: { number: '5511966554433', name: 'Lia' }, fromMe: false, body, timestamp: (w.ports.time += 1000) }),
      ),
    );
  const ticket = (w: World) => w.ports.table.all().find((i) => i.entity === 'ticket') as Record<string, any>;
  const lastJob = (w: World) => w.ports.enqueued.filter((e) => e.queue === 'automation').at(-1)!.body as Parameters<typeof runAutomationJob>[0];

  async function world(steps: { messages: string[]; input?: { type: 'text input' } }[]) {
    const w = await memoryWorld();
    const admin = await memoryAgent(w, 'Ana', { profile: 'admin' });
    const slug = `ticket-${Date.now()}-${++n}`;
    const humans = await w.ports.run(() => createQueue(w.companyId, { name: 'Humanos', color: '#aa0011' }));
    const agent = await memoryAgent(w, 'Beto', { queueIds: [humans.id] });
    await client.defineTypebot(slug, { steps: steps.map((s) => ({ ...s, messages: s.messages.map((m) => m.replace('{Q}', String(humans.id)).replace('{U}', String(agent.userId))) })) });
    const integ = await w.ports.run(() => createIntegration(admin, { type: 'typebot', name: 'Bot', urlN8N: fake.url, typebotSlug: slug, typebotDelayMessage: 0, typebotKeywordFinish: 'sair' }));
    const bot = await w.ports.run(() => createQueue(w.companyId, { name: 'Robô', color: '#aa0022', greetingMessage: 'Oi!', type: 'INTEGRATION', integrationId: integ.id }));
    await w.ports.run(() => updateConnection(w.companyId, w.connectionId, { queueIds: [bot.id] }));
    return { w, humans, agent };
  }

  it('a command with a queue and a user opens the ticket with that agent', async () => {
    const { w, humans, agent } = await world([{ messages: ['Olá'], input: { type: 'text input' } }, { messages: ['#{"queueId":{Q},"userId":{U}}'] }]);
    await say(w, 'oi');
    expect(await w.ports.run(() => runAutomationJob(lastJob(w)))).toBe('answered');
    await say(w, 'quero uma pessoa');
    expect(await w.ports.run(() => runAutomationJob(lastJob(w)))).toBe('answered');
    expect(ticket(w)).toMatchObject({ status: 'open', userId: agent.userId, queueId: humans.id, useIntegration: false, integrationId: null });
    expect(ticket(w).automation.after).toBeUndefined();
  });

  it('the finish keyword closes the ticket', async () => {
    const { w } = await world([{ messages: ['Olá'], input: { type: 'text input' } }, { messages: ['Mais algo?'], input: { type: 'text input' } }]);
    await say(w, 'oi');
    await w.ports.run(() => runAutomationJob(lastJob(w)));
    await say(w, 'sair');
    expect(await w.ports.run(() => runAutomationJob(lastJob(w)))).toBe('answered');
    expect(ticket(w)).toMatchObject({ status: 'closed', useIntegration: false });
  });
});
