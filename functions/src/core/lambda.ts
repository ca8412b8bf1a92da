import middy, { type MiddlewareObj } from '@middy/core';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import { captureLambdaHandler } from '@aws-lambda-powertools/tracer/middleware';
import type { Context } from 'aws-lambda';
import { log, metrics, tracer } from './observability.js';

/**
 * Flushes this invocation's metrics (one EMF line) when it recorded any. Powertools' own
 * `logMetrics` warns on every invocation without metrics, which is most requests.
 */
const flushMetrics = (): MiddlewareObj => {
  const flush = () => {
    if (metrics.hasStoredMetrics()) metrics.publishStoredMetrics();
  };
  return { name: 'flushMetrics', after: flush, onError: flush };
};

/**
 * Every Lambda entry point (HTTP routers, socket routes, queue workers, the sweeper) runs through
 * this middy chain: the tracer's handler segment, the logger's Lambda context (request id on every
 * line; keys added during the invocation are dropped at its end) and the metrics flush.
 */
export function lambdaHandler<E, R>(handler: (event: E, context: Context) => Promise<R>) {
  // middy's early timeout (on by default) would answer 500 while the handler runs on and a worker's
  // batch is retried beside it; Lambda's own timeout stops the environment instead.
  return middy<E, R>(handler, { timeoutEarlyInMillis: 0 })
    .use(captureLambdaHandler(tracer, { captureResponse: false }))
    .use(injectLambdaContext(log, { resetKeys: true }))
    .use(flushMetrics());
}
