import net from 'node:net';

/** Every local service, with its default port for `npm start` (overridable by BALCAO_PORT_<NAME>). */
export const DEFAULT_PORTS = {
  web: 3000,
  api: 3001,
  ws: 3002,
  wsManagement: 3003,
  sandbox: 3100,
  cognito: 9229,
  fauxqs: 4566,
  dynamodb: 8000,
} as const;
export type PortName = keyof typeof DEFAULT_PORTS;
export type Ports = Record<PortName, number>;

export const portEnvName = (name: PortName) => `BALCAO_PORT_${name.replace(/[A-Z]/g, (c) => `_${c}`).toUpperCase()}`;

/** Asks the OS for a free loopback port (the listener is closed before the port is used). */
export const freePort = () =>
  new Promise<number>((resolve, reject) => {
    const srv = net.createServer();
    srv.unref();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
  });

export const isPortFree = (port: number) =>
  new Promise<boolean>((resolve) => {
    const srv = net.createServer();
    srv.once('error', () => resolve(false));
    srv.listen(port, '127.0.0.1', () => srv.close(() => resolve(true)));
  });

export async function pickPorts(mode: 'fixed' | 'auto'): Promise<Ports> {
  const out = {} as Ports;
  const taken = new Set<number>();
  for (const name of Object.keys(DEFAULT_PORTS) as PortName[]) {
    if (mode === 'fixed') {
      const fromEnv = process.env[portEnvName(name)];
      const port = fromEnv ? Number(fromEnv) : DEFAULT_PORTS[name];
      if (!Number.isInteger(port) || port <= 0) throw new Error(`${portEnvName(name)} is not a port: ${fromEnv}`);
      // Fail early with a clear message instead of a half-started stack.
      if (!(await isPortFree(port))) {
        throw new Error(`Port ${port} (${name}) is in use; is another \`npm start\` running? Override with ${portEnvName(name)}.`);
      }
      out[name] = port;
    } else {
      let port = await freePort();
      while (taken.has(port)) port = await freePort();
      taken.add(port);
      out[name] = port;
    }
  }
  return out;
}

/** Polls until a TCP port accepts connections. */
export async function waitForPort(port: number, timeoutMs: number, isAlive: () => boolean = () => true) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (!isAlive()) throw new Error(`process for port ${port} exited`);
    const ok = await new Promise<boolean>((resolve) => {
      const s = net.connect(port, '127.0.0.1');
      s.once('connect', () => {
        s.destroy();
        resolve(true);
      });
      s.once('error', () => resolve(false));
    });
    if (ok) return;
    await new Promise((r) => setTimeout(r, 150));
  }
  throw new Error(`port ${port} did not open within ${timeoutMs} ms`);
}
