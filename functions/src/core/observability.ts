import { Logger } from '@aws-lambda-powertools/logger';
import { Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import { Tracer } from '@aws-lambda-powertools/tracer';
import { InvokeStore } from '@aws/lambda-invoke-store';
import { env } from './env.js';

/**
 * Logs, metrics and traces of every function (Powertools for AWS Lambda). The three instances are
 * shared by all modules of a function; what belongs to one invocation (request id, company, user,
 * the metrics not yet flushed) is kept per invocation by Powertools, also when invocations run
 * concurrently in one process (the local stack; see docs/decisions.md 41).
 */
const SERVICE = 'balcao';

// Where invocations may run concurrently (AWS_LAMBDA_MAX_CONCURRENCY), Powertools keeps their state in
// the runtime's InvokeStore. The Lambda runtime creates it; a process that only imports this code
// while the variable is set (a test worker beside the local stack) must create it too.
if (process.env.AWS_LAMBDA_MAX_CONCURRENCY !== undefined) await InvokeStore.getInstanceAsync();

/** Keys whose values never reach a log line, whatever object they sit in. */
const SECRET_KEYS = new Set(['password', 'token', 'authorization', 'secret', 'apiKey', 'accessToken', 'refreshToken', 'idToken']);

/**
 * JSON.stringify turns an error with `toJSON` (our AppError) into its API answer before Powertools'
 * own error formatting sees it: such errors are expanded here, on the object that holds them, so
 * a 5xx keeps its name, message and stack in the log.
 */
function expandErrors(value: unknown): unknown {
  if (!value || typeof value !== 'object' || Array.isArray(value) || value instanceof Error) return value;
  const entries = Object.entries(value);
  if (!entries.some(([, v]) => v instanceof Error && typeof (v as { toJSON?: unknown }).toJSON === 'function')) return value;
  return Object.fromEntries(
    entries.map(([k, v]) => (v instanceof Error && 'toJSON' in v ? [k, { ...(v as { toJSON(): object }).toJSON(), name: v.name, message: v.message, stack: v.stack }] : [k, v])),
  );
}

export const log = new Logger({
  serviceName: SERVICE,
  logLevel: env.logLevel.toUpperCase() as 'INFO',
  jsonReplacerFn: (key, value) => (SECRET_KEYS.has(key) && value !== undefined ? '[redacted]' : expandErrors(value)),
});

export const metrics = new Metrics({ namespace: 'Balcao', serviceName: SERVICE });

export const tracer = new Tracer({ serviceName: SERVICE });

/** The product's counters (CloudWatch EMF, one namespace, dimension `service`). */
export type CountedEvent = 'MessagesIn' | 'MessagesOut' | 'TicketsOpened' | 'TicketsClosed' | 'FanoutDeliveries' | 'FanoutPosts' | 'Errors' | 'AutomationFailures' | 'AutomationFallbacks';

export function count(event: CountedEvent, value = 1) {
  if (value > 0) metrics.addMetric(event, MetricUnit.Count, value);
}

/** Adds company and user to every log line of the current invocation. */
export function logContext(fields: { companyId?: number; userId?: number; [k: string]: unknown }) {
  log.appendKeys(Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== undefined)));
}
