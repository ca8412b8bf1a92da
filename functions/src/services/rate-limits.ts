import crypto from 'node:crypto';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { AppError } from '@balcao/shared';
import { getItem, isConditionFailure } from '../core/db.js';
import { env } from '../core/env.js';
import { nowMs, table } from '../core/ports.js';
import { keys } from '../table/keys.js';

/** At most `count` requests per `perSeconds`, `count` of them at once (issue 16 §4). */
export interface RateLimit {
  count: number;
  perSeconds: number;
}

/**
 * The abuse limits of the public and costly routes: per client address and per account, so neither
 * many accounts from one address nor one account from many addresses gets through. Cognito locks an
 * account after repeated wrong passwords by itself; these cover what it does not.
 */
export const LIMITS = {
  /** Reset codes asked: enumerating e-mails from one address, flooding one mailbox. */
  forgotPerIp: { count: 10, perSeconds: 15 * 60 },
  forgotPerEmail: { count: 5, perSeconds: 60 * 60 },
  /** Codes tried: guessing a code (Cognito also limits attempts per code). */
  resetPerIp: { count: 20, perSeconds: 15 * 60 },
  resetPerEmail: { count: 10, perSeconds: 15 * 60 },
  /** Sign-ins through the API (the console signs in with Cognito, which locks accounts itself). */
  loginPerIp: { count: 30, perSeconds: 5 * 60 },
  loginPerEmail: { count: 10, perSeconds: 5 * 60 },
  /** Public sign-ups. */
  signupPerIp: { count: 10, perSeconds: 60 * 60 },
  /** External-API calls with a token that matches no connection: guessing tokens. */
  badTokenPerIp: { count: 10, perSeconds: 60 },
} satisfies Record<string, RateLimit>;

/** Subjects are hashed: the table holds no e-mail or address in a key. */
const subjectOf = (value: string) => crypto.createHash('sha256').update(value.trim().toLowerCase()).digest('base64url').slice(0, 22);

/**
 * Takes one request from a limit, or answers 429 with the seconds to wait (`Retry-After`). A
 * generic cell-rate algorithm (a token bucket without a refill job) kept in one table item, so it
 * holds across every Lambda instance: `tat` is the moment the bucket is full again; a request is let
 * through while `tat` is at most one window ahead of now, and moves it one interval on. Two
 * conditional writes at most, no read.
 */
export async function takeRate(scope: string, subject: string, limit: RateLimit): Promise<void> {
  const now = nowMs();
  const interval = (limit.perSeconds * 1000) / limit.count;
  const tolerance = limit.perSeconds * 1000 - interval;
  const key = keys.rateLimit(scope, subjectOf(subject));
  const ttl = Math.ceil((now + limit.perSeconds * 1000) / 1000) + 60;
  const write = (update: string, condition: string, values: Record<string, number>) =>
    table().send(
      new UpdateCommand({
        TableName: env.tableName,
        Key: key,
        UpdateExpression: `${update}, #ttl = :ttl`,
        ConditionExpression: condition,
        ExpressionAttributeNames: { '#tat': 'tat', '#ttl': 'ttl' },
        ExpressionAttributeValues: { ...values, ':ttl': ttl },
        ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
      }),
    );
  try {
    // Idle long enough: the bucket is full, start from now.
    await write('SET #tat = :next', 'attribute_not_exists(#tat) OR #tat <= :now', { ':next': now + interval, ':now': now });
    return;
  } catch (err) {
    if (!isConditionFailure(err)) throw err;
  }
  try {
    await write('SET #tat = #tat + :interval', '#tat <= :latest', { ':interval': interval, ':latest': now + tolerance });
    return;
  } catch (err) {
    if (!isConditionFailure(err)) throw err;
    throw limited(tatOf((err as { Item?: Record<string, unknown> }).Item) ?? now + limit.perSeconds * 1000, tolerance, now);
  }
}

/**
 * Answers 429 when the limit is used up, without taking from it: for a check that must come before
 * the work it limits (a token looked up only while its caller may still guess).
 */
export async function checkRate(scope: string, subject: string, limit: RateLimit): Promise<void> {
  const now = nowMs();
  const tolerance = limit.perSeconds * 1000 - (limit.perSeconds * 1000) / limit.count;
  const item = await getItem<Record<string, unknown>>(keys.rateLimit(scope, subjectOf(subject)));
  const tat = tatOf(item);
  if (tat !== undefined && tat - tolerance > now) throw limited(tat, tolerance, now);
}

/** The item's `tat`, also from a condition failure's raw item ({ N: "…" }). */
function tatOf(item: Record<string, unknown> | undefined): number | undefined {
  const raw = item?.tat as number | { N?: string } | undefined;
  const tat = typeof raw === 'number' ? raw : Number(raw?.N);
  return Number.isFinite(tat) ? tat : undefined;
}

const limited = (tat: number, tolerance: number, now: number) =>
  new AppError(429, 'ERR_RATE_LIMITED', {
    message: 'Muitas tentativas. Aguarde e tente novamente.',
    details: { retryAfter: Math.max(1, Math.ceil((tat - tolerance - now) / 1000)) },
  });

/** The client's address as API Gateway saw it. */
export const clientIp = (event: { requestContext?: { http?: { sourceIp?: string } } }) => event.requestContext?.http?.sourceIp ?? 'unknown';
