import type { AutomationState, QueueIntegrationItem } from '../../table/items.js';
import { callOutside, jsonOf, OutsideError } from './outside.js';

/**
 * Typebot (server-behaviour §9), its public chat API v1: `startChat` with the customer's number and
 * name prefilled, then `continueChat` with each reply. What the bot says becomes WhatsApp text
 * (rich text's bold and italic as *…* and _…_), a choice input becomes numbered lines the customer
 * answers by number, and a text that starts with `#` and JSON is a command for us, never shown.
 */

export type TypebotCommand = { queueId: number; userId?: number } | { stopBot: true };

export interface TypebotTurn {
  replies: string[];
  state: Pick<AutomationState, 'sessionId' | 'lastAt' | 'choices' | 'inputId'>;
  command?: TypebotCommand;
  /** The customer typed the finish keyword: the ticket closes. */
  finish?: boolean;
}

interface RichNode {
  text?: string;
  bold?: boolean;
  italic?: boolean;
  strikethrough?: boolean;
  type?: string;
  url?: string;
  children?: RichNode[];
}
interface TypebotMessage {
  type: string;
  content?: { type?: string; richText?: RichNode[]; markdown?: string; plainText?: string; url?: string };
}
interface TypebotAnswer {
  sessionId?: string;
  messages?: TypebotMessage[];
  input?: { id?: string; type: string; items?: { id?: string; content?: string }[] };
}

/** Slate rich text (Typebot's default bubble format) to WhatsApp's marks, one paragraph per line. */
export function richTextToWhatsApp(nodes: RichNode[] | undefined): string {
  const leaf = (n: RichNode): string => {
    if (n.children) return n.children.map(leaf).join('');
    let t = n.text ?? '';
    if (!t.trim()) return t;
    if (n.bold) t = `*${t}*`;
    if (n.italic) t = `_${t}_`;
    if (n.strikethrough) t = `~${t}~`;
    return t;
  };
  return (nodes ?? []).map(leaf).join('\n').trim();
}

function bubbleText(m: TypebotMessage): string | undefined {
  if (m.type !== 'text' || !m.content) return m.content?.url ?? undefined;
  if (m.content.richText) return richTextToWhatsApp(m.content.richText);
  return (m.content.markdown ?? m.content.plainText ?? '').trim() || undefined;
}

/** `#{"queueId":2}`, `#{"queueId":2,"userId":5}`, `#{"stopBot":true}`; anything else is not a command. */
export function parseCommand(text: string): TypebotCommand | undefined {
  if (!text.startsWith('#')) return undefined;
  try {
    const v = JSON.parse(text.slice(1)) as Record<string, unknown>;
    if (v.stopBot === true) return { stopBot: true };
    const queueId = Number(v.queueId);
    if (Number.isInteger(queueId) && queueId > 0) {
      const userId = Number(v.userId);
      return Number.isInteger(userId) && userId > 0 ? { queueId, userId } : { queueId };
    }
  } catch {
    // not JSON: an ordinary text that starts with #
  }
  return undefined;
}

const same = (a: string, b: string | null | undefined) => !!b && a.trim().toLowerCase() === b.trim().toLowerCase();

export async function typebotTurn(
  integ: QueueIntegrationItem,
  input: { text: string; number: string; pushName: string; state: AutomationState; now: number },
): Promise<TypebotTurn> {
  const base = (integ.urlN8N ?? '').replace(/\/+$/, '');
  const text = input.text.trim();
  if (same(text, integ.typebotKeywordFinish)) return { replies: [], state: { sessionId: null, choices: null }, finish: true };

  const start = async (lead?: string | null): Promise<TypebotTurn> => {
    const answer = jsonOf<TypebotAnswer>(
      'typebot',
      await callOutside('typebot', `${base}/api/v1/typebots/${encodeURIComponent(integ.typebotSlug ?? '')}/startChat`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ isStreamEnabled: false, textBubbleContentFormat: 'richText', prefilledVariables: { number: input.number, pushName: input.pushName } }),
      }),
    );
    if (!answer.sessionId) throw new OutsideError('typebot', 'garbage', 'startChat answered without a sessionId');
    const turn = turnOf(answer, answer.sessionId);
    if (lead?.trim()) turn.replies.unshift(lead);
    return turn;
  };
  const turnOf = (answer: TypebotAnswer, sessionId: string, unknown?: boolean): TypebotTurn => {
    const replies: string[] = [];
    // Typebot refused the reply (it asks the same input again after its retry bubble): the
    // integration's own unknown-input message instead of Typebot's (English by default) retry text.
    if (unknown && integ.typebotUnknownMessage?.trim()) answer = { ...answer, messages: [{ type: 'text', content: { markdown: integ.typebotUnknownMessage } }] };
    let command: TypebotCommand | undefined;
    for (const m of answer.messages ?? []) {
      const t = bubbleText(m);
      if (!t) continue;
      const c = parseCommand(t);
      if (c) command ??= c;
      else replies.push(t);
    }
    let choices: string[] | null = null;
    if (answer.input?.type === 'choice input' && answer.input.items?.length) {
      choices = answer.input.items.map((i) => i.content ?? '').filter(Boolean);
      const lines = choices.map((c, i) => `*[ ${i + 1} ]* - ${c}`).join('\n');
      if (replies.length) replies[replies.length - 1] = `${replies[replies.length - 1]}\n\n${lines}`;
      else replies.push(lines);
    }
    return { replies, command, state: { sessionId, choices, inputId: answer.input?.id ?? null, lastAt: new Date(input.now).toISOString() } };
  };

  const st = input.state;
  if (same(text, integ.typebotKeywordRestart)) return start(integ.typebotRestartMessage);
  const expired = !!st.lastAt && integ.typebotExpires > 0 && input.now - Date.parse(st.lastAt) > integ.typebotExpires * 60_000;
  if (!st.sessionId || expired) return start();

  // A choice answered by its number is sent as the choice's own text, as Typebot expects it.
  const n = /^\d{1,3}$/.test(text) ? Number(text) : 0;
  const reply = st.choices && n >= 1 && n <= st.choices.length ? st.choices[n - 1] : text;
  let answer: TypebotAnswer;
  try {
    answer = jsonOf<TypebotAnswer>(
      'typebot',
      await callOutside('typebot', `${base}/api/v1/sessions/${encodeURIComponent(st.sessionId)}/continueChat`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ message: reply, textBubbleContentFormat: 'richText' }),
      }),
    );
  } catch (err) {
    // The session is over or unknown to Typebot (ended flow, expired there): a new one starts.
    if (err instanceof OutsideError && err.reason === 'status' && (err.status === 404 || err.status === 400)) return start();
    throw err;
  }
  const repeated = !!answer.input?.id && answer.input.id === st.inputId && (answer.messages?.length ?? 0) <= 1;
  const turn = turnOf(answer, st.sessionId, repeated);
  if (!turn.replies.length && !turn.command) {
    // Nothing to say to what the customer wrote: the integration's unknown-input message.
    if (integ.typebotUnknownMessage?.trim()) turn.replies.push(integ.typebotUnknownMessage);
    // The choices on show stay (Typebot still waits on the same input).
    turn.state.choices = st.choices ?? null;
  }
  return turn;
}
