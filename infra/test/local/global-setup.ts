import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { TestProject } from 'vitest/node';
import { startLocalStack, type Endpoints } from '../../local/stack.js';
import { startOutsideServices } from './outside-services.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The running stack's URLs and Cognito ids (same shape as .local/endpoints.json). */
    endpoints: Endpoints;
    /** The functions' environment for this stack (apply it to call functions code directly). */
    env: Record<string, string>;
    /** The outside-services fake (Typebot, webhooks, Google/Dialogflow, OpenAI, Azure TTS; outside-services.ts). */
    outsideUrl: string;
  }
}

interface Shared {
  stack: Promise<{ endpoints: Endpoints; env: Record<string, string>; outsideUrl: string; teardown: () => Promise<void> }>;
  users: number;
}
const KEY = Symbol.for('balcao.test.stack');
const registry = globalThis as unknown as { [KEY]?: Shared };

/**
 * Starts ONE local stack for every project that needs it (`stack` and `stack-disruptive`): free
 * ports (a running `npm start` does not collide), a fresh data directory, the console built, the
 * seed applied. Two stacks in one process would share `process.env` and the handlers' module
 * state, so the projects share this one (reference-counted; the last teardown stops it). Its log
 * goes to `<dataDir>/stack.log` (also to the console with BALCAO_TEST_LOG=1; loud lines always).
 */
export default async function setup(project: TestProject) {
  const shared = (registry[KEY] ??= { stack: startStack(), users: 0 });
  shared.users++;
  const { endpoints, env, outsideUrl, teardown } = await shared.stack;
  project.provide('endpoints', endpoints);
  project.provide('env', env);
  project.provide('outsideUrl', outsideUrl);
  return async () => {
    if (--shared.users > 0) return;
    delete registry[KEY];
    await teardown();
  };
}

async function startStack() {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'balcao-stack-'));
  const logFile = fs.openSync(path.join(dataDir, 'stack.log'), 'a');
  const echo = !!process.env.BALCAO_TEST_LOG;
  let logOpen = true;
  const log = (part: string, line: string) => {
    const text = `${new Date().toISOString()} [${part}] ${line}\n`;
    if (logOpen) fs.writeSync(logFile, text);
    if (echo || line.startsWith('!!!')) process.stderr.write(`[stack] [${part}] ${line}\n`);
  };
  const started = Date.now();
  // The outside services' fakes first: the stack copies these variables into its functions' environment.
  const outside = await startOutsideServices();
  process.env.DIALOGFLOW_API_URL = outside.url;
  process.env.AZURE_TTS_URL = `${outside.url}/azure/{region}`;
  process.env.GOOGLE_TOKEN_URL = `${outside.url}/token`;
  // The fakes answer on loopback: allowed for the tests' stack only (never for `npm start`).
  process.env.OUTSIDE_ALLOW_PRIVATE = '1';
  log('outside', `fake outside services at ${outside.url} (audio: ${outside.audioSource})`);
  let stack: Awaited<ReturnType<typeof startLocalStack>>;
  try {
    stack = await startLocalStack({
      dataDir,
      ports: 'auto',
      buildWeb: true,
      seed: true,
      adminEmail: 'admin@balcao.test',
      adminPassword: 'Balcao123',
      log,
    });
  } catch (err) {
    await outside.close();
    throw err;
  }
  process.stderr.write(`[stack] ready in ${((Date.now() - started) / 1000).toFixed(1)} s: ${stack.endpoints.webUrl} (log ${path.join(dataDir, 'stack.log')})\n`);
  const teardown = async () => {
    await stack.stop();
    await outside.close();
    logOpen = false;
    fs.closeSync(logFile);
    // The data directory goes away; the log of the last run stays for post-mortems.
    const last = path.join(os.tmpdir(), 'balcao-test-stack-last.log');
    fs.copyFileSync(path.join(dataDir, 'stack.log'), last);
    process.stderr.write(`[stack] stopped; log kept at ${last}\n`);
    if (!process.env.BALCAO_KEEP_STACK) fs.rmSync(dataDir, { recursive: true, force: true });
  };
  return { endpoints: stack.endpoints, env: stack.env, outsideUrl: outside.url, teardown };
}
