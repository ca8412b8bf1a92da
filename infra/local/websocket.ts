import crypto from 'node:crypto';
import http from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer, WebSocket } from 'ws';
import { closeServer, listen, readBody, sendJson, type Log } from './http-util.js';
import { invokeLocally, lambdaContext, moduleLoader, wsModuleFile } from './functions-loader.js';

type WsHandler = (event: unknown, context: unknown) => Promise<{ statusCode?: number; body?: string } | void | undefined>;
export interface WsModule {
  connect: WsHandler;
  message: WsHandler;
  disconnect: WsHandler;
}

interface Conn {
  id: string;
  socket: WebSocket;
  connectedAt: Date;
  lastActiveAt: Date;
  sourceIp: string;
  userAgent: string;
  headers: Record<string, string>;
}

/** API Gateway connection ids are 16 base64 characters, e.g. "L0SM9cOFvHcCIhw=". */
const newConnectionId = () => crypto.randomBytes(11).toString('base64');

const IDLE_MS = 10 * 60_000;
const MAX_MS = 2 * 60 * 60_000;

/**
 * The WebSocket API (port `wsPort`) and its @connections management API (port `mgmtPort`), shaped
 * like API Gateway: $connect may refuse the upgrade with its statusCode, $default gets each frame,
 * $disconnect follows the close; idle (10 min) and maximum (2 h) durations are enforced.
 */
export async function startWebSocket(opts: {
  wsPort: number;
  mgmtPort: number;
  log: Log;
  loadModule?: () => Promise<WsModule>;
}) {
  const load = opts.loadModule ?? (() => moduleLoader<WsModule>(wsModuleFile)('ws'));
  const conns = new Map<string, Conn>();
  const wss = new WebSocketServer({ noServer: true, maxPayload: 128 * 1024 });
  const domainName = `127.0.0.1:${opts.wsPort}`;

  const baseContext = (c: Pick<Conn, 'id' | 'connectedAt' | 'sourceIp' | 'userAgent'>, routeKey: string, eventType: string) => {
    const now = new Date();
    return {
      routeKey,
      eventType,
      extendedRequestId: crypto.randomUUID(),
      requestTime: now.toUTCString(),
      messageDirection: 'IN',
      stage: '$default',
      connectedAt: c.connectedAt.getTime(),
      requestTimeEpoch: now.getTime(),
      identity: { sourceIp: c.sourceIp, userAgent: c.userAgent },
      requestId: crypto.randomUUID(),
      domainName,
      connectionId: c.id,
      apiId: 'local-ws',
    };
  };
  // Invocations still running when the stack stops are awaited, so none outlives the services.
  const inFlight = new Set<Promise<unknown>>();
  const invoke = (fn: keyof WsModule, event: { requestContext: { requestId: string; [k: string]: unknown }; [k: string]: unknown }) => {
    const p = (async () => {
      const mod = await load();
      if (typeof mod[fn] !== 'function') throw new Error(`functions/src/ws/index.ts exports no ${fn}()`);
      return invokeLocally(lambdaContext(`balcao-ws-${fn}`, event.requestContext.requestId), (ctx) => mod[fn](event, ctx));
    })();
    const tracked = p.catch(() => {}).finally(() => inFlight.delete(tracked));
    inFlight.add(tracked);
    return p;
  };

  const refuse = (socket: Duplex, status: number) => {
    socket.write(`HTTP/1.1 ${status} ${http.STATUS_CODES[status] ?? ''}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`);
    socket.destroy();
  };

  const wsServer = http.createServer((_req, res) => sendJson(res, 426, { message: 'Upgrade Required' }));
  wsServer.on('upgrade', async (req, socket, head) => {
    const url = new URL(req.url ?? '/', 'http://local');
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(req.headers)) if (v !== undefined) headers[k] = Array.isArray(v) ? v.join(',') : v;
    const query = Object.fromEntries(url.searchParams);
    const conn = {
      id: newConnectionId(),
      connectedAt: new Date(),
      sourceIp: (req.socket.remoteAddress ?? '127.0.0.1').replace(/^::ffff:/, ''),
      userAgent: headers['user-agent'] ?? '',
    };
    const event = {
      headers,
      multiValueHeaders: Object.fromEntries(Object.entries(headers).map(([k, v]) => [k, [v]])),
      ...(Object.keys(query).length
        ? {
            queryStringParameters: query,
            multiValueQueryStringParameters: Object.fromEntries([...new Set(url.searchParams.keys())].map((k) => [k, url.searchParams.getAll(k)])),
          }
        : {}),
      requestContext: baseContext(conn, '$connect', 'CONNECT'),
      isBase64Encoded: false,
    };
    let status = 200;
    try {
      const r = await invoke('connect', event);
      status = r && typeof r === 'object' && typeof r.statusCode === 'number' ? r.statusCode : 200;
    } catch (e) {
      opts.log('ws', `!!! $connect failed: ${(e as Error).stack ?? e}`);
      status = 500;
    }
    if (status < 200 || status > 299) {
      opts.log('ws', `$connect refused ${status}`);
      return refuse(socket, status);
    }
    wss.handleUpgrade(req, socket, head, (ws) => {
      const c: Conn = { ...conn, socket: ws, lastActiveAt: new Date(), headers };
      conns.set(c.id, c);
      opts.log('ws', `connected ${c.id}`);
      ws.on('message', async (data, isBinary) => {
        c.lastActiveAt = new Date();
        stats.clientMessages++;
        const ev = {
          requestContext: baseContext(c, '$default', 'MESSAGE'),
          body: isBinary ? Buffer.from(data as Buffer).toString('base64') : data.toString(),
          isBase64Encoded: isBinary,
        };
        try {
          await invoke('message', ev);
        } catch (e) {
          opts.log('ws', `!!! $default failed for ${c.id}: ${(e as Error).stack ?? e}`);
          if (ws.readyState === WebSocket.OPEN) {
            ws.send(JSON.stringify({ message: 'Internal server error', connectionId: c.id, requestId: ev.requestContext.requestId }));
          }
        }
      });
      ws.on('close', async (code, reason) => {
        conns.delete(c.id);
        opts.log('ws', `disconnected ${c.id} (${code})`);
        try {
          await invoke('disconnect', {
            headers,
            requestContext: { ...baseContext(c, '$disconnect', 'DISCONNECT'), disconnectStatusCode: code, disconnectReason: reason.toString() },
            isBase64Encoded: false,
          });
        } catch (e) {
          opts.log('ws', `!!! $disconnect failed for ${c.id}: ${(e as Error).stack ?? e}`);
        }
      });
    });
  });

  // What the benchmark reads (issue 23): posts the fan-out made, their bytes, and the client's own frames.
  const stats = { posts: 0, postBytes: 0, clientMessages: 0 };

  const sweep = setInterval(() => {
    const now = Date.now();
    for (const c of conns.values()) {
      if (now - c.lastActiveAt.getTime() > IDLE_MS || now - c.connectedAt.getTime() > MAX_MS) c.socket.close(1001, 'Going away');
    }
  }, 30_000);
  sweep.unref();

  const gone = (res: http.ServerResponse) =>
    sendJson(res, 410, { message: 'GoneException' }, { 'x-amzn-errortype': 'GoneException' });

  const mgmt = http.createServer(async (req, res) => {
    const url = new URL(req.url ?? '/', 'http://local');
    // Accept the bare path and a stage-prefixed one (/$default/@connections/{id}).
    const m = /^(?:\/[^/]+)?\/@connections\/([^/]+)$/.exec(url.pathname);
    if (!m) return sendJson(res, 404, { message: 'Not Found' });
    const id = decodeURIComponent(m[1]);
    const body = await readBody(req, 128 * 1024).catch(() => undefined);
    if (body === undefined) return sendJson(res, 413, { message: 'PayloadTooLargeException' }, { 'x-amzn-errortype': 'PayloadTooLargeException' });
    const c = conns.get(id);
    if (!c || c.socket.readyState !== WebSocket.OPEN) return gone(res);
    if (req.method === 'POST') {
      // API Gateway answers once it holds the message, not when the client has read it: a client
      // that reads slowly (a throttled or busy tab) must not hold up the fan-out's other posts.
      c.socket.send(body.toString('utf8'));
      stats.posts++;
      stats.postBytes += body.length;
      res.writeHead(200, { 'content-length': '0' });
      return res.end();
    }
    if (req.method === 'GET') {
      // Wire names are camelCase (the SDK maps them to ConnectedAt, Identity.SourceIp…).
      return sendJson(res, 200, {
        connectedAt: c.connectedAt.toISOString(),
        lastActiveAt: c.lastActiveAt.toISOString(),
        identity: { sourceIp: c.sourceIp, userAgent: c.userAgent },
      });
    }
    if (req.method === 'DELETE') {
      c.socket.close(1000);
      res.writeHead(204);
      return res.end();
    }
    return sendJson(res, 405, { message: 'Method Not Allowed' });
  });

  await listen(wsServer, opts.wsPort);
  await listen(mgmt, opts.mgmtPort);
  return {
    wsUrl: `ws://127.0.0.1:${opts.wsPort}`,
    callbackUrl: `http://127.0.0.1:${opts.mgmtPort}`,
    connections: () => [...conns.keys()],
    stats: () => ({ ...stats, open: conns.size }),
    stop: async () => {
      clearInterval(sweep);
      // Close sockets first so $disconnect runs while the rest of the stack is still up.
      const closing = [...conns.values()].map(
        (c) => new Promise<void>((resolve) => {
          c.socket.once('close', () => resolve());
          c.socket.close(1001, 'Going away');
          setTimeout(() => (c.socket.terminate(), resolve()), 2000).unref();
        }),
      );
      await Promise.all(closing);
      // $disconnect handlers (and their log lines) finish before the rest of the stack stops.
      await Promise.race([Promise.allSettled([...inFlight]), new Promise((r) => setTimeout(r, 5000).unref())]);
      await new Promise((r) => setImmediate(r));
      wss.close();
      await closeServer(wsServer);
      await closeServer(mgmt);
    },
  };
}
