import { createPrivateKey, generateKeyPairSync } from 'node:crypto';
import { SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildSilentOggOpus, startOutsideServices, type OutsideServices } from '../../../infra/test/local/outside-services.js';
import {
  azureCalls,
  defineAzureKey,
  defineDialogflow,
  defineHook,
  defineOpenAi,
  defineTypebot,
  dialogflowCalls,
  googleTokenCalls,
  hookCalls,
  openAiCalls,
  revokeServiceAccount,
  serviceAccount,
  typebotCalls,
  useOutsideUrl,
  type ServiceAccountJson,
} from '../integration/outside-helpers.js';

/**
 * The outside-services fake (issue 19 §4) speaks the real APIs' shapes: each one exercised with
 * plain fetch calls, the way the functions' clients will call them.
 */

let fake: OutsideServices;
let url: string;
const n = () => Math.random().toString(16).slice(2, 10);

beforeAll(async () => {
  fake = await startOutsideServices();
  url = fake.url;
  useOutsideUrl(url);
});
afterAll(async () => {
  useOutsideUrl(undefined);
  await fake?.close();
});

async function post(path: string, body: unknown, headers: Record<string, string> = {}) {
  const res = await fetch(`${url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
  const text = await res.text();
  let json: any;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: res.status, json, text, headers: res.headers };
}

describe('control API', () => {
  it('answers its health and refuses malformed scripts with 400', async () => {
    const health = await (await fetch(`${url}/__control/health`)).json();
    expect(health).toEqual({ ok: true, audio: fake.audioSource });
    await expect(defineTypebot(`bad-${n()}`, { steps: [] })).rejects.toThrow(/400/);
    await expect(defineHook(`bad-${n()}`, { mode: 'nope' } as never)).rejects.toThrow(/400/);
    await expect(defineDialogflow(`bad-${n()}`, { intents: [{ match: '(', displayName: 'x', fulfillmentText: 'y' }], fallback: 'z' })).rejects.toThrow(/regular expression/);
  });
});

describe('Typebot chat API v1', () => {
  const slug = `bot-${n()}`;
  const flow = {
    steps: [
      { messages: ['Olá, **{{pushName}}**! Bem-vindo.', 'Escolha um setor:\nResponda pelo nome.'], input: { type: 'choice input' as const, items: ['Vendas', 'Suporte'] } },
      { messages: ['Qual é o seu pedido?'], input: { type: 'text input' as const } },
      { messages: ['Obrigado!', '#{"queueId":3}'] },
    ],
  };

  it('walks a flow through a choice (with Typebot’s retry on an invalid one) to its end, then forgets the session', async () => {
    await defineTypebot(slug, flow);

    const start = await post(`/api/v1/typebots/${slug}/startChat`, {
      isStreamEnabled: false,
      textBubbleContentFormat: 'richText',
      prefilledVariables: { number: '5511999990000', pushName: 'Maria' },
    });
    expect(start.status).toBe(200);
    const s = start.json;
    expect(s).toMatchObject({ sessionId: expect.any(String), resultId: expect.any(String), typebot: { id: expect.any(String) } });
    expect(s.messages).toHaveLength(2);
    expect(s.messages[0]).toEqual({
      id: expect.any(String),
      type: 'text',
      content: { type: 'richText', richText: [{ type: 'p', children: [{ text: 'Olá, ' }, { text: 'Maria', bold: true }, { text: '! Bem-vindo.' }] }] },
    });
    expect(s.messages[1].content.richText).toEqual([
      { type: 'p', children: [{ text: 'Escolha um setor:' }] },
      { type: 'p', children: [{ text: 'Responda pelo nome.' }] },
    ]);
    expect(s.input).toEqual({ id: expect.any(String), type: 'choice input', items: [{ id: expect.any(String), content: 'Vendas' }, { id: expect.any(String), content: 'Suporte' }] });

    // Not one of the items: one retry bubble and the same input again; the flow does not move.
    const wrong = await post(`/api/v1/sessions/${s.sessionId}/continueChat`, { message: 'Financeiro' });
    expect(wrong.status).toBe(200);
    expect(wrong.json.messages).toEqual([{ id: s.input.id, type: 'text', content: { type: 'richText', richText: [{ type: 'p', children: [{ text: 'Invalid message. Please, try again.' }] }] } }]);
    expect(wrong.json.input).toEqual(s.input);

    // The newer message object, matched case-insensitively as Typebot does.
    const chosen = await post(`/api/v1/sessions/${s.sessionId}/continueChat`, { message: { type: 'text', text: 'vendas' }, textBubbleContentFormat: 'richText' });
    expect(chosen.status).toBe(200);
    expect(chosen.json.messages[0].content.richText[0].children[0].text).toBe('Qual é o seu pedido?');
    expect(chosen.json.input).toMatchObject({ type: 'text input' });

    // The v1 string message; the last step has no input: the conversation ends there.
    const last = await post(`/api/v1/sessions/${s.sessionId}/continueChat`, { message: 'Duas pizzas' });
    expect(last.status).toBe(200);
    expect(last.json.messages.map((m: any) => m.content.richText[0].children[0].text)).toEqual(['Obrigado!', '#{"queueId":3}']);
    expect(last.json.input).toBeUndefined();

    const after = await post(`/api/v1/sessions/${s.sessionId}/continueChat`, { message: 'oi' });
    expect(after.status).toBe(404);
    expect(after.json).toEqual({ message: 'Session not found.', code: 'NOT_FOUND' });

    const calls = await typebotCalls(slug);
    expect(calls.map((c) => [c.kind, c.status, c.message])).toEqual([
      ['startChat', 200, undefined],
      ['continueChat', 200, 'Financeiro'],
      ['continueChat', 200, 'vendas'],
      ['continueChat', 200, 'Duas pizzas'],
    ]);
    expect(calls[0]).toMatchObject({ path: `/api/v1/typebots/${slug}/startChat`, prefilledVariables: { number: '5511999990000', pushName: 'Maria' } });
  });

  it('answers 404 for an unknown bot, markdown bubbles when asked, and 400 for a message of another shape', async () => {
    expect((await post(`/api/v1/typebots/nobody-${n()}/startChat`, {})).json).toEqual({ message: 'Typebot not found', code: 'NOT_FOUND' });
    const other = `bot-${n()}`;
    await defineTypebot(other, { steps: [{ messages: ['**Oi** {{pushName}}'], input: { type: 'text input' } }, { messages: ['Fim'] }] });
    const start = await post(`/api/v1/typebots/${other}/startChat`, { textBubbleContentFormat: 'markdown' });
    // No pushName prefilled: the variable shows nothing, as in Typebot.
    expect(start.json.messages[0].content).toEqual({ type: 'markdown', markdown: '**Oi** ' });
    expect((await post(`/api/v1/sessions/${start.json.sessionId}/continueChat`, { message: 42 })).status).toBe(400);
    // An empty reply to a text input is invalid too.
    expect((await post(`/api/v1/sessions/${start.json.sessionId}/continueChat`, { message: '  ' })).json.messages[0].content.markdown).toBe('Invalid message. Please, try again.');
  });
});

describe('webhook receiver', () => {
  it('replies, fails, answers garbage, records JSON bodies with timestamps', async () => {
    const id = `hook-${n()}`;
    await defineHook(id, { mode: 'reply', reply: 'Olá do n8n' });
    const ok = await post(`/hooks/${id}`, { message: { body: 'oi' }, ticketId: 7 });
    expect(ok).toMatchObject({ status: 200, json: { reply: 'Olá do n8n' } });

    await defineHook(id, { mode: 'garbage' });
    const garbage = await post(`/hooks/${id}`, { ticketId: 7 });
    expect(garbage.status).toBe(200);
    expect(garbage.json).toBeUndefined();

    await defineHook(id, { mode: 'status', status: 503 });
    expect((await post(`/hooks/${id}`, {})).status).toBe(503);

    await defineHook(id, { mode: 'failTimes', times: 2, reply: 'enfim' });
    expect((await post(`/hooks/${id}`, {})).status).toBe(500);
    expect((await post(`/hooks/${id}`, {})).status).toBe(500);
    expect((await post(`/hooks/${id}`, {})).json).toEqual({ reply: 'enfim' });

    const calls = await hookCalls(id);
    expect(calls).toHaveLength(6);
    expect(calls[0]).toMatchObject({ body: { message: { body: 'oi' }, ticketId: 7 }, status: 200, contentType: 'application/json' });
    expect(Date.parse(calls[0].at)).toBeGreaterThan(0);
    expect(calls.map((c) => c.status)).toEqual([200, 200, 503, 500, 500, 200]);
    expect((await post(`/hooks/unknown-${n()}`, {})).status).toBe(404);
  });

  it('hangs until the client gives up', async () => {
    const id = `hook-${n()}`;
    await defineHook(id, { mode: 'hang' });
    const started = Date.now();
    await expect(fetch(`${url}/hooks/${id}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"a":1}', signal: AbortSignal.timeout(200) })).rejects.toThrow();
    expect(Date.now() - started).toBeGreaterThanOrEqual(190);
    expect(await hookCalls(id)).toMatchObject([{ status: 'hang', body: { a: 1 } }]);
  });
});

describe('Google OAuth token endpoint and Dialogflow ES v2', () => {
  const project = `df-${n()}`;
  let sa: ServiceAccountJson;

  const assertion = (claims: { iss?: string; aud?: string; scope?: string; exp?: string | number; iat?: number }, pem = sa.private_key, kid = sa.private_key_id) =>
    new SignJWT({ scope: claims.scope ?? 'https://www.googleapis.com/auth/dialogflow' })
      .setProtectedHeader({ alg: 'RS256', typ: 'JWT', kid })
      .setIssuer(claims.iss ?? sa.client_email)
      .setSubject(claims.iss ?? sa.client_email)
      .setAudience(claims.aud ?? sa.token_uri)
      .setIssuedAt(claims.iat)
      .setExpirationTime(claims.exp ?? '1h')
      .sign(createPrivateKey(pem));

  const exchange = async (jwt: string) => {
    const res = await fetch(sa.token_uri, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'urn:ietf:params:oauth:grant-type:jwt-bearer', assertion: jwt }).toString(),
    });
    return { status: res.status, json: (await res.json()) as any };
  };
  const detect = (proj: string, session: string, text: string, token?: string) =>
    post(`/v2/projects/${proj}/agent/sessions/${session}:detectIntent`, { queryInput: { text: { text, languageCode: 'pt-BR' } } }, token ? { authorization: `Bearer ${token}` } : {});

  beforeAll(async () => {
    sa = JSON.parse(await serviceAccount(project)) as ServiceAccountJson;
    await defineDialogflow(project, {
      intents: [
        { match: '\\b(oi|olá)\\b', displayName: 'Saudação', fulfillmentText: 'Olá! Em que posso ajudar?' },
        { match: 'atendente', displayName: 'Humano', fulfillmentText: 'Vou te passar para um atendente.', endInteraction: true },
      ],
      fallback: 'Não entendi.',
    });
  });

  it('hands out a service account key file of the project', () => {
    expect(sa).toMatchObject({
      type: 'service_account',
      project_id: project,
      private_key_id: expect.stringMatching(/^[0-9a-f]{40}$/),
      private_key: expect.stringContaining('-----BEGIN PRIVATE KEY-----'),
      client_email: `fake@${project}.iam.gserviceaccount.com`,
      client_id: expect.stringMatching(/^\d{21}$/),
      token_uri: `${url}/token`,
    });
  });

  it('exchanges a signed JWT for a bearer token that detectIntent accepts', async () => {
    const t = await exchange(await assertion({}));
    expect(t.status).toBe(200);
    expect(t.json).toEqual({ access_token: expect.stringMatching(/^ya29\./), expires_in: 3599, token_type: 'Bearer' });
    const token = t.json.access_token;

    const hi = await detect(project, 'balcao-1-2', 'Oi, tudo bem?', token);
    expect(hi.status).toBe(200);
    expect(hi.json).toEqual({
      responseId: expect.any(String),
      queryResult: {
        queryText: 'Oi, tudo bem?',
        parameters: {},
        allRequiredParamsPresent: true,
        fulfillmentText: 'Olá! Em que posso ajudar?',
        fulfillmentMessages: [{ text: { text: ['Olá! Em que posso ajudar?'] } }],
        intent: { name: expect.stringMatching(new RegExp(`^projects/${project}/agent/intents/[0-9a-f-]{36}$`)), displayName: 'Saudação' },
        intentDetectionConfidence: expect.any(Number),
        languageCode: 'pt-br',
      },
    });
    const human = await detect(project, 'balcao-1-2', 'quero um ATENDENTE', token);
    expect(human.json.queryResult.intent).toMatchObject({ displayName: 'Humano', endInteraction: true });
    const unknown = await detect(project, 'balcao-1-2', 'blá blá', token);
    expect(unknown.json.queryResult).toMatchObject({ action: 'input.unknown', fulfillmentText: 'Não entendi.', intent: { displayName: 'Default Fallback Intent', isFallback: true } });

    const calls = await dialogflowCalls(project);
    expect(calls.map((c) => [c.status, c.session, c.text, c.languageCode, c.intent])).toEqual([
      [200, 'balcao-1-2', 'Oi, tudo bem?', 'pt-BR', 'Saudação'],
      [200, 'balcao-1-2', 'quero um ATENDENTE', 'pt-BR', 'Humano'],
      [200, 'balcao-1-2', 'blá blá', 'pt-BR', 'Default Fallback Intent'],
    ]);
    expect((await googleTokenCalls(project)).at(-1)).toMatchObject({ status: 200, iss: sa.client_email, scope: 'https://www.googleapis.com/auth/dialogflow' });
  });

  it('refuses bad assertions as Google does', async () => {
    const other = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
    const forged = await exchange(await assertion({}, other));
    expect(forged).toEqual({ status: 400, json: { error: 'invalid_grant', error_description: 'Invalid JWT Signature.' } });
    const wrongAud = await exchange(await assertion({ aud: 'https://oauth2.googleapis.com/token' }));
    expect(wrongAud.json).toEqual({ error: 'invalid_grant', error_description: `Invalid JWT: Failed audience check. The right audience is ${sa.token_uri}` });
    const past = Math.floor(Date.now() / 1000) - 7200;
    const expired = await exchange(await assertion({ iat: past, exp: past + 3600 }));
    expect(expired.json.error).toBe('invalid_grant');
    expect(expired.json.error_description).toMatch(/short-lived token/);
    const tooLong = await exchange(await assertion({ exp: '2h' }));
    expect(tooLong.json.error).toBe('invalid_grant');
    const stranger = await exchange(await assertion({ iss: `fake@nobody-${n()}.iam.gserviceaccount.com` }));
    expect(stranger.json).toEqual({ error: 'invalid_grant', error_description: 'Invalid grant: account not found' });
    const noScope = await exchange(await assertion({ scope: '' }));
    expect(noScope.json.error).toBe('invalid_scope');
    const grant = await fetch(sa.token_uri, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'grant_type=client_credentials' });
    expect(await grant.json()).toMatchObject({ error: 'unsupported_grant_type' });
  });

  it('answers detectIntent errors in Google’s shape: no or bad bearer, another project, no agent, scopes', async () => {
    const missing = await detect(project, 's1', 'oi');
    expect(missing.status).toBe(401);
    expect(missing.json.error).toMatchObject({ code: 401, status: 'UNAUTHENTICATED', message: expect.stringMatching(/^Request is missing required authentication credential/) });
    const bad = await detect(project, 's1', 'oi', 'ya29.not-a-token');
    expect(bad.json.error).toMatchObject({ code: 401, status: 'UNAUTHENTICATED', message: expect.stringMatching(/^Request had invalid authentication credentials/) });

    const token = (await exchange(await assertion({}))).json.access_token;
    const elsewhere = await detect(`df-${n()}`, 's1', 'oi', token);
    expect(elsewhere.json.error).toMatchObject({ code: 403, status: 'PERMISSION_DENIED', message: expect.stringContaining("IAM permission 'dialogflow.sessions.detectIntent'") });

    const bare = `df-${n()}`;
    const bareSa = JSON.parse(await serviceAccount(bare)) as ServiceAccountJson;
    const bareToken = (
      await exchange(
        await new SignJWT({ scope: 'https://www.googleapis.com/auth/cloud-platform' })
          .setProtectedHeader({ alg: 'RS256', kid: bareSa.private_key_id })
          .setIssuer(bareSa.client_email)
          .setAudience(bareSa.token_uri)
          .setIssuedAt()
          .setExpirationTime('1h')
          .sign(createPrivateKey(bareSa.private_key)),
      )
    ).json.access_token;
    const noAgent = await detect(bare, 's1', 'oi', bareToken);
    expect(noAgent.json.error).toMatchObject({ code: 404, status: 'NOT_FOUND', message: expect.stringContaining('No DesignTimeAgent found') });

    const narrow = (await exchange(await assertion({ scope: 'https://www.googleapis.com/auth/userinfo.email' }))).json.access_token;
    expect((await detect(project, 's1', 'oi', narrow)).json.error).toMatchObject({ code: 403, message: 'Request had insufficient authentication scopes.' });
    expect((await detect(project, 'x'.repeat(37), 'oi', token)).json.error).toMatchObject({ code: 400, status: 'INVALID_ARGUMENT' });
  });

  it('refuses the keys of a revoked account', async () => {
    const proj = `df-${n()}`;
    const key = JSON.parse(await serviceAccount(proj)) as ServiceAccountJson;
    expect(await revokeServiceAccount(key.client_email)).toBe(1);
    const signed = await new SignJWT({ scope: 'https://www.googleapis.com/auth/dialogflow' })
      .setProtectedHeader({ alg: 'RS256', kid: key.private_key_id })
      .setIssuer(key.client_email)
      .setAudience(key.token_uri)
      .setIssuedAt()
      .setExpirationTime('1h')
      .sign(createPrivateKey(key.private_key));
    const res = await fetch(key.token_uri, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'urn:ietf:params:oauth:grant-type:jwt-bearer', assertion: signed }).toString(),
    });
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({ error: 'invalid_grant', error_description: 'Invalid JWT Signature.' });
  });
});

describe('OpenAI-compatible API', () => {
  const chat = (key: string | undefined, body: unknown = { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'oi' }], max_tokens: 100, temperature: 1 }) =>
    post('/openai/v1/chat/completions', body, key ? { authorization: `Bearer ${key}` } : {});

  it('refuses unknown and missing keys as OpenAI does', async () => {
    const unknown = await chat(`sk-unknown-${n()}`);
    expect(unknown.status).toBe(401);
    expect(unknown.json.error).toMatchObject({ type: 'invalid_request_error', code: 'invalid_api_key', message: expect.stringMatching(/^Incorrect API key provided: sk-\*+/) });
    const none = await chat(undefined);
    expect(none.status).toBe(401);
    expect(none.json.error.message).toMatch(/You didn't provide an API key/);
  });

  it('answers completions in turn (the last one repeats), after the scripted failures', async () => {
    const key = `sk-test-${n()}`;
    await defineOpenAi(key, { replies: ['Primeira', 'Segunda'], failTimes: 1 });
    const failed = await chat(key);
    expect(failed.status).toBe(500);
    expect(failed.json.error.type).toBe('server_error');
    const answers = [];
    for (let i = 0; i < 3; i++) {
      const r = await chat(key);
      expect(r.status).toBe(200);
      expect(r.json).toMatchObject({
        id: expect.stringMatching(/^chatcmpl-/),
        object: 'chat.completion',
        created: expect.any(Number),
        model: 'gpt-4o-mini',
        choices: [{ index: 0, message: { role: 'assistant' }, finish_reason: 'stop' }],
        usage: { prompt_tokens: expect.any(Number), completion_tokens: expect.any(Number), total_tokens: expect.any(Number) },
      });
      answers.push(r.json.choices[0].message.content);
    }
    expect(answers).toEqual(['Primeira', 'Segunda', 'Segunda']);
    expect((await chat(key, { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'x' }], temperature: 3 })).status).toBe(400);
    const calls = await openAiCalls(key);
    expect(calls.chat.map((c) => c.status)).toEqual([500, 200, 200, 200, 400]);
    expect(calls.chat[1].body).toEqual({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'oi' }], max_tokens: 100, temperature: 1 });

    const down = `sk-down-${n()}`;
    await defineOpenAi(down, { replies: ['nunca'], status: 429 });
    expect((await chat(down)).json.error.code).toBe('rate_limit_exceeded');
  });

  it('transcribes a multipart upload and records what was sent', async () => {
    const key = `sk-audio-${n()}`;
    await defineOpenAi(key, { replies: [], transcription: 'quero falar com um atendente' });
    const send = (name: string) => {
      const form = new FormData();
      form.append('model', 'whisper-1');
      form.append('file', new Blob([buildSilentOggOpus()], { type: 'audio/ogg; codecs=opus' }), name);
      return fetch(`${url}/openai/v1/audio/transcriptions`, { method: 'POST', headers: { authorization: `Bearer ${key}` }, body: form });
    };
    const ok = await send('voz.ogg');
    expect(ok.status).toBe(200);
    expect(await ok.json()).toEqual({ text: 'quero falar com um atendente' });
    const wrong = await send('voz.bin');
    expect(wrong.status).toBe(400);
    expect(((await wrong.json()) as any).error.message).toMatch(/^Invalid file format\. Supported formats: \[.*'ogg'/);
    const calls = await openAiCalls(key);
    expect(calls.transcriptions[0]).toMatchObject({ status: 200, model: 'whisper-1', fileName: 'voz.ogg', fileSize: buildSilentOggOpus().length, mimeType: 'audio/ogg; codecs=opus' });
    expect(calls.transcriptions[1]).toMatchObject({ status: 400, fileName: 'voz.bin' });
  });
});

/** Ogg pages (RFC 3533), each checksum recomputed bit by bit; the packets of the first two pages. */
function parseOgg(bytes: Uint8Array) {
  const crc = (data: Uint8Array) => {
    let c = 0;
    for (const b of data) {
      c ^= b << 24;
      for (let i = 0; i < 8; i++) c = c & 0x80000000 ? (c << 1) ^ 0x04c11db7 : c << 1;
      c >>>= 0;
    }
    return c >>> 0;
  };
  const buf = Buffer.from(bytes);
  const pages: { type: number; granule: bigint; packets: Buffer[] }[] = [];
  let pos = 0;
  while (pos < buf.length) {
    expect(buf.subarray(pos, pos + 4).toString('latin1')).toBe('OggS');
    const segments = buf[pos + 26];
    const lacing = [...buf.subarray(pos + 27, pos + 27 + segments)];
    const size = 27 + segments + lacing.reduce((a, b) => a + b, 0);
    const page = Buffer.from(buf.subarray(pos, pos + size));
    const stored = page.readUInt32LE(22);
    page.writeUInt32LE(0, 22);
    expect(crc(page), `page ${pages.length} checksum`).toBe(stored);
    const packets: Buffer[] = [];
    let at = 27 + segments;
    let current: Buffer[] = [];
    for (const l of lacing) {
      current.push(page.subarray(at, at + l));
      at += l;
      if (l < 255) {
        packets.push(Buffer.concat(current));
        current = [];
      }
    }
    pages.push({ type: page[5], granule: page.readBigInt64LE(6), packets });
    pos += size;
  }
  return pages;
}

describe('Azure Speech text to speech', () => {
  const ssml = "<speak version='1.0' xml:lang='pt-BR'><voice name='pt-BR-FranciscaNeural'>Olá &amp; até logo</voice></speak>";
  const tts = (region: string, headers: Record<string, string>, body = ssml) => fetch(`${url}/azure/${region}/cognitiveservices/v1`, { method: 'POST', headers, body });
  const good = (key: string) => ({ 'Ocp-Apim-Subscription-Key': key, 'Content-Type': 'application/ssml+xml', 'X-Microsoft-OutputFormat': 'ogg-48khz-16bit-mono-opus', 'User-Agent': 'balcao' });

  it('answers an Ogg/Opus voice note for a valid key, 401 otherwise, 415 for another content type', async () => {
    const key = `az-${n()}`;
    expect((await tts('brazilsouth', good(key))).status).toBe(401);
    await defineAzureKey(key, 'brazilsouth');
    expect((await tts('eastus', good(key))).status).toBe(401);
    expect((await tts('brazilsouth', { ...good(key), 'Content-Type': 'text/plain' })).status).toBe(415);
    expect((await tts('brazilsouth', good(key), '<speak><voice>sem idioma</voice></speak>')).status).toBe(400);

    const res = await tts('brazilsouth', good(key));
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('audio/ogg');
    const audio = new Uint8Array(await res.arrayBuffer());
    expect(Buffer.from(audio.subarray(0, 4)).toString('latin1')).toBe('OggS');
    const pages = parseOgg(audio);
    expect(pages[0].packets[0].subarray(0, 8).toString('latin1')).toBe('OpusHead');
    expect(pages[0].type & 0x02).toBe(0x02);
    expect(pages[1].packets[0].subarray(0, 8).toString('latin1')).toBe('OpusTags');
    expect(pages.at(-1)!.type & 0x04).toBe(0x04);

    const calls = await azureCalls(key);
    expect(calls.at(-1)).toMatchObject({
      region: 'brazilsouth',
      status: 200,
      ssml,
      voice: 'pt-BR-FranciscaNeural',
      lang: 'pt-BR',
      text: 'Olá & até logo',
      headers: { contentType: 'application/ssml+xml', outputFormat: 'ogg-48khz-16bit-mono-opus', userAgent: 'balcao' },
    });
    expect(calls.map((c) => c.status)).toEqual([401, 401, 415, 400, 200]);
  });

  it('builds a valid Ogg Opus stream by hand when ffmpeg is missing', () => {
    const pages = parseOgg(buildSilentOggOpus());
    expect(pages).toHaveLength(3);
    const head = pages[0].packets[0];
    expect(head.subarray(0, 8).toString('latin1')).toBe('OpusHead');
    expect([head[8], head[9], head.readUInt16LE(10), head.readUInt32LE(12)]).toEqual([1, 1, 312, 48000]);
    expect(pages[2].packets).toHaveLength(50);
    expect(pages[2].packets.every((p) => p[0] === 0xf8)).toBe(true);
    expect(pages[2].granule).toBe(48000n);
  });
});
