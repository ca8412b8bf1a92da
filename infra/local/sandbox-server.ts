import http from 'node:http';
import type { Duplex } from 'node:stream';
import { closeServer, listen, readBody, sendJson, type Log } from './http-util.js';

export interface SandboxRequest {
  method: string;
  url: URL;
  params: Record<string, string>;
  headers: http.IncomingHttpHeaders;
  body: () => Promise<Buffer>;
  json: <T = unknown>() => Promise<T>;
}
export type SandboxHandler = (req: SandboxRequest, res: http.ServerResponse) => unknown | Promise<unknown>;
export type UpgradeHandler = (req: http.IncomingMessage, socket: Duplex, head: Buffer) => void;

/**
 * The sandbox server: local-only helpers the tests and the developer use (the mailbox now; the
 * WhatsApp sandbox simulator later). Other parts add routes with `route()`; a handler returning a
 * value gets it sent as JSON with status 200, or it may write to `res` itself.
 */
export class SandboxServer {
  private routes: { method: string; regex: RegExp; names: string[]; handler: SandboxHandler }[] = [];
  private upgrades = new Map<string, UpgradeHandler>();
  private server?: http.Server;
  url = '';

  constructor(private log: Log) {}

  route(method: string, pattern: string, handler: SandboxHandler) {
    const names: string[] = [];
    const re = pattern.replace(/\{(\w+)\}/g, (_, n: string) => (names.push(n), '([^/]+)'));
    this.routes.push({ method: method.toUpperCase(), regex: new RegExp(`^${re}/?$`), names, handler });
    return this;
  }

  /** WebSocket upgrades on an exact path (the WhatsApp sandbox's device socket). */
  upgrade(pathname: string, handler: UpgradeHandler) {
    this.upgrades.set(pathname, handler);
    return this;
  }

  async start(port: number) {
    this.server = http.createServer(async (req, res) => {
      // Local helpers only: any loopback page (console, dev server) may call them.
      res.setHeader('access-control-allow-origin', req.headers.origin ?? '*');
      if (req.method === 'OPTIONS') {
        res.writeHead(204, {
          'access-control-allow-methods': 'GET,POST,PUT,DELETE,PATCH',
          'access-control-allow-headers': String(req.headers['access-control-request-headers'] ?? 'content-type'),
        });
        return res.end();
      }
      const url = new URL(req.url ?? '/', 'http://local');
      for (const r of this.routes) {
        if (r.method !== req.method) continue;
        const m = r.regex.exec(url.pathname);
        if (!m) continue;
        const params = Object.fromEntries(r.names.map((n, i) => [n, decodeURIComponent(m[i + 1])]));
        let cached: Promise<Buffer> | undefined;
        const body = () => (cached ??= readBody(req));
        try {
          const out = await r.handler(
            { method: req.method, url, params, headers: req.headers, body, json: async () => JSON.parse((await body()).toString('utf8') || 'null') },
            res,
          );
          if (!res.headersSent && !res.writableEnded) sendJson(res, 200, out ?? null);
        } catch (e) {
          this.log('sandbox', `!!! ${req.method} ${url.pathname}: ${(e as Error).stack ?? e}`);
          if (!res.headersSent) sendJson(res, 500, { message: (e as Error).message });
        }
        return;
      }
      sendJson(res, 404, { message: 'Not Found' });
    });
    this.server.on('upgrade', (req: http.IncomingMessage, socket: Duplex, head: Buffer) => {
      const handler = this.upgrades.get(new URL(req.url ?? '/', 'http://local').pathname);
      if (handler) handler(req, socket, head);
      else socket.destroy();
    });
    await listen(this.server, port);
    // The bound port: tests pass 0 for a free one.
    this.url = `http://127.0.0.1:${(this.server.address() as { port: number }).port}`;
    return this.url;
  }

  stop() {
    return closeServer(this.server);
  }
}
