import { createHash } from 'node:crypto';
import { z } from 'zod';
import type { PlanFlag } from '@balcao/shared';
import { getItem, tx, type TransactItem } from '../../core/db.js';
import { loadCompanyAndPlan } from '../../core/identity.js';
import { count, log } from '../../core/observability.js';
import { nowIso, nowMs, ports, table } from '../../core/ports.js';
import { contactKey, currentMarker, keys, messageSk, ticketKey } from '../../table/keys.js';
import type { AutomationReply, AutomationState, ContactItem, CurrentTicketMarker, MessageItem, QueueItem, TicketItem, UserItem } from '../../table/items.js';
import { openIntegration, openPrompt } from '../integrations.js';
import { findMessage } from '../message-lookup.js';
import { peerOf, sendInTicketWithTicket } from '../outbound.js';
import { sendCommand } from '../../core/commands.js';
import { Raced, commit, laterThan, publishTicketChange } from '../ticket-lifecycle.js';
import { complete, synthesize, transcribe, type ChatTurn } from './ai.js';
import { detectIntent } from './dialogflow.js';
import { OutsideError } from './outside.js';
import { typebotTurn, type TypebotCommand } from './typebot.js';
import { webhookTurn } from './webhook.js';

/**
 * A ticket's integration or AI prompt at work (server-behaviour §2 step 7 b-c, §9; decision 51).
 * The queue bot hands each customer message over (`handOver`) to a FIFO queue grouped per ticket;
 * the worker calls the outside service there, never inside the ingest's transaction, so a slow
 * provider delays only its own conversation.
 *
 * Exactly once, whatever repeats: the answer decided for a message is saved on the ticket first
 * (`automation.outbox`, naming the message as handled) and only then sent, each part under a
 * WhatsApp id derived from the message; a rerun sends what is left under the same ids, and never
 * asks the outside service again. A failing service is retried later (the ticket's group waits),
 * and after the last attempt the ticket falls back to waiting for an agent.
 */

export const automationJobSchema = z.object({
  v: z.literal(1),
  companyId: z.number().int().positive(),
  ticketId: z.number().int().positive(),
  messageId: z.string().min(1),
  seq: z.number().int().nonnegative(),
});
export type AutomationJob = z.infer<typeof automationJobSchema>;

/** Tries per message before the ticket falls back to an agent, and the waits between them (seconds). */
export const AUTOMATION_ATTEMPTS = 4;
export const RETRY_DELAYS_S = [5, 20, 60];

/** The job's failure is to be tried again after `seconds`. */
export class RetryLater extends Error {
  constructor(readonly seconds: number, cause: unknown) {
    super(`retry in ${seconds}s: ${(cause as Error)?.message ?? cause}`);
  }
}

/** The WhatsApp id of the `index`-th part of the automated answer to customer message `inboundId`. */
export function automationMessageId(inboundId: string, index: number): string {
  return `3EB0${createHash('sha256').update(`auto:${inboundId}:${index}`).digest('hex').slice(0, 16).toUpperCase()}`;
}

/** Hands one stored customer message to the ticket's integration or prompt (idempotent per message). */
export async function handOver(ticket: Pick<TicketItem, 'companyId' | 'id'>, message: { id: string; seq: number }) {
  const job: AutomationJob = { v: 1, companyId: ticket.companyId, ticketId: ticket.id, messageId: message.id, seq: message.seq };
  await ports().jobs.enqueueOrdered('automation', job, `t-${ticket.companyId}-${ticket.id}`, createHash('sha256').update(`${ticket.companyId}:${ticket.id}:${message.id}`).digest('hex'));
}

/** What an answer does to the ticket once its parts are sent. */
export interface TicketChange {
  /** Hands the ticket to this queue (Typebot command, the AI's transfer phrase). */
  queueId?: number;
  /** …and to this agent (Typebot command): the ticket opens with them. */
  userId?: number;
  /** The automation ends; the ticket waits for an agent where it is. */
  stop?: boolean;
  /** Typebot's finish keyword: the ticket closes. */
  close?: boolean;
}

type Decided = { replies: AutomationReply[]; state: Partial<AutomationState>; change?: TicketChange; pace?: number };

const eligible = (t: TicketItem | undefined): t is TicketItem =>
  !!t && t.status === 'pending' && !t.userId && !!t.useIntegration && !t.bot?.stopped && !!(t.integrationId || t.promptId);

export type AutomationOutcome = 'answered' | 'resent' | 'skipped' | 'fellBack';

/** The parts of one answer are paced within this much in all (the worker's run must hold them). */
export const MAX_PACING_MS = 20_000;
/** Answers an outside service gives when retrying cannot help (bad credentials, no access). */
const PERMANENT_STATUSES = new Set([401, 403]);

const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));
const jitter = (attempt: number) => pause(Math.random() * 15 * 2 ** attempt);

/**
 * Runs one job. Failures are counted per customer message on the ticket (`automation.failing`),
 * not by the queue's receive count (held-back messages count receives without being tried).
 * Throws `RetryLater` to be tried again.
 */
export async function runAutomationJob(job: AutomationJob): Promise<AutomationOutcome> {
  const ticket = await getItem<TicketItem>(ticketKey(job.companyId, job.ticketId), true);
  if (!eligible(ticket)) return 'skipped';
  const st = ticket.automation ?? {};
  if (st.handled === job.messageId) {
    if (!st.outbox?.length && !st.after) return 'skipped';
    await deliver(ticket, true);
    return 'resent';
  }
  // Answered already, or a message from before this run of the automation began (an older cycle).
  if ((st.handledSeq ?? 0) >= job.seq || job.seq < (st.since ?? 0)) return 'skipped';

  const [message, contact] = await Promise.all([
    findMessage(job.companyId, job.messageId, ticket.whatsappId),
    getItem<ContactItem>(contactKey(job.companyId, ticket.contactId)),
  ]);
  if (!message || !contact) return 'skipped';
  const which = ticket.promptId ? { kind: 'prompt' as const, id: ticket.promptId } : { kind: 'integration' as const, id: ticket.integrationId! };
  const flag: PlanFlag = which.kind === 'prompt' ? 'useOpenAi' : 'useIntegrations';
  const { plan } = await loadCompanyAndPlan(job.companyId, true);
  if (!plan?.[flag]) return fallBack(ticket, `the plan has no ${flag}`, which);

  let decided: Decided | undefined;
  try {
    decided = which.kind === 'prompt' ? await promptTurn(ticket, contact, message, which.id) : await integrationTurn(ticket, contact, message, which.id);
  } catch (err) {
    const reason = err instanceof OutsideError ? `${err.reason}${err.status ? ` ${err.status}` : ''}` : 'error';
    const attempt = (st.failing === job.messageId ? (st.failures ?? 0) : 0) + 1;
    log.error('automation call failed', { companyId: job.companyId, ticketId: job.ticketId, [`${which.kind}Id`]: which.id, attempt, reason, err });
    count('AutomationFailures');
    const permanent = err instanceof OutsideError && (err.reason === 'blocked' || (err.status !== undefined && PERMANENT_STATUSES.has(err.status)));
    if (permanent || attempt >= AUTOMATION_ATTEMPTS) return fallBack(ticket, `${reason} after ${attempt} attempt(s)`, which);
    await countFailure(ticket, job.messageId, attempt);
    throw new RetryLater(RETRY_DELAYS_S[Math.min(attempt, RETRY_DELAYS_S.length) - 1], err);
  }
  if (!decided) return fallBack(ticket, `${which.kind} ${which.id} no longer exists`, which);

  // Saved before anything is sent (see the module's comment); over a concurrent change, only if the
  // ticket is still this run's (an agent, a new cycle or another run since win).
  let saved: TicketItem | undefined;
  for (let attempt = 0; attempt < 8 && !saved; attempt++) {
    const current = attempt === 0 ? ticket : await getItem<TicketItem>(ticketKey(job.companyId, job.ticketId), true);
    if (!eligible(current) || (current.automation?.handledSeq ?? 0) >= job.seq || current.automation?.since !== st.since) return 'skipped';
    const next: TicketItem = {
      ...current,
      automation: {
        ...current.automation,
        ...decided.state,
        handled: job.messageId,
        handledSeq: job.seq,
        failing: undefined,
        failures: undefined,
        outbox: decided.replies,
        pace: Math.min(decided.pace ?? 0, Math.floor(MAX_PACING_MS / Math.max(1, decided.replies.length))),
        after: decided.change,
      },
    };
    try {
      saved = await commit(current, next);
    } catch (err) {
      if (!(err instanceof Raced)) throw err;
      await jitter(attempt);
    }
  }
  if (!saved) throw new Error(`automation state of ticket ${job.ticketId} not saved after concurrent changes`);
  await deliver(saved, false);
  return 'answered';
}

/** Remembers a failed try of this message on the ticket (best effort: a lost race tries again sooner). */
async function countFailure(ticket: TicketItem, messageId: string, failures: number) {
  try {
    await commit(ticket, { ...ticket, automation: { ...ticket.automation, failing: messageId, failures } });
  } catch (err) {
    if (!(err instanceof Raced)) throw err;
  }
}

/**
 * Sends the saved answer's parts (each once: derived ids), then applies its ticket change. Before
 * each part the ticket is read again: once an agent has it (or the automation ended), the parts
 * left are dropped. A part already sent (a rerun) is neither waited for nor typed again.
 */
async function deliver(ticket: TicketItem, resumed: boolean): Promise<void> {
  const st = ticket.automation ?? {};
  const outbox = st.outbox ?? [];
  const inboundId = st.handled!;
  let t = ticket;
  const contact = outbox.length && st.pace ? await getItem<ContactItem>(contactKey(ticket.companyId, ticket.contactId)) : undefined;
  for (const [i, reply] of outbox.entries()) {
    const id = automationMessageId(inboundId, i);
    // Only a rerun can find a part already out (a first run's parts are all new).
    if (resumed && (await findMessage(ticket.companyId, id, ticket.whatsappId))) continue;
    if (i > 0) {
      const now = await getItem<TicketItem>(ticketKey(ticket.companyId, ticket.id), true);
      if (!eligible(now) || now.automation?.handled !== inboundId) return settle(ticket, inboundId);
      t = now;
    }
    if (contact && st.pace) {
      // "typing…" (or recording) for the pause before each part, as a person would (§9).
      const state = reply.kind === 'voice' ? 'recording' : 'composing';
      await sendCommand({ type: 'presence', companyId: ticket.companyId, connectionId: ticket.whatsappId, to: peerOf(contact), state, commandId: `presence-${id}` }).catch((err) =>
        log.warn('presence not sent', { err, ticketId: ticket.id }),
      );
      await pause(st.pace);
    }
    const out =
      reply.kind === 'text'
        ? { body: reply.body, id, isBot: true }
        : { body: '', id, isBot: true, media: { key: reply.key, mimetype: reply.mimetype, size: reply.size, ptt: true, fileName: 'audio.ogg', mediaType: 'audio' as const } };
    const sent = await sendInTicketWithTicket(t, out);
    t = sent.ticket ?? t;
  }
  await settle(ticket, inboundId, st.after);
}

/**
 * Clears the answer of customer message `inboundId` from the ticket, applying its `change` while
 * the ticket is still the automation's (without one: what is left of the answer is dropped).
 */
async function settle(ticket: TicketItem, inboundId: string, change?: TicketChange): Promise<void> {
  for (let attempt = 0; attempt < 8; attempt++) {
    const current = await getItem<TicketItem>(ticketKey(ticket.companyId, ticket.id), true);
    if (!current || current.automation?.handled !== inboundId) return;
    if (!current.automation.outbox?.length && !current.automation.after) return;
    const cleared: TicketItem = { ...current, automation: { ...current.automation, outbox: undefined, after: undefined } };
    try {
      if (change && eligible(current)) await applyChange(current, cleared, change);
      else await commit(current, cleared);
      return;
    } catch (err) {
      if (!(err instanceof Raced)) throw err;
      await jitter(attempt);
    }
  }
  throw new Error(`automation of ticket ${ticket.id} could not settle its answer`);
}

/** The automation is over on this ticket: it waits for an agent (and the bot does not hand it over again). */
function stopped(t: TicketItem): TicketItem {
  return { ...t, useIntegration: false, integrationId: null, promptId: null, chatbot: false, bot: { ...t.bot, stage: 'done', automationOff: true } };
}

async function applyChange(current: TicketItem, base: TicketItem, change: TicketChange): Promise<void> {
  const companyId = current.companyId;
  let next = stopped(base);
  const now = laterThan(current.updatedAt);
  const extra: TransactItem[] = [];
  if (change.close) {
    next = { ...next, status: 'closed', finishedAt: now, unreadMessages: 0, awaitingRatingUntil: null, updatedAt: now };
    const marker = await getItem<CurrentTicketMarker>(currentMarker(companyId, current.whatsappId, current.contactId), true);
    if (marker?.ticketId === current.id) {
      extra.push(tx.update(currentMarker(companyId, current.whatsappId, current.contactId), 'SET #s = :c, closedAt = :at', { ':c': 'closed', ':at': now, ':t': current.id }, 'ticketId = :t', { '#s': 'status' }));
    }
  } else {
    if (change.queueId) {
      const queue = await getItem<QueueItem>(keys.queue(companyId, change.queueId));
      if (queue) next = { ...next, queueId: queue.id, updatedAt: now };
      else log.warn('automation named a queue that does not exist', { companyId, ticketId: current.id, queueId: change.queueId });
    }
    if (change.userId) {
      const user = await getItem<UserItem>(keys.user(companyId, change.userId));
      if (user) next = { ...next, status: 'open', userId: user.id, startedAt: now, updatedAt: now };
      else log.warn('automation named a user that does not exist', { companyId, ticketId: current.id, userId: change.userId });
    }
  }
  const saved = await commit(current, next, extra, () => new Raced());
  await publishTicketChange(saved, 'update', current);
}

/** After the last failed attempt (or without its feature): the ticket waits for an agent. */
async function fallBack(ticket: TicketItem, why: string, which: { kind: string; id: number }): Promise<AutomationOutcome> {
  log.warn('automation falls back to an agent', { companyId: ticket.companyId, ticketId: ticket.id, [`${which.kind}Id`]: which.id, why });
  count('AutomationFallbacks');
  for (let attempt = 0; attempt < 8; attempt++) {
    const current = attempt === 0 ? ticket : await getItem<TicketItem>(ticketKey(ticket.companyId, ticket.id), true);
    // Another run of the automation began meanwhile (a new cycle): this one's failure is not its.
    if (!eligible(current) || current.automation?.since !== ticket.automation?.since) return 'skipped';
    try {
      const saved = await commit(current, stopped(current));
      await publishTicketChange(saved, 'update', current);
      return 'fellBack';
    } catch (err) {
      if (!(err instanceof Raced)) throw err;
      await jitter(attempt);
    }
  }
  throw new Error(`ticket ${ticket.id} could not fall back to an agent`);
}

// ------------------------------------------------------------------ runtimes

const firstName = (name: string) => name.trim().split(/\s+/)[0] ?? '';

/** Transcription APIs tell the format by the file's extension: one that matches the audio's type. */
function voiceFileName(mimetype: string): string {
  const type = mimetype.split(';')[0]!.trim().toLowerCase();
  const ext: Record<string, string> = { 'audio/ogg': 'ogg', 'audio/opus': 'ogg', 'audio/mpeg': 'mp3', 'audio/mp4': 'm4a', 'audio/aac': 'm4a', 'audio/webm': 'webm', 'audio/wav': 'wav', 'audio/x-wav': 'wav' };
  return `voice.${ext[type] ?? 'ogg'}`;
}

async function integrationTurn(ticket: TicketItem, contact: ContactItem, message: MessageItem, id: number): Promise<Decided | undefined> {
  const integ = await openIntegration(ticket.companyId, id);
  if (!integ) return undefined;
  const st = ticket.automation ?? {};
  const text = message.body ?? '';
  if (integ.type === 'typebot') {
    const turn = await typebotTurn(integ, { text, number: contact.number, pushName: contact.name, state: st, now: nowMs() });
    return { replies: turn.replies.map((body) => ({ kind: 'text', body })), state: turn.state, change: turn.finish ? { close: true } : commandChange(turn.command), pace: integ.typebotDelayMessage };
  }
  if (integ.type === 'dialogflow') {
    const turn = await detectIntent({
      jsonContent: integ.jsonContent ?? '',
      projectName: integ.projectName,
      language: integ.language ?? 'pt-BR',
      sessionId: `balcao-${ticket.companyId}-${ticket.id}`,
      text: text || '[mídia]',
    });
    return { replies: turn.replies.map((body) => ({ kind: 'text', body })), state: { lastAt: nowIso() }, change: turn.end ? { stop: true } : undefined };
  }
  const turn = await webhookTurn(integ, { ticket, contact, message, text });
  return { replies: turn.replies.map((body) => ({ kind: 'text', body })), state: { lastAt: nowIso() } };
}

function commandChange(c: TypebotCommand | undefined): TicketChange | undefined {
  if (!c) return undefined;
  if ('stopBot' in c) return { stop: true };
  return { queueId: c.queueId, ...(c.userId ? { userId: c.userId } : {}) };
}

/** The latest `max` messages of the ticket up to `seq`, oldest first, as the model's conversation. */
async function history(ticket: TicketItem, seq: number, max: number): Promise<MessageItem[]> {
  const low = Math.max(1, seq - max + 1);
  const out = await table().query({
    TableName: process.env.TABLE_NAME!,
    KeyConditionExpression: 'PK = :pk AND SK BETWEEN :lo AND :hi',
    ExpressionAttributeValues: { ':pk': ticket.PK, ':lo': messageSk(low), ':hi': messageSk(seq) },
    // The customer's latest messages were written a moment ago.
    ConsistentRead: true,
  });
  return ((out.Items ?? []) as MessageItem[]).filter((m) => m.entity === 'message');
}

async function promptTurn(ticket: TicketItem, contact: ContactItem, message: MessageItem, id: number): Promise<Decided | undefined> {
  const prompt = await openPrompt(ticket.companyId, id);
  if (!prompt) return undefined;
  let text = message.body ?? '';
  if (message.mediaType === 'audio' && message.media) {
    // A voice note: its words are what the customer said.
    const audio = await ports().media.readStart(message.media.key, message.media.size);
    text = await transcribe(prompt, audio, message.media.mimetype, voiceFileName(message.media.mimetype));
  }
  const turns: ChatTurn[] = [];
  for (const m of await history(ticket, message.seq, prompt.maxMessages)) {
    const content = m.id === message.id ? text : m.isDeleted ? '' : m.body;
    if (content?.trim()) turns.push({ role: m.fromMe ? 'assistant' : 'user', content });
  }
  if (!turns.length || turns[turns.length - 1].role !== 'user') turns.push({ role: 'user', content: text || '[mídia]' });
  const answer = await complete(prompt, firstName(contact.name), turns);
  const change: TicketChange | undefined = answer.transfer ? { queueId: prompt.queueId, stop: true } : undefined;
  const replies: AutomationReply[] = [];
  if (answer.text) {
    if (prompt.voice !== 'texto' && prompt.voiceKey && prompt.voiceRegion) {
      const audio = await synthesize({ voice: prompt.voice, voiceKey: prompt.voiceKey, voiceRegion: prompt.voiceRegion }, answer.text);
      const key = `c/${ticket.companyId}/automation/${ticket.id}/${message.id}.ogg`;
      await ports().media.put(key, audio, 'audio/ogg; codecs=opus');
      replies.push({ kind: 'voice', key, size: audio.length, mimetype: 'audio/ogg; codecs=opus' });
    } else replies.push({ kind: 'text', body: answer.text });
  }
  return { replies, state: { lastAt: nowIso() }, change };
}
