import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { CognitoIdentityProviderClient, InitiateAuthCommand } from '@aws-sdk/client-cognito-identity-provider';
import { DEFAULT_PORTS, freePort, isPortFree, pickPorts, portEnvName, type PortName } from '../../../infra/local/ports.js';

/**
 * The one-machine product (`npm start`) as a process group of its own (own ports and data
 * directory) that a test kills outright with SIGKILL, like a power button, and starts again on the
 * same data (the disruptive tests of issues 16 and 20).
 */
const ROOT = path.resolve(import.meta.dirname, '../../..');

export interface Endpoints {
  apiUrl: string;
  sandboxUrl: string;
  cognito: { region: string; endpoint: string; userPoolClientId: string };
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export function killableStack(name: string, admin: { email: string; password: string }) {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), `balcao-${name}-`));
  const logFile = path.join(dataDir, 'stack.out');
  let child: ChildProcess | undefined;
  let env: NodeJS.ProcessEnv | undefined;
  let ports: Record<PortName, number> | undefined;
  let e: Endpoints | undefined;
  let token = '';

  const killGroup = (pid: number) => {
    try {
      process.kill(-pid, 'SIGKILL');
    } catch {
      /* already gone */
    }
  };

  /** DynamoDB Local is stopped by its guard once the stack's process is gone: wait for its port too. */
  async function waitPortsFree() {
    if (!ports) return;
    const deadline = Date.now() + 60_000;
    for (const port of Object.values(ports)) {
      while (!(await isPortFree(port))) {
        if (Date.now() > deadline) throw new Error(`port ${port} still in use after the kill`);
        await sleep(200);
      }
    }
  }

  const stack = {
    logFile,
    get endpoints(): Endpoints {
      if (!e) throw new Error('the stack is not started');
      return e;
    },
    get pid() {
      return child?.pid;
    },

    /** Starts the stack (the first time on new ports) and waits for its endpoints file. */
    async start(): Promise<{ readyAt: number }> {
      if (!ports || !env) {
        ports = (await pickPorts('auto')) as Record<PortName, number>;
        env = { ...process.env, BALCAO_DATA_DIR: dataDir, BALCAO_ADMIN_EMAIL: admin.email, BALCAO_ADMIN_PASSWORD: admin.password, BALCAO_PORT_SESSION_HOST: String(await freePort()) };
        for (const p of Object.keys(DEFAULT_PORTS) as PortName[]) env[portEnvName(p)] = String(ports[p]);
      }
      fs.rmSync(path.join(dataDir, 'endpoints.json'), { force: true });
      const out = fs.openSync(logFile, 'a');
      child = spawn(process.execPath, ['--import', 'tsx', 'infra/local/start.ts'], { cwd: ROOT, env, detached: true, stdio: ['ignore', out, out] });
      fs.closeSync(out);
      const proc = child;
      const deadline = Date.now() + 120_000;
      while (!fs.existsSync(path.join(dataDir, 'endpoints.json'))) {
        if (proc.exitCode !== null) throw new Error(`the stack exited during start (log ${logFile})`);
        if (Date.now() > deadline) throw new Error(`the stack did not start within 2 minutes (log ${logFile})`);
        await sleep(200);
      }
      e = JSON.parse(fs.readFileSync(path.join(dataDir, 'endpoints.json'), 'utf8')) as Endpoints;
      return { readyAt: Date.now() };
    },

    /** SIGKILL of the whole process group (a killed `npm start`); resolves once it is gone and its ports are free. */
    async kill() {
      const proc = child;
      if (!proc?.pid) return;
      killGroup(proc.pid);
      await new Promise<void>((r) => (proc.exitCode !== null || proc.signalCode !== null ? r() : proc.once('exit', () => r())));
      await waitPortsFree();
    },

    /** For afterAll: kills what runs, keeps the log next to the others, removes the data. */
    async dispose() {
      if (child?.pid) killGroup(child.pid);
      await waitPortsFree();
      if (fs.existsSync(logFile)) fs.copyFileSync(logFile, path.join(os.tmpdir(), `balcao-${name}-test-last.log`));
      fs.rmSync(dataDir, { recursive: true, force: true });
    },

    /** Signs the admin in (Cognito, then the API's single-session login). */
    async signIn() {
      const c = stack.endpoints.cognito;
      const cognito = new CognitoIdentityProviderClient({ region: c.region, endpoint: c.endpoint, credentials: { accessKeyId: 'x', secretAccessKey: 'x' } });
      const auth = await cognito.send(new InitiateAuthCommand({ AuthFlow: 'USER_PASSWORD_AUTH', ClientId: c.userPoolClientId, AuthParameters: { USERNAME: admin.email, PASSWORD: admin.password } }));
      cognito.destroy();
      token = auth.AuthenticationResult!.AccessToken!;
      const login = await stack.api('POST', '/auth/login');
      if (login.status !== 200) throw new Error(`login: ${login.status}`);
    },

    async api(method: string, p: string, json?: unknown) {
      const res = await fetch(`${stack.endpoints.apiUrl}${p}`, {
        method,
        headers: { authorization: `Bearer ${token}`, ...(json ? { 'content-type': 'application/json' } : {}) },
        body: json ? JSON.stringify(json) : undefined,
      });
      return { status: res.status, body: (await res.json().catch(() => undefined)) as any };
    },

    async sandbox(method: string, p: string, json?: unknown) {
      const res = await fetch(`${stack.endpoints.sandboxUrl}${p}`, { method, headers: json ? { 'content-type': 'application/json' } : {}, body: json ? JSON.stringify(json) : undefined });
      return { status: res.status, body: (await res.json().catch(() => undefined)) as any };
    },

    /** The demo connection (CONNECTED by the first start), once it is connected again. */
    async connectedDemo(known?: number): Promise<number> {
      let id = known;
      if (!id) {
        const list = await stack.api('GET', '/whatsapp');
        id = (list.body.find((w: any) => w.status === 'CONNECTED')?.id ?? list.body[0].id) as number;
      }
      for (let t = 0; (await stack.api('GET', `/whatsapp/${id}`)).body.status !== 'CONNECTED'; t++) {
        if (t > 150) throw new Error('the connection did not come back within 30 s');
        await sleep(200);
      }
      return id;
    },
  };
  return stack;
}
