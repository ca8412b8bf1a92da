import http from 'node:http';

export interface HealthReport {
  ok: boolean;
  taskId: string;
  shards: number[];
  sessions: number;
}

/**
 * `GET /health`: 200 with what the task runs, 503 while it stops (the load balancer drains it). On
 * every interface in a container (the load balancer's check); the one-machine stack binds loopback.
 */
export async function startHealthServer(port: number, report: () => HealthReport, host = '0.0.0.0'): Promise<{ port: number; close(): Promise<void> }> {
  const server = http.createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    if (req.method !== 'GET' || path !== '/health') {
      res.writeHead(404, { 'content-type': 'application/json' }).end('{"message":"Not Found"}');
      return;
    }
    const body = report();
    res.writeHead(body.ok ? 200 : 503, { 'content-type': 'application/json', 'cache-control': 'no-store' }).end(JSON.stringify(body));
  });
  // Health checks must not keep a stopping process alive through keep-alive sockets.
  server.keepAliveTimeout = 1000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  const address = server.address();
  return {
    port: typeof address === 'object' && address ? address.port : port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
