import { AppError, isPastDue, type MediaType } from '@balcao/shared';
import { getItem, isConditionFailure } from '../core/db.js';
import { nowMs, table, uuid } from '../core/ports.js';
import { env } from '../core/env.js';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { keys } from '../table/keys.js';
import { askSessionHost } from '../core/rpc.js';
import { putObject } from '../core/storage.js';
import type { UploadedFile } from '../core/http.js';
import { connectionByToken } from './connections.js';
import { findOrCreateContact } from './contacts.js';
import { findOrCreateTicket } from './tickets.js';
import { sendInTicket } from './outbound.js';
import { checkRate, LIMITS, takeRate } from './rate-limits.js';
import { type CompanyItem, type PlanItem } from '../table/items.js';

/** Messages per minute one connection token may send through the external API. */
export const EXTERNAL_API_RATE_PER_MINUTE = 60;
const MAX_MEDIA_BYTES = 4 * 1024 * 1024;

async function takeRateSlot(connectionId: number) {
  const minute = Math.floor(nowMs() / 60_000);
  try {
    await table().send(
      new UpdateCommand({
        TableName: env.tableName,
        Key: keys.externalApiRate(connectionId, minute),
        UpdateExpression: 'ADD #c :one SET #t = :ttl',
        ConditionExpression: 'attribute_not_exists(#c) OR #c < :max',
        ExpressionAttributeNames: { '#c': 'count', '#t': 'ttl' },
        ExpressionAttributeValues: { ':one': 1, ':max': EXTERNAL_API_RATE_PER_MINUTE, ':ttl': (minute + 2) * 60 },
      }),
    );
  } catch (err) {
    if (isConditionFailure(err)) throw new AppError(429, 'ERR_RATE_LIMITED', { message: 'Limite de mensagens por minuto atingido' });
    throw err;
  }
}

const mediaTypeOf = (mime: string): MediaType =>
  mime.startsWith('image/') ? 'image' : mime.startsWith('video/') ? 'video' : mime.startsWith('audio/') ? 'audio' : 'document';

/**
 * `POST /api/messages/send` (server-behaviour §11): the connection token identifies the company and
 * the number; the number must be on WhatsApp; the message goes out in the contact's ticket
 * (created pending when there is none).
 */
export async function sendFromExternalApi(token: string | undefined, body: Record<string, unknown>, files: UploadedFile[], ip = 'unknown') {
  // Guessing tokens: an address that sent too many unknown ones is refused before any lookup.
  await checkRate('api-bad-token', ip, LIMITS.badTokenPerIp);
  const connection = token ? await connectionByToken(token) : undefined;
  if (!connection) {
    await takeRate('api-bad-token', ip, LIMITS.badTokenPerIp);
    throw new AppError(401, 'ERR_INVALID_TOKEN');
  }
  const company = await getItem<CompanyItem>(keys.company(connection.companyId));
  if (!company || company.status === false || (company.dueDate && isPastDue(company.dueDate))) throw new AppError(403, 'ERR_COMPANY_BLOCKED');
  const plan = await getItem<PlanItem>(keys.plan(company.planId));
  if (!plan?.useExternalApi) throw new AppError(403, 'ERR_PLAN_FEATURE_DISABLED');

  const number = String(body.number ?? '').replace(/\D/g, '');
  if (number.length < 10 || number.length > 15) {
    throw new AppError(400, 'ERR_VALIDATION', { message: 'Número inválido: use código do país, DDD e número, só dígitos', fields: [{ field: 'number', message: 'Número inválido' }] });
  }
  const text = typeof body.body === 'string' ? body.body : '';
  const medias = files.filter((f) => f.field === 'medias' || f.field === 'media' || f.field === 'file');
  if (!text.trim() && !medias.length) throw new AppError(400, 'ERR_VALIDATION', { message: 'Required', fields: [{ field: 'body', message: 'Required' }] });
  for (const f of medias) {
    if (f.data.length > MAX_MEDIA_BYTES) throw new AppError(413, 'ERR_PAYLOAD_TOO_LARGE', { fields: [{ field: 'medias', message: 'ERR_PAYLOAD_TOO_LARGE' }] });
  }
  await takeRateSlot(connection.id);

  const check = await askSessionHost(connection.companyId, connection.id, { op: 'checkNumber', number });
  if (check.op !== 'checkNumber' || !check.exists) throw new AppError(400, 'ERR_CHECK_NUMBER');
  const contact = await findOrCreateContact(connection.companyId, { number: check.number ?? number, lid: check.lid }, { connectionId: connection.id });
  const { ticket } = await findOrCreateTicket(connection.companyId, connection.id, contact);
  if (!medias.length) {
    await sendInTicket(ticket, { body: text });
  } else {
    let current = ticket;
    for (const [i, f] of medias.entries()) {
      const ext = (f.fileName.split('.').pop() ?? 'bin').replace(/[^a-z0-9]/gi, '').slice(0, 8) || 'bin';
      const key = `c/${connection.companyId}/media/${connection.id}/${uuid()}.${ext}`;
      await putObject(key, f.data, f.mimeType || 'application/octet-stream');
      const sent = await sendInTicket(current, {
        // The caption goes with the first file.
        body: i === 0 ? text : '',
        media: { key, mimetype: f.mimeType || 'application/octet-stream', fileName: f.fileName, size: f.data.length, mediaType: mediaTypeOf(f.mimeType) },
      });
      current = { ...current, lastSeq: sent.seq };
    }
  }
  return { mensagem: 'Mensagem enviada' };
}
