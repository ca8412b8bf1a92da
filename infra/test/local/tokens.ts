import crypto from 'node:crypto';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
/** cognito-local signs with a fixed key pair it ships; tests use it to forge edge-case tokens. */
const cognitoKey = crypto.createPrivateKey({ key: require('cognito-local/lib/keys/cognitoLocal.private.json').jwk, format: 'jwk' });

export function signToken(claims: Record<string, unknown>, opts: { key?: crypto.KeyObject; kid?: string; alg?: string } = {}) {
  const header = { alg: opts.alg ?? 'RS256', typ: 'JWT', kid: opts.kid ?? 'CognitoLocal' };
  const enc = (o: unknown) => Buffer.from(JSON.stringify(o)).toString('base64url');
  const input = `${enc(header)}.${enc(claims)}`;
  const sig = crypto.sign('RSA-SHA256', Buffer.from(input), opts.key ?? cognitoKey).toString('base64url');
  return `${input}.${sig}`;
}

export const foreignKey = () => crypto.generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey;
