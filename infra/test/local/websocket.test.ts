import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ApiGatewayManagementApiClient,
  DeleteConnectionCommand,
  GetConnectionCommand,
  GoneException,
  PostToConnectionCommand,
} from '@aws-sdk/client-apigatewaymanagementapi';
import WebSocket from 'ws';
import { freePort } from '../../local/ports.js';
import { startWebSocket } from '../../local/websocket.js';
import { endpoints, stackEnv, wsRefusal } from '../support/index.js';
import * as handlers from './fixtures/ws-handlers.js';

const client = (endpoint: string) =>
  new ApiGatewayManagementApiClient({ endpoint, region: 'us-east-1', credentials: { accessKeyId: 'x', secretAccessKey: 'x' } });

describe('@connections on the stack', () => {
  it('answers an unknown connection with GoneException through the real SDK client', async () => {
    const env = stackEnv();
    const mgmt = client(env.WS_CALLBACK_URL);
    await expect(mgmt.send(new PostToConnectionCommand({ ConnectionId: 'Xa1bC2dE3fGhIj=', Data: Buffer.from('{}') }))).rejects.toBeInstanceOf(GoneException);
    await expect(mgmt.send(new GetConnectionCommand({ ConnectionId: 'Xa1bC2dE3fGhIj=' }))).rejects.toBeInstanceOf(GoneException);
    await expect(mgmt.send(new DeleteConnectionCommand({ ConnectionId: 'Xa1bC2dE3fGhIj=' }))).rejects.toBeInstanceOf(GoneException);
  });

  it('refuses $connect with 401 for a bad token', async () => {
    expect(await wsRefusal('not-a-token')).toBe(401);
    expect(endpoints().wsUrl).toMatch(/^ws:\/\/127\.0\.0\.1:\d+$/);
  });
});

describe('the WebSocket API shape', () => {
  let ws: Awaited<ReturnType<typeof startWebSocket>>;
  beforeAll(async () => {
    ws = await startWebSocket({ wsPort: await freePort(), mgmtPort: await freePort(), log: () => {}, loadModule: async () => handlers });
    handlers.setCallbackUrl(ws.callbackUrl);
  });
  afterAll(() => ws?.stop());

  const open = (token: string) =>
    new Promise<{ sock: WebSocket; frames: string[] }>((resolve, reject) => {
      const sock = new WebSocket(`${ws.wsUrl}/?token=${token}`, { headers: { 'user-agent': 'fixture-agent' } });
      const frames: string[] = [];
      sock.on('message', (d) => frames.push(String(d)));
      sock.once('open', () => resolve({ sock, frames }));
      sock.once('unexpected-response', (_q, r) => reject(new Error(String(r.statusCode))));
    });
  const until = async (cond: () => boolean, ms = 5000) => {
    const end = Date.now() + ms;
    while (!cond()) {
      if (Date.now() > end) throw new Error('timeout');
      await new Promise((r) => setTimeout(r, 20));
    }
  };

  it('refuses the upgrade with the $connect status, accepts otherwise with API Gateway-like events', async () => {
    await expect(open('bad')).rejects.toThrow('401');
    const { sock, frames } = await open('good');
    const connect = handlers.events.findLast((e) => e.requestContext.eventType === 'CONNECT');
    expect(connect.requestContext).toMatchObject({ routeKey: '$connect', eventType: 'CONNECT', stage: '$default', apiId: 'local-ws' });
    expect(connect.requestContext.connectionId).toMatch(/^[A-Za-z0-9+/]{15}=$/);
    expect(typeof connect.requestContext.connectedAt).toBe('number');
    expect(connect.queryStringParameters).toEqual({ token: 'good' });
    expect(connect.headers['user-agent']).toBe('fixture-agent');
    const id = connect.requestContext.connectionId as string;

    sock.send('{"action":"ping"}');
    await until(() => frames.length > 0);
    expect(frames[0]).toBe('echo:{"action":"ping"}');
    const msg = handlers.events.findLast((e) => e.requestContext.eventType === 'MESSAGE');
    expect(msg.requestContext).toMatchObject({ routeKey: '$default', connectionId: id });
    expect(msg.body).toBe('{"action":"ping"}');

    const mgmt = client(ws.callbackUrl);
    await mgmt.send(new PostToConnectionCommand({ ConnectionId: id, Data: Buffer.from('{"event":"x","data":1}') }));
    await until(() => frames.length > 1);
    expect(frames[1]).toBe('{"event":"x","data":1}');
    const info = await mgmt.send(new GetConnectionCommand({ ConnectionId: id }));
    expect(info.ConnectedAt).toBeInstanceOf(Date);
    expect(info.Identity?.SourceIp).toBe('127.0.0.1');

    const closed = new Promise<void>((r) => sock.once('close', () => r()));
    await mgmt.send(new DeleteConnectionCommand({ ConnectionId: id }));
    await closed;
    await until(() => handlers.events.some((e) => e.requestContext.eventType === 'DISCONNECT' && e.requestContext.connectionId === id));
    await expect(mgmt.send(new PostToConnectionCommand({ ConnectionId: id, Data: Buffer.from('x') }))).rejects.toBeInstanceOf(GoneException);
  });
});
