import { describe, expect, it } from 'vitest';
import { maskKey } from '@balcao/shared';
import { uniq } from './client.js';
import { connected, sandbox, until } from './pipeline-helpers.js';
import {
  azureCalls,
  defineAzureKey,
  defineDialogflow,
  defineHook,
  defineOpenAi,
  defineTypebot,
  hookCalls,
  hookUrl,
  openAiBaseUrl,
  openAiCalls,
  outsideUrl,
  revokeServiceAccount,
  serviceAccount,
  typebotCalls,
  typebotUrl,
} from './outside-helpers.js';

/**
 * Issue 19 §4 on the local stack: each runtime end to end, from the sandbox phone through ingest,
 * the queue bot's hand-over, the automation worker and the session host back to the phone, against
 * local fakes that speak the outside services' real APIs (infra/test/local/outside-services.ts).
 * The rules of each branch (exactly once, fall back, plan flags) are proved on in-memory ports
 * (unit/automation.test.ts); tenant isolation and plan flags of the routes in tenancy.test.ts.
 */
const colour = () => `#${Math.floor(Math.random() * 0xffffff).toString(16).padStart(6, '0')}`;
type T = Awaited<ReturnType<typeof connected>>;

function phoneOf(t: T, name = 'Rita Souza') {
  const customer = `55119${String(Date.now() + Math.floor(Math.random() * 1000)).slice(-8)}`;
  const write = (body: string, extra: Record<string, unknown> = {}) => sandbox<{ id: string }>('POST', `/connections/${t.connectionId}/messages`, { from: customer, name, body, ...extra });
  const conversation = async () => (await sandbox<any[]>('GET', `/connections/${t.connectionId}/messages?peer=${customer}`)).body ?? [];
  const fromUs = async () => (await conversation()).filter((m) => m.fromMe);
  const answered = (n: number, ms = 30_000) => until(async () => ((await fromUs()).length >= n ? fromUs() : undefined), `${n} answers on the phone`, ms);
  return { customer, write, fromUs, answered };
}

async function ticketOfCustomer(t: T, customer: string) {
  return until(async () => {
    const list = await t.admin.get(`/tickets?status=pending&showAll=true&searchParam=${customer}`);
    return (list.body.tickets as any[]).find((x) => x.contact?.number === customer);
  }, 'the ticket');
}

describe('integrations through the sandbox', () => {
  it('Typebot: greeting, prefilled start, choices by number, rich text, typing, then its queue command hands the ticket over', { timeout: 120_000 }, async () => {
    const t = await connected();
    const suporte = await t.admin.post('/queue', { name: 'Suporte', color: colour(), greetingMessage: 'Suporte aqui.' });
    const slug = uniq('loja-bot-').toLowerCase();
    await defineTypebot(slug, {
      steps: [
        { messages: ['Olá! Eu sou o bot da **Loja**.', 'Como posso ajudar?'], input: { type: 'choice input', items: ['Pedidos', 'Falar com atendente'] } },
        { messages: ['Seu pedido está a caminho.'], input: { type: 'text input' } },
        { messages: [`#{"queueId":${suporte.body.id}}`] },
      ],
    });
    const integ = await t.admin.post('/queueIntegration', { type: 'typebot', name: 'Bot da Loja', urlN8N: typebotUrl(), typebotSlug: slug, typebotDelayMessage: 300, typebotUnknownMessage: 'Não entendi, escolha uma opção.' });
    expect(integ.status, JSON.stringify(integ.body)).toBe(201);
    const bot = await t.admin.post('/queue', { name: 'Robô', color: colour(), greetingMessage: 'Bem-vindo!', type: 'INTEGRATION', integrationId: integ.body.id });
    expect(bot.status, JSON.stringify(bot.body)).toBe(201);
    expect((await t.admin.put(`/whatsapp/${t.connectionId}`, { queueIds: [bot.body.id] })).status).toBe(200);

    const p = phoneOf(t);
    await p.write('Oi');
    const first = (await p.answered(3)).map((m) => m.body);
    expect(first).toEqual(['Bem-vindo!', 'Olá! Eu sou o bot da *Loja*.', 'Como posso ajudar?\n\n*[ 1 ]* - Pedidos\n*[ 2 ]* - Falar com atendente']);
    const presence = await sandbox<{ at: number | null }>('GET', `/connections/${t.connectionId}/presence?peer=${p.customer}`);
    expect(presence.body.at).toEqual(expect.any(Number));
    // A reply Typebot refuses: the integration's unknown-input message, and the choices again.
    await p.write('9');
    expect((await p.answered(4)).at(-1)?.body).toBe('Não entendi, escolha uma opção.\n\n*[ 1 ]* - Pedidos\n*[ 2 ]* - Falar com atendente');
    await p.write('1');
    expect((await p.answered(5)).at(-1)?.body).toBe('Seu pedido está a caminho.');
    const calls = await typebotCalls(slug);
    expect(calls[0]).toMatchObject({ kind: 'startChat', prefilledVariables: { number: p.customer, pushName: 'Rita Souza' } });
    expect(calls[1]).toMatchObject({ kind: 'continueChat', message: '9' });
    expect(calls[2]).toMatchObject({ kind: 'continueChat', message: 'Pedidos' });

    await p.write('obrigada');
    const ticket = await ticketOfCustomer(t, p.customer);
    await until(async () => {
      const now = (await t.admin.get(`/tickets/${ticket.id}`)).body;
      return now.queueId === suporte.body.id && now.useIntegration === false ? now : undefined;
    }, 'the command moving the ticket to Suporte');
    // The command itself never reached the customer.
    expect((await p.fromUs()).some((m) => String(m.body).startsWith('#'))).toBe(false);
  });

  it('webhook: each message posted with its ids; a failure is retried through the queue and answered once', { timeout: 120_000 }, async () => {
    const t = await connected();
    const hook = uniq('hook-');
    await defineHook(hook, { mode: 'failTimes', times: 1, reply: 'Recebemos sua mensagem!' });
    const integ = await t.admin.post('/queueIntegration', { type: 'webhook', name: 'Meu fluxo', urlN8N: hookUrl(hook) });
    expect(integ.status, JSON.stringify(integ.body)).toBe(201);
    expect(integ.body.projectName).toBe('Meu fluxo');
    const q = await t.admin.post('/queue', { name: 'Fluxo', color: colour(), type: 'INTEGRATION', integrationId: integ.body.id });
    expect((await t.admin.put(`/whatsapp/${t.connectionId}`, { queueIds: [q.body.id] })).status).toBe(200);

    const p = phoneOf(t);
    await p.write('Quero um orçamento');
    expect((await p.answered(1, 45_000)).map((m) => m.body)).toEqual(['Recebemos sua mensagem!']);
    const calls = await hookCalls(hook);
    expect(calls.map((c) => c.status)).toEqual([500, 200]);
    expect(calls[1].receivedAt - calls[0].receivedAt).toBeGreaterThanOrEqual(4_000);
    expect(calls[1].body).toMatchObject({ companyId: t.companyId, connectionId: t.connectionId, integrationId: integ.body.id, message: { body: 'Quero um orçamento' }, contact: { number: p.customer } });
    await new Promise((r) => setTimeout(r, 1500));
    expect((await p.fromUs()).length).toBe(1);
  });

  it('Dialogflow on the connection: the Test button, fulfilment texts, the end of the conversation; refused credentials say so', { timeout: 120_000 }, async () => {
    const t = await connected();
    const project = uniq('loja-df-').toLowerCase();
    const sa = await serviceAccount(project);
    await defineDialogflow(project, {
      intents: [
        { match: 'hor[aá]rio', displayName: 'Horário', fulfillmentText: 'Abrimos às 8h.' },
        { match: 'tchau', displayName: 'Despedida', fulfillmentText: 'Até logo!', endInteraction: true },
        { match: 'ol[aá]', displayName: 'Boas-vindas', fulfillmentText: 'Olá! Pergunte o horário.' },
      ],
      fallback: 'Não entendi.',
    });
    const test = await t.admin.post('/queueIntegration/testSession', { projectName: project, jsonContent: sa, language: 'pt-BR' });
    expect(test.status, JSON.stringify(test.body)).toBe(200);
    expect(test.body).toMatchObject({ ok: true, intent: 'Boas-vindas', reply: 'Olá! Pergunte o horário.' });
    const integ = await t.admin.post('/queueIntegration', { type: 'dialogflow', name: 'Agente', projectName: project, language: 'pt-BR', jsonContent: sa });
    expect(integ.status, JSON.stringify(integ.body)).toBe(201);
    expect(integ.body.jsonContent).not.toContain('PRIVATE KEY');
    // Testing the stored one through its mask.
    expect((await t.admin.post('/queueIntegration/testSession', { id: integ.body.id, projectName: project, jsonContent: integ.body.jsonContent, language: 'pt-BR' })).status).toBe(200);
    expect((await t.admin.put(`/whatsapp/${t.connectionId}`, { integrationId: integ.body.id })).status).toBe(200);

    const p = phoneOf(t);
    await p.write('Qual o horário?');
    expect((await p.answered(1)).at(-1)?.body).toBe('Abrimos às 8h.');
    await p.write('tchau');
    expect((await p.answered(2)).at(-1)?.body).toBe('Até logo!');
    const ticket = await ticketOfCustomer(t, p.customer);
    await until(async () => ((await t.admin.get(`/tickets/${ticket.id}`)).body.useIntegration === false ? true : undefined), 'the end of the conversation');

    const other = JSON.parse(await serviceAccount(project)) as { client_email: string };
    await revokeServiceAccount(other.client_email);
    const refused = await t.admin.post('/queueIntegration/testSession', { projectName: project, jsonContent: JSON.stringify(other), language: 'pt-BR' });
    expect(refused.status).toBe(400);
    expect(refused.body).toMatchObject({ error: 'ERR_INTEGRATION_TEST_FAILED', reason: 'credentials' });
    expect(refused.body.message).toMatch(/credenciais foram recusadas/);
  });

  it('AI prompt: answers with the conversation, transcribes a voice note, the transfer phrase moves the ticket and is never shown', { timeout: 120_000 }, async () => {
    const t = await connected();
    const q = await t.admin.post('/queue', { name: 'Atendimento', color: colour() });
    const key = uniq('sk-test-');
    await defineOpenAi(key, { replies: ['Olá Rita! Como posso ajudar?', 'Ação: Transferir para o setor de atendimento. Já vou te passar para um atendente.'], transcription: 'quero falar com uma pessoa' });
    const prompt = await t.admin.post('/prompt', { name: 'Assistente', prompt: 'Você atende a Loja Teste. Seja breve.', queueId: q.body.id, apiKey: key, baseUrl: openAiBaseUrl(), maxTokens: 150, temperature: 0.5 });
    expect(prompt.status, JSON.stringify(prompt.body)).toBe(201);
    expect(prompt.body.apiKey).toBe(maskKey(key));
    expect((await t.admin.put(`/whatsapp/${t.connectionId}`, { promptId: prompt.body.id })).status).toBe(200);

    const p = phoneOf(t);
    await p.write('Oi, boa tarde');
    expect((await p.answered(1)).at(-1)?.body).toBe('Olá Rita! Como posso ajudar?');
    // A voice note (a real Ogg/Opus file: what the Azure fake speaks).
    await defineAzureKey(`${key}-voice`);
    const ogg = await fetch(`${outsideUrl()}/azure/brazilsouth/cognitiveservices/v1`, {
      method: 'POST',
      headers: { 'Ocp-Apim-Subscription-Key': `${key}-voice`, 'Content-Type': 'application/ssml+xml', 'X-Microsoft-OutputFormat': 'ogg-48khz-16bit-mono-opus' },
      body: "<speak version='1.0' xml:lang='pt-BR'><voice name='pt-BR-FranciscaNeural'>oi</voice></speak>",
    });
    const audio = Buffer.from(await ogg.arrayBuffer()).toString('base64');
    await p.write('', { media: { fileName: 'audio.ogg', mimetype: 'audio/ogg; codecs=opus', dataBase64: audio } });
    expect((await p.answered(2)).at(-1)?.body).toBe('Já vou te passar para um atendente.');
    const calls = await openAiCalls(key);
    expect(calls.transcriptions[0]).toMatchObject({ model: 'whisper-1' });
    const chat = calls.chat[1].body;
    expect(chat).toMatchObject({ model: 'gpt-4o-mini', max_tokens: 150, temperature: 0.5 });
    expect(chat.messages[0]).toMatchObject({ role: 'system' });
    expect(chat.messages[0].content).toContain('Rita');
    expect(chat.messages[0].content).toContain('Ação: Transferir para o setor de atendimento');
    expect(chat.messages[0].content).toContain('Você atende a Loja Teste.');
    expect(chat.messages.slice(1)).toEqual([
      { role: 'user', content: 'Oi, boa tarde' },
      { role: 'assistant', content: 'Olá Rita! Como posso ajudar?' },
      { role: 'user', content: 'quero falar com uma pessoa' },
    ]);
    const ticket = await ticketOfCustomer(t, p.customer);
    await until(async () => {
      const now = (await t.admin.get(`/tickets/${ticket.id}`)).body;
      return now.queueId === q.body.id && !now.useIntegration ? now : undefined;
    }, 'the transfer to Atendimento');
  });

  it('AI prompt with a voice: the answer arrives as a voice note spoken by Azure', { timeout: 120_000 }, async () => {
    const t = await connected();
    const q = await t.admin.post('/queue', { name: 'Vendas', color: colour() });
    const key = uniq('sk-voice-');
    const speech = uniq('speech-');
    await defineOpenAi(key, { replies: ['Temos pizza de calabresa & queijo.'] });
    await defineAzureKey(speech, 'brazilsouth');
    const prompt = await t.admin.post('/prompt', { name: 'Voz', prompt: 'Venda pizzas.', queueId: q.body.id, apiKey: key, baseUrl: openAiBaseUrl(), voice: 'pt-BR-FranciscaNeural', voiceKey: speech, voiceRegion: 'brazilsouth' });
    expect(prompt.status, JSON.stringify(prompt.body)).toBe(201);
    expect(prompt.body.voiceKey).not.toBe(speech);
    expect((await t.admin.put(`/whatsapp/${t.connectionId}`, { promptId: prompt.body.id })).status).toBe(200);
    const p = phoneOf(t);
    await p.write('Quais sabores?');
    const [answer] = await p.answered(1);
    expect(answer).toMatchObject({ mediaType: 'audio', ptt: true });
    const [tts] = await azureCalls(speech);
    expect(tts).toMatchObject({ region: 'brazilsouth', voice: 'pt-BR-FranciscaNeural', text: 'Temos pizza de calabresa & queijo.', headers: { outputFormat: 'ogg-48khz-16bit-mono-opus' } });
  });
});
