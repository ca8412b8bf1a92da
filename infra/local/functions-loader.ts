import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

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
