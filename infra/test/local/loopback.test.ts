import net from 'node:net';
import os from 'node:os';
import { describe, expect, it } from 'vitest';
import { endpoints, stackEnv } from '../support/index.js';

/** This machine's addresses other than loopback (the ones a neighbour on the network would use). */
const outsideAddresses = () =>
  Object.values(os.networkInterfaces())
    .flat()
    .filter((a): a is os.NetworkInterfaceInfo => !!a && !a.internal && a.family === 'IPv4')
    .map((a) => a.address);

const reachable = (host: string, port: number) =>
  new Promise<boolean>((resolve) => {
    const s = net.connect({ host, port, timeout: 2000 });
    s.once('connect', () => (s.destroy(), resolve(true)));
    s.once('timeout', () => (s.destroy(), resolve(false)));
    s.once('error', () => resolve(false));
  });

/**
 * Issue 16 §6: every service of the local stack listens on 127.0.0.1 only. DynamoDB Local listened on
 * every interface, so a Query from the machine's other address read a tenant's items.
 */
describe('the local stack binds to loopback only', () => {
  it('no service answers on the machine’s other addresses, every one answers on 127.0.0.1', async () => {
    const e = endpoints();
    const env = stackEnv();
    const services: Record<string, string> = {
      web: e.webUrl,
      api: e.apiUrl,
      websocket: e.wsUrl,
      'websocket management': env.WS_CALLBACK_URL!,
      sandbox: e.sandboxUrl,
      cognito: e.cognito.endpoint,
      'sqs/s3': env.SQS_ENDPOINT!,
      dynamodb: env.DYNAMODB_ENDPOINT!,
      ...(e.sessionHostUrl ? { 'session host': e.sessionHostUrl } : {}),
    };
    const addresses = outsideAddresses();
    // A machine without a network has nothing to expose; CI machines have one.
    expect(addresses.length, 'this machine has no address besides loopback to try').toBeGreaterThan(0);
    const exposed: string[] = [];
    for (const [name, url] of Object.entries(services)) {
      const port = Number(new URL(url).port);
      expect(await reachable('127.0.0.1', port), `${name} on 127.0.0.1:${port}`).toBe(true);
      for (const host of addresses) if (await reachable(host, port)) exposed.push(`${name} on ${host}:${port}`);
    }
    expect(exposed).toEqual([]);
  });
});
