import fs from 'node:fs';
import type http from 'node:http';
import type { Duplex } from 'node:stream';
import QRCode from 'qrcode';
import type { SandboxNetwork } from './network.js';
import { checkConnectionId, SandboxError } from './validation.js';
import { DEVICE_PATH } from './protocol.js';

/**
 * The customer-facing HTTP API of the sandbox network (issue 3 §3), its page and the device
 * WebSocket, mounted on the local stack's sandbox server. Typed structurally so the session host
 * does not depend on the infra package.
 */
export interface SandboxRouterRequest {
  url: URL;
  params: Record<string, string>;
  body: () => Promise<Buffer>;
}
export interface SandboxRouter {
  route(method: string, pattern: string, handler: (req: SandboxRouterRequest, res: http.ServerResponse) => unknown): unknown;
  upgrade(pathname: string, handler: (req: http.IncomingMessage, socket: Duplex, head: Buffer) => void): unknown;
}

const PAGE = new URL('./page.html', import.meta.url);

function send(res: http.ServerResponse, status: number, body: unknown) {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(text), 'cache-control': 'no-store' });
  res.end(text);
}

async function jsonBody<T>(req: SandboxRouterRequest): Promise<T> {
  const raw = (await req.body()).toString('utf8');
  if (!raw.trim()) return {} as T;
  try {
    return JSON.parse(raw) as T;
  } catch {
    throw new SandboxError(400, 'the body is not valid JSON');
  }
}

export function mountSandboxNetwork(router: SandboxRouter, network: SandboxNetwork) {
  /** Answers with the handler's value, or the SandboxError's status and message. */
  const on = (method: string, pattern: string, fn: (req: SandboxRouterRequest, res: http.ServerResponse) => unknown) =>
    router.route(method, pattern, async (req, res) => {
      try {
        const out = await fn(req, res);
        // A change is answered only once it is stored: a killed stack never loses what it accepted.
        if (method !== 'GET') await network.durable();
        if (!res.headersSent) send(res, 200, out ?? null);
      } catch (e) {
        // The sandbox server's body reader refuses more than 10 MB.
        if ((e as Error)?.constructor?.name === 'BodyTooLarge' && !res.headersSent) return send(res, 413, { message: 'the body is larger than 10 MB' });
        if (!(e instanceof SandboxError)) throw e;
        if (!res.headersSent) send(res, e.status, { message: e.message });
      }
    });
  const idOf = (req: SandboxRouterRequest) => checkConnectionId(req.params.id);

  router.upgrade(DEVICE_PATH, (req, socket, head) => network.handleUpgrade(req, socket, head));

  on('GET', '/', (_req, res) => {
    // Read on each request: editing the page needs no restart.
    const html = fs.readFileSync(PAGE);
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'content-length': html.length, 'cache-control': 'no-store' });
    res.end(html);
  });
  on('GET', '/connections', () => network.list());
  on('GET', '/connections/{id}', (req) => network.view(idOf(req)));
  on('GET', '/connections/{id}/qr.svg', async (req, res) => {
    const view = network.view(idOf(req));
    if (!view.qr) throw new SandboxError(404, `no QR code is showing for connection ${view.id}`);
    const svg = await QRCode.toString(view.qr, { type: 'svg', margin: 2, errorCorrectionLevel: 'L' });
    res.writeHead(200, { 'content-type': 'image/svg+xml', 'cache-control': 'no-store' });
    res.end(svg);
  });
  on('POST', '/connections/{id}/scan', async (req) => network.scan(idOf(req), await jsonBody(req)));
  on('POST', '/connections/{id}/messages', async (req) => network.customerMessage(idOf(req), await jsonBody(req)));
  on('POST', '/connections/{id}/phone-messages', async (req) => network.phoneMessage(idOf(req), await jsonBody(req)));
  on('GET', '/connections/{id}/messages', (req) => network.conversation(idOf(req), req.url.searchParams.get('peer') ?? undefined));
  on('GET', '/connections/{id}/presence', (req) => network.presence(idOf(req), req.url.searchParams.get('peer') ?? undefined));
  on('GET', '/connections/{id}/chats', (req) => network.chats(idOf(req)));
  on('GET', '/connections/{id}/calls', (req) => network.calls(idOf(req)));
  on('POST', '/connections/{id}/receipts', async (req) => network.receipts(idOf(req), await jsonBody(req)));
  on('POST', '/connections/{id}/events', async (req) => network.customerEvent(idOf(req), await jsonBody(req)));
  on('POST', '/connections/{id}/disconnect', async (req) => {
    const body = await jsonBody<{ reason?: unknown; token?: unknown }>(req);
    return network.disconnect(idOf(req), body.reason, body.token);
  });
  on('GET', '/connections/{id}/contacts', (req) => network.contacts(idOf(req)));
  on('PUT', '/connections/{id}/contacts', async (req) => network.setContacts(idOf(req), await jsonBody(req)));
  on('GET', '/phones/{number}', (req) => network.phone(req.params.number));
  on('PUT', '/phones/{number}', async (req) => network.setPhone(req.params.number, await jsonBody(req)));
  on('GET', '/media/{id}/{file}', (req, res) => {
    const m = network.media(idOf(req), req.params.file);
    const data = fs.readFileSync(m.path);
    const headers: Record<string, string | number> = { 'content-type': m.mimetype, 'content-length': data.length };
    if (m.fileName) headers['content-disposition'] = `inline; filename*=UTF-8''${encodeURIComponent(m.fileName)}`;
    res.writeHead(200, headers);
    res.end(data);
  });
}
