import { createHash } from 'node:crypto';
import {
  defaultSchedule,
  fillVariables,
  isOpenAt,
  isValidAnswer,
  outOfHoursPeriod,
  validationOf,
  type ScheduleEntry,
} from '@balcao/shared';
import { batchGet, getItem, updateItem } from '../core/db.js';
import { nowIso, nowMs } from '../core/ports.js';
import { contactKey, keys, ticketKey } from '../table/keys.js';
import type { BotState, CompanyItem, ConnectionItem, ContactItem, QueueItem, QueueOptionItem, TicketItem } from '../table/items.js';
import { sendInTicketWithTicket } from './outbound.js';
import { publishContact } from './contact-api.js';
import { byOptionNumber, listQueueOptionItems } from './queue-options.js';
import { settingValue } from './settings.js';
import { commit, publishTicketChange, Raced } from './ticket-lifecycle.js';
import { handOver } from './automation/index.js';

/**
 * The queue bot (server-behaviour §2 step 7, §4, §5): business hours, the queue menu, a queue's
 * options tree and a FORM queue's fields, for tickets nobody serves yet.
 *
 * Exactly once, whatever repeats: the bot's replies are sent under WhatsApp ids derived from the
 * customer message they answer, so running again for the same message (a redelivery, a crash
 * before the state was saved) stores and sends nothing new; then its state is saved on the ticket
 * with one conditional write (`commit`, which also moves the ticket's counters when it gets a
 * queue). The state names the message it handled, so that message is never answered twice.
 */

export const INVALID_OPTION = 'Opção inválida, por favor, escolha uma opção válida.';
export const AUTO_SELECTED = 'Opção selecionada automaticamente: {queue}';
export const MAIN_MENU_LINE = '*[ # ]* - Menu inicial';
export const PREVIOUS_MENU_LINE = '*[ 0 ]* - Menu anterior';
/** Invalid replies to the queue menu before the first queue is chosen for the customer. */
export const MENU_INVALID_MAX = 3;
/** Invalid answers to a FORM before it gives up (to `nextQueueInvalidFormId`). */
export const FORM_INVALID_MAX = 3;
const DEFAULT_MENU_MAX = 3;

const line = (option: string | number, title: string) => `*[ ${option} ]* - ${title}`;
const joined = (...parts: (string | undefined | null)[]) => parts.filter((p) => p && p.trim()).join('\n\n');

/** The WhatsApp id of the bot's `index`-th reply to customer message `inboundId` (ours: `3EB0` + 16 hex). */
export function botMessageId(inboundId: string, index: number): string {
  return `3EB0${createHash('sha256').update(`bot:${inboundId}:${index}`).digest('hex').slice(0, 16).toUpperCase()}`;
}

interface Facts {
  ticket: TicketItem;
  contact: ContactItem;
  connection: ConnectionItem;
  /** The connection's queues in menu order. */
  queues: QueueItem[];
  scheduleType: string;
  oneQueueGreeting: boolean;
  companySchedules: ScheduleEntry[];
  timeZone: string;
  now: Date;
  body: string;
  optionsOf(queueId: number): Promise<QueueOptionItem[]>;
  queueById(id: number | null | undefined): Promise<QueueItem | undefined>;
}

/** What one customer message makes the bot do. */
export interface BotPlan {
  replies: string[];
  /** The ticket's new queue (undefined: unchanged) and whether the bot goes on. */
  queueId?: number | null;
  chatbot?: boolean;
  bot: BotState;
  /** A FORM answer to keep in the contact's extra info. */
  answer?: { name: string; value: string };
  /** An integration or AI prompt takes the ticket over (§2 step 7 b-c, §4). */
  automation?: { integrationId: number | null; promptId: number | null };
  /** The message goes to the ticket's integration or prompt (services/automation). */
  handOver?: boolean;
}

/** Menu order: `orderQueue` first (unset last), then name (as `GET /queue` lists them). */
export const menuOrder = (a: QueueItem, b: QueueItem) =>
  (a.orderQueue ?? Number.MAX_SAFE_INTEGER) - (b.orderQueue ?? Number.MAX_SAFE_INTEGER) || a.name.localeCompare(b.name, 'pt-BR') || a.id - b.id;

/**
 * The decision for one message (pure apart from reading the options and queues it needs). Answers
 * undefined when the bot has nothing to do and nothing to remember.
 */
export async function decide(f: Facts): Promise<BotPlan | undefined> {
  const st: BotState = { ...f.ticket.bot };
  // An agent wrote in this ticket: no automation of any kind answers it any more.
  if (st.stopped) return undefined;
  const plan: BotPlan = { replies: [], bot: { ...st } };
  const text = f.body.trim();
  const fill = (t: string, queue?: QueueItem) => fillVariables(t, { name: f.contact.name, queue: queue?.name, timeZone: f.timeZone, now: f.now });
  const say = (t: string | undefined | null, queue?: QueueItem) => {
    if (t && t.trim()) plan.replies.push(fill(t, queue));
  };
  const current = await f.queueById(f.ticket.queueId);
  // A queue deleted under the ticket counts as none: the customer meets the menu again.
  const queueId = current ? f.ticket.queueId : null;

  // a. Business hours: out of hours, one answer per period and nothing else; the ticket waits.
  // (`#` still leaves a closed queue for the menu: "`#` always returns to the main menu".)
  const closed =
    f.scheduleType === 'company'
      ? { schedules: f.companySchedules, message: f.connection.outOfHoursMessage }
      : f.scheduleType === 'queue' && current && text !== '#'
        ? { schedules: current.schedules ?? defaultSchedule(), message: current.outOfHoursMessage }
        : undefined;
  if (closed && !isOpenAt(closed.schedules, f.now, f.timeZone)) {
    const period = outOfHoursPeriod(closed.schedules, f.now, f.timeZone);
    if (st.outOfHours === period || !closed.message?.trim()) return undefined;
    say(closed.message, current);
    plan.bot.outOfHours = period;
    return plan;
  }

  /** The ticket's integration or prompt answers from now on (the message that chose it too). */
  const takeOver = (ref: { integrationId?: number | null; promptId?: number | null }) => {
    plan.automation = { integrationId: ref.integrationId ?? null, promptId: ref.integrationId ? null : (ref.promptId ?? null) };
    plan.handOver = true;
    plan.chatbot = false;
    return plan;
  };

  // c. An integration or prompt already running on the ticket receives the message.
  if (f.ticket.useIntegration && (f.ticket.integrationId || f.ticket.promptId)) {
    plan.handOver = true;
    return plan;
  }

  /** Shows a queue's root options (or its first FORM field); the queue's greeting leads. */
  const enterQueue = async (q: QueueItem, opts: { greet: boolean; lead?: string }) => {
    plan.queueId = q.id;
    plan.bot = { ...plan.bot, stage: 'done', invalid: 0, node: null, field: undefined, formInvalid: undefined };
    plan.chatbot = false;
    const greeting = opts.greet ? q.greetingMessage : undefined;
    if (f.scheduleType === 'queue' && !isOpenAt(q.schedules ?? defaultSchedule(), f.now, f.timeZone)) {
      // Closed now: its out-of-hours answer instead of its menu; the ticket waits in the queue.
      const period = outOfHoursPeriod(q.schedules ?? defaultSchedule(), f.now, f.timeZone);
      say(opts.lead);
      if (q.outOfHoursMessage?.trim() && plan.bot.outOfHours !== period) {
        say(q.outOfHoursMessage, q);
        plan.bot.outOfHours = period;
      }
      return;
    }
    if (!st.automationOff && (q.integrationId || q.promptId)) {
      // A queue run by an integration or a prompt: its greeting, then it takes over (§4).
      say(joined(opts.lead, greeting), q);
      takeOver(q.integrationId ? { integrationId: q.integrationId } : { promptId: q.promptId });
      return;
    }
    const options = await f.optionsOf(q.id);
    const roots = options.filter((o) => o.parentId === null).sort(byOptionNumber);
    if (q.type === 'FORM' && roots.length) {
      plan.chatbot = true;
      plan.bot = { ...plan.bot, stage: 'form', field: 0, formInvalid: 0 };
      say(joined(opts.lead, greeting, roots[0].message || roots[0].title), q);
      return;
    }
    if (q.type !== 'FORM' && roots.length) {
      plan.chatbot = true;
      plan.bot = { ...plan.bot, stage: 'options', node: null };
      say(joined(opts.lead, greeting, levelLines(roots, false)), q);
      return;
    }
    say(joined(opts.lead, greeting), q);
  };

  /** The queue menu (greeting + one line per queue), within `maxUseBotQueues`. */
  const sendMenu = (lead?: string) => {
    const max = f.connection.maxUseBotQueues || DEFAULT_MENU_MAX;
    let menus = st.menus ?? 0;
    const quiet = (f.connection.timeUseBotQueues ?? 0) * 60_000;
    if (menus >= max && quiet > 0 && st.menuAt && f.now.getTime() - Date.parse(st.menuAt) >= quiet) menus = 0;
    if (menus >= max) {
      // Capped: the ticket waits for an agent without a queue (remembered, so nothing is re-sent).
      if (st.stage === 'capped' && st.menus === menus && !queueId) return undefined;
      plan.queueId = null;
      plan.chatbot = false;
      plan.bot = { ...plan.bot, stage: 'capped', menus, node: null, field: undefined };
      return plan;
    }
    say(joined(lead, f.connection.greetingMessage, f.queues.map((q, i) => line(i + 1, q.name)).join('\n')));
    plan.queueId = null;
    plan.chatbot = false;
    // A menu offered anew (not a resend after an invalid reply) counts invalid replies from zero.
    const invalid = st.stage === 'menu' && !queueId ? plan.bot.invalid : 0;
    plan.bot = { ...plan.bot, stage: 'menu', menus: menus + 1, menuAt: f.now.toISOString(), node: null, field: undefined, invalid };
    return plan;
  };

  /** `#`: back to the main menu (or, with one queue, to that queue's start). */
  const mainMenu = async () => {
    plan.bot.invalid = 0;
    if (f.queues.length > 1) return sendMenu();
    if (f.queues.length === 1) {
      await enterQueue(f.queues[0], { greet: true });
      return plan;
    }
    return undefined;
  };

  // b. No queue yet and the connection has an AI prompt (or an integration): it answers.
  if (!queueId && !st.automationOff) {
    if (f.connection.promptId) return takeOver({ promptId: f.connection.promptId });
    if (f.connection.integrationId) return takeOver({ integrationId: f.connection.integrationId });
  }

  // d. No queue yet: the connection's greeting, its one queue, or the menu.
  if (!queueId) {
    if (!f.queues.length) {
      if (st.greeted || !f.connection.greetingMessage?.trim()) return undefined;
      say(f.connection.greetingMessage);
      plan.bot.greeted = true;
      return plan;
    }
    if (f.queues.length === 1) {
      await enterQueue(f.queues[0], { greet: true, lead: f.oneQueueGreeting ? f.connection.greetingMessage : undefined });
      return plan;
    }
    if (st.stage !== 'menu') return sendMenu();
    if (text === '#') {
      plan.bot.invalid = 0;
      return sendMenu();
    }
    const n = /^\d{1,3}$/.test(text) ? Number(text) : 0;
    if (n >= 1 && n <= f.queues.length) {
      await enterQueue(f.queues[n - 1], { greet: true });
      return plan;
    }
    const invalid = (st.invalid ?? 0) + 1;
    if (invalid >= MENU_INVALID_MAX) {
      await enterQueue(f.queues[0], { greet: true, lead: AUTO_SELECTED.replace('{queue}', f.queues[0].name) });
      return plan;
    }
    plan.bot.invalid = invalid;
    return sendMenu(INVALID_OPTION);
  }

  // e. In a queue, while its bot runs: the options tree or the FORM.
  if (!f.ticket.chatbot || !current) return undefined;
  if (text === '#') return mainMenu();
  const options = await f.optionsOf(current.id);
  const childrenOf = (id: number | null) => options.filter((o) => o.parentId === id).sort(byOptionNumber);

  if (st.stage === 'form') {
    const fields = childrenOf(null);
    const index = st.field ?? 0;
    const field = fields[index];
    if (!field) return finishForm(current, 'nextQueueId');
    const ok = !field.isValidationField ? text.length > 0 : isValidAnswer(validationOf(field), text);
    if (!ok) {
      const formInvalid = (st.formInvalid ?? 0) + 1;
      if (formInvalid >= FORM_INVALID_MAX) return finishForm(current, 'nextQueueInvalidFormId', formInvalid);
      plan.bot.formInvalid = formInvalid;
      say(field.message || field.title, current);
      return plan;
    }
    plan.answer = { name: field.fieldName || field.title, value: text };
    const next = fields[index + 1];
    if (next) {
      plan.bot.field = index + 1;
      say(next.message || next.title, current);
      return plan;
    }
    return finishForm(current, 'nextQueueId');
  }

  // The options tree.
  const node = st.node ?? null;
  const showing = childrenOf(node);
  const parentOf = (id: number | null) => (id === null ? null : (options.find((o) => o.id === id)?.parentId ?? null));
  const levelOf = (id: number | null, lead?: string) => {
    const o = id === null ? undefined : options.find((x) => x.id === id);
    say(joined(lead, o?.message, levelLines(childrenOf(id), id !== null)), current);
    plan.bot = { ...plan.bot, stage: 'options', node: id, invalid: 0 };
    return plan;
  };
  if (text === '0') return levelOf(parentOf(node));
  const chosen = showing.find((o) => o.option === text.replace(/^0+(?=\d)/, ''));
  if (!chosen) {
    levelOf(node, INVALID_OPTION);
    plan.bot.invalid = (st.invalid ?? 0) + 1;
    return plan;
  }
  if (childrenOf(chosen.id).length) return levelOf(chosen.id);
  // A leaf: its message, then the bot ends (the ticket waits in the queue) or moves to another queue.
  const target = chosen.transferToQueueId ? await f.queueById(chosen.transferToQueueId) : undefined;
  if (target) {
    await enterQueue(target, { greet: true, lead: chosen.message });
    return plan;
  }
  say(chosen.message, current);
  plan.chatbot = false;
  plan.bot = { ...plan.bot, stage: 'done', invalid: 0 };
  return plan;

  async function finishForm(queue: QueueItem, where: 'nextQueueId' | 'nextQueueInvalidFormId', formInvalid?: number): Promise<BotPlan> {
    const target = await f.queueById(queue[where]);
    if (target && target.id !== queue.id) {
      // A fresh start there (its own FORM counts its own invalid answers).
      await enterQueue(target, { greet: true });
    } else {
      plan.chatbot = false;
      plan.bot = { ...plan.bot, stage: 'done', ...(formInvalid !== undefined ? { formInvalid } : {}) };
    }
    return plan;
  }
}

/** One level of a tree: its options, `0` to go up (below the root) and `#` for the main menu. */
function levelLines(options: QueueOptionItem[], withPrevious: boolean): string {
  return [...options.map((o) => line(o.option, o.title)), ...(withPrevious ? [PREVIOUS_MENU_LINE] : []), MAIN_MENU_LINE].join('\n');
}

/** Whether the bot may answer on this ticket at all (§2 step 7). */
export function botMayAnswer(ticket: TicketItem, contact: ContactItem, message: BotMessage): boolean {
  if (message.fromMe || ticket.isGroup || contact.isGroup || contact.disableBot || ticket.status !== 'pending' || ticket.userId) return false;
  return ticket.bot?.handled !== message.id && message.seq > (ticket.bot?.handledSeq ?? 0);
}

/** The customer message the bot answers, as stored in the ticket. */
export type BotMessage = { id: string; seq: number; body: string; fromMe: boolean; createdAt?: string };

/** When the customer wrote (WhatsApp's timestamp, kept with the message), else now. */
function messageTime(m: BotMessage): Date {
  const t = m.createdAt ? Date.parse(m.createdAt) : NaN;
  return new Date(Number.isFinite(t) ? t : nowMs());
}

/**
 * Runs the bot for one customer message already stored in `ticket` (server-behaviour §2 step 7).
 * Safe to call again for the same message (see the module's comment).
 */
export async function runBot(input: { ticket: TicketItem; contact: ContactItem; connection: ConnectionItem; message: BotMessage }): Promise<void> {
  const { contact, connection, message } = input;
  let ticket = input.ticket;
  // Handed over before a crash could enqueue it: again (the automation queue drops a duplicate).
  if (ticket.bot?.handled === message.id && ticket.bot.handedOver === message.id && ticket.useIntegration) return handOver(ticket, message);
  if (!botMayAnswer(ticket, contact, message)) return;
  const { companyId } = ticket;
  // The tree of the queue the bot is walking is read in the same round as the rest.
  const currentOptions = ticket.queueId && ticket.chatbot ? listQueueOptionItems(companyId, ticket.queueId) : undefined;
  currentOptions?.catch(() => undefined); // read only if the decision needs it; its failure surfaces there
  const [scheduleType, oneQueueGreeting, timeZone, company, queueItems] = await Promise.all([
    settingValue(companyId, 'scheduleType'),
    settingValue(companyId, 'sendGreetingMessageOneQueues'),
    settingValue(companyId, 'timezone'),
    getItem<CompanyItem>(keys.company(companyId)),
    connection.queueIds?.length ? batchGet<QueueItem>(connection.queueIds.map((id) => keys.queue(companyId, id))) : Promise.resolve([] as QueueItem[]),
  ]);
  const queues = queueItems.sort(menuOrder);
  const known = new Map(queues.map((q) => [q.id, q]));
  const optionCache = new Map<number, Promise<QueueOptionItem[]>>();
  if (ticket.queueId && ticket.chatbot) optionCache.set(ticket.queueId, currentOptions!);
  const plan = await decide({
    ticket,
    contact,
    connection,
    queues,
    scheduleType,
    oneQueueGreeting: oneQueueGreeting === 'enabled',
    companySchedules: company?.schedules ?? defaultSchedule(),
    timeZone,
    // The message's own time, not the clock: a rerun after a crash decides exactly as the first run.
    now: messageTime(message),
    body: message.body,
    optionsOf: (queueId) => {
      let p = optionCache.get(queueId);
      if (!p) optionCache.set(queueId, (p = listQueueOptionItems(companyId, queueId)));
      return p;
    },
    queueById: async (id) => {
      if (!id) return undefined;
      if (!known.has(id)) {
        const q = await getItem<QueueItem>(keys.queue(companyId, id));
        if (q) known.set(id, q);
      }
      return known.get(id);
    },
  });
  if (!plan) return;

  // The replies first, under ids derived from the message: a second run sends none of them again.
  for (const [i, body] of plan.replies.entries()) {
    const sent = await sendInTicketWithTicket(ticket, { body, id: botMessageId(message.id, i), isBot: true }, { contact, connection });
    ticket = sent.ticket ?? (await getItem<TicketItem>(ticketKey(companyId, ticket.id), true)) ?? ticket;
  }
  if (plan.answer) await keepAnswer(contact, plan.answer);

  // Then the state, once: conditional on the ticket as read. After a concurrent change the plan is
  // applied only if what it was decided on is unchanged (an agent's stop, a transfer meanwhile win);
  // otherwise only the message is recorded as handled.
  const decidedOn = botInputs(ticket);
  for (let attempt = 0; attempt < 8; attempt++) {
    const current = attempt === 0 ? ticket : await getItem<TicketItem>(ticketKey(companyId, ticket.id), true);
    if (!current || !botMayAnswer(current, contact, message)) return;
    const handled = { handled: message.id, handledSeq: message.seq };
    const applies = botInputs(current) === decidedOn;
    const next: TicketItem = applies
      ? {
          ...current,
          bot: { ...plan.bot, ...handled, ...(plan.handOver ? { handedOver: message.id } : {}) },
          ...(plan.queueId !== undefined ? { queueId: plan.queueId } : {}),
          ...(plan.chatbot !== undefined ? { chatbot: plan.chatbot } : {}),
          // A new run begins at this message; what was answered before stays answered.
          ...(plan.automation
            ? {
                useIntegration: true,
                integrationId: plan.automation.integrationId,
                promptId: plan.automation.promptId,
                automation: { handled: current.automation?.handled, handledSeq: current.automation?.handledSeq, since: message.seq },
              }
            : {}),
        }
      : { ...current, bot: { ...current.bot, ...handled } };
    try {
      await commit(current, next);
      if (next.queueId !== current.queueId || next.chatbot !== current.chatbot || next.useIntegration !== current.useIntegration) await publishTicketChange(next, 'update', current);
      if (applies && plan.handOver) await handOver(next, message);
      return;
    } catch (err) {
      if (!(err instanceof Raced)) throw err;
      await backoff(attempt);
    }
  }
  // The replies went out; the queue delivers the message again and the rerun saves the state.
  throw new Error(`bot state of ticket ${ticket.id} not saved after concurrent changes`);
}

/** What a decision depends on in the ticket (the bot's own bookkeeping of handled messages aside). */
function botInputs(t: TicketItem): string {
  const { handled: _h, handledSeq: _s, ...bot } = t.bot ?? {};
  return JSON.stringify([
    t.queueId ?? null,
    !!t.chatbot,
    t.userId ?? null,
    t.status,
    !!t.useIntegration,
    t.integrationId ?? null,
    t.promptId ?? null,
    Object.entries(bot).sort(([a], [b]) => a.localeCompare(b)),
  ]);
}

/**
 * A lost race is often a transaction conflict on a shared list counter (many tickets entering one
 * queue at once), not a change of this ticket: retrying at once would collide again.
 */
const backoff = (attempt: number) => new Promise((r) => setTimeout(r, Math.random() * 15 * 2 ** attempt));

/**
 * A FORM answer goes into the contact's extra info under the field's name (replacing an older one),
 * within what the contact form accepts (values of 1 000 characters, 50 entries: the oldest goes).
 */
async function keepAnswer(contact: ContactItem, answer: { name: string; value: string }) {
  const entry = { name: answer.name.slice(0, 100), value: answer.value.slice(0, 1000) };
  for (let attempt = 0; attempt < 6; attempt++) {
    const c = attempt === 0 ? contact : await getItem<ContactItem>(contactKey(contact.companyId, contact.id), true);
    if (!c) return;
    const extraInfo = [...(c.extraInfo ?? []).filter((x) => x.name !== entry.name), entry].slice(-50);
    try {
      // updatedAt moves: an agent's edit prepared from an older read reads again instead of dropping it.
      const updated = await updateItem<ContactItem>(contactKey(c.companyId, c.id), { extraInfo, updatedAt: nowIso() }, { condition: 'attribute_exists(PK) AND updatedAt = :seen', values: { ':seen': c.updatedAt } });
      await publishContact(c.companyId, updated, 'update');
      return;
    } catch (err) {
      if ((err as { name?: string }).name !== 'ConditionalCheckFailedException') throw err;
      await backoff(attempt);
    }
  }
  throw new Error(`FORM answer not kept on contact ${contact.id} after concurrent changes`);
}

/**
 * An agent wrote in a ticket nobody had accepted: no automation answers it any more (§2 step 7). Called
 * before the agent's message goes out, so a quick reply of the customer meets the agent, not the bot.
 */
export async function stopBot(ticket: TicketItem): Promise<void> {
  for (let attempt = 0; attempt < 8; attempt++) {
    const current = attempt === 0 ? ticket : await getItem<TicketItem>(ticketKey(ticket.companyId, ticket.id), true);
    if (!current || current.userId || current.bot?.stopped) return;
    try {
      // A running integration or prompt stops too (the ticket shows it no more).
      await commit(current, { ...current, chatbot: false, useIntegration: false, integrationId: null, promptId: null, bot: { ...current.bot, stage: 'done', stopped: true } });
      return;
    } catch (err) {
      if (!(err instanceof Raced)) throw err;
      await backoff(attempt);
    }
  }
  throw new Error(`the bot of ticket ${ticket.id} could not be stopped`);
}
