import type http from 'node:http';

export type Log = (part: string, line: string) => void;

export class BodyTooLarge extends Error {}

/** Reads a request body fully, refusing more than `limit` bytes. */
export function readBody(req: http.IncomingMessage, limit = 10 * 1024 * 1024): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const declared = Number(req.headers['content-length'] ?? 0);
    if (declared > limit) {
      req.resume();
      reject(new BodyTooLarge());
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size > limit) {
        req.destroy();
        reject(new BodyTooLarge());
        return;
      }
      chunks.push(c);
    });
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

export function sendJson(res: http.ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), ...headers });
  res.end(text);
}

/** Closes an http server, dropping keep-alive sockets so `close` does not hang. */
export function closeServer(server: http.Server | undefined) {
  if (!server) return Promise.resolve();
  return new Promise<void>((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections?.();
  });
}

export function listen(server: http.Server, port: number) {
  return new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
}

/** Lines from a child's stdout/stderr, one callback per line. */
export function onLines(stream: NodeJS.ReadableStream | null, cb: (line: string) => void) {
  if (!stream) return;
  let buf = '';
  stream.setEncoding('utf8');
  stream.on('data', (d: string) => {
    buf += d;
    let i;
    while ((i = buf.indexOf('\n')) >= 0) {
      const line = buf.slice(0, i).replace(/\r$/, '');
      buf = buf.slice(i + 1);
      if (line.trim()) cb(line);
    }
  });
  stream.on('end', () => buf.trim() && cb(buf));
}

/**
 * A log that notes when it last wrote. `settled(quietMs, maxMs)` resolves once nothing was logged
 * for `quietMs` (after `maxMs` at most): `npm start` prints its banner then, below the start-up
 * lines that come after the stack is up (the session host taking its shards, the first sweep).
 */
export function settlingLog(log: Log): { log: Log; settled: (quietMs: number, maxMs: number) => Promise<void> } {
  let last = Date.now();
  return {
    log: (part, line) => {
      last = Date.now();
      log(part, line);
    },
    settled: async (quietMs, maxMs) => {
      const deadline = Date.now() + maxMs;
      for (;;) {
        const wait = Math.min(last + quietMs, deadline) - Date.now();
        if (wait <= 0) return;
        await new Promise((r) => setTimeout(r, wait));
      }
    },
  };
}
