import { spawn } from 'node:child_process';
import { createHash, generateKeyPairSync, randomBytes, randomUUID, verify, type KeyObject } from 'node:crypto';
import http from 'node:http';
import { BodyTooLarge, closeServer, listen, readBody, sendJson } from '../../local/http-util.js';

/**
 * Local fakes of the outside services that queue integrations and AI prompts call (issue 19 §4),
 * speaking the real APIs' shapes on 127.0.0.1, plus a JSON control API (`/__control/...`) through
 * which tests script them over HTTP (the stack's global setup runs this server in its own process;
 * the tests run in workers). Everything is keyed by a name the test picks (typebot slug, hook id,
 * Google project, API key), so parallel tests never see each other's state.
 *
 * - Typebot chat API v1: `POST /api/v1/typebots/{slug}/startChat`, `POST /api/v1/sessions/{id}/continueChat`.
 * - n8n / webhook receiver: `POST /hooks/{hookId}`.
 * - Google OAuth 2.0 token endpoint (JWT bearer grant): `POST /token`; Dialogflow ES v2:
 *   `POST /v2/projects/{project}/agent/sessions/{session}:detectIntent`.
 * - OpenAI-compatible: `POST /openai/v1/chat/completions`, `POST /openai/v1/audio/transcriptions`.
 * - Azure Speech text to speech: `POST /azure/{region}/cognitiveservices/v1`.
 */

// ---------------------------------------------------------------------------------------------
// Scripts (what tests send to the control API) and what the fake records.

export type TypebotInput = { type: 'text input' } | { type: 'choice input'; items: string[] };
export interface TypebotStep {
  /**
   * Each entry is one text bubble: `**bold**` becomes a bold leaf, a line break starts a new
   * paragraph, `{{name}}` shows the prefilled variable `name` (startChat's prefilledVariables).
   */
  messages: string[];
  /** Without an input the conversation ends after this step (Typebot then forgets the session). */
  input?: TypebotInput;
}
export interface TypebotFlow {
  steps: TypebotStep[];
}
export interface TypebotCall {
  at: string;
  kind: 'startChat' | 'continueChat';
  path: string;
  status: number;
  body: unknown;
  sessionId?: string;
  /** The reply as text, whichever form `message` came in (string or `{type:'text', text}`). */
  message?: string;
  prefilledVariables?: Record<string, unknown>;
}

export type HookBehaviour =
  | { mode: 'reply'; reply: string }
  | { mode: 'status'; status: number }
  | { mode: 'garbage' }
  | { mode: 'hang' }
  | { mode: 'failTimes'; times: number; reply: string }
  /** n8n's default answer of a webhook that responds immediately: JSON, but no `reply`. */
  | { mode: 'ack' };
export interface HookCall {
  at: string;
  /** Milliseconds since the epoch, for timing assertions (backoff between retries). */
  receivedAt: number;
  status: number | 'hang';
  contentType?: string;
  /** The parsed JSON body, or the raw text when it was not JSON. */
  body: unknown;
}

export interface DialogflowIntentScript {
  /** A regular expression (case-insensitive) tried against the query text. */
  match: string;
  displayName: string;
  fulfillmentText: string;
  endInteraction?: boolean;
}
export interface DialogflowScript {
  intents: DialogflowIntentScript[];
  /** The Default Fallback Intent's answer. */
  fallback: string;
}
export interface DialogflowCall {
  at: string;
  session: string;
  status: number;
  text?: string;
  languageCode?: string;
  /** The matched intent's display name (the fallback's is 'Default Fallback Intent'). */
  intent?: string;
  body: unknown;
}
export interface GoogleTokenCall {
  at: string;
  status: number;
  iss?: string;
  scope?: string;
  error?: string;
}

export interface OpenAiScript {
  /** Answered in turn; the last one repeats. */
  replies: string[];
  transcription?: string;
  /** The first N requests (any endpoint) answer 500. */
  failTimes?: number;
  /** Every request answers this error status. */
  status?: number;
}
export interface OpenAiCalls {
  chat: { at: string; status: number; body: any }[];
  transcriptions: { at: string; status: number; model?: string; fileName?: string; fileSize?: number; mimeType?: string; language?: string; responseFormat?: string }[];
}

export interface AzureCall {
  at: string;
  region: string;
  status: number;
  ssml: string;
  voice?: string;
  lang?: string;
  /** The spoken text (the SSML's voice element content, unescaped). */
  text?: string;
  headers: { contentType?: string; outputFormat?: string; userAgent?: string; key?: string };
}

export interface OutsideServices {
  url: string;
  /** Where the Azure answer came from: ffmpeg (a real encoder) or the hand-built silent stream. */
  audioSource: 'ffmpeg' | 'built';
  close(): Promise<void>;
}

// ---------------------------------------------------------------------------------------------
// Ogg/Opus audio: encoded once by ffmpeg when this machine has it, else built by hand.

const CRC_TABLE = (() => {
  const t = new Uint32Array(256);
  for (let i = 0; i < 256; i++) {
    let r = i << 24;
    for (let j = 0; j < 8; j++) r = r & 0x80000000 ? ((r << 1) ^ 0x04c11db7) >>> 0 : (r << 1) >>> 0;
    t[i] = r >>> 0;
  }
  return t;
})();

/** Ogg's page checksum: CRC-32, polynomial 0x04c11db7, initial value 0, no reflection (RFC 3533). */
function oggCrc(bytes: Uint8Array): number {
  let crc = 0;
  for (const b of bytes) crc = ((crc << 8) ^ CRC_TABLE[((crc >>> 24) ^ b) & 0xff]) >>> 0;
  return crc >>> 0;
}

function oggPage(headerType: number, granule: bigint, serial: number, seq: number, packets: Buffer[]): Buffer {
  const lacing: number[] = [];
  for (const p of packets) {
    let n = p.length;
    while (n >= 255) {
      lacing.push(255);
      n -= 255;
    }
    lacing.push(n);
  }
  if (lacing.length > 255) throw new Error('an Ogg page holds at most 255 segments');
  const header = Buffer.alloc(27 + lacing.length);
  header.write('OggS', 0, 'latin1');
  header[4] = 0; // stream structure version
  header[5] = headerType;
  header.writeBigInt64LE(granule, 6);
  header.writeUInt32LE(serial, 14);
  header.writeUInt32LE(seq, 18);
  header.writeUInt32LE(0, 22); // checksum, filled below
  header[26] = lacing.length;
  lacing.forEach((l, i) => (header[27 + i] = l));
  const page = Buffer.concat([header, ...packets]);
  page.writeUInt32LE(oggCrc(page), 22);
  return page;
}

/**
 * A valid Ogg Opus stream (RFC 7845) of about one second of silence, mono 48 kHz: the OpusHead page,
 * the OpusTags page and one page of 50 silent 20 ms CELT frames (TOC 0xF8, then 0xFF 0xFE).
 */
export function buildSilentOggOpus(): Buffer {
  const serial = 0x62616c63;
  const preSkip = 312;
  const head = Buffer.alloc(19);
  head.write('OpusHead', 0, 'latin1');
  head[8] = 1; // version
  head[9] = 1; // channels
  head.writeUInt16LE(preSkip, 10);
  head.writeUInt32LE(48000, 12); // input sample rate (informative)
  head.writeInt16LE(0, 16); // output gain
  head[18] = 0; // channel mapping family
  const vendor = Buffer.from('balcao outside-services fake', 'utf8');
  const tags = Buffer.alloc(8 + 4 + vendor.length + 4);
  tags.write('OpusTags', 0, 'latin1');
  tags.writeUInt32LE(vendor.length, 8);
  vendor.copy(tags, 12);
  tags.writeUInt32LE(0, 12 + vendor.length); // no user comments
  const frames = Array.from({ length: 50 }, () => Buffer.from([0xf8, 0xff, 0xfe]));
  return Buffer.concat([
    oggPage(0x02, 0n, serial, 0, [head]),
    oggPage(0x00, 0n, serial, 1, [tags]),
    oggPage(0x04, BigInt(frames.length * 960), serial, 2, frames),
  ]);
}

const spawnFfmpeg = (args: string[]) => spawn('ffmpeg', args, { stdio: ['ignore', 'pipe', 'ignore'] });

/** One second of a 440 Hz tone encoded by ffmpeg's libopus, or undefined when that is not possible here. */
function ffmpegOggOpus(timeoutMs = 10_000): Promise<Buffer | undefined> {
  return new Promise((resolve) => {
    const args = ['-hide_banner', '-loglevel', 'error', '-f', 'lavfi', '-i', 'sine=frequency=440:sample_rate=48000:duration=1', '-ac', '1', '-c:a', 'libopus', '-b:a', '24k', '-f', 'ogg', 'pipe:1'];
    let child: ReturnType<typeof spawnFfmpeg>;
    try {
      child = spawnFfmpeg(args);
    } catch {
      resolve(undefined);
      return;
    }
    const chunks: Buffer[] = [];
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.stdout.on('data', (c: Buffer) => chunks.push(c));
    child.once('error', () => {
      clearTimeout(timer);
      resolve(undefined);
    });
    child.once('close', (code) => {
      clearTimeout(timer);
      const out = Buffer.concat(chunks);
      resolve(code === 0 && out.subarray(0, 4).toString('latin1') === 'OggS' ? out : undefined);
    });
  });
}

// ---------------------------------------------------------------------------------------------
// Small helpers.

const MAX_CALLS = 1000;
const now = () => new Date().toISOString();
const rid = (bytes = 12) => randomBytes(bytes).toString('base64url').replace(/[-_]/g, 'x');

function push<T>(map: Map<string, T[]>, key: string, entry: T) {
  let list = map.get(key);
  if (!list) map.set(key, (list = []));
  list.push(entry);
  if (list.length > MAX_CALLS) list.shift();
}

function decodeSegment(s: string): string | undefined {
  try {
    return decodeURIComponent(s);
  } catch {
    return undefined;
  }
}

function parseJson(buf: Buffer): { ok: true; value: any } | { ok: false; text: string } {
  const text = buf.toString('utf8');
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch {
    return { ok: false, text };
  }
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** A stable UUID-shaped id from a text (Dialogflow intent names). */
function stableUuid(text: string): string {
  const h = createHash('sha256').update(text).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-a${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

const b64urlJson = (part: string): any => {
  try {
    return JSON.parse(Buffer.from(part, 'base64url').toString('utf8'));
  } catch {
    return undefined;
  }
};

interface FilePart {
  name: string;
  filename?: string;
  contentType?: string;
  data: Buffer;
}

/** multipart/form-data (RFC 7578): every part with its name, file name, content type and bytes. */
function parseMultipart(body: Buffer, contentType: string): FilePart[] | undefined {
  const m = /boundary=(?:"([^"]+)"|([^;\s]+))/i.exec(contentType);
  const boundary = m?.[1] ?? m?.[2];
  if (!boundary) return undefined;
  const delimiter = Buffer.from(`--${boundary}`);
  const parts: FilePart[] = [];
  let pos = body.indexOf(delimiter);
  if (pos < 0) return undefined;
  for (;;) {
    pos += delimiter.length;
    if (body.subarray(pos, pos + 2).toString('latin1') === '--') break; // closing delimiter
    if (body.subarray(pos, pos + 2).toString('latin1') === '\r\n') pos += 2;
    const headerEnd = body.indexOf('\r\n\r\n', pos);
    if (headerEnd < 0) return undefined;
    const headers = body.subarray(pos, headerEnd).toString('utf8');
    const next = body.indexOf(Buffer.concat([Buffer.from('\r\n'), delimiter]), headerEnd + 4);
    if (next < 0) return undefined;
    const data = body.subarray(headerEnd + 4, next);
    const disposition = /content-disposition:([^\r\n]*)/i.exec(headers)?.[1] ?? '';
    const name = /\bname="([^"]*)"/i.exec(disposition)?.[1];
    const filenameStar = /filename\*=(?:UTF-8'')?([^;\r\n]+)/i.exec(disposition)?.[1];
    const filename = filenameStar ? decodeSegment(filenameStar.trim()) : /\bfilename="([^"]*)"/i.exec(disposition)?.[1];
    const partType = /content-type:\s*([^\r\n]*)/i.exec(headers)?.[1]?.trim();
    if (name !== undefined) parts.push({ name, filename, contentType: partType, data });
    pos = next + 2;
  }
  return parts;
}

const xmlUnescape = (s: string) =>
  s
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&apos;/g, "'")
    .replace(/&amp;/g, '&');

// ---------------------------------------------------------------------------------------------
// Typebot (chat API v1, as in typebot.io's bot engine).

interface TypebotSession {
  slug: string;
  /** The prefilled variables: `{{name}}` in a bubble shows its value (an unknown one shows nothing). */
  variables: Record<string, unknown>;
  /** Index of the step whose input is awaited. */
  step: number;
  inputId: string;
  itemIds: string[];
  format: 'richText' | 'markdown';
}

type RichLeaf = { text: string; bold?: boolean };
/** Typebot's default bubble format: slate nodes, one `p` per line, `**x**` as a bold leaf. */
function richText(text: string): { type: 'p'; children: RichLeaf[] }[] {
  return text.split('\n').map((line) => {
    const children: RichLeaf[] = [];
    let last = 0;
    for (const m of line.matchAll(/\*\*(.+?)\*\*/g)) {
      if (m.index! > last) children.push({ text: line.slice(last, m.index) });
      children.push({ text: m[1], bold: true });
      last = m.index! + m[0].length;
    }
    if (last < line.length || children.length === 0) children.push({ text: line.slice(last) });
    return { type: 'p' as const, children };
  });
}

function textBubble(text: string, format: 'richText' | 'markdown', id = rid()) {
  return { id, type: 'text', content: format === 'markdown' ? { type: 'markdown', markdown: text } : { type: 'richText', richText: richText(text) } };
}

/** Typebot's variable substitution in bubbles: `{{name}}` becomes the value, or nothing when unset. */
const withVariables = (text: string, variables: Record<string, unknown>) =>
  text.replace(/\{\{([^{}]+)\}\}/g, (_, name: string) => {
    const v = variables[name.trim()];
    return v === undefined || v === null ? '' : typeof v === 'string' ? v : JSON.stringify(v);
  });

/** `message` as continueChat takes it: a string (v1 before the message object) or `{type:'text', text}`. */
function messageText(message: unknown): { ok: true; text: string | undefined } | { ok: false } {
  if (message === undefined || message === null) return { ok: true, text: undefined };
  if (typeof message === 'string') return { ok: true, text: message };
  if (isRecord(message) && message.type === 'text' && typeof message.text === 'string') return { ok: true, text: message.text };
  return { ok: false };
}

// ---------------------------------------------------------------------------------------------
// The server.

export async function startOutsideServices(opts: { port?: number; audio?: 'auto' | 'built' } = {}): Promise<OutsideServices> {
  const ffmpegAudio = opts.audio === 'built' ? undefined : await ffmpegOggOpus();
  const audio = ffmpegAudio ?? buildSilentOggOpus();
  const audioSource: OutsideServices['audioSource'] = ffmpegAudio ? 'ffmpeg' : 'built';

  // Typebot
  const flows = new Map<string, TypebotFlow>();
  const typebotSessions = new Map<string, TypebotSession>();
  const typebotCalls = new Map<string, TypebotCall[]>();
  // Webhooks
  const hooks = new Map<string, HookBehaviour>();
  const hookCounters = new Map<string, number>();
  const hookCalls = new Map<string, HookCall[]>();
  const hanging = new Set<http.ServerResponse>();
  // Google
  const googleKeys = new Map<string, { kid: string; publicKey: KeyObject; project: string; revoked: boolean }[]>();
  const accessTokens = new Map<string, { project: string; email: string; scopes: string[]; until: number }>();
  const tokenCalls = new Map<string, GoogleTokenCall[]>();
  const dialogflows = new Map<string, DialogflowScript>();
  const dialogflowCalls = new Map<string, DialogflowCall[]>();
  // OpenAI
  const openAiScripts = new Map<string, OpenAiScript>();
  const openAiState = new Map<string, { attempts: number; replied: number }>();
  const openAiCalls = new Map<string, OpenAiCalls>();
  // Azure
  const azureKeys = new Map<string, { region?: string }>();
  const azureCalls = new Map<string, AzureCall[]>();

  let base = '';
  const tokenUri = () => `${base}/token`;

  // ---- Typebot --------------------------------------------------------------------------------

  const typebotError = (res: http.ServerResponse, status: number, code: string, message: string) => sendJson(res, status, { message, code });

  /** The step's bubbles and input; a step without input ends the conversation (the session is deleted). */
  function typebotStep(sessionId: string, session: TypebotSession, flow: TypebotFlow) {
    const step = flow.steps[session.step];
    const messages = step.messages.map((m) => textBubble(withVariables(m, session.variables), session.format));
    let input: Record<string, unknown> | undefined;
    if (step.input?.type === 'choice input') {
      session.inputId = rid();
      session.itemIds = step.input.items.map(() => rid());
      input = { id: session.inputId, type: 'choice input', items: step.input.items.map((content, i) => ({ id: session.itemIds[i], content })) };
    } else if (step.input?.type === 'text input') {
      session.inputId = rid();
      session.itemIds = [];
      input = { id: session.inputId, type: 'text input', options: { labels: { placeholder: 'Type your answer...' } } };
    }
    if (!input) typebotSessions.delete(sessionId);
    return { messages, ...(input ? { input } : {}) };
  }

  async function startChat(req: http.IncomingMessage, res: http.ServerResponse, slug: string, path: string) {
    const parsed = parseJson(await readBody(req));
    const body = parsed.ok ? parsed.value : parsed.text;
    const record = (status: number, extra: Partial<TypebotCall> = {}) => push(typebotCalls, slug, { at: now(), kind: 'startChat', path, status, body, ...extra });
    const flow = flows.get(slug);
    if (!parsed.ok || !isRecord(parsed.value)) {
      record(400);
      return typebotError(res, 400, 'BAD_REQUEST', 'Input validation failed');
    }
    const v = parsed.value;
    const message = messageText(v.message);
    const format = v.textBubbleContentFormat ?? 'richText';
    if (!message.ok || (format !== 'richText' && format !== 'markdown') || (v.prefilledVariables !== undefined && !isRecord(v.prefilledVariables))) {
      record(400);
      return typebotError(res, 400, 'BAD_REQUEST', 'Input validation failed');
    }
    const prefilledVariables = (v.prefilledVariables as Record<string, unknown> | undefined) ?? {};
    if (!flow || flow.steps.length === 0) {
      record(404, { prefilledVariables });
      return typebotError(res, 404, 'NOT_FOUND', 'Typebot not found');
    }
    const sessionId = rid(18);
    const session: TypebotSession = { slug, variables: prefilledVariables, step: 0, inputId: '', itemIds: [], format };
    typebotSessions.set(sessionId, session);
    record(200, { sessionId, prefilledVariables, ...(message.text !== undefined ? { message: message.text } : {}) });
    sendJson(res, 200, {
      sessionId,
      resultId: rid(18),
      typebot: { id: `fake${createHash('sha1').update(slug).digest('hex').slice(0, 20)}`, version: '6', theme: {}, settings: { general: {}, typingEmulation: {} } },
      ...typebotStep(sessionId, session, flow),
    });
  }

  async function continueChat(req: http.IncomingMessage, res: http.ServerResponse, sessionId: string, path: string) {
    const parsed = parseJson(await readBody(req));
    const body = parsed.ok ? parsed.value : parsed.text;
    const session = typebotSessions.get(sessionId);
    const message = parsed.ok && isRecord(parsed.value) ? messageText(parsed.value.message) : ({ ok: false } as const);
    const record = (status: number) => {
      if (!session) return;
      push(typebotCalls, session.slug, { at: now(), kind: 'continueChat', path, status, body, sessionId, ...(message.ok && message.text !== undefined ? { message: message.text } : {}) });
    };
    if (!message.ok) {
      record(400);
      return typebotError(res, 400, 'BAD_REQUEST', 'Input validation failed');
    }
    const flow = session && flows.get(session.slug);
    // An unknown, ended or expired session: Typebot deletes a session once its flow ends.
    if (!session || !flow || session.step >= flow.steps.length) {
      if (session) typebotSessions.delete(sessionId);
      return typebotError(res, 404, 'NOT_FOUND', 'Session not found.');
    }
    const step = flow.steps[session.step];
    const reply = message.text?.trim();
    let valid = !!reply;
    if (valid && step.input?.type === 'choice input') {
      const items = step.input.items;
      valid = items.some((content, i) => session.itemIds[i] === message.text || content.trim().toLowerCase() === reply!.toLowerCase());
    }
    if (!valid) {
      // Typebot's invalid reply: one retry bubble (the input's own id) and the same input again.
      record(200);
      const input =
        step.input?.type === 'choice input'
          ? { id: session.inputId, type: 'choice input', items: step.input.items.map((content, i) => ({ id: session.itemIds[i], content })) }
          : { id: session.inputId, type: 'text input', options: { labels: { placeholder: 'Type your answer...' } } };
      return sendJson(res, 200, { messages: [textBubble('Invalid message. Please, try again.', session.format, session.inputId)], input });
    }
    session.step++;
    record(200);
    if (session.step >= flow.steps.length) {
      // The last input answered and nothing after it: the flow ends, the session goes away.
      typebotSessions.delete(sessionId);
      return sendJson(res, 200, { messages: [] });
    }
    sendJson(res, 200, typebotStep(sessionId, session, flow));
  }

  // ---- Webhook receiver (n8n / any URL) -----------------------------------------------------------

  async function hook(req: http.IncomingMessage, res: http.ServerResponse, id: string) {
    const raw = await readBody(req);
    const parsed = parseJson(raw);
    const call: HookCall = { at: now(), receivedAt: Date.now(), status: 200, contentType: req.headers['content-type'], body: parsed.ok ? parsed.value : parsed.text };
    push(hookCalls, id, call);
    const behaviour = hooks.get(id);
    if (!behaviour) {
      call.status = 404;
      return sendJson(res, 404, { code: 404, message: `The requested webhook "POST ${id}" is not registered.` });
    }
    switch (behaviour.mode) {
      case 'reply':
        return sendJson(res, 200, { reply: behaviour.reply });
      case 'ack':
        return sendJson(res, 200, { message: 'Workflow was started' });
      case 'status':
        call.status = behaviour.status;
        return sendJson(res, behaviour.status, { code: behaviour.status, message: `fake hook answered ${behaviour.status}` });
      case 'garbage': {
        const text = '<html><body>Bad Gateway... not JSON {"reply": </body></html>';
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
        return res.end(text);
      }
      case 'hang':
        // Never answered: the connection stays open until the client gives up (or the fake closes).
        call.status = 'hang';
        hanging.add(res);
        res.once('close', () => hanging.delete(res));
        return;
      case 'failTimes': {
        const n = (hookCounters.get(id) ?? 0) + 1;
        hookCounters.set(id, n);
        if (n <= behaviour.times) {
          call.status = 500;
          return sendJson(res, 500, { code: 500, message: 'Error in workflow' });
        }
        return sendJson(res, 200, { reply: behaviour.reply });
      }
    }
  }

  // ---- Google OAuth 2.0 (JWT bearer grant) and Dialogflow ES v2 --------------------------------

  function newServiceAccount(project: string) {
    const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const kid = randomBytes(20).toString('hex');
    const email = `fake@${project}.iam.gserviceaccount.com`;
    const list = googleKeys.get(email) ?? [];
    list.push({ kid, publicKey, project, revoked: false });
    googleKeys.set(email, list);
    const clientId = String(100000000000000000000n + BigInt(`0x${randomBytes(8).toString('hex')}`));
    return {
      type: 'service_account',
      project_id: project,
      private_key_id: kid,
      private_key: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
      client_email: email,
      client_id: clientId,
      auth_uri: 'https://accounts.google.com/o/oauth2/auth',
      token_uri: tokenUri(),
      auth_provider_x509_cert_url: 'https://www.googleapis.com/oauth2/v1/certs',
      client_x509_cert_url: `https://www.googleapis.com/robot/v1/metadata/x509/${encodeURIComponent(email)}`,
      universe_domain: 'googleapis.com',
    };
  }

  async function token(req: http.IncomingMessage, res: http.ServerResponse) {
    const form = new URLSearchParams((await readBody(req)).toString('utf8'));
    // What the assertion claims, once it can be read (refusals are recorded under the claimed project).
    const seen: { iss?: string; scope?: string } = {};
    const refuse = (status: number, error: string, description: string) => {
      const project = seen.iss?.match(/^[^@]+@([^.]+)\.iam\.gserviceaccount\.com$/)?.[1] ?? '';
      push(tokenCalls, project, { at: now(), status, ...seen, error: `${error}: ${description}` });
      sendJson(res, status, { error, error_description: description });
    };
    const grantType = form.get('grant_type');
    if (!grantType) return refuse(400, 'invalid_request', 'Missing required parameter: grant_type');
    if (grantType !== 'urn:ietf:params:oauth:grant-type:jwt-bearer') return refuse(400, 'unsupported_grant_type', `Invalid grant_type: ${grantType}`);
    const assertion = form.get('assertion');
    if (!assertion) return refuse(400, 'invalid_request', 'Missing required parameter: assertion');
    const parts = assertion.split('.');
    const header = parts.length === 3 ? b64urlJson(parts[0]) : undefined;
    const claims = parts.length === 3 ? b64urlJson(parts[1]) : undefined;
    if (!isRecord(header) || !isRecord(claims)) return refuse(400, 'invalid_grant', 'Invalid JWT: Malformed');
    const iss = (seen.iss = typeof claims.iss === 'string' ? claims.iss : undefined);
    const scope = (seen.scope = typeof claims.scope === 'string' ? claims.scope : undefined);
    const keys = iss ? googleKeys.get(iss) : undefined;
    if (!keys) return refuse(400, 'invalid_grant', 'Invalid grant: account not found');
    if (header.alg !== 'RS256') return refuse(400, 'invalid_grant', 'Invalid JWT Signature.');
    const candidates = typeof header.kid === 'string' ? keys.filter((k) => k.kid === header.kid) : keys;
    const signed = Buffer.from(`${parts[0]}.${parts[1]}`);
    const signature = Buffer.from(parts[2], 'base64url');
    const key = candidates.find((k) => !k.revoked && verify('RSA-SHA256', signed, k.publicKey, signature));
    // A deleted (revoked) key no longer verifies anything: Google answers exactly as for a bad signature.
    if (!key) return refuse(400, 'invalid_grant', 'Invalid JWT Signature.');
    if (claims.aud !== tokenUri()) return refuse(400, 'invalid_grant', `Invalid JWT: Failed audience check. The right audience is ${tokenUri()}`);
    const nowS = Math.floor(Date.now() / 1000);
    const iat = Number(claims.iat);
    const exp = Number(claims.exp);
    if (!Number.isFinite(iat) || !Number.isFinite(exp) || exp <= nowS || iat > nowS + 300 || exp - iat > 3600 || exp <= iat) {
      return refuse(
        400,
        'invalid_grant',
        'Invalid JWT: Token must be a short-lived token (60 minutes) and in a reasonable timeframe. Check your iat and exp values in the JWT claim.',
      );
    }
    if (!scope?.trim()) return refuse(400, 'invalid_scope', 'Invalid OAuth scope or ID token audience provided.');
    const accessToken = `ya29.c.${randomBytes(48).toString('base64url')}`;
    accessTokens.set(accessToken, { project: key.project, email: iss!, scopes: scope.split(/\s+/), until: Date.now() + 3599_000 });
    push(tokenCalls, key.project, { at: now(), status: 200, iss, scope });
    sendJson(res, 200, { access_token: accessToken, expires_in: 3599, token_type: 'Bearer' });
  }

  const googleError = (res: http.ServerResponse, code: number, status: string, message: string) => sendJson(res, code, { error: { code, message, status } });

  async function detectIntent(req: http.IncomingMessage, res: http.ServerResponse, project: string, session: string) {
    const parsed = parseJson(await readBody(req));
    const body = parsed.ok ? parsed.value : parsed.text;
    const call: DialogflowCall = { at: now(), session, status: 200, body };
    push(dialogflowCalls, project, call);
    const fail = (code: number, status: string, message: string) => {
      call.status = code;
      googleError(res, code, status, message);
    };
    const auth = req.headers.authorization;
    if (!auth) {
      return fail(
        401,
        'UNAUTHENTICATED',
        'Request is missing required authentication credential. Expected OAuth 2 access token, login cookie or other valid authentication credential. See https://developers.google.com/identity/sign-in/web/devconsole-project.',
      );
    }
    const grant = /^Bearer\s+(.+)$/i.test(auth) ? accessTokens.get(auth.replace(/^Bearer\s+/i, '').trim()) : undefined;
    if (!grant || grant.until < Date.now()) {
      return fail(
        401,
        'UNAUTHENTICATED',
        'Request had invalid authentication credentials. Expected OAuth 2 access token, login cookie or other valid authentication credential. See https://developers.google.com/identity/sign-in/web/devconsole-project.',
      );
    }
    if (!grant.scopes.some((s) => /\/auth\/(dialogflow|cloud-platform)$/.test(s))) return fail(403, 'PERMISSION_DENIED', 'Request had insufficient authentication scopes.');
    if (grant.project !== project) return fail(403, 'PERMISSION_DENIED', `IAM permission 'dialogflow.sessions.detectIntent' on 'projects/${project}/agent' denied.`);
    const script = dialogflows.get(project);
    if (!script) return fail(404, 'NOT_FOUND', `com.google.apps.framework.request.NotFoundException: No DesignTimeAgent found for project '${project}'.`);
    if (!parsed.ok) return fail(400, 'INVALID_ARGUMENT', `Invalid JSON payload received. Unexpected token.`);
    const text = parsed.value?.queryInput?.text?.text;
    const languageCode = parsed.value?.queryInput?.text?.languageCode;
    call.text = typeof text === 'string' ? text : undefined;
    call.languageCode = typeof languageCode === 'string' ? languageCode : undefined;
    if (Buffer.byteLength(session) > 36) return fail(400, 'INVALID_ARGUMENT', `Session id '${session}' exceeds the maximum length of 36 bytes.`);
    if (!isRecord(parsed.value?.queryInput)) return fail(400, 'INVALID_ARGUMENT', 'Field queryInput is required.');
    if (typeof text !== 'string' || !text.trim()) return fail(400, 'INVALID_ARGUMENT', 'Field queryInput.text.text is required.');
    if (typeof languageCode !== 'string' || !languageCode) return fail(400, 'INVALID_ARGUMENT', 'Field queryInput.text.languageCode is required.');
    if ([...text].length > 256) return fail(400, 'INVALID_ARGUMENT', 'Input text exceeds 256 characters.');
    const hit = script.intents.find((i) => new RegExp(i.match, 'i').test(text));
    const displayName = hit?.displayName ?? 'Default Fallback Intent';
    const fulfillmentText = hit?.fulfillmentText ?? script.fallback;
    call.intent = displayName;
    sendJson(res, 200, {
      responseId: `${randomUUID()}-${randomBytes(4).toString('hex')}`,
      queryResult: {
        queryText: text,
        ...(hit ? {} : { action: 'input.unknown' }),
        parameters: {},
        allRequiredParamsPresent: true,
        fulfillmentText,
        fulfillmentMessages: [{ text: { text: [fulfillmentText] } }],
        intent: {
          name: `projects/${project}/agent/intents/${stableUuid(`${project}/${displayName}`)}`,
          displayName,
          ...(hit?.endInteraction ? { endInteraction: true } : {}),
          ...(hit ? {} : { isFallback: true }),
        },
        intentDetectionConfidence: hit ? 0.87 : 1,
        languageCode: languageCode.toLowerCase(),
      },
    });
  }

  // ---- OpenAI-compatible ------------------------------------------------------------------------

  const openAiError = (res: http.ServerResponse, status: number, message: string, type: string, code: string | null = null, param: string | null = null) =>
    sendJson(res, status, { error: { message, type, param, code } });

  function openAiStatusError(res: http.ServerResponse, status: number) {
    if (status === 429) return openAiError(res, 429, 'Rate limit reached for requests. Please try again in 1s.', 'requests', 'rate_limit_exceeded');
    if (status === 401) return openAiError(res, 401, 'Incorrect API key provided.', 'invalid_request_error', 'invalid_api_key');
    if (status === 403) return openAiError(res, 403, 'You are not allowed to sample from this model', 'invalid_request_error', 'model_not_found');
    if (status === 404) return openAiError(res, 404, 'The model does not exist or you do not have access to it.', 'invalid_request_error', 'model_not_found');
    if (status === 503) return openAiError(res, 503, 'The engine is currently overloaded, please try again later', 'server_error');
    if (status >= 500) return openAiError(res, status, 'The server had an error while processing your request. Sorry about that!', 'server_error');
    return openAiError(res, status, 'fake OpenAI error', 'invalid_request_error');
  }

  async function openAi(req: http.IncomingMessage, res: http.ServerResponse, endpoint: string) {
    const raw = await readBody(req, 32 * 1024 * 1024);
    const auth = req.headers.authorization;
    if (!auth || !/^Bearer\s+\S/i.test(auth)) {
      return openAiError(
        res,
        401,
        "You didn't provide an API key. You need to provide your API key in an Authorization header using Bearer auth (i.e. Authorization: Bearer YOUR_KEY), or as the password field (with blank username) if you're accessing the API from your browser and are prompted for a username and password. You can obtain an API key from https://platform.openai.com/account/api-keys.",
        'invalid_request_error',
      );
    }
    const key = auth.replace(/^Bearer\s+/i, '').trim();
    const calls = openAiCalls.get(key) ?? { chat: [], transcriptions: [] };
    openAiCalls.set(key, calls);
    const script = openAiScripts.get(key);
    const state = openAiState.get(key) ?? { attempts: 0, replied: 0 };
    openAiState.set(key, state);

    if (endpoint === 'chat/completions' && req.method === 'POST') {
      const parsed = parseJson(raw);
      const call = { at: now(), status: 200, body: parsed.ok ? parsed.value : parsed.text };
      calls.chat.push(call);
      if (calls.chat.length > MAX_CALLS) calls.chat.shift();
      const gate = openAiGate(res, key, script, state, (s) => (call.status = s));
      if (gate) return;
      const fail = (message: string, param: string | null = null) => {
        call.status = 400;
        openAiError(res, 400, message, 'invalid_request_error', null, param);
      };
      if (!parsed.ok || !isRecord(parsed.value)) {
        return fail(
          "We could not parse the JSON body of your request. (HINT: This likely means you aren't using your HTTP library correctly. The OpenAI API expects a JSON payload, but what was sent was not valid JSON.",
        );
      }
      const b = parsed.value;
      if (typeof b.model !== 'string' || !b.model) return fail('you must provide a model parameter');
      if (!Array.isArray(b.messages)) return fail("Missing required parameter: 'messages'.", 'messages');
      if (b.messages.length === 0) return fail("Invalid 'messages': empty array. Expected an array with minimum length 1, but got an empty array instead.", 'messages');
      const roles = ['system', 'developer', 'user', 'assistant', 'tool'];
      for (const [i, m] of b.messages.entries()) {
        if (!isRecord(m) || !roles.includes(m.role as string)) return fail(`Invalid value: '${isRecord(m) ? String(m.role) : ''}'. Supported values are: 'system', 'assistant', 'user', 'function', 'tool', and 'developer'.`, `messages[${i}].role`);
        if (typeof m.content !== 'string' && !Array.isArray(m.content) && m.role !== 'assistant') return fail(`Missing required parameter: 'messages[${i}].content'.`, `messages[${i}].content`);
      }
      if (b.temperature !== undefined && (typeof b.temperature !== 'number' || b.temperature < 0 || b.temperature > 2)) {
        return fail(`Invalid 'temperature': decimal above maximum value. Expected a value <= 2, but got ${String(b.temperature)} instead.`, 'temperature');
      }
      const maxTokensRaw = b.max_tokens ?? b.max_completion_tokens ?? undefined;
      if (maxTokensRaw !== undefined && (!Number.isInteger(maxTokensRaw) || (maxTokensRaw as number) < 1)) {
        return fail(`Invalid 'max_tokens': integer below minimum value. Expected a value >= 1, but got ${String(maxTokensRaw)} instead.`, 'max_tokens');
      }
      const maxTokens = maxTokensRaw as number | undefined;
      const replies = script!.replies;
      let content = replies.length ? replies[Math.min(state.replied, replies.length - 1)] : '';
      state.replied++;
      // About four characters a token: a reply longer than max_tokens is cut, as the model would stop.
      let finish = 'stop';
      if (maxTokens !== undefined && Math.ceil(content.length / 4) > maxTokens) {
        content = content.slice(0, maxTokens * 4);
        finish = 'length';
      }
      const promptTokens = Math.ceil(JSON.stringify(b.messages).length / 4);
      const completionTokens = Math.ceil(content.length / 4);
      return sendJson(res, 200, {
        id: `chatcmpl-${rid(21)}`,
        object: 'chat.completion',
        created: Math.floor(Date.now() / 1000),
        model: b.model,
        choices: [{ index: 0, message: { role: 'assistant', content, refusal: null, annotations: [] }, logprobs: null, finish_reason: finish }],
        usage: { prompt_tokens: promptTokens, completion_tokens: completionTokens, total_tokens: promptTokens + completionTokens },
        system_fingerprint: 'fp_fake0000',
      });
    }

    if (endpoint === 'audio/transcriptions' && req.method === 'POST') {
      const call: OpenAiCalls['transcriptions'][number] = { at: now(), status: 200 };
      calls.transcriptions.push(call);
      if (calls.transcriptions.length > MAX_CALLS) calls.transcriptions.shift();
      const gate = openAiGate(res, key, script, state, (s) => (call.status = s));
      if (gate) return;
      const fail = (status: number, message: string, param: string | null = null) => {
        call.status = status;
        openAiError(res, status, message, 'invalid_request_error', null, param);
      };
      const contentType = req.headers['content-type'] ?? '';
      if (!/^multipart\/form-data/i.test(contentType)) return fail(400, "Invalid Content-Type header (application/json), expected multipart/form-data. (HINT: If you're using curl, you can pass -H 'Content-Type: multipart/form-data')");
      const parts = parseMultipart(raw, contentType);
      if (!parts) return fail(400, 'Could not parse multipart form');
      const field = (name: string) => parts.find((p) => p.name === name);
      const file = field('file');
      const model = field('model')?.data.toString('utf8');
      const responseFormat = field('response_format')?.data.toString('utf8') ?? 'json';
      Object.assign(call, {
        model,
        fileName: file?.filename,
        fileSize: file?.data.length,
        mimeType: file?.contentType,
        language: field('language')?.data.toString('utf8'),
        responseFormat,
      });
      if (!model) return fail(400, 'you must provide a model parameter', 'model');
      if (!file || file.filename === undefined) return fail(400, "Missing required parameter: 'file'.", 'file');
      const formats = ['flac', 'm4a', 'mp3', 'mp4', 'mpeg', 'mpga', 'oga', 'ogg', 'wav', 'webm'];
      const ext = /\.([a-z0-9]+)$/i.exec(file.filename)?.[1]?.toLowerCase();
      if (!ext || !formats.includes(ext)) return fail(400, `Invalid file format. Supported formats: [${formats.map((f) => `'${f}'`).join(', ')}]`);
      if (file.data.length === 0) return fail(400, 'Audio file is too short. Minimum audio length is 0.1 seconds.', 'file');
      if (file.data.length > 25 * 1024 * 1024) return fail(413, 'Maximum content size limit (26214400) exceeded.');
      const text = script!.transcription ?? '';
      if (responseFormat === 'text') {
        res.writeHead(200, { 'content-type': 'text/plain; charset=utf-8' });
        return res.end(`${text}\n`);
      }
      if (responseFormat === 'verbose_json') return sendJson(res, 200, { task: 'transcribe', language: 'portuguese', duration: 1, text, segments: [] });
      if (responseFormat !== 'json') return fail(400, `Invalid value for 'response_format': ${responseFormat}.`, 'response_format');
      return sendJson(res, 200, { text });
    }

    return openAiError(res, 404, `Invalid URL (${req.method} /v1/${endpoint})`, 'invalid_request_error');
  }

  /** Unknown key, scripted permanent error, scripted first failures: true when it answered. */
  function openAiGate(res: http.ServerResponse, key: string, script: OpenAiScript | undefined, state: { attempts: number }, setStatus: (s: number) => void): boolean {
    if (!script) {
      setStatus(401);
      const masked = key.length > 8 ? `${key.slice(0, 3)}${'*'.repeat(Math.min(key.length - 7, 40))}${key.slice(-4)}` : '*'.repeat(key.length);
      openAiError(res, 401, `Incorrect API key provided: ${masked}. You can find your API key at https://platform.openai.com/account/api-keys.`, 'invalid_request_error', 'invalid_api_key');
      return true;
    }
    state.attempts++;
    if (script.status) {
      setStatus(script.status);
      openAiStatusError(res, script.status);
      return true;
    }
    if (script.failTimes && state.attempts <= script.failTimes) {
      setStatus(500);
      openAiStatusError(res, 500);
      return true;
    }
    return false;
  }

  // ---- Azure Speech text to speech ---------------------------------------------------------------

  const AZURE_OGG = ['ogg-16khz-16bit-mono-opus', 'ogg-24khz-16bit-mono-opus', 'ogg-48khz-16bit-mono-opus'];
  const AZURE_OTHER = [
    'audio-16khz-32kbitrate-mono-mp3',
    'audio-16khz-64kbitrate-mono-mp3',
    'audio-16khz-128kbitrate-mono-mp3',
    'audio-24khz-48kbitrate-mono-mp3',
    'audio-24khz-96kbitrate-mono-mp3',
    'audio-24khz-160kbitrate-mono-mp3',
    'audio-48khz-96kbitrate-mono-mp3',
    'audio-48khz-192kbitrate-mono-mp3',
    'riff-16khz-16bit-mono-pcm',
    'riff-24khz-16bit-mono-pcm',
    'riff-48khz-16bit-mono-pcm',
    'raw-16khz-16bit-mono-pcm',
    'raw-24khz-16bit-mono-pcm',
    'raw-48khz-16bit-mono-pcm',
    'webm-16khz-16bit-mono-opus',
    'webm-24khz-16bit-mono-opus',
  ];

  async function azure(req: http.IncomingMessage, res: http.ServerResponse, region: string) {
    const ssml = (await readBody(req)).toString('utf8');
    const key = (req.headers['ocp-apim-subscription-key'] as string | undefined) ?? '';
    const contentType = req.headers['content-type'];
    const outputFormat = req.headers['x-microsoft-outputformat'] as string | undefined;
    const call: AzureCall = { at: now(), region, status: 200, ssml, headers: { contentType, outputFormat, userAgent: req.headers['user-agent'], key } };
    push(azureCalls, key, call);
    const answer = (status: number, body?: unknown) => {
      call.status = status;
      if (body === undefined) {
        res.writeHead(status, { 'content-length': 0 });
        return res.end();
      }
      sendJson(res, status, body);
    };
    const registered = azureKeys.get(key);
    if (!key || !registered || (registered.region && registered.region !== region)) {
      return answer(401, {
        error: {
          code: '401',
          message:
            'Access denied due to invalid subscription key or wrong API endpoint. Make sure to provide a valid key for an active subscription and use a correct regional API endpoint for your resource.',
        },
      });
    }
    if (!contentType || !/^application\/ssml\+xml\b/i.test(contentType)) return answer(415);
    if (!outputFormat || (!AZURE_OGG.includes(outputFormat) && !AZURE_OTHER.includes(outputFormat))) return answer(400);
    const speak = /<speak\b([^>]*)>([\s\S]*)<\/speak>\s*$/.exec(ssml.trim());
    const voice = speak && /<voice\b[^>]*\bname\s*=\s*(["'])([^"']+)\1[^>]*>([\s\S]*?)<\/voice>/.exec(speak[2]);
    call.lang = speak ? /xml:lang\s*=\s*(["'])([^"']+)\1/.exec(speak[1])?.[2] : undefined;
    call.voice = voice?.[2];
    call.text = voice ? xmlUnescape(voice[3].replace(/<[^>]+>/g, '')) : undefined;
    // Malformed SSML (no speak root with a version and a language, no voice, a stray '<' or '&').
    const wellFormed =
      !!speak &&
      /\bversion\s*=/.test(speak[1]) &&
      !!call.lang &&
      !!voice &&
      !/<(?![a-zA-Z/!?])/.test(voice[3]) &&
      !/&(?!(amp|lt|gt|quot|apos|#\d+|#x[0-9a-f]+);)/i.test(voice[3]);
    if (!wellFormed) return answer(400);
    if (!AZURE_OGG.includes(outputFormat)) {
      // A valid format this fake does not produce; the client under test asks for Ogg/Opus.
      return answer(400, { error: { code: '400', message: `fake: only ${AZURE_OGG.join(', ')} are served` } });
    }
    res.writeHead(200, { 'content-type': 'audio/ogg', 'content-length': audio.length });
    res.end(audio);
  }

  // ---- Control API ---------------------------------------------------------------------------------

  async function control(req: http.IncomingMessage, res: http.ServerResponse, segments: string[]) {
    const [area, key, sub] = segments;
    const method = req.method ?? 'GET';
    const bad = (error: string) => sendJson(res, 400, { error });
    const body = async (): Promise<any> => {
      const parsed = parseJson(await readBody(req));
      if (!parsed.ok) throw new ControlError('the body is not JSON');
      return parsed.value;
    };
    const ok = (extra: Record<string, unknown> = {}) => sendJson(res, 200, { ok: true, ...extra });

    if (area === 'health' && method === 'GET') return sendJson(res, 200, { ok: true, audio: audioSource });

    if (area === 'typebot' && key) {
      if (method === 'PUT' && !sub) {
        const flow = validateFlow(await body());
        if (typeof flow === 'string') return bad(flow);
        flows.set(key, flow);
        return ok();
      }
      if (method === 'GET' && sub === 'calls') return sendJson(res, 200, typebotCalls.get(key) ?? []);
      if (method === 'POST' && sub === 'expire') {
        let expired = 0;
        for (const [id, s] of typebotSessions) {
          if (s.slug !== key) continue;
          typebotSessions.delete(id);
          expired++;
        }
        return ok({ expired });
      }
    }

    if (area === 'hooks' && key) {
      if (method === 'PUT' && !sub) {
        const b = validateHook(await body());
        if (typeof b === 'string') return bad(b);
        hooks.set(key, b);
        hookCounters.delete(key);
        return ok();
      }
      if (method === 'GET' && sub === 'calls') return sendJson(res, 200, hookCalls.get(key) ?? []);
    }

    if (area === 'google') {
      if (method === 'POST' && key === 'service-account') {
        const b = await body();
        if (!isRecord(b) || typeof b.project !== 'string' || !/^[a-z][a-z0-9-]{4,28}[a-z0-9]$/.test(b.project)) {
          return bad('project: 6 to 30 lower-case letters, digits or hyphens, starting with a letter (a Google project id)');
        }
        return sendJson(res, 200, newServiceAccount(b.project));
      }
      if (method === 'POST' && key === 'revoke') {
        const b = await body();
        if (!isRecord(b) || typeof b.client_email !== 'string') return bad('client_email is required');
        const keys = googleKeys.get(b.client_email) ?? [];
        for (const k of keys) k.revoked = true;
        // Access tokens already issued stay valid until they expire, as Google's do.
        return ok({ revoked: keys.length });
      }
      if (method === 'GET' && key === 'tokens' && sub) return sendJson(res, 200, tokenCalls.get(sub) ?? []);
    }

    if (area === 'dialogflow' && key) {
      if (method === 'PUT' && !sub) {
        const script = validateDialogflow(await body());
        if (typeof script === 'string') return bad(script);
        dialogflows.set(key, script);
        return ok();
      }
      if (method === 'GET' && sub === 'calls') return sendJson(res, 200, dialogflowCalls.get(key) ?? []);
    }

    if (area === 'openai' && key) {
      if (method === 'PUT' && !sub) {
        const script = validateOpenAi(await body());
        if (typeof script === 'string') return bad(script);
        openAiScripts.set(key, script);
        openAiState.set(key, { attempts: 0, replied: 0 });
        return ok();
      }
      if (method === 'GET' && sub === 'calls') return sendJson(res, 200, openAiCalls.get(key) ?? { chat: [], transcriptions: [] });
    }

    if (area === 'azure' && key) {
      if (method === 'PUT' && !sub) {
        const raw = await readBody(req);
        let region: string | undefined;
        if (raw.length) {
          const parsed = parseJson(raw);
          if (!parsed.ok || !isRecord(parsed.value)) return bad('the body, when given, is {"region"?: string}');
          if (parsed.value.region !== undefined && typeof parsed.value.region !== 'string') return bad('region must be a string');
          region = parsed.value.region as string | undefined;
        }
        azureKeys.set(key, { region });
        return ok();
      }
      if (method === 'GET' && sub === 'calls') return sendJson(res, 200, azureCalls.get(key) ?? []);
    }

    sendJson(res, 404, { error: `no control route ${method} /__control/${segments.join('/')}` });
  }

  // ---- Routing --------------------------------------------------------------------------------------

  async function route(req: http.IncomingMessage, res: http.ServerResponse) {
    const path = (req.url ?? '/').split('?')[0];
    const method = req.method ?? 'GET';
    let m: RegExpExecArray | null;

    if (path.startsWith('/__control/')) {
      const segments = path.slice('/__control/'.length).split('/').filter(Boolean).map(decodeSegment);
      if (segments.some((s) => s === undefined)) return sendJson(res, 400, { error: 'bad path encoding' });
      return control(req, res, segments as string[]);
    }
    if (method === 'POST' && (m = /^\/api\/v1\/typebots\/([^/]+)\/startChat$/.exec(path))) {
      const slug = decodeSegment(m[1]);
      return slug === undefined ? sendJson(res, 404, { message: 'Typebot not found', code: 'NOT_FOUND' }) : startChat(req, res, slug, path);
    }
    if (method === 'POST' && (m = /^\/api\/v1\/sessions\/([^/]+)\/continueChat$/.exec(path))) {
      return continueChat(req, res, decodeSegment(m[1]) ?? '', path);
    }
    if (method === 'POST' && (m = /^\/hooks\/([^/]+)$/.exec(path))) {
      const id = decodeSegment(m[1]);
      if (id !== undefined) return hook(req, res, id);
    }
    if (method === 'POST' && path === '/token') return token(req, res);
    if (method === 'POST' && (m = /^\/v2\/projects\/([^/]+)\/agent\/sessions\/([^/:]+):detectIntent$/.exec(path))) {
      const project = decodeSegment(m[1]);
      const session = decodeSegment(m[2]);
      if (project !== undefined && session !== undefined) return detectIntent(req, res, project, session);
    }
    if ((m = /^\/openai\/v1\/(.+)$/.exec(path))) return openAi(req, res, m[1]);
    if (method === 'POST' && (m = /^\/azure\/([^/]+)\/cognitiveservices\/v1$/.exec(path))) return azure(req, res, decodeSegment(m[1]) ?? '');
    sendJson(res, 404, { error: `the outside-services fake has no ${method} ${path}` });
  }

  const server = http.createServer((req, res) => {
    route(req, res).catch((err: unknown) => {
      if (res.headersSent) return res.destroy();
      if (err instanceof ControlError) return sendJson(res, 400, { error: err.message });
      if (err instanceof BodyTooLarge) return sendJson(res, 413, { error: 'body too large' });
      sendJson(res, 500, { error: `outside-services fake failed: ${err instanceof Error ? err.message : String(err)}` });
    });
  });
  await listen(server, opts.port ?? 0);
  const address = server.address();
  if (!address || typeof address === 'string') throw new Error('the outside-services fake has no TCP address');
  base = `http://127.0.0.1:${address.port}`;

  let closing: Promise<void> | undefined;
  return {
    url: base,
    audioSource,
    close: () =>
      (closing ??= (async () => {
        for (const r of hanging) r.destroy();
        hanging.clear();
        await closeServer(server);
      })()),
  };
}

class ControlError extends Error {}

// ---------------------------------------------------------------------------------------------
// Control payload validation (a mistyped script fails loudly in the test that sent it).

function validateFlow(v: unknown): TypebotFlow | string {
  if (!isRecord(v) || !Array.isArray(v.steps) || v.steps.length === 0) return 'steps: a non-empty array is required';
  const steps: TypebotStep[] = [];
  for (const [i, s] of v.steps.entries()) {
    if (!isRecord(s) || !Array.isArray(s.messages) || !s.messages.every((m) => typeof m === 'string')) return `steps[${i}].messages: an array of strings is required`;
    let input: TypebotInput | undefined;
    if (s.input !== undefined) {
      if (!isRecord(s.input)) return `steps[${i}].input: an object is required`;
      if (s.input.type === 'text input') input = { type: 'text input' };
      else if (s.input.type === 'choice input' && Array.isArray(s.input.items) && s.input.items.length > 0 && s.input.items.every((x) => typeof x === 'string' && x.trim())) {
        input = { type: 'choice input', items: s.input.items as string[] };
      } else return `steps[${i}].input: {type:'text input'} or {type:'choice input', items: non-empty strings}`;
    }
    steps.push({ messages: s.messages as string[], ...(input ? { input } : {}) });
  }
  return { steps };
}

function validateHook(v: unknown): HookBehaviour | string {
  if (!isRecord(v)) return 'an object with mode is required';
  switch (v.mode) {
    case 'reply':
      return typeof v.reply === 'string' ? { mode: 'reply', reply: v.reply } : 'reply: a string is required';
    case 'status':
      return Number.isInteger(v.status) && (v.status as number) >= 200 && (v.status as number) <= 599 ? { mode: 'status', status: v.status as number } : 'status: an HTTP status is required';
    case 'garbage':
    case 'hang':
    case 'ack':
      return { mode: v.mode };
    case 'failTimes':
      return Number.isInteger(v.times) && (v.times as number) >= 0 && typeof v.reply === 'string' ? { mode: 'failTimes', times: v.times as number, reply: v.reply } : 'times (integer ≥ 0) and reply (string) are required';
    default:
      return "mode: 'reply' | 'status' | 'garbage' | 'hang' | 'failTimes' | 'ack'";
  }
}

function validateDialogflow(v: unknown): DialogflowScript | string {
  if (!isRecord(v) || !Array.isArray(v.intents) || typeof v.fallback !== 'string') return 'intents (array) and fallback (string) are required';
  const intents: DialogflowIntentScript[] = [];
  for (const [i, x] of v.intents.entries()) {
    if (!isRecord(x) || typeof x.match !== 'string' || typeof x.displayName !== 'string' || typeof x.fulfillmentText !== 'string') {
      return `intents[${i}]: match, displayName and fulfillmentText (strings) are required`;
    }
    try {
      new RegExp(x.match, 'i');
    } catch {
      return `intents[${i}].match is not a valid regular expression`;
    }
    intents.push({ match: x.match, displayName: x.displayName, fulfillmentText: x.fulfillmentText, ...(x.endInteraction === true ? { endInteraction: true } : {}) });
  }
  return { intents, fallback: v.fallback };
}

function validateOpenAi(v: unknown): OpenAiScript | string {
  if (!isRecord(v) || !Array.isArray(v.replies) || !v.replies.every((r) => typeof r === 'string')) return 'replies: an array of strings is required';
  if (v.transcription !== undefined && typeof v.transcription !== 'string') return 'transcription must be a string';
  if (v.failTimes !== undefined && (!Number.isInteger(v.failTimes) || (v.failTimes as number) < 0)) return 'failTimes must be an integer ≥ 0';
  if (v.status !== undefined && (!Number.isInteger(v.status) || (v.status as number) < 400 || (v.status as number) > 599)) return 'status must be an HTTP error status (400-599)';
  return {
    replies: v.replies as string[],
    ...(v.transcription !== undefined ? { transcription: v.transcription as string } : {}),
    ...(v.failTimes !== undefined ? { failTimes: v.failTimes as number } : {}),
    ...(v.status !== undefined ? { status: v.status as number } : {}),
  };
}
