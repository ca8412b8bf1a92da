import { AI_TRANSFER_PHRASE } from '@balcao/shared';
import { FormData } from 'undici';
import { env } from '../../core/env.js';
import type { PromptItem } from '../../table/items.js';
import { callOutside, jsonOf, OutsideError } from './outside.js';

/**
 * The AI prompt (server-behaviour §9) on any OpenAI-compatible API at the prompt's `baseUrl`:
 * chat completions with the system prompt below and the ticket's latest messages, Whisper-style
 * transcription of voice notes, and Azure Speech for spoken answers.
 */

/** The model asked for (the prompt form has no model field; decision 51). */
export const AI_MODEL = 'gpt-4o-mini';
export const TRANSCRIPTION_MODEL = 'whisper-1';

export function systemPrompt(p: Pick<PromptItem, 'prompt' | 'maxTokens'>, firstName: string): string {
  return [
    `Você é um assistente de atendimento ao cliente pelo WhatsApp. O primeiro nome do cliente é ${firstName || 'cliente'}: use-o nas respostas.`,
    `Responda em no máximo ${p.maxTokens} tokens.`,
    `Quando o cliente precisar de um atendente humano, comece a sua resposta com "${AI_TRANSFER_PHRASE}".`,
    '',
    p.prompt,
  ].join('\n');
}

export type ChatTurn = { role: 'user' | 'assistant'; content: string };

export interface AiAnswer {
  text: string;
  /** The model asked for a human: the ticket goes to the prompt's queue and the AI stops. */
  transfer: boolean;
}

/** The answer with the transfer phrase taken out of what the customer sees. */
export function readAnswer(content: string): AiAnswer {
  const at = content.indexOf(AI_TRANSFER_PHRASE);
  if (at < 0) return { text: content.trim(), transfer: false };
  const text = (content.slice(0, at) + content.slice(at + AI_TRANSFER_PHRASE.length)).replace(/^[\s.:,;-]+/, '').trim();
  return { text, transfer: true };
}

export async function complete(p: PromptItem & { apiKey: string }, firstName: string, history: ChatTurn[]): Promise<AiAnswer> {
  const answer = jsonOf<{ choices?: { message?: { content?: string | null } }[] }>(
    'openai',
    await callOutside('openai', `${p.baseUrl}/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${p.apiKey}` },
      body: JSON.stringify({
        model: AI_MODEL,
        messages: [{ role: 'system', content: systemPrompt(p, firstName) }, ...history],
        max_tokens: p.maxTokens,
        temperature: p.temperature,
      }),
      timeoutMs: 20_000,
    }),
  );
  const content = answer.choices?.[0]?.message?.content;
  if (typeof content !== 'string') throw new OutsideError('openai', 'garbage', 'the completion has no message content');
  return readAnswer(content);
}

/** A voice note's words (`audio/transcriptions`, multipart as the API takes it). */
export async function transcribe(p: PromptItem & { apiKey: string }, audio: Uint8Array, mimetype: string, fileName: string): Promise<string> {
  const form = new FormData();
  form.append('model', TRANSCRIPTION_MODEL);
  form.append('file', new Blob([audio], { type: mimetype }), fileName);
  const answer = jsonOf<{ text?: string }>(
    'openai',
    await callOutside('openai', `${p.baseUrl}/audio/transcriptions`, { method: 'POST', headers: { authorization: `Bearer ${p.apiKey}` }, body: form, timeoutMs: 15_000 }),
  );
  if (typeof answer.text !== 'string') throw new OutsideError('openai', 'garbage', 'the transcription has no text');
  return answer.text.trim();
}

const xmlEscape = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&apos;');

/** Azure Speech text to speech (REST, SSML): an Ogg/Opus voice note, as WhatsApp plays them. */
export async function synthesize(p: { voice: string; voiceKey: string; voiceRegion: string }, text: string): Promise<Uint8Array> {
  const endpoint = env.azureTtsUrl.replace('{region}', encodeURIComponent(p.voiceRegion)).replace(/\/+$/, '');
  const ssml = `<speak version='1.0' xml:lang='pt-BR'><voice name='${xmlEscape(p.voice)}'>${xmlEscape(text)}</voice></speak>`;
  const answer = await callOutside('azure', `${endpoint}/cognitiveservices/v1`, {
    method: 'POST',
    headers: {
      'Ocp-Apim-Subscription-Key': p.voiceKey,
      'Content-Type': 'application/ssml+xml',
      'X-Microsoft-OutputFormat': 'ogg-48khz-16bit-mono-opus',
      'User-Agent': 'balcao',
    },
    body: ssml,
    binary: true,
    timeoutMs: 15_000,
  });
  const bytes = answer.bytes ?? new Uint8Array();
  if (bytes.length < 4 || Buffer.from(bytes.subarray(0, 4)).toString('latin1') !== 'OggS') throw new OutsideError('azure', 'garbage', 'the answer is not an Ogg audio');
  return bytes;
}
