import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { onLines, type Log } from './http-util.js';

const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

export interface ChildServiceControl {
  /** `http://127.0.0.1:<port>/health` of the running process (same port across restarts). */
  url: string;
  /** Process id of the running process (0 while stopped). */
  pid(): number;
  /** Starts it if stopped and waits until its health answers. */
  start(): Promise<void>;
  /** SIGTERM (the process finishes what it holds) and waits for the exit. */
  stop(): Promise<void>;
  /** SIGKILL, as a crash: nothing settled, released or closed. Waits for the exit. */
  kill(): Promise<void>;
  restart(): Promise<void>;
}

/**
 * A part of the stack in its own Node process (`node --import tsx <main>`), the way its cloud
 * counterpart runs apart: the session host (ECS) and the workers (Lambda). It answers
 * `GET http://127.0.0.1:<PORT>/health` once ready, stops on SIGTERM, and exits when the stack process
 * dies without stopping it (its stdin closes, `EXIT_WITH_STDIN=1`): no orphans. Its output lines go
 * to the stack log under `name`, or to `onLine` when given.
 */
export function childService(opts: {
  name: string;
  /** Entry file, relative to the repository root. */
  main: string;
  env: NodeJS.ProcessEnv;
  port: number;
  log: Log;
  /** How long SIGTERM may take before SIGKILL. */
  stopTimeoutMs: number;
  onLine?: (line: string) => void;
}): ChildServiceControl {
  const url = `http://127.0.0.1:${opts.port}/health`;
  const say = (line: string) => opts.log(opts.name, line);
  const relay = opts.onLine ?? say;
  let child: ChildProcess | undefined;
  let exited: Promise<void> = Promise.resolve();
  // Start and stop requests (stack code, the /_local routes) run one after another.
  let chain: Promise<unknown> = Promise.resolve();
  const serial = (fn: () => Promise<void>) => {
    const next = chain.then(fn, fn);
    chain = next.catch(() => {});
    return next;
  };

  const healthy = async () => {
    try {
      return (await fetch(url, { signal: AbortSignal.timeout(1000) })).status === 200;
    } catch {
      return false;
    }
  };

  const launch = async () => {
    if (child) return;
    const proc = spawn(process.execPath, ['--import', 'tsx', opts.main], {
      cwd: REPO_ROOT,
      env: { ...opts.env, PORT: String(opts.port), EXIT_WITH_STDIN: '1' },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    child = proc;
    let gone = false;
    exited = new Promise<void>((resolve) =>
      proc.once('exit', (code, signal) => {
        gone = true;
        if (child === proc) {
          child = undefined;
          say(`!!! the ${opts.name} process exited unexpectedly (${signal ?? code})`);
        }
        resolve();
      }),
    );
    proc.on('error', (e) => say(`!!! could not start: ${e.message}`));
    onLines(proc.stdout, relay);
    onLines(proc.stderr, relay);
    const deadline = Date.now() + 60_000;
    while (!(await healthy())) {
      if (gone) throw new Error(`the ${opts.name} process exited during start (see the [${opts.name}] log lines)`);
      if (Date.now() > deadline) throw new Error(`the ${opts.name} process did not answer ${url} within 60 s`);
      await new Promise((r) => setTimeout(r, 200));
    }
    say(`running (pid ${proc.pid}), health ${url}`);
  };

  const terminate = async () => {
    const proc = child;
    if (!proc) return;
    child = undefined; // an exit from now on is expected
    proc.kill('SIGTERM');
    const kill = setTimeout(() => proc.kill('SIGKILL'), opts.stopTimeoutMs);
    await exited;
    clearTimeout(kill);
    say(`stopped (${proc.signalCode ?? `exit ${proc.exitCode}`})`);
  };

  const crash = async () => {
    const proc = child;
    if (!proc) return;
    child = undefined;
    proc.kill('SIGKILL');
    await exited;
    say('killed (SIGKILL)');
  };

  return {
    url,
    pid: () => child?.pid ?? 0,
    start: () => serial(launch),
    stop: () => serial(terminate),
    kill: () => serial(crash),
    restart: () => serial(async () => {
      await terminate();
      await launch();
    }),
  };
}
