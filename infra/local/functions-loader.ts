import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { InvokeStore, InvokeStoreBase } from '@aws/lambda-invoke-store';

export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const FUNCTIONS_SRC = path.join(REPO_ROOT, 'functions/src');

export class MissingModule extends Error {}

/**
 * Imports function modules once, lazily, the way a Lambda cold start would. A module that does not
 * exist yet is reported (MissingModule) instead of crashing the stack; a failed import is retried
 * on the next call so a fixed file is picked up without a restart.
 */
export function moduleLoader<T>(fileFor: (name: string) => string) {
  const cache = new Map<string, Promise<T>>();
  return (name: string): Promise<T> => {
    let p = cache.get(name);
    if (!p) {
      const file = fileFor(name);
      p = fs.existsSync(file)
        ? (import(pathToFileURL(file).href) as Promise<T>)
        : Promise.reject(new MissingModule(`${path.relative(REPO_ROOT, file)} does not exist`));
      p.catch(() => cache.delete(name));
      cache.set(name, p);
    }
    return p;
  };
}

export const httpModuleFile = (handler: string) => path.join(FUNCTIONS_SRC, 'http', handler, 'index.ts');
export const workerModuleFile = (worker: string) => path.join(FUNCTIONS_SRC, 'workers', `${worker}.ts`);
export const wsModuleFile = () => path.join(FUNCTIONS_SRC, 'ws', 'index.ts');

let seq = 0;
/** A Lambda-like context object; handlers mostly read awsRequestId. */
export function lambdaContext(functionName: string, requestId: string, timeoutMs = 30_000) {
  const deadline = Date.now() + timeoutMs;
  seq++;
  return {
    callbackWaitsForEmptyEventLoop: false,
    functionName,
    functionVersion: '$LATEST',
    invokedFunctionArn: `arn:aws:lambda:us-east-1:000000000000:function:${functionName}`,
    memoryLimitInMB: '1024',
    awsRequestId: requestId,
    logGroupName: `/aws/lambda/${functionName}`,
    logStreamName: `local/${seq}`,
    getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()),
    done: () => {},
    fail: () => {},
    succeed: () => {},
  };
}

/**
 * The local stack runs many invocations at once in one process, like Lambda's multi-concurrency
 * mode: with AWS_LAMBDA_MAX_CONCURRENCY set, Powertools keeps each invocation's log keys and
 * metrics in the runtime's InvokeStore (AsyncLocalStorage), which `invokeLocally` fills the way
 * the Lambda runtime does. Set once, before any function logs, and only in this process (the
 * session host and the test workers are not Lambda invocations).
 */
export async function emulateLambdaConcurrency() {
  process.env.AWS_LAMBDA_MAX_CONCURRENCY ??= '64';
  // No CloudWatch on this machine: the EMF lines would only fill the log.
  process.env.POWERTOOLS_METRICS_DISABLED ??= 'true';
  await InvokeStore.getInstanceAsync();
}

/** Runs one handler call as one invocation (its own request id, log keys and metrics). */
export async function invokeLocally<C extends { awsRequestId: string }, T>(context: C, call: (context: C) => T): Promise<Awaited<T>> {
  const store = await InvokeStore.getInstanceAsync();
  return await store.run({ [InvokeStoreBase.PROTECTED_KEYS.REQUEST_ID]: context.awsRequestId }, () => call(context));
}
