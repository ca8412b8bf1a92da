import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { TestProject } from 'vitest/node';
import { startLocalStack, type Endpoints } from '../../local/stack.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The running stack's URLs and Cognito ids (same shape as .local/endpoints.json). */
    endpoints: Endpoints;
    /** The functions' environment for this stack (apply it to call functions code directly). */
    env: Record<string, string>;
  }
}

/**
 * Starts one local stack for the whole `stack` project: free ports (a running `npm start` does not
 * collide), a fresh data directory, the console built, the seed applied. Its log goes to
 * `<dataDir>/stack.log` (also to the console with BALCAO_TEST_LOG=1; loud lines always).
 */
export default async function setup(project: TestProject) {
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
  const stack = await startLocalStack({
    dataDir,
    ports: 'auto',
    buildWeb: true,
    seed: true,
    adminEmail: 'admin@balcao.test',
    adminPassword: 'Balcao123',
    log,
  });
  process.stderr.write(`[stack] ready in ${((Date.now() - started) / 1000).toFixed(1)} s: ${stack.endpoints.webUrl} (log ${path.join(dataDir, 'stack.log')})\n`);
  project.provide('endpoints', stack.endpoints);
  project.provide('env', stack.env);
  return async () => {
    await stack.stop();
    logOpen = false;
    fs.closeSync(logFile);
    // The data directory goes away; the log of the last run stays for post-mortems.
    const last = path.join(os.tmpdir(), 'balcao-test-stack-last.log');
    fs.copyFileSync(path.join(dataDir, 'stack.log'), last);
    process.stderr.write(`[stack] stopped; log kept at ${last}\n`);
    if (!process.env.BALCAO_KEEP_STACK) fs.rmSync(dataDir, { recursive: true, force: true });
  };
}
